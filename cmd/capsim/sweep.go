package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"capsim/model"
	"capsim/model/hindcast"
	"capsim/model/sweep"
	"capsim/plots/sweepreport"
	"capsim/scenarios"
	"capsim/sim"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"
)

// Built-in sweep defaults, used when neither a flag nor the scenario's
// sweep: key says otherwise.
const (
	defaultMultipliers  = "1:4:1"
	defaultReplications = 5
	defaultDesigns      = "all"
	defaultOut          = "capsim-out"
	defaultRefine       = 2
	defaultSection      = sweep.DefaultSection
	defaultMaxReps      = 320
)

type sweepOptions struct {
	scenarioFlags
	Designs      string
	Multipliers  string
	Replications int
	Workers      int
	Out          string
	Refine       int
	Section      int
	FailOnSLO    bool
	Shard        string
	Round        int
	Merge        []string
	Quiet        bool
	Uncertainty  bool
	Hinges       string
	UntilSure    bool
	MaxReps      int
	JSON         string
	Require      []string
	HindcastReps int
	PNG          bool

	// set records which flags were given, so that scenario defaults fill
	// only the others.
	set map[string]bool
	// cmdline is the command as parsed, for the manifest.
	cmdline []string
}

func newSweepCmd(io *IOStreams) *cobra.Command {
	opts := &sweepOptions{}
	cmd := takesScenario(&opts.Scenario, &cobra.Command{
		Use:   "sweep [SCENARIO]",
		Short: "Run designs × load multipliers × replications and find where each design first fails",
		Long: `Sweep a scenario (a YAML file or the name of an embedded scenario; default
"trip"): run every chosen design at every load multiplier, each replicated
with seeds SEED, SEED+1, ...; the same replication index sees the same
traffic in every design and at every multiplier (common random numbers), so
designs are compared pair by pair.

For each design it prints, per multiplier, the journeys started, the journey
success rate, the HTTP failure rate and the p95 duration, each as mean ± the
half-width of its 95 % confidence interval, with the verdict against the
scenario's SLOs; then the first-failure multiplier: the smallest multiplier
whose replication mean breaks an SLO, found on the grid and refined by
--refine rounds that each try --section multipliers inside every bracket
still open, with a 95 % interval, the SLO broken and the failure_stage and
component most journeys failed at. A line under a design's table names the
multipliers at which its runs were overloaded: a backlog at a component at
capacity that the drain let end, counted as succeeded or failed (a note
beside the verdicts, which count those journeys as they ended;
--set drain=0s counts them as unfinished).

A sweep splits over machines round by round: every shard of round 0 (the
grid), then of round 1, and so on to round --refine, each with
--shard I/N --round R --out SHARDS (a round reads the earlier rounds'
shards from SHARDS); then --merge SHARDS writes the outputs, running
nothing.

--uncertainty also sweeps the grid with every replication drawing its own
uncertain values (a fragment entry's uncertainty:, a {range: [a, b]} or
{triangular: [lo, mode, hi]} in place of a value), paired with the same
replication as written, and gives each first failure a second interval,
with parameter uncertainty (first_failure.csv's param_* columns).
--hinges FILE adds the report section "What the answer hinges on" from a
sensitivity.csv written by capsim sensitivity.

Defaults for --multipliers, --replications and --designs come from the
scenario's sweep: key, else 1:4:1, 5 and all.

--designs all is every design the scenario defines, in its order. It
leaves out base, the scenario without any design, unless the scenario
defines none: scenarios name their system as deployed among their designs,
and base would run it twice. Name it to compare with the bare scenario:
--designs base,v1-improved. A design a+b applies b over a, as
run --design a+b does, and is called a+b in every output.

The output folder gets runs.csv (one row per run and metric), summary.csv
(mean and 95 % CI per design, multiplier and metric), compare.csv (paired
differences with the first design), first_failure.csv, verdicts.csv (every
multiplier's verdict and what it rests on), manifest.json,
report.md and report.html with charts/ as SVG (and as PNG with --png,
which report.md then shows). The folder is replaced whole, once every
file is written: it is staged in a hidden folder
beside it, so a failed or killed sweep leaves the earlier one as it was,
and no file of an earlier sweep stays behind. A folder holding other files
is refused. A lock file beside it, .NAME.lock, keeps two sweeps from
writing one folder at once. The bytes do not depend on --workers.

--until-sure gives the cells whose verdict is unclear, and could still move
a first failure or an end of its interval, more replications, doubling
look by look up to --max-replications, until each verdict is clear; every
verdict is then judged at confidence 1 - 0.05/K over the K looks possible
(Bonferroni), so each look-and-stop keeps the 95 %.

When the scenario has observations, its hindcast runs beside the sweep
(--hindcast-replications per observation) and its one-line agreement is
printed and heads the report. --json FILE writes the answer as one JSON
document: per design the first failure with its interval, rank, SLO broken,
component and stage, and every cell's verdict. It goes outside the --out
folder, which the sweep replaces whole.

Exit codes: 0 the sweep ran; 2 bad flags or scenario; 3 with --require
DESIGN@MULT when that design's first failure is at or below MULT, or with
--fail-on-slo alone when any design breaks an SLO inside the range; 130
interrupted.`,
		Example: `  capsim sweep
  capsim sweep trip --designs v1-original,v1-improved --multipliers 1:6:0.5
  capsim sweep mmck --replications 10 --seed 7 --out results/mmck
  capsim sweep my-system.yaml --set components.api.servers=16 --fail-on-slo
  capsim sweep trip --until-sure --require v1-improved@3 --json summary.json`,
	}, func(cmd *cobra.Command, args []string) error {
		opts.set = flagsGiven(cmd.Flags())
		opts.cmdline = commandLine(cmd, args)
		return runSweep(cmd.Context(), io, opts)
	})
	sweepFlags(cmd.Flags(), opts)
	return cmd
}

