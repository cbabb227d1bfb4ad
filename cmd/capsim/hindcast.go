package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"capsim/model"
	"capsim/model/hindcast"
	"capsim/model/sweep"
	"capsim/plots"
	"capsim/plots/sweepreport"
	"capsim/plots/texttab"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type hindcastOptions struct {
	scenarioFlags
	Replications int
	Only         []string
	JSON         bool
	Markdown     bool
	Quiet        bool
	// UntilSure, MaxReps and Workers are hindcast's own: fit judges its
	// points at fixed replications.
	UntilSure bool
	MaxReps   int
	capSet    bool
	Workers   int
}

func newHindcastCmd(io *IOStreams) *cobra.Command {
	opts := &hindcastOptions{}
	cmd := takesScenario(&opts.Scenario, &cobra.Command{
		Use:   "hindcast [SCENARIO]",
		Short: "Hold the model to what was measured on the real system",
		Long: `Run every observation of the scenario (its observations: section: what was
measured on the real system, under which design and load) with replications
on common random numbers, and judge each by a stated rule:

  count: k/n          "Fisher p": two-sided Fisher exact test of k of n
                      observed against the K of N counted over the model's
                      runs; agrees at p >= 0.05
  value, tolerance    "band vs runs": agrees when value ± tolerance meets
                      the band 95 % of single simulated runs fall in (a
                      measurement is one run, not a mean of many)
  between: [lo, hi]   "range vs runs": the same for a reported range

A verdict is sure when it holds for every value the runs' sampling error
allows: for a count, the model rate's interval lies wholly inside the
observed count's Wilson interval or wholly outside it; for a value, the
band of single runs meets the observed range, or misses it, for every mean
and spread in their t and chi-square intervals. --until-sure doubles an
observation's runs while its verdict is not sure, up to --max-replications,
and judges sureness at 95 % shared over the looks, as sweep --until-sure
does; each line then says sure, or cap, and the runs it took.

The first line says how many observations the model agrees with. Each line
then gives the observed and the simulated value, the implausibility
|observed - simulated| / sqrt(observation variance + simulation variance +
model discrepancy) that capsim fit scores by, and the verdict. An observation
labelled exception: is run and shown but not counted; one labelled fitted:
was used to choose a parameter and is no prediction.

Exit 0 when every counted observation agrees, 3 when one disagrees, 2 for
bad input.`,
		Example: `  capsim hindcast trip
  capsim hindcast trip -r 40 --only 000-116,000-120
  capsim hindcast trip --until-sure --max-replications 160
  capsim hindcast my-system.yaml --set components.app.servers=8 --json`,
	}, func(cmd *cobra.Command, _ []string) error {
		opts.capSet = cmd.Flags().Changed("max-replications")
		return runHindcast(cmd.Context(), io, opts)
	})
	f := cmd.Flags()
	observedFlags(f, opts, 20, "simulated runs per observation", replicationSeedUsage, "judge")
	f.BoolVar(&opts.JSON, "json", false, "print the judged observations as JSON")
	f.BoolVar(&opts.Markdown, "markdown", false, "print the judged observations as a markdown table of claims, for a page")
	f.BoolVar(&opts.UntilSure, "until-sure", false, "add runs, doubling at each look, to the observations whose verdict is not sure, until it is or --max-replications is reached; sureness is then judged at 1 − 0.05/looks")
	f.IntVar(&opts.MaxReps, "max-replications", defaultMaxReps, "with --until-sure: the most runs an observation gets")
	f.IntVar(&opts.Workers, "workers", runtime.GOMAXPROCS(0), "runs in parallel (the output does not depend on it)")
	return cmd
}

// observedFlags are the flags hindcast and fit share: which observations,
// how many runs, and the overrides the scenario is run with.
func observedFlags(f *pflag.FlagSet, opts *hindcastOptions, reps int, repsUsage, seedUsage, verb string) {
	f.IntVarP(&opts.Replications, "replications", "r", reps, repsUsage)
	opts.addSeed(f, seedUsage)
	f.StringSliceVar(&opts.Only, "only", nil, verb+" only these observation `IDS` (comma-separated)")
	opts.addOverrides(f, " for every observation, after its design")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
}

// variants builds each observation's scenario from the document: the
// caller's base settings (a fit's point) on the base before the design,
// then the observation's own settings (its test's conditions), then the
// command line's overrides, --base-set ones applied with the base.
func variants(doc *model.Document, overrides []model.Override) hindcast.Variant {
	return func(design string, base, own []string) (*model.Loaded, *model.Compiled, error) {
		extra, err := parseOverrides(base, own, nil)
		if err != nil {
			return nil, nil, err
		}
		c, l, err := compileDesign(doc, model.LoadOptions{Design: design, Overrides: append(extra, overrides...)})
		return l, c, err
	}
}

