package main

import (
	"context"

	"capsim/model"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// scenarioFlags are what every command that runs a scenario takes to
// choose it and change it: the SCENARIO argument, the master seed and the
// command line's overrides. Each flag's name, default and help are written
// here once, so that the commands cannot drift apart.
type scenarioFlags struct {
	Scenario string
	Seed     uint64
	Sets     []string
	BaseSets []string
	Scales   []string
}

// takesScenario makes cmd take one optional SCENARIO argument (completed
// from the embedded scenarios) into *scenario before it runs.
func takesScenario(scenario *string, cmd *cobra.Command, run func(cmd *cobra.Command, args []string) error) *cobra.Command {
	cmd.Args = cobra.MaximumNArgs(1)
	cmd.ValidArgsFunction = completeScenarios
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			*scenario = args[0]
		}
		return run(cmd, args)
	}
	return cmd
}

// scenarioOptions are a command's options held by pointer, P to O, with
// the SCENARIO argument among them.
type scenarioOptions[O any] interface {
	*O
	scenarioArg() *string
}

func (s *scenarioFlags) scenarioArg() *string { return &s.Scenario }

// scenarioCommand completes cmd, whose usage line is use, for a command
// that needs nothing of the command line but its options when it runs: it
// makes fresh options, takes the optional SCENARIO argument into them and
// hands them to run. The options come back for the command's flags to bind.
func scenarioCommand[O any, P scenarioOptions[O]](io *IOStreams, use string, run func(context.Context, *IOStreams, P) error, cmd *cobra.Command) (*cobra.Command, P) {
	opts := P(new(O))
	cmd.Use = use
	return takesScenario(opts.scenarioArg(), cmd, func(cmd *cobra.Command, _ []string) error {
		return run(cmd.Context(), io, opts)
	}), opts
}

// addSeed registers --seed; usage says what the seed seeds, which depends
// on how the command replicates its runs.
func (s *scenarioFlags) addSeed(f *pflag.FlagSet, usage string) {
	f.Uint64Var(&s.Seed, "seed", 1, usage)
}

// replicationSeedUsage is --seed's help on a command that replicates its
// runs on consecutive seeds.
const replicationSeedUsage = "master seed of the first replication (the others take the next seeds)"

// gridSeedUsage is --seed's help on a command that searches a grid of
// multipliers, whose replications' seeds its --replications help gives.
const gridSeedUsage = "seed of the first replication"

// flagsGiven is the names of the flags given on the command line, so that
// a scenario's defaults fill only the others.
func flagsGiven(f *pflag.FlagSet) map[string]bool {
	set := map[string]bool{}
	f.Visit(func(flag *pflag.Flag) { set[flag.Name] = true })
	return set
}

// addOverrides registers --set, --base-set and --scale. when tells when the
// changes apply, where that is not simply on the scenario: " first" (before
// a command's own changes), or "" for none.
func (s *scenarioFlags) addOverrides(f *pflag.FlagSet, when string) {
	s.addSetAndScale(f, when)
	f.StringArrayVar(&s.BaseSets, "base-set", nil, baseSetUsage)
}

// addSetAndScale registers --set and --scale alone, for a command that
// runs one design and so has no base for --base-set to set apart.
func (s *scenarioFlags) addSetAndScale(f *pflag.FlagSet, when string) {
	f.StringArrayVar(&s.Sets, "set", nil, setUsage(when))
	f.StringArrayVar(&s.Scales, "scale", nil, "multiply a distribution, duration or number"+when+", path=factor (repeatable), e.g. distributions.service=1.1")
}

// setUsage is the help of --set, the same on every command but for when the
// change applies (see addOverrides).
func setUsage(when string) string {
	return "override a scenario value" + when + ", path=value (repeatable), e.g. components.api.servers=16"
}

// baseSetUsage is the help of --base-set, the same on every command.
const baseSetUsage = "override a value of the base scenario before any design, path=value (repeatable): every design inherits it unless it changes the value, as capsim fit's region is given"

// open parses the scenario argument and the overrides, each once; every
// failure is a usage error (exit 2).
func (s *scenarioFlags) open() (*model.Document, []model.Override, error) {
	return openScenario(s.Scenario, s.Sets, s.Scales, s.BaseSets)
}

// designFlags are the scenario of a command that runs one design at one
// load multiplier (run, check), with --design and --multiplier.
type designFlags struct {
	scenarioFlags
	Design     string
	Multiplier float64
}

// addDesign registers --design and --multiplier on cmd; multiplierUsage
// says what the load is (the command's own, or a recording's).
func (d *designFlags) addDesign(cmd *cobra.Command, multiplierUsage string) {
	f := cmd.Flags()
	f.StringVarP(&d.Design, "design", "d", "", "design to overlay on the base scenario (see: capsim scenarios show NAME)")
	f.Float64VarP(&d.Multiplier, "multiplier", "m", 1, multiplierUsage)
	cmd.RegisterFlagCompletionFunc("design", completeDesigns)
}

// checkMultiplier refuses a multiplier no load can have, before anything
// is read.
func (d *designFlags) checkMultiplier() error {
	if err := model.CheckMultiplierRange(d.Multiplier); err != nil {
		return usageErr("--multiplier: %v", err)
	}
	return nil
}

// compile opens the scenario with its overrides, compiles the design and
// checks the multiplier against it; every failure is a usage error.
func (d *designFlags) compile() (*model.Compiled, *model.Loaded, error) {
	doc, overrides, err := d.open()
	if err != nil {
		return nil, nil, err
	}
	c, l, err := compileDesign(doc, model.LoadOptions{Design: d.Design, Overrides: overrides})
	if err != nil {
		return nil, nil, err
	}
	if err := l.CheckMultiplier(d.Multiplier); err != nil {
		return nil, nil, usageErr("--multiplier: %v", err)
	}
	return c, l, nil
}
