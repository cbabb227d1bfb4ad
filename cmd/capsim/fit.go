package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"capsim/model"
	"capsim/model/hindcast"
	"capsim/model/sensitivity"
	"capsim/plots"
	"capsim/plots/texttab"

	"github.com/spf13/cobra"
)

type fitOptions struct {
	hindcastOptions
	Params []string
	Points int
	Waves  int
}

func newFitCmd(io *IOStreams) *cobra.Command {
	cmd, opts := scenarioCommand(io, "fit [SCENARIO]", runFit, &cobra.Command{
		Short: "Find the parameter values under which every observation is plausible",
		Long: `Fit parameters to the scenario's observations by history matching. Each
parameter to fit is a value written with its range ({range: [low, high]} or
{triangular: [low, mode, high]} in place of the value); by default every
such value whose comment labels it fitted:. capsim fit spreads points over
the ranges (a Latin hypercube), hindcasts every observation at each point on
the same random numbers, and rules a point out when one observation's
implausibility reaches 3. A second wave fills the region that is left.

It prints the region of values under which every observation is plausible,
which observation rules out the rest, and observations that conflict (each
plausible somewhere, never together): a finding about the model's structure,
not something to tune away. The last lines are the --base-set flags that
give the parameters the region as their range, for sweep --uncertainty and
sensitivity: set on the base, every design inherits them.

Exit 0 when some point is plausible, 3 when none is, 2 for bad input.`,
		Example: `  capsim fit trip
  capsim fit trip --params components.app_cpu.cores --points 30 -r 10`,
	})
	f := cmd.Flags()
	f.StringSliceVar(&opts.Params, "params", nil, "the `PATHS` to fit (comma-separated); default: every value with a range labelled fitted:")
	f.IntVar(&opts.Points, "points", 20, "points of the space-filling design per wave")
	f.IntVar(&opts.Waves, "waves", 1, "refinement waves inside the plausible region after the first")
	observedFlags(f, &opts.hindcastOptions, 10, "simulated runs per observation and point", "master seed of the runs and of the design's points", "score")
	return cmd
}

// fitParams chooses the values to fit: those named, or every ranged value
// whose comment labels it fitted.
func fitParams(l *model.Loaded, names []string) ([]model.Uncertain, error) {
	var ranged []model.Uncertain
	for _, u := range l.Uncertain() {
		if u.Form == "range" || u.Form == "triangular" {
			ranged = append(ranged, u)
		}
	}
	paths := func() string {
		var ps []string
		for _, u := range ranged {
			ps = append(ps, u.Path)
		}
		if len(ps) == 0 {
			return "none"
		}
		return strings.Join(ps, ", ")
	}
	if len(names) == 0 {
		labels := map[string]string{}
		for _, p := range l.Params() {
			labels[p.Path] = p.Label
		}
		var out []model.Uncertain
		for _, u := range ranged {
			if labels[u.Path] == "fitted" {
				out = append(out, u)
			}
		}
		if len(out) == 0 {
			return nil, usageErr("no value with a range is labelled fitted: in its comment; name the values to fit with --params (values with a range: %s)", paths())
		}
		return out, nil
	}
	if err := sensitivity.ListedTwice(names); err != nil {
		return nil, usageErr("--params: %v", err)
	}
	var out []model.Uncertain
	for _, n := range names {
		k := slices.IndexFunc(ranged, func(u model.Uncertain) bool { return u.Path == n })
		if k < 0 {
			return nil, usageErr("--params %s: not a value with a range (write {range: [low, high]} in its place); values with a range: %s", n, paths())
		}
		out = append(out, ranged[k])
	}
	return out, nil
}