// openObserved parses the scenario and the command line's overrides once,
// and loads the base with them, for its observations.
func openObserved(opts *hindcastOptions) (*model.Document, []model.Override, *model.Loaded, error) {
	doc, overrides, err := opts.open()
	if err != nil {
		return nil, nil, nil, err
	}
	base, err := loadDesign(doc, model.LoadOptions{Overrides: overrides})
	if err != nil {
		return nil, nil, nil, scenarioErr(err)
	}
	if _, err := base.Observations(); err != nil {
		return nil, nil, nil, scenarioErr(err)
	}
	return doc, overrides, base, nil
}

func runHindcast(ctx context.Context, io *IOStreams, opts *hindcastOptions) error {
	if opts.Replications < 2 || opts.Replications > hindcast.MaxReplications {
		return usageErr("--replications must be between 2 and %d, got %d", hindcast.MaxReplications, opts.Replications)
	}
	until, err := untilSureCap(opts.UntilSure, opts.capSet, opts.MaxReps, opts.Replications)
	if err != nil {
		return err
	}
	if opts.Workers < 1 || opts.Workers > sweep.MaxWorkers {
		return usageErr("--workers must be between 1 and %d, got %d", sweep.MaxWorkers, opts.Workers)
	}
	doc, overrides, base, err := openObserved(opts)
	if err != nil {
		return err
	}
	cfg := hindcast.Config{Base: base, Load: variants(doc, overrides), Only: opts.Only,
		Replications: opts.Replications, Until: until, Seed: opts.Seed, Workers: opts.Workers}
	cfg.Progress = func(int, int) {}
	rep, err := watchCount(io, "hindcast", base.Scenario.Name, "runs", opts.Quiet, &cfg.Progress, func() (*hindcast.Report, error) {
		return hindcast.Run(ctx, cfg)
	})
	if err != nil {
		return inputAsUsage(err)
	}
	switch {
	case opts.JSON && opts.Markdown:
		return usageErr("--json and --markdown: choose one")
	case opts.JSON:
		if err := writeHindcastJSON(io, rep); err != nil {
			return err
		}
	case opts.Markdown:
		writeHindcastMarkdown(io, rep)
	default:
		writeHindcast(io, rep)
	}
	if d := rep.Disagreeing(); len(d) > 0 {
		return withCode(exitMismatch, fmt.Errorf("the model disagrees with %s", plural(len(d), "observation")+": "+strings.Join(d, ", ")))
	}
	return nil
}

// inputAsUsage gives a failure of the observations' runs exit 2 when it
// lies in the scenario or its observations: the fix is in the input.
func inputAsUsage(err error) error {
	var coded *codedError
	if errors.As(err, &coded) && coded.code == exitError && isInputError(coded.err) {
		return withCode(exitUsage, coded.err)
	}
	return err
}