// sweepFlags defines capsim sweep's flags on f, bound to opts: the
// command's and capsim serve's, which plans its runs as the command would.
func sweepFlags(f *pflag.FlagSet, opts *sweepOptions) {
	f.StringVar(&opts.Designs, "designs", defaultDesigns, "designs to sweep, comma-separated, each one design or several joined with + (a+b), or all: the scenario's designs (base, the scenario without a design, only when it defines none)")
	f.StringVarP(&opts.Multipliers, "multipliers", "m", defaultMultipliers, "load multipliers: a list 1,2,4 or a range start:end:step")
	f.IntVarP(&opts.Replications, "replications", "r", defaultReplications, "runs per design and multiplier, with seeds SEED, SEED+1, ...")
	opts.addSeed(f, gridSeedUsage)
	f.IntVar(&opts.Workers, "workers", runtime.GOMAXPROCS(0), "runs in parallel (the output does not depend on it)")
	opts.addOverrides(f, "")
	f.StringVarP(&opts.Out, "out", "o", defaultOut, "output folder")
	f.IntVar(&opts.Refine, "refine", defaultRefine, "refinement rounds after the grid, each trying --section multipliers in every open bracket")
	f.IntVar(&opts.Section, "section", defaultSection, "multipliers a refinement round tries inside each bracket")
	f.BoolVar(&opts.FailOnSLO, "fail-on-slo", false, "exit with code 3 when a design breaks an SLO inside the range")
	f.StringVar(&opts.Shard, "shard", "", "run only shard `I/N` of a round's runs and write their outcomes to --out, for a later round or --merge")
	f.IntVar(&opts.Round, "round", 0, "with --shard: the round to run (0 the grid, 1 to --refine refinement), reading the earlier rounds' shards from --out")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "write no progress on standard error")
	f.BoolVar(&opts.Uncertainty, "uncertainty", false, "also sweep with every replication drawing its own uncertain values (fits' standard errors, ranges), and give each first failure its interval with parameter uncertainty")
	f.StringVar(&opts.Hinges, "hinges", "", "add the report section \"what the answer hinges on\" from the sensitivity.csv at `FILE` (written by capsim sensitivity)")
	addUntilSureFlags(f, &opts.UntilSure, &opts.MaxReps)
	f.StringVar(&opts.JSON, "json", "", "also write the answer as JSON to `FILE` (-: standard output, instead of the tables): per design the first failure with its interval, rank, SLO broken, component and stage, and every cell's verdict")
	f.StringArrayVar(&opts.Require, "require", nil, "exit with code 3 only when `DESIGN@MULT`'s first failure is at or below MULT (repeatable); implies --fail-on-slo for the designs named")
	f.IntVar(&opts.HindcastReps, "hindcast-replications", defaultHindcastReps, "replications per observation of the hindcast run beside the sweep when the scenario has observations (0: none)")
	f.BoolVar(&opts.PNG, "png", false, "also draw every chart as charts/NAME.png, which report.md then shows instead of the SVG (report.html inlines the SVG either way)")
	f.StringArrayVar(&opts.Merge, "merge", nil, "merge the shards in `PATH` (a shard file, or a folder of them; repeatable) instead of running the grid")
}

