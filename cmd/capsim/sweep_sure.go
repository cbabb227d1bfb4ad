package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"capsim/model"
	"capsim/model/hindcast"
	"capsim/model/sweep"
	"github.com/spf13/pflag"
)

// planUntilSure checks --until-sure and --max-replications against the
// replications settled so far.
func planUntilSure(plan *sweepPlan, opts *sweepOptions) error {
	if opts.UntilSure && opts.Uncertainty {
		return usageErr("--until-sure does not go with --uncertainty")
	}
	until, err := untilSureCap(opts.UntilSure, opts.set["max-replications"], opts.MaxReps, plan.reps)
	plan.until = until
	return err
}

// addUntilSureFlags declares --until-sure and --max-replications, the
// same for every command whose first-failure searches they extend.
func addUntilSureFlags(f *pflag.FlagSet, untilSure *bool, maxReps *int) {
	f.BoolVar(untilSure, "until-sure", false, "add replications, doubling at each look, to the cells whose verdict is unclear and could move a first failure, until it is clear or --max-replications is reached; every verdict is then judged at 1 − 0.05/looks")
	f.IntVar(maxReps, "max-replications", defaultMaxReps, "with --until-sure: the most replications a cell gets")
}

// untilSureCap checks --until-sure and its cap against the replications
// reps, and returns the cap sweep.Config.Until takes: 0 without
// --until-sure.
func untilSureCap(untilSure, capSet bool, maxReps, reps int) (int, error) {
	if !untilSure {
		if capSet {
			return 0, usageErr("--max-replications goes with --until-sure")
		}
		return 0, nil
	}
	if maxReps < reps || maxReps > sweep.MaxReplications {
		return 0, usageErr("--max-replications must be between the replications (%d) and %d, got %d", reps, sweep.MaxReplications, maxReps)
	}
	return maxReps, nil
}

// requirement is one --require DESIGN@MULT: the design must not break an
// SLO at or below the multiplier.
type requirement struct {
	design string
	mult   float64
}

// parseRequirements checks every --require against the designs swept.
func parseRequirements(specs []string, designs []string) ([]requirement, error) {
	var out []requirement
	for _, spec := range specs {
		name, m, ok := strings.Cut(spec, "@")
		if !ok || name == "" || m == "" {
			return nil, usageErr("--require %q: expected DESIGN@MULTIPLIER, such as v1-improved@3", spec)
		}
		if !slices.Contains(designs, name) {
			return nil, usageErr("--require %q: design %q is not swept%s (swept: %s)", spec, name, model.DidYouMean(name, designs), strings.Join(designs, ", "))
		}
		mult, err := strconv.ParseFloat(strings.TrimSuffix(m, "x"), 64)
		if err != nil {
			return nil, usageErr("--require %q: the multiplier must be a number, got %q", spec, m)
		}
		if err := model.CheckMultiplierRange(mult); err != nil {
			return nil, usageErr("--require %q: %v", spec, err)
		}
		out = append(out, requirement{name, mult})
	}
	return out, nil
}

// sloVerdict is the exit status --fail-on-slo and --require ask for:
// nil, or an error with exitSLOFailed naming what broke. Without
// --require any design that broke an SLO anywhere in the range fails;
// with it, only a named design whose first failure is at or below its
// multiplier (already failing below the range counts).
func sloVerdict(res *sweep.Result, opts *sweepOptions, reqs []requirement) error {
	if len(reqs) == 0 {
		if !opts.FailOnSLO {
			return nil
		}
		var broke []string
		for _, ff := range res.FirstFailures {
			if ff.Found {
				broke = append(broke, fmt.Sprintf("%s at %sx (%s)", ff.Design, sweep.FormatMultiplier(ff.Multiplier), ff.SLO))
			}
		}
		if len(broke) > 0 {
			return withCode(exitSLOFailed, fmt.Errorf("SLO broken inside the range: %s", strings.Join(broke, "; ")))
		}
		return nil
	}
	var broke []string
	for _, rq := range reqs {
		for _, ff := range res.FirstFailures {
			if ff.Design != rq.design || !ff.Found || ff.Multiplier > rq.mult {
				continue
			}
			sure := "sure"
			if !(ff.Hi <= rq.mult) {
				sure = "not sure: the interval reaches above it"
			}
			broke = append(broke, fmt.Sprintf("%s breaks %s at %sx (CI %s), at or below the %sx required (%s)", ff.Design, ff.SLO,
				sweep.FormatMultiplier(ff.Multiplier), ciText(ff), sweep.FormatMultiplier(rq.mult), sure))
		}
	}
	if len(broke) > 0 {
		return withCode(exitSLOFailed, errors.New(strings.Join(broke, "; ")))
	}
	return nil
}

func ciText(ff sweep.FirstFailure) string {
	end := func(v float64) string {
		if math.IsNaN(v) {
			return "?"
		}
		return sweep.FormatMultiplier(v)
	}
	return end(ff.Lo) + "–" + end(ff.Hi)
}

// defaultHindcastReps is the replications per observation of the
// hindcast a sweep runs beside itself: enough for its one line.
const defaultHindcastReps = 10

// hindcastVerdict is what a sweep says of its hindcast: one line, and
// the counts --json gives. A sharded sweep's round 0 shard 0 writes it
// beside its shard (hindcastFile), so that the merge runs nothing.
type hindcastVerdict struct {
	Replications int      `json:"replications"`
	Summary      string   `json:"summary"`
	Agree        int      `json:"agree"`
	Counted      int      `json:"counted"`
	Disagreeing  []string `json:"disagreeing"`
}