// isInputError tells a problem with the scenario or its observations
// (exit 2) from one running it.
func isInputError(err error) bool {
	var list model.ErrorList
	var one *model.Error
	return errors.As(err, &list) || errors.As(err, &one) || errors.Is(err, hindcast.ErrNoObservations) ||
		errors.Is(err, hindcast.ErrUnknownObservation) || errors.Is(err, hindcast.ErrListedTwice) ||
		errors.Is(err, hindcast.ErrOnlyExceptions)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

var hindcastCols = []texttab.Column{{Name: ""}, {Name: "id", Min: 6}, {Name: "load", Align: texttab.Right},
	{Name: "design", Min: 8, Max: 24, Drop: 2}, {Name: "measure", Min: 12, Max: 36, KeepEnd: true}, {Name: "observed", Align: texttab.Right},
	{Name: "simulated (95 %)", Align: texttab.Right}, {Name: "I", Align: texttab.Right, Drop: 3, Note: "I (implausibility)"},
	{Name: "rule", Drop: 1}}

// hindcastSureCols are the columns --until-sure adds after the rule:
// how many runs each observation took, and why it stopped there.
var hindcastSureCols = []texttab.Column{{Name: "runs", Align: texttab.Right}, {Name: "stop"}}

// hindcastRunsLine says how many runs the observations got: a fixed
// count, or with --until-sure the schedule, its level and the runs made.
func hindcastRunsLine(rep *hindcast.Report) string {
	if rep.Until <= rep.Replications {
		return fmt.Sprintf("%d runs per observation, seeds %d-%d", rep.Replications, rep.Seed, rep.Seed+uint64(rep.Replications)-1)
	}
	sure, capped := 0, 0
	for i := range rep.Items {
		switch rep.Items[i].Stop {
		case sweep.Sure:
			sure++
		case sweep.Capped:
			capped++
		}
	}
	return fmt.Sprintf("%d runs per observation, doubled while a verdict is not sure up to %d, seeds %d onwards; "+
		"sureness at %s %% over %d looks: %d sure, %d at the cap; %s runs in all",
		rep.Replications, rep.Until, rep.Seed, sweep.FormatLevel(rep.Level), rep.Looks, sure, capped, plots.Number(float64(rep.Runs)))
}

func writeHindcast(io *IOStreams, rep *hindcast.Report) {
	w := io.width()
	texttab.WriteLines(io.Out, texttab.Hang("", "hindcast "+rep.Scenario+": "+rep.Summary(), "  ", w))
	texttab.WriteLines(io.Out, texttab.Hang("", hindcastRunsLine(rep), "  ", w))
	fmt.Fprintln(io.Out)
	untilSure := rep.Until > rep.Replications
	cols := hindcastCols
	if untilSure {
		cols = append(slices.Clip(cols), hindcastSureCols...)
	}
	t := texttab.Table{Cols: cols}
	for i := range rep.Items {
		it := &rep.Items[i]
		mark := "ok"
		switch {
		case it.Obs.Exception != "":
			mark = "ex"
		case !it.Agrees:
			mark = "NO"
		}
		design := it.Obs.Design
		if design == "" {
			design = "base"
		}
		cells := []string{mark, it.Obs.ID, plots.Number(it.Obs.Load()) + "x", design, measureLabel(&it.Obs), observedText(it),
			simulatedText(it), implausibilityText(it.Implausibility), it.Rule}
		if untilSure {
			cells = append(cells, strconv.Itoa(it.Runs), string(it.Stop))
		}
		t.Row(cells...)
	}
	t.Write(io.Out, w, seeAll)
	var notes []string
	for i := range rep.Items {
		it := &rep.Items[i]
		switch {
		case it.Obs.Exception != "":
			notes = append(notes, it.Obs.ID+" (exception): "+it.Obs.Exception)
		case it.Obs.Fitted != "":
			notes = append(notes, it.Obs.ID+" (fitted, no prediction): "+it.Obs.Fitted)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(io.Out)
		for _, n := range notes {
			texttab.WriteLines(io.Out, texttab.Hang("", n, "  ", w))
		}
	}
}

func measureLabel(o *model.Observation) string {
	_, name := o.Subject()
	s := name + " " + o.Measure
	if o.Stage != "" {
		s += " " + o.Stage
	}
	return s
}

func observedText(it *hindcast.Judged) string {
	o := &it.Obs
	u := o.MeasureOf().Unit
	switch {
	case o.Count != nil:
		return fmt.Sprintf("%d/%d", o.Count.K, o.Count.N)
	case o.Between != nil:
		return sweepreport.Quantity(u, o.Between[0].V) + "–" + sweepreport.Quantity(u, o.Between[1].V)
	case o.Tolerance != nil:
		return sweepreport.Quantity(u, o.Value.V) + " ±" + o.Tolerance.Text
	}
	return sweepreport.Quantity(u, o.Value.V)
}

func simulatedText(it *hindcast.Judged) string {
	u := it.Obs.MeasureOf().Unit
	if math.IsNaN(it.Simulated) {
		return "-"
	}
	s := sweepreport.Quantity(u, it.Simulated)
	if !math.IsNaN(it.Lo) {
		s += " (" + sweepreport.Quantity(u, max(0, it.Lo)) + "–" + sweepreport.Quantity(u, it.Hi) + ")"
	}
	return s
}

func implausibilityText(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.1f", v)
}

// hindcastJSON is the machine-readable hindcast: every number the table
// prints, unrounded.
type hindcastJSON struct {
	Scenario     string `json:"scenario"`
	Replications int    `json:"replications"`
	Seed         uint64 `json:"seed"`
	Agree        int    `json:"agree"`
	Counted      int    `json:"counted"`
	Exceptions   int    `json:"exceptions"`
	Summary      string `json:"summary"`
	// UntilSure is there with --until-sure only.
	UntilSure    *hindcastSureJSON `json:"until_sure,omitempty"`
	Observations []judgedJSON      `json:"observations"`
}

// hindcastSureJSON is --until-sure's schedule: the cap, the looks an
// observation could have, the level sureness was judged at, and every
// run made.
type hindcastSureJSON struct {
	MaxReplications int       `json:"max_replications"`
	Looks           int       `json:"looks"`
	Level           model.Num `json:"level"`
	Runs            int       `json:"runs"`
}

type judgedJSON struct {
	ID             string    `json:"id"`
	What           string    `json:"what,omitempty"`
	Design         string    `json:"design"`
	Multiplier     float64   `json:"multiplier"`
	Subject        string    `json:"subject"`
	Name           string    `json:"name"`
	Measure        string    `json:"measure"`
	Stage          string    `json:"stage,omitempty"`
	Unit           string    `json:"unit"`
	Role           string    `json:"role"`
	Observed       model.Num `json:"observed"`
	ObservedLow    model.Num `json:"observed_low"`
	ObservedHigh   model.Num `json:"observed_high"`
	ObservedK      *int64    `json:"observed_k,omitempty"`
	ObservedN      *int64    `json:"observed_n,omitempty"`
	Simulated      model.Num `json:"simulated"`
	SimulatedLow   model.Num `json:"simulated_low"`
	SimulatedHigh  model.Num `json:"simulated_high"`
	SimulatedK     *int64    `json:"simulated_k,omitempty"`
	SimulatedN     *int64    `json:"simulated_n,omitempty"`
	Runs           int       `json:"runs"`
	Measured       int       `json:"measured_runs"`
	Rule           string    `json:"rule"`
	P              model.Num `json:"p_value"`
	Implausibility model.Num `json:"implausibility"`
	Agrees         bool      `json:"agrees"`
	Stopped        string    `json:"stopped"`
	Why            string    `json:"why,omitempty"`
}

func writeHindcastJSON(io *IOStreams, rep *hindcast.Report) error {
	agree, counted, exc := rep.Counts()
	out := hindcastJSON{Scenario: rep.Scenario, Replications: rep.Replications, Seed: rep.Seed,
		Agree: agree, Counted: counted, Exceptions: exc, Summary: rep.Summary(), Observations: []judgedJSON{}}
	if rep.Until > rep.Replications {
		out.UntilSure = &hindcastSureJSON{MaxReplications: rep.Until, Looks: rep.Looks, Level: model.Num(rep.Level), Runs: rep.Runs}
	}
	for i := range rep.Items {
		it := &rep.Items[i]
		kind, name := it.Obs.Subject()
		j := judgedJSON{ID: it.Obs.ID, What: it.Obs.What, Design: it.Obs.Design, Multiplier: it.Obs.Load(),
			Subject: kind, Name: name, Measure: it.Obs.Measure, Stage: it.Obs.Stage, Unit: model.ObservedUnit(it.Obs.MeasureOf().Unit),
			Role: it.Role(), Observed: model.Num(it.Observed), ObservedLow: model.Num(it.ObsLo), ObservedHigh: model.Num(it.ObsHi),
			Simulated: model.Num(it.Simulated), SimulatedLow: model.Num(it.Lo), SimulatedHigh: model.Num(it.Hi),
			Runs: it.Runs, Measured: it.Measured, Rule: it.Rule, P: model.Num(it.P),
			Implausibility: model.Num(it.Implausibility), Agrees: it.Agrees, Stopped: string(it.Stop), Why: it.Obs.Exception + it.Obs.Fitted}
		if c := it.Obs.Count; c != nil {
			j.ObservedK, j.ObservedN = &c.K, &c.N
			j.SimulatedK, j.SimulatedN = &it.K, &it.N
		}
		out.Observations = append(out.Observations, j)
	}
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeHindcastMarkdown writes the claims table a page shows: every
// observation, what the model gives for it and the verdict, generated so
// that the page says what the model does.
func writeHindcastMarkdown(io *IOStreams, rep *hindcast.Report) {
	// A paragraph, wrapped as a page keeps its prose (100 columns).
	texttab.WriteLines(io.Out, texttab.Wrap("", upperFirst(rep.Summary())+" ("+hindcastRunsLine(rep)+").", 100))
	fmt.Fprintln(io.Out)
	fmt.Fprintln(io.Out, "| id | what was measured | under | observed | simulated (95 %) | verdict |")
	fmt.Fprintln(io.Out, "|---|---|---|---|---|---|")
	for i := range rep.Items {
		it := &rep.Items[i]
		design := it.Obs.Design
		if design == "" {
			design = "base"
		}
		verdict := "agrees"
		if !it.Agrees {
			verdict = "**disagrees**"
		}
		verdict += " (" + it.Rule + ")"
		switch {
		case it.Obs.Exception != "":
			verdict = "exception: " + verdict + "; " + it.Obs.Exception
		case it.Obs.Fitted != "":
			verdict += "; fitted: " + it.Obs.Fitted
		}
		fmt.Fprintf(io.Out, "| %s | %s | `%s` at %sx | %s | %s | %s |\n", it.Obs.ID, mdCell(it.Obs.What), design,
			plots.Number(it.Obs.Load()), observedText(it), simulatedText(it), mdCell(verdict))
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// mdCell keeps a table cell one cell: a | would start another.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