// commandLine rebuilds the command from what cobra parsed, flags in name
// order, so the manifest says how to repeat the sweep. --workers, --out and
// --quiet are left out, and so are --shard, --round and --merge: they change
// neither a result nor a byte of the output, and the same sweep run with
// other values (or split over machines) writes the same files.
func commandLine(cmd *cobra.Command, args []string) []string {
	line := strings.Fields(cmd.CommandPath())
	line = append(line, args...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "workers" || f.Name == "out" || f.Name == "quiet" || f.Name == "shard" || f.Name == "round" || f.Name == "merge" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				line = append(line, "--"+f.Name+"="+v)
			}
			return
		}
		line = append(line, "--"+f.Name+"="+f.Value.String())
	})
	return line
}

// sweepPlan is the experiment once flags and scenario defaults are settled.
type sweepPlan struct {
	doc       *model.Document  // the scenario as parsed, which every design loads from
	file      string           // the manifest's name for its file, settled when it was read
	overrides []model.Override // --set and --scale, parsed
	scenario  *model.Loaded    // the base with the overrides, for the sweep's settings
	designs   []sweep.Design
	// drawn are the designs again, each with one program per replication
	// drawing its uncertain values (--uncertainty), each followed by the
	// design as written for every replication; nil without.
	drawn       []sweep.Design
	uncertain   []string // the paths drawn, in the first design's order and then new ones
	hinges      []sweepreport.Hinge
	multipliers []float64
	reps        int
	workers     int
	until       int // --until-sure's cap, 0 without
	require     []requirement
}

// maxSection bounds the multipliers a round runs inside each gap: far
// more than a search needs (3 quarter a gap per round).
const maxSection = 64

func runSweep(ctx context.Context, io *IOStreams, opts *sweepOptions) error {
	plan, err := planSweep(opts)
	if err != nil {
		return err
	}
	from, done, err := shardStep(ctx, io, sweepJob(plan, opts))
	if done || err != nil {
		return err
	}
	out, err := createOutDir(opts.Out)
	if err != nil {
		return err
	}
	defer out.Abort()
	runsFile, err := out.create("runs.csv")
	if err != nil {
		return withCode(exitError, err)
	}
	defer runsFile.Close()
	runs := bufio.NewWriterSize(runsFile, 1<<16)

	res, hc, err := sweepAnswer(ctx, io, plan, opts, from, runs)
	if err != nil {
		return err
	}
	files, err := sweepFiles(res, plan, opts, hc)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := runs.Flush(); err != nil {
		return withCode(exitError, out.writeErr("runs.csv", err))
	}
	if err := closeSynced(runsFile, func(err error) error { return out.writeErr("runs.csv", err) }); err != nil {
		return withCode(exitError, err)
	}
	if err := out.writeAll(files); err != nil {
		return withCode(exitError, err)
	}

	if opts.JSON != "-" {
		// With --json -, standard output is the JSON alone.
		sc := plan.scenario.Scenario
		sweepreport.WriteTables(io.Out, res, sc.Journeys.Names(), io.width(), seeAll)
		fmt.Fprintln(io.Out)
		if hc != nil {
			io.note(fmt.Sprintf("hindcast (%d replications per observation): %s", hc.Replications, hc.Summary))
		}
		io.note(fmt.Sprintf("wrote %s: runs.csv, summary.csv, first_failure.csv, report.md, report.html and more", opts.Out))
	}
	if opts.JSON != "" {
		if err := writeSweepJSON(io, opts.JSON, res, hc); err != nil {
			return err
		}
	}
	if err := sloVerdict(res, opts, plan.require); err != nil {
		return err
	}
	return nil
}

