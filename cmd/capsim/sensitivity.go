package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"capsim/model"
	"capsim/model/sensitivity"
	"capsim/model/sweep"
	"capsim/plots"
	"github.com/spf13/cobra"
)

const (
	defaultSensitivityOut = "capsim-sensitivity"
	// A perturbation of 10 % moves a first failure by about 10 % times its
	// elasticity; six bisection steps split a grid step of 1 into 64, so
	// the move shows above the search's resolution for elasticities down
	// to about 0.2 at a failure near 3x.
	defaultSensitivityRefine = 3
)

type sensitivityOptions struct {
	scenarioFlags
	Designs      []string
	Params       string
	List         bool
	Delta        string
	Replications int
	Multipliers  string
	Workers      int
	Refine       int
	UntilSure    bool
	MaxReps      int
	Out          string
	Quiet        bool
	Shard        string
	Round        int
	Merge        []string

	set map[string]bool
}

func newSensitivityCmd(io *IOStreams) *cobra.Command {
	opts := &sensitivityOptions{}
	cmd := takesScenario(&opts.Scenario, &cobra.Command{
		Use:   "sensitivity [SCENARIO] [--design D]... [--params LIST|all] [--list] [--delta 10%]",
		Short: "Find which parameters a design's first failure hinges on",
		Long: `Perturb the scenario's parameters one at a time and see how far each design's
first failure moves. The parameters come from the scenario: every named
distribution something uses and every time written in place (scaled by
1 ± delta, keeping the distribution's shape), every count (servers, permits,
instances, queues, repeats, attributes that are whole numbers: moved by
max(1, round(n × delta)) each way), branch weights and other numbers
(scaled). Each is labelled input, fitted or assumption when its comment
says so. --list prints them without running anything; --params restricts
the analysis to some (names or --set paths, comma-separated).

Every perturbation runs the first-failure search of capsim sweep with the
same seeds as the base (common random numbers), so the change measures the
parameter, not the dice. Per design and parameter it reports the first
failure lowered and raised, its change, and the elasticity: ln(first
failure raised / lowered) / ln(parameter raised / lowered), about the %
change of the first failure per % change of the parameter. A side is
beyond the noise when its first failure's interval does not overlap the
base's and it moved by more than the base's interval is wide (an end the
search left open, a ? in the table, counting as the first failure itself),
else within it; the parameters are ranked beyond the noise first, then by the larger
|change| of their first failure (the elasticity does not rank: a count
moved by one step may have none), the same order in the table, the CSV and
the chart. Defaults for
--multipliers and --replications come from the scenario's sweep: key.

--until-sure gives the base's and every perturbation's search more
replications, as capsim sweep --until-sure does: the cells whose verdict
is unclear and could still move the first failure or an end of its
interval, doubling at each look up to --max-replications, every verdict
then judged at 1 − 0.05/looks. The table's runs column and the CSV's
replications and stopped columns say how far each went: sure, or cap
(still unclear at --max-replications); without --until-sure, sure or
unsure at --replications.

The base and the perturbations run as one sweep, which splits over
machines as capsim sweep's does: every shard of round 0 (the grid), then
of round 1, and so on to round --refine, each with --shard I/N --round R
--out SHARDS (a round reads the earlier rounds' shards from SHARDS); then
--merge SHARDS writes the outputs, running nothing, the same bytes as a
run on one machine.

The output folder gets sensitivity.csv (one row per design, parameter and
side) and charts/tornado-DESIGN.svg and .png; every file appears whole or
not at all, and the bytes do not depend on --workers.`,
		Example: `  capsim sensitivity trip --design v1-improved --list
  capsim sensitivity trip --design v1-improved -r 3
  capsim sensitivity trip --design v1-improved --params heic_converter.servers,derivative_heic_photo --delta 5%`,
	}, func(cmd *cobra.Command, _ []string) error {
		opts.set = flagsGiven(cmd.Flags())
		return runSensitivity(cmd.Context(), io, opts)
	})
	f := cmd.Flags()
	f.StringArrayVarP(&opts.Designs, "design", "d", nil, "design to analyse (repeatable; default: the base scenario)")
	f.StringVar(&opts.Params, "params", "all", "parameters to perturb, comma-separated names or paths, or all")
	f.BoolVar(&opts.List, "list", false, "list the parameters and how they would be perturbed, and run nothing")
	f.StringVar(&opts.Delta, "delta", "10%", "relative perturbation, as 10% or 0.1")
	f.IntVarP(&opts.Replications, "replications", "r", defaultReplications, "runs per multiplier, with seeds SEED, SEED+1, ... in the base and every perturbation")
	f.StringVarP(&opts.Multipliers, "multipliers", "m", defaultMultipliers, "load multipliers of the search's grid: a list 1,2,4 or a range start:end:step")
	opts.addSeed(f, gridSeedUsage)
	f.IntVar(&opts.Workers, "workers", runtime.GOMAXPROCS(0), "runs in parallel (the output does not depend on it)")
	f.IntVar(&opts.Refine, "refine", defaultSensitivityRefine, "refinement rounds after the grid, each trying 3 multipliers in every open bracket (3 rounds: 1/64 of a grid step)")
	addUntilSureFlags(f, &opts.UntilSure, &opts.MaxReps)
	opts.addOverrides(f, " first")
	f.StringVarP(&opts.Out, "out", "o", defaultSensitivityOut, "output folder")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "write no progress on standard error")
	f.StringVar(&opts.Shard, "shard", "", "run only shard `I/N` of a round's runs and write their outcomes to --out, for a later round or --merge")
	f.IntVar(&opts.Round, "round", 0, "with --shard: the round to run (0 the grid, 1 to --refine refinement, then --until-sure's looks), reading the earlier rounds' shards from --out")
	f.StringArrayVar(&opts.Merge, "merge", nil, "merge the shards in `PATH` (a shard file, or a folder of them; repeatable) instead of running the analysis")
	cmd.RegisterFlagCompletionFunc("design", completeDesigns)
	return cmd
}

