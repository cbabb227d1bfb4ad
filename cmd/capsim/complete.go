package main

import (
	"slices"
	"strings"

	"capsim/calibration"
	"capsim/model"
	"capsim/scenarios"
	"github.com/spf13/cobra"
)

// Shell completion (capsim completion bash|zsh|fish|powershell) offers
// every value a flag or an argument takes from a fixed set: scenario
// names, a scenario's designs and parameters, calibrate's formats,
// families, rankings and units. The flags are found by name on every
// command, so a command that gains one gets its completion.
var flagCompletions = map[string]cobra.CompletionFunc{
	"design":  completeDesigns,
	"designs": completeDesignList,
	"params":  completeParams,
	"format":  fixedList(formatNames()...),
	"dist":    fixedList(calibration.Choosable...),
	"rank":    fixedList(string(calibration.RankAIC), string(calibration.RankKS)),
	"unit":    fixedList("ns", "us", "ms", "s", "m", "h"),
}

// registerCompletions adds the completions to c and every command under
// it: the flags above, and scenario names for a command's scenario
// arguments.
func registerCompletions(c *cobra.Command) {
	for name, complete := range flagCompletions {
		if c.Flags().Lookup(name) != nil {
			if _, ok := c.GetFlagCompletionFunc(name); !ok {
				c.RegisterFlagCompletionFunc(name, complete)
			}
		}
	}
	switch c.Name() {
	case "validate":
		c.ValidArgsFunction = completeScenarioArgs(true)
	case "run", "sweep", "sensitivity":
		c.ValidArgsFunction = completeScenarioArgs(false)
	case "show": // the embedded scenarios only: it prints one
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return withPrefix(scenarios.List(), toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

// completeScenarios completes a command's one scenario argument.
var completeScenarios = completeScenarioArgs(false)

func formatNames() []string {
	names := make([]string, len(calibration.Formats))
	for i, f := range calibration.Formats {
		names[i] = string(f)
	}
	return names
}

// withPrefix keeps the values that start with toComplete.
func withPrefix(values []string, toComplete string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, toComplete) {
			out = append(out, v)
		}
	}
	return out
}

func fixedList(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeScenarioArgs offers the embedded scenarios for the first
// argument (every argument with many), and files too: a scenario may be
// a path.
func completeScenarioArgs(many bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 && !many {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withPrefix(scenarios.List(), toComplete), cobra.ShellCompDirectiveDefault
	}
}

// scenarioDesigns are the designs of the scenario the command's first
// argument names (the default scenario without one).
func scenarioDesigns(args []string) ([]string, bool) {
	arg := ""
	if len(args) > 0 {
		arg = args[0]
	}
	l, err := loadScenario(arg, model.LoadOptions{})
	if err != nil {
		return nil, false
	}
	return l.Scenario.Designs.Names(), true
}

// completeItems offers each of items after the part of toComplete up to
// its last separator, one of seps: a+b joins designs, a,b lists them.
// It leaves out an item already in the list, or already joined in the
// entry being typed.
func completeItems(items []string, toComplete, seps string) []string {
	head := toComplete[:strings.LastIndexAny(toComplete, seps)+1]
	var given []string
	list, entry := "", head
	if i := strings.LastIndex(head, ","); i >= 0 {
		list, entry = head[:i], head[i+1:]
	}
	if list != "" {
		given = strings.Split(list, ",")
	}
	given = append(given, strings.Split(strings.TrimSuffix(entry, "+"), "+")...)
	var out []string
	for _, it := range items {
		if strings.HasPrefix(head+it, toComplete) && !slices.Contains(given, it) {
			out = append(out, head+it)
		}
	}
	return out
}

// completeDesigns completes --design: one of the scenario's designs, or
// several joined with +; sensitivity also takes base, the scenario as it
// is.
func completeDesigns(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	designs, ok := scenarioDesigns(args)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if cmd.Name() == "sensitivity" && !strings.Contains(toComplete, "+") {
		designs = append([]string{model.BaseDesign}, designs...)
	}
	return completeItems(designs, toComplete, "+"), cobra.ShellCompDirectiveNoFileComp
}

// completeDesignList completes sweep's --designs: a comma-separated list
// of designs, each one or several joined with +, or all.
func completeDesignList(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	designs, ok := scenarioDesigns(args)
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	items := designs
	if !strings.ContainsAny(toComplete, ",+") {
		items = append([]string{"all"}, designs...)
	}
	if !strings.HasSuffix(toComplete[:strings.LastIndexAny(toComplete, ",+")+1], "+") {
		items = append(items, model.BaseDesign) // alone, never joined: it overlays nothing
	}
	return completeItems(items, toComplete, ",+"), cobra.ShellCompDirectiveNoFileComp
}

// completeParams completes sensitivity's --params: all, or a
// comma-separated list of the parameters of the first --design (the base
// scenario without one).
func completeParams(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	arg := ""
	if len(args) > 0 {
		arg = args[0]
	}
	design := ""
	if ds, _ := cmd.Flags().GetStringArray("design"); len(ds) > 0 && ds[0] != model.BaseDesign {
		design = ds[0]
	}
	l, err := loadScenario(arg, model.LoadOptions{Design: design})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	if !strings.Contains(toComplete, ",") {
		names = append(names, "all")
	}
	for _, p := range l.Params() {
		names = append(names, p.Name)
	}
	return completeItems(names, toComplete, ","), cobra.ShellCompDirectiveNoFileComp
}