// sweepAnswer runs a planned sweep: its grid and refinement, with
// --uncertainty the drawn twin, and the hindcast beside it, reporting
// progress on io's standard error. from, when set, supplies every round
// from a split sweep's shards; runs, when set, receives runs.csv. capsim
// sweep and capsim serve both answer through it.
func sweepAnswer(ctx context.Context, io *IOStreams, plan *sweepPlan, opts *sweepOptions, from *merged, runs io.Writer) (*sweep.Result, *hindcastVerdict, error) {
	run := func(command string, cfg sweep.Config, shards func(*merged) *sweep.Shards) (*sweep.Result, error) {
		if from != nil {
			cfg.From = shards(from)
		}
		return watch(io, command, "sweep", plan.scenario.Scenario.Name, cfg.Rounds(), opts.Quiet, &cfg.Progress,
			func() (*sweep.Result, error) { return sweep.Run(ctx, cfg) })
	}
	cfg := gridConfig(plan, opts)
	cfg.Runs = runs
	waitHindcast := func() (*hindcastVerdict, error) {
		return from.hindcast, nil // judged by round 0's shard 0: a merge runs nothing
	}
	if from == nil {
		// The hindcast runs beside the sweep, filling the cores its
		// rounds' last runs leave idle.
		cfg.Budget = sweep.NewBudget(plan.workers)
		var stop func()
		waitHindcast, stop = hindcastBeside(ctx, io, plan, opts, cfg.Budget)
		defer stop()
	}
	res, err := run("sweep", cfg, func(m *merged) *sweep.Shards { return m.main })
	if err != nil {
		return nil, nil, err
	}
	if plan.drawn != nil {
		// The same grid and replications again, each replication with its
		// own parameters and, paired with it, as written, both refined
		// about every replication's own first failure: these runs feed the
		// intervals with parameter uncertainty alone, not runs.csv or the
		// tables.
		dcfg := drawnConfig(plan, opts)
		dcfg.Budget = cfg.Budget
		drawn, err := run("sweep --uncertainty", dcfg, func(m *merged) *sweep.Shards { return m.drawn })
		if err != nil {
			return nil, nil, err
		}
		res.TakeParamIntervals(drawn)
	}

	hc, err := waitHindcast()
	if err != nil {
		return nil, nil, err
	}
	return res, hc, nil
}

// gridConfig is the part of the sweep's configuration that decides its
// runs, shared by a single-machine sweep, a shard and the merge.
func gridConfig(plan *sweepPlan, opts *sweepOptions) sweep.Config {
	return sweep.Config{
		Scenario:     plan.scenario.Scenario.Name,
		Designs:      plan.designs,
		Multipliers:  plan.multipliers,
		Replications: plan.reps,
		Seed:         opts.Seed,
		Workers:      plan.workers,
		Refine:       opts.Refine,
		Section:      opts.Section,
		SeriesStep:   seriesStep(plan.scenario.Scenario.Duration.T),
		Until:        plan.until,
	}
}