// parseDelta reads 10% or 0.1.
func parseDelta(s string) (float64, error) {
	t := strings.TrimSpace(s)
	div := 1.0
	if strings.HasSuffix(t, "%") {
		t, div = strings.TrimSuffix(t, "%"), 100
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) || v/div >= 1 {
		return 0, fmt.Errorf("--delta must be a fraction in (0, 1) or a percentage in (0%%, 100%%), such as 10%% or 0.1, got %q", s)
	}
	// Below the precision of a float64 near 1 a factor 1 ± delta is the
	// base itself, and every perturbation would run the base again.
	if d := v / div; 1+d == 1 || 1-d == 1 {
		return 0, fmt.Errorf("--delta %s moves no value: 1 + %g is 1 in floating point", strings.TrimSpace(s), d)
	}
	return v / div, nil
}

func runSensitivity(ctx context.Context, io *IOStreams, opts *sensitivityOptions) error {
	delta, err := parseDelta(opts.Delta)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := checkGridFlags(opts.Replications, opts.Workers, opts.Refine); err != nil {
		return err
	}
	doc, overrides, err := opts.open()
	if err != nil {
		return err
	}
	base, err := loadDesign(doc, model.LoadOptions{Overrides: overrides})
	if err != nil {
		return scenarioErr(err)
	}
	sc := base.Scenario
	designs := opts.Designs
	if len(designs) == 0 {
		designs = []string{model.BaseDesign}
	}
	type planned struct {
		name, design string
		params       []model.Param
	}
	var plans []planned
	seen := map[string]bool{}
	for _, name := range designs {
		if seen[name] {
			return usageErr("--design %s is given twice", name)
		}
		seen[name] = true
		design := name
		if name == model.BaseDesign {
			design = ""
		}
		l, err := loadDesign(doc, model.LoadOptions{Design: design, Overrides: overrides})
		if err != nil {
			return scenarioErr(err)
		}
		params, err := sensitivity.Select(l.Params(), opts.Params)
		if err != nil {
			if len(designs) > 1 {
				return usageErr("--params: design %s: %v", name, err)
			}
			return usageErr("--params: %v", err)
		}
		plans = append(plans, planned{name, design, params})
	}
	if opts.List {
		for i, p := range plans {
			if i > 0 {
				fmt.Fprintln(io.Out)
			}
			writeSensitivityList(io.Out, p.name, p.params, delta, io.width(), seeAll)
		}
		return nil
	}

	sd := sc.Sweep
	multipliers, source := opts.Multipliers, "--multipliers "+opts.Multipliers
	if !opts.set["multipliers"] && sd.Multipliers != "" {
		multipliers, source = sd.Multipliers, "sweep.multipliers in the scenario ("+sd.Multipliers+")"
	}
	grid, err := sweep.ParseMultipliers(multipliers)
	if err != nil {
		return usageErr("%s: %v", source, err)
	}
	reps := opts.Replications
	if !opts.set["replications"] && sd.Replications != nil {
		reps = *sd.Replications
	}
	if reps < 1 {
		return usageErr("--replications must be >= 1, got %d", reps)
	}
	until, err := untilSureCap(opts.UntilSure, opts.set["max-replications"], opts.MaxReps, reps)
	if err != nil {
		return err
	}

	cfg := sensitivity.Config{Scenario: sc.Name, Delta: delta, Multipliers: grid, Replications: reps,
		Seed: opts.Seed, Workers: opts.Workers, Refine: opts.Refine, Until: until}
	// extra is what decides the runs besides the sweep's designs, grid
	// and overrides: the delta, and every perturbation's override.
	extra := []string{"delta " + strconv.FormatFloat(delta, 'g', -1, 64)}
	for _, p := range plans {
		c, _, err := compileDesign(doc, model.LoadOptions{Design: p.design, Overrides: overrides})
		if err != nil {
			return err
		}
		extra = append(extra, "design "+p.name)
		d := sensitivity.Design{Name: p.name, Base: c, Perturbations: sensitivity.Plan(p.params, delta)}
		for _, pt := range d.Perturbations {
			// The perturbation's override applies after the command
			// line's of its kind: sets after sets, scales after scales.
			o, err := perturbationOverride(pt)
			if err != nil {
				return fmt.Errorf("design %s, %s %s: %w", p.name, pt.Param.Name, pt.To, err)
			}
			c, _, err := compileDesign(doc, model.LoadOptions{Design: p.design, Overrides: append(slices.Clone(overrides), o)})
			if err != nil {
				return fmt.Errorf("design %s, %s %s: %w", p.name, pt.Param.Name, pt.To, err)
			}
			d.Compiled = append(d.Compiled, c)
			extra = append(extra, fmt.Sprintf("%s %d set %s scale %s", pt.Param.Path, pt.Side, pt.Set, pt.Scale))
		}
		cfg.Designs = append(cfg.Designs, d)
	}
	sc0, err := cfg.Sweep()
	if err != nil {
		return withCode(exitError, err)
	}
	job := &shardJob{command: "sensitivity", scenario: sc.Name, config: sc0, doc: doc,
		sets: opts.Sets, scales: opts.Scales, extra: extra, baseSets: opts.BaseSets,
		shard: opts.Shard, round: opts.Round, roundSet: opts.set["round"], merge: opts.Merge, out: opts.Out, quiet: opts.Quiet}
	from, done, err := shardStep(ctx, io, job)
	if done || err != nil {
		return err
	}
	if from != nil {
		cfg.From = from.main
	}
	out, err := createOutDirOf(opts.Out, sensitivityNames, "sensitivity")
	if err != nil {
		return err
	}
	defer out.Abort() // a no-op once committed
	res, err := watch(io, "sensitivity", "sensitivity", sc.Name, sc0.Rounds(), opts.Quiet, &cfg.Progress,
		func() (*sensitivity.Result, error) { return sensitivity.Run(ctx, cfg) })
	if err != nil {
		return err
	}
	files, err := sensitivityFiles(res)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := out.writeAll(files); err != nil {
		return withCode(exitError, err)
	}
	writeSensitivityTable(io.Out, res, 0, io.width(), seeAll)
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	fmt.Fprintln(io.Out)
	io.note(fmt.Sprintf("wrote %s: %s", opts.Out, strings.Join(names, ", ")))
	return nil
}