func verdictOf(hc *hindcast.Report) *hindcastVerdict {
	agree, counted, _ := hc.Counts()
	return &hindcastVerdict{Replications: hc.Replications, Summary: hc.Summary(), Agree: agree, Counted: counted,
		Disagreeing: append([]string{}, hc.Disagreeing()...)}
}

// wantsHindcast says whether the sweep judges the scenario's observations
// beside itself: it has some, and --hindcast-replications is not 0.
func wantsHindcast(plan *sweepPlan, opts *sweepOptions) bool {
	if opts.HindcastReps == 0 {
		return false
	}
	obs, err := plan.scenario.Observations()
	return err == nil && len(obs) > 0
}

// sweepHindcast runs the scenario's observations under the model, when
// it has any, for the report's first screen and stdout; nil when it has
// none, --hindcast-replications is 0, or the hindcast cannot run (said on
// standard error).
func sweepHindcast(ctx context.Context, io *IOStreams, plan *sweepPlan, opts *sweepOptions) (*hindcastVerdict, error) {
	wait, _ := hindcastBeside(ctx, io, plan, opts, nil)
	return wait()
}

// hindcastBeside starts the hindcast's runs, on budget's background share
// when budget is set so that they fill the cores a sweep beside them
// leaves idle, and returns what waits for the verdict. Its progress is
// shown from the moment wait is called, so that it never interleaves with
// the sweep's lines, and so are its notes. stop cancels it and waits, for
// the paths that end before the verdict is wanted; calling both is fine.
func hindcastBeside(ctx context.Context, io *IOStreams, plan *sweepPlan, opts *sweepOptions, budget *sweep.Budget) (wait func() (*hindcastVerdict, error), stop func()) {
	if !wantsHindcast(plan, opts) {
		// A scenario without observations; sweep judges none.
		return func() (*hindcastVerdict, error) { return nil, nil }, func() {}
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	cfg := hindcast.Config{Base: plan.scenario, Load: variants(plan.doc, plan.overrides),
		Replications: opts.HindcastReps, Seed: opts.Seed, Workers: plan.workers, Budget: budget}
	var (
		mu          sync.Mutex
		shown       *progress
		done, total int
	)
	cfg.Progress = func(d, t int) {
		mu.Lock()
		defer mu.Unlock()
		done, total = d, t
		if shown != nil {
			shown.update(sweep.Progress{Done: d, Total: t})
		}
	}
	var (
		rep *hindcast.Report
		err error
	)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		rep, err = hindcast.Run(ctx, cfg)
	}()
	wait = func() (*hindcastVerdict, error) {
		if prog := newProgress(io, "hindcast", plan.scenario.Scenario.Name, -1, opts.Quiet); prog != nil {
			prog.unit = "runs"
			mu.Lock()
			shown = prog
			if total > 0 {
				prog.update(sweep.Progress{Done: done, Total: total})
			}
			mu.Unlock()
			defer prog.finish()
		}
		<-finished
		cancel()
		if err == nil {
			return verdictOf(rep), nil
		}
		if parent.Err() != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, withCode(exitInterrupt, errors.New("hindcast interrupted; no output written"))
			}
			return nil, withCode(exitError, err)
		}
		// The sweep's answer stands without it: an observation whose
		// variant does not build under the sweep's overrides (a
		// --set duration shorter than its recovery window) is said so.
		io.noteErr("capsim: hindcast not run beside the sweep: " + err.Error())
		return nil, nil
	}
	stop = func() {
		cancel()
		<-finished
	}
	return wait, stop
}

// writeSweepJSON writes --json's summary (sweep.Export, with the
// hindcast's agreement) to path, "-" for standard output.
func writeSweepJSON(io *IOStreams, path string, res *sweep.Result, hc *hindcastVerdict) error {
	data, err := sweepJSON(res, hc, "  ")
	if err != nil {
		return withCode(exitError, err)
	}
	if path == "-" {
		_, err := io.Out.Write(data)
		return err
	}
	if err := writeAtomic(path, data); err != nil {
		return withCode(exitError, err)
	}
	return nil
}

// hindcastLine is the hindcast's one line for the report, "" without.
func hindcastLine(hc *hindcastVerdict) string {
	if hc == nil {
		return ""
	}
	return fmt.Sprintf("Hindcast, %d replications per observation: %s.", hc.Replications, hc.Summary)
}

// checkJSONTarget refuses a --json file that is one of the files the
// sweep reads, a folder, or inside the --out folder: the sweep replaces
// that folder whole, so the JSON would take the place of one of its
// files, or be deleted by the next sweep, or stop it as a file no sweep
// writes.
func checkJSONTarget(plan *sweepPlan, opts *sweepOptions) error {
	if opts.JSON == "" || opts.JSON == "-" {
		return nil
	}
	if within(opts.JSON, opts.Out) {
		return usageErr("--json %s: it is inside the --out folder %s, which the sweep replaces whole; name a file outside it", opts.JSON, opts.Out)
	}
	if st, err := os.Stat(opts.JSON); err == nil && st.IsDir() {
		return usageErr("--json %s: it is a folder; name a file", opts.JSON)
	}
	srcs := plan.doc.Sources()
	var names []string
	for _, s := range srcs {
		names = append(names, s.Name)
	}
	return refuseInput("--json", opts.JSON, names)
}

// sweepJSON is --json's document, indented by indent ("" for one line,
// as capsim serve streams it).
func sweepJSON(res *sweep.Result, hc *hindcastVerdict, indent string) ([]byte, error) {
	e := res.Export()
	if hc != nil {
		e.Hindcast = &sweep.ExportHindcast{Summary: hc.Summary, Agree: hc.Agree, Counted: hc.Counted,
			Disagreeing: append([]string{}, hc.Disagreeing...), Replications: hc.Replications}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // ">=" as written, not \u003e=
	enc.SetIndent("", indent)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