// sweepJob is the sweep as --shard, --round and --merge see it.
func sweepJob(plan *sweepPlan, opts *sweepOptions) *shardJob {
	job := &shardJob{command: "sweep", scenario: plan.scenario.Scenario.Name, config: gridConfig(plan, opts),
		doc: plan.doc, sets: opts.Sets, scales: opts.Scales, baseSets: opts.BaseSets,
		shard: opts.Shard, round: opts.Round, roundSet: opts.set["round"], merge: opts.Merge, out: opts.Out, quiet: opts.Quiet}
	if plan.drawn != nil {
		dcfg := drawnConfig(plan, opts)
		job.drawn = &dcfg
	}
	if wantsHindcast(plan, opts) {
		job.hindcast = func(ctx context.Context, io *IOStreams) (*hindcastVerdict, error) {
			return sweepHindcast(ctx, io, plan, opts)
		}
	}
	return job
}

// drawnConfig is --uncertainty's second sweep: the same grid and
// replications, every replication with its own draw of the uncertain
// values, and no time series.
func drawnConfig(plan *sweepPlan, opts *sweepOptions) sweep.Config {
	cfg := gridConfig(plan, opts)
	cfg.Designs, cfg.SeriesStep = plan.drawn, 0
	return cfg
}

// planSweep settles every choice before anything runs, so a bad flag
// costs nothing and is reported with the flag's name.
func planSweep(opts *sweepOptions) (*sweepPlan, error) {
	doc, overrides, err := opts.open()
	if err != nil {
		return nil, err
	}
	// The name now, beside the bytes now: by the end of a long sweep the
	// argument may name something else (a file of that name made in the
	// folder, or the file gone), and the manifest must not fail then.
	file, embedded, err := resolveScenario(opts.Scenario)
	if err != nil {
		return nil, err
	}
	if embedded {
		file = scenarios.File(file) + " (embedded)"
	}
	l, err := loadDesign(doc, model.LoadOptions{Overrides: overrides})
	if err != nil {
		return nil, scenarioErr(err)
	}
	sd := l.Scenario.Sweep
	plan := &sweepPlan{doc: doc, file: file, overrides: overrides, scenario: l, reps: opts.Replications, workers: opts.Workers}

	multipliers, source := opts.Multipliers, "--multipliers "+opts.Multipliers
	if !opts.set["multipliers"] && sd.Multipliers != "" {
		multipliers, source = sd.Multipliers, "sweep.multipliers in the scenario ("+sd.Multipliers+")"
	}
	if plan.multipliers, err = sweep.ParseMultipliers(multipliers); err != nil {
		return nil, usageErr("%s: %v", source, err)
	}

	if !opts.set["replications"] && sd.Replications != nil {
		plan.reps = *sd.Replications
		if plan.reps < 1 {
			return nil, usageErr("sweep.replications in the scenario must be >= 1, got %d", plan.reps)
		}
	}
	if err := checkGridFlags(plan.reps, plan.workers, opts.Refine); err != nil {
		return nil, err
	}
	if opts.Section < 1 || opts.Section > maxSection {
		return nil, usageErr("--section must be between 1 and %d, got %d", maxSection, opts.Section)
	}
	if err := planUntilSure(plan, opts); err != nil {
		return nil, err
	}

	designs, source := opts.Designs, "--designs"
	if !opts.set["designs"] && sd.Designs != "" {
		designs, source = sd.Designs, "sweep.designs in the scenario"
	}
	names, err := model.ChooseDesigns(designs, l.Scenario.Designs.Names())
	if err != nil {
		return nil, usageErr("%s: %v", source, err)
	}
	compiled, err := compileDesigns(doc, names, overrides, plan.workers)
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		design, c, dl := compiled[i].design, compiled[i].c, compiled[i].l
		if err := dl.CheckMultiplier(plan.multipliers[len(plan.multipliers)-1]); err != nil {
			return nil, usageErr("design %s: %v", name, err)
		}
		plan.designs = append(plan.designs, sweep.Design{Name: name, Compiled: c})
		if opts.Uncertainty {
			drawn, err := drawDesign(opts.Seed, name, design, dl, plan)
			if err != nil {
				return nil, err
			}
			// Beside it, the design as written in every replication: the
			// other half of each replication's pair (see sweep.PointSuffix).
			same := sweep.Design{Name: name + sweep.PointSuffix}
			for range plan.reps {
				same.Draws = append(same.Draws, c)
			}
			plan.drawn = append(plan.drawn, drawn, same)
		}
	}
	if opts.Hinges != "" {
		f, err := openRegular(opts.Hinges)
		if err != nil {
			return nil, usageErr("--hinges %s: %v", opts.Hinges, unwrapPath(err))
		}
		plan.hinges, err = sweepreport.ReadSensitivityCSV(f, l.Scenario.Name)
		f.Close()
		if err != nil {
			return nil, usageErr("--hinges %s: %v", opts.Hinges, err)
		}
	}
	if plan.require, err = parseRequirements(opts.Require, names); err != nil {
		return nil, err
	}
	if err := checkJSONTarget(plan, opts); err != nil {
		return nil, err
	}
	if opts.HindcastReps != 0 && (opts.HindcastReps < 2 || opts.HindcastReps > hindcast.MaxReplications) {
		return nil, usageErr("--hindcast-replications must be 0 or between 2 and %d, got %d", hindcast.MaxReplications, opts.HindcastReps)
	}
	if opts.Uncertainty && len(plan.uncertain) == 0 {
		return nil, usageErr("--uncertainty: no design of the scenario declares an uncertain value: a fit's uncertainty: from capsim calibrate, or a {range: [low, high]} or {triangular: [low, mode, high]} in place of a value")
	}
	if runs := len(plan.designs) * len(plan.multipliers) * plan.reps; runs > sweep.MaxRuns {
		return nil, usageErr("designs × multipliers × replications = %d × %d × %d = %d grid runs; at most %d are allowed",
			len(plan.designs), len(plan.multipliers), plan.reps, runs, sweep.MaxRuns)
	}
	return plan, nil
}