// perturbationOverride is the override that makes pt, parsed.
func perturbationOverride(pt sensitivity.Perturbation) (model.Override, error) {
	var o model.Override
	var err error
	if pt.Set != "" {
		o, err = model.ParseSet(pt.Set)
	} else {
		o, err = model.ParseScale(pt.Scale)
	}
	if err != nil {
		return o, scenarioErr(err)
	}
	return o, nil
}

// tornadoSpan is the width of a row's bars: how far apart its two ends
// are, either end being the base when that side has no value.
func tornadoSpan(r plots.TornadoRow, base float64) float64 {
	lo, hi := r.Low, r.High
	if math.IsNaN(lo) {
		lo = base
	}
	if math.IsNaN(hi) {
		hi = base
	}
	return max(lo, hi, base) - min(lo, hi, base)
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// tornadoRows is how many parameters a tornado chart shows: beyond about
// fifteen the bars get too thin to read, and the CSV has the rest.
const tornadoRows = 15

// sensitivityFiles renders every output in memory, so that a failure
// leaves the folder as it was.
func sensitivityFiles(res *sensitivity.Result) ([]outFile, error) {
	var b bytes.Buffer
	if err := res.WriteCSV(&b); err != nil {
		return nil, err
	}
	files := []outFile{{"sensitivity.csv", b.Bytes()}}
	pct := strconv.FormatFloat(100*res.Delta, 'g', 4, 64) + "%"
	for _, o := range res.Designs {
		if !o.Base.Found || o.Base.BelowRange {
			continue // no point to perturb around
		}
		t := plots.Tornado{
			Title:    fmt.Sprintf("%s %s: first failure by parameter (±%s, counts by whole steps)", res.Scenario, o.Design, pct),
			XLabel:   "first-failure load multiplier",
			Base:     o.Base.Multiplier,
			LowName:  "parameter lowered",
			HighName: "parameter raised",
		}
		// A tornado is in the table's order, beyond the noise first, then
		// by the larger change; a parameter that moved nothing is left to
		// the CSV.
		var rows []plots.TornadoRow
		for _, k := range o.Rank() {
			row := plots.TornadoRow{Name: k.Param.Name, Low: math.NaN(), High: math.NaN()}
			for _, s := range []struct {
				r  *sensitivity.Row
				to *float64
			}{{k.Low, &row.Low}, {k.High, &row.High}} {
				if s.r != nil && s.r.FirstFailure.Found && !s.r.FirstFailure.BelowRange {
					*s.to = s.r.FirstFailure.Multiplier
				}
			}
			if tornadoSpan(row, t.Base) > 0 {
				rows = append(rows, row)
			}
		}
		t.Rows = rows[:min(len(rows), tornadoRows)]
		if len(t.Rows) == 0 {
			continue
		}
		name := "charts/tornado-" + unsafeFileChars.ReplaceAllString(o.Design, "_")
		h := min(2.5+0.55*float64(len(t.Rows)), 40)
		for _, format := range []string{plots.SVG, plots.PNG} {
			data, err := t.Render(format, 20, h)
			if errors.Is(err, plots.ErrNoData) {
				break
			}
			if err != nil {
				return nil, err
			}
			files = append(files, outFile{name + "." + format, data})
		}
	}
	return files, nil
}