func runFit(ctx context.Context, io *IOStreams, opts *fitOptions) error {
	if opts.Replications < 2 || opts.Replications > hindcast.MaxReplications {
		return usageErr("--replications must be between 2 and %d, got %d", hindcast.MaxReplications, opts.Replications)
	}
	if opts.Points < 2 || opts.Points > hindcast.MaxFitPoints {
		return usageErr("--points must be between 2 and %d, got %d", hindcast.MaxFitPoints, opts.Points)
	}
	if opts.Waves < 0 || opts.Waves > 10 {
		return usageErr("--waves must be between 0 and 10, got %d", opts.Waves)
	}
	doc, overrides, base, err := openObserved(&opts.hindcastOptions)
	if err != nil {
		return err
	}
	params, err := fitParams(base, opts.Params)
	if err != nil {
		return err
	}
	cfg := hindcast.FitConfig{Params: params, Points: opts.Points, Waves: opts.Waves, Seed: opts.Seed,
		Hindcast: hindcast.Config{Base: base, Load: variants(doc, overrides), Only: opts.Only,
			Replications: opts.Replications, Seed: opts.Seed}}
	cfg.Progress = func(int, int) {}
	res, err := watchCount(io, "fit", base.Scenario.Name, "points", opts.Quiet, &cfg.Progress, func() (*hindcast.FitResult, error) {
		return hindcast.Fit(ctx, cfg)
	})
	if err != nil {
		return inputAsUsage(err)
	}
	writeFit(io, base.Scenario.Name, opts, res)
	if res.Plausible() == 0 {
		return withCode(exitMismatch, errors.New("no point of the ranges makes every observation plausible"))
	}
	return nil
}

func writeFit(io *IOStreams, scenario string, opts *fitOptions, res *hindcast.FitResult) {
	w := io.width()
	line := func(s string) { texttab.WriteLines(io.Out, texttab.Hang("", s, "  ", w)) }
	line(fmt.Sprintf("fit %s: %d of %d points make every one of %d observations plausible (implausibility < %g), %d runs per observation and point",
		scenario, res.Plausible(), len(res.Points), len(res.Observations), hindcast.Plausible, opts.Replications))
	fmt.Fprintln(io.Out)
	t := texttab.Table{Cols: []texttab.Column{{Name: "parameter", Min: 12, KeepEnd: true}, {Name: "range explored", Align: texttab.Right},
		{Name: "plausible region", Align: texttab.Right}}}
	for k, p := range res.Params {
		region := "none"
		if !math.IsNaN(res.Region[k][0]) {
			region = paramValue(p, res.Region[k][0]) + " – " + paramValue(p, res.Region[k][1])
		}
		t.Row(p.Path, paramValue(p, p.Lo)+" – "+paramValue(p, p.Hi), region)
	}
	t.Write(io.Out, w, seeAll)
	fmt.Fprintln(io.Out)
	t = texttab.Table{Cols: []texttab.Column{{Name: "observation", Min: 8}, {Name: "plausible at", Align: texttab.Right},
		{Name: "ruled out (worst at)", Align: texttab.Right}, {Name: "what", Min: 10, CutFirst: true, Drop: 1}}}
	for q, o := range res.Observations {
		n := 0
		for _, p := range res.Points {
			if p.Implausibility[q] < hindcast.Plausible {
				n++
			}
		}
		t.Row(o.ID, fmt.Sprintf("%d/%d", n, len(res.Points)), fmt.Sprint(res.RuledOut[q]), o.What)
	}
	t.Write(io.Out, w, seeAll)
	if len(res.Never) > 0 || len(res.Conflicts) > 0 {
		fmt.Fprintln(io.Out)
	}
	for _, q := range res.Never {
		line(fmt.Sprintf("%s is plausible nowhere in these ranges: no value of %s reproduces it", res.Observations[q].ID, paramList(res)))
	}
	for _, c := range res.Conflicts {
		line(fmt.Sprintf("conflict: %s and %s are each plausible somewhere, never together", res.Observations[c[0]].ID, res.Observations[c[1]].ID))
	}
	if sets := res.RangeSets(); len(sets) > 0 {
		fmt.Fprintln(io.Out)
		line("to sweep with the region as the parameters' uncertainty:")
		var b strings.Builder
		arg := opts.Scenario
		if arg == "" {
			arg = scenario
		}
		b.WriteString("  capsim sweep " + arg + " --uncertainty")
		for _, s := range sets {
			b.WriteString(" --base-set '" + s + "'")
		}
		fmt.Fprintln(io.Out, b.String())
	}
}

func paramList(res *hindcast.FitResult) string {
	var ps []string
	for _, p := range res.Params {
		ps = append(ps, p.Path)
	}
	return strings.Join(ps, ", ")
}

func paramValue(p model.Uncertain, v float64) string {
	switch {
	case p.Count:
		return fmt.Sprint(int64(math.Round(v)))
	case p.Time:
		return plots.Seconds(v)
	}
	return plots.Number(v)
}