// compiledDesign is one design of a sweep, loaded and compiled.
type compiledDesign struct {
	design string // the overlay's name, "" for the bare scenario
	c      *model.Compiled
	l      *model.Loaded
}

// compileDesigns loads and compiles the named designs on up to workers
// goroutines: the sweep's runs wait for all of them, and eight designs
// compiled one after another kept a core idle for the first tens of
// milliseconds. The error is the first design's in names' order, as a
// loop would have met it.
func compileDesigns(doc *model.Document, names []string, overrides []model.Override, workers int) ([]compiledDesign, error) {
	out := make([]compiledDesign, len(names))
	errs := make([]error, len(names))
	var g errgroup.Group
	g.SetLimit(max(workers, 1))
	for i, name := range names {
		design := name
		if name == model.BaseDesign {
			design = ""
		}
		g.Go(func() error {
			c, l, err := compileDesign(doc, model.LoadOptions{Design: design, Overrides: overrides})
			out[i], errs[i] = compiledDesign{design, c, l}, err
			return nil
		})
	}
	g.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// drawDesign compiles design once per replication, each with its draw of
// the uncertain values the design leaves (model.DrawOverrides under the
// replication's seed), after the command line's overrides.
func drawDesign(seed uint64, name, design string, dl *model.Loaded, plan *sweepPlan) (sweep.Design, error) {
	us := dl.Uncertain()
	for _, u := range us {
		if u.Draws() && !slices.Contains(plan.uncertain, u.Path) {
			plan.uncertain = append(plan.uncertain, u.Path)
		}
	}
	d := sweep.Design{Name: name}
	for r := range plan.reps {
		draw, err := model.DrawOverrides(us, seed+uint64(r))
		if err != nil {
			return sweep.Design{}, fmt.Errorf("design %s, replication %d's parameter draw: %w", name, r, scenarioErr(err))
		}
		overrides := append(slices.Clone(plan.overrides), draw...)
		c, _, err := compileDesign(plan.doc, model.LoadOptions{Design: design, Overrides: overrides})
		if err != nil {
			return sweep.Design{}, fmt.Errorf("design %s, replication %d's parameter draw: %w", name, r, err)
		}
		d.Draws = append(d.Draws, c)
	}
	return d, nil
}

// seriesStep samples the time-series run about 500 times over the arrival
// window, rounded to a whole number of milliseconds.
func seriesStep(duration sim.Time) sim.Time {
	step := duration / 500 / sim.Millisecond * sim.Millisecond
	return max(step, sim.Millisecond)
}

type outFile struct {
	name string // slash-separated, relative to the output folder
	data []byte
}

// sweepFiles renders every output but runs.csv, in memory, so that a
// failure leaves the folder as it was. The tables and the manifest are
// written while the report draws its charts: each alone left a core idle.
func sweepFiles(res *sweep.Result, plan *sweepPlan, opts *sweepOptions, hc *hindcastVerdict) ([]outFile, error) {
	var (
		files []outFile
		g     errgroup.Group
	)
	g.Go(func() error {
		tables := []struct {
			name  string
			write func(io.Writer) error
			skip  bool
		}{
			{"summary.csv", res.WriteSummaryCSV, false},
			{"compare.csv", res.WriteCompareCSV, len(res.Designs) < 2}, // nothing to compare
			{"first_failure.csv", res.WriteFirstFailureCSV, false},
			{"verdicts.csv", res.WriteVerdictsCSV, false},
		}
		for _, t := range tables {
			if t.skip {
				continue
			}
			var b bytes.Buffer
			if err := t.write(&b); err != nil {
				return err
			}
			files = append(files, outFile{t.name, b.Bytes()})
		}
		manifest, err := sweepManifest(res, plan, opts)
		if err != nil {
			return err
		}
		files = append(files, outFile{"manifest.json", manifest})
		return nil
	})
	sc := plan.scenario.Scenario
	report, err := sweepreport.Build(res, sweepreport.Options{Description: sc.Description, Journeys: sc.Journeys.Names(),
		CommandLine: opts.cmdline, Workers: plan.workers, Hinges: plan.hinges, Hindcast: hindcastLine(hc), Graphs: plan.graphs(), PNG: opts.PNG})
	if werr := g.Wait(); werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, err
	}
	for _, f := range report {
		files = append(files, outFile{f.Name, f.Data})
	}
	return files, nil
}

// checkGridFlags holds the flags every command that sweeps a grid takes
// (sweep, sensitivity) to the grid's bounds, as usage errors naming the
// flag: past them the grid itself would refuse, as an error of the run.
func checkGridFlags(reps, workers, refine int) error {
	if reps < 1 || reps > sweep.MaxReplications {
		return usageErr("--replications must be between 1 and %d, got %d", sweep.MaxReplications, reps)
	}
	if workers < 1 || workers > sweep.MaxWorkers {
		return usageErr("--workers must be between 1 and %d, got %d", sweep.MaxWorkers, workers)
	}
	if refine < 0 || refine > sweep.MaxRefine {
		return usageErr("--refine must be between 0 and %d, got %d", sweep.MaxRefine, refine)
	}
	return nil
}

// graphs are the swept designs' structures by name, for the diagram
// beside the verdict.
func (plan *sweepPlan) graphs() map[string]model.Graph {
	graphs := map[string]model.Graph{}
	for _, d := range plan.designs {
		graphs[d.Name] = d.Compiled.Graph()
	}
	return graphs
}

// manifestSchema is the version of manifest.json's layout and of the
// CSV columns it describes; it goes up when a field or column changes
// meaning or is removed, so a notebook can check what it reads.
// 2: kind/name/measure/stage columns, summary.csv's trials,
// first_failure.csv's status and split SLO, units, capsim_revision.
// 3: refine counts rounds of refinement, no longer bisection steps;
// section.
// 4: first_failure.csv's slo_measure is the metric's measure
// (journey_success_rate); an unknown end is 0 or inf with ci_*_known;
// slo_metric, rank, the measured value, verdict_level,
// multipliers_tried; verdicts.csv; verdict_level, max_replications.
const manifestSchema = 4

type manifest struct {
	SchemaVersion  int            `json:"schema_version"`
	CapsimVersion  string         `json:"capsim_version"`
	CapsimRevision string         `json:"capsim_revision"` // the VCS commit capsim was built from, "" when unknown`
	Scenario       string         `json:"scenario"`
	ScenarioFile   string         `json:"scenario_file"`
	ScenarioSHA256 string         `json:"scenario_sha256"`
	Included       []manifestFile `json:"included"`
	CommandLine    []string       `json:"command_line"`
	Sets           []string       `json:"sets"`
	Seed           uint64         `json:"seed"`
	Replications   int            `json:"replications"`
	Multipliers    []float64      `json:"multipliers"`
	Designs        []string       `json:"designs"`
	Refine         int            `json:"refine"`  // refinement rounds
	Section        int            `json:"section"` // multipliers per bracket and round
	// VerdictLevel is the confidence of every verdict; MaxReps the cap
	// of --until-sure, 0 without.
	VerdictLevel float64 `json:"verdict_level"`
	MaxReps      int     `json:"max_replications"`
	// Uncertain lists the values drawn per replication with --uncertainty.
	Uncertain []string `json:"uncertain,omitempty"`
	Files     []string `json:"files"`
	// Units says what the CSVs' numbers are in, by the metric name's
	// ending and for the columns that are not metrics.
	Units map[string]string `json:"units"`
}

// manifestUnits says what each unit's ending of a metric name means, from
// the model's units, and the unit of the columns that are not metrics.
func manifestUnits() map[string]string {
	units := map[string]string{
		"multiplier": "times the scenario's traffic (1 = as written)",
		"slo_bound":  "the SLO measure's own unit: seconds for times, fraction for rates",
	}
	for _, u := range model.Units() {
		units[u.Suffix()] = u.Words()
	}
	return units
}

// buildRevision is the VCS commit the binary was built from, with
// "+modified" when the tree had changes; "" when the build recorded none
// (go run, tests).
func buildRevision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" && modified {
		rev += "+modified"
	}
	return rev
}

// manifestFile is a file the scenario read besides itself: an include or
// an empirical distribution's data.
type manifestFile struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// sweepManifest records how to repeat the sweep, with the SHA-256 of the
// very bytes simulated, not of the files as they are on disk by now.
func sweepManifest(res *sweep.Result, plan *sweepPlan, opts *sweepOptions) ([]byte, error) {
	// Every file the designs were loaded and compiled from, as read.
	sources := plan.doc.Sources()
	hash := func(data []byte) string {
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:])
	}
	m := manifest{
		SchemaVersion:  manifestSchema,
		CapsimVersion:  Version,
		CapsimRevision: buildRevision(),
		Units:          manifestUnits(),
		Scenario:       res.Scenario,
		ScenarioFile:   plan.file,
		ScenarioSHA256: hash(sources[0].Data),
		Included:       []manifestFile{},
		CommandLine:    opts.cmdline,
		Sets:           append([]string{}, opts.Sets...),
		Seed:           res.Seed,
		Replications:   res.Replications,
		Multipliers:    res.Multipliers,
		Designs:        res.Designs,
		Refine:         opts.Refine,
		Section:        opts.Section,
		Uncertain:      plan.uncertain,
		Files:          []string{"runs.csv", "summary.csv", "first_failure.csv", "verdicts.csv", "report.md", "report.html"},
		VerdictLevel:   res.VerdictLevel(),
		MaxReps:        plan.until,
	}
	for _, src := range sources[1:] {
		m.Included = append(m.Included, manifestFile{File: src.Name, SHA256: hash(src.Data)})
	}
	if len(res.Designs) > 1 {
		m.Files = slices.Insert(m.Files, 2, "compare.csv")
	}
	out, err := json.MarshalIndent(m, "", "  ")
	return append(out, '\n'), err
}
