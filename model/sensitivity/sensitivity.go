// Package sensitivity asks what a design's first failure hinges on. It
// perturbs the scenario's parameters one at a time — every named
// distribution and time by a factor 1 ± delta that keeps its shape, every
// count by whole steps — runs the first-failure search of package sweep on
// each perturbed scenario, and reports how far the first failure moved and
// its elasticity: the relative change of the first-failure multiplier per
// relative change of the parameter.
//
// The base and every perturbation run in one sweep, so replication r uses
// seed Seed+r in all of them and sees the same traffic: the difference
// between a perturbation and the base measures the parameter, not the
// dice (common random numbers). What noise is left is the search's own:
// each row says whether its first failure moved beyond it (Judge), and
// the parameters rank by that, then by how far the first failure moved
// (Outcome.Rank). The runs are spread over the sweep's
// workers and consumed in a fixed order, so every byte of the result is
// the same for any number of workers.
//
// One-at-a-time elasticities describe the neighbourhood of the scenario
// as written: they say which parameters the answer is most sensitive to,
// not how parameters interact, and a count moved by one whole step may
// cross a threshold that a smaller change would not.
//
// The package returns its Result as plain data and writes sensitivity.csv;
// it lays nothing out for a terminal: the ranked table and --list's are
// built from the Result in cmd/capsim.
package sensitivity

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"capsim/model"
	"capsim/model/sweep"
)

// Perturbation is one parameter moved to one side.
type Perturbation struct {
	Param model.Param
	Side  int    // -1 lowered, +1 raised
	To    string // the new value: "x1.1" for a factor, the new count for a count
	// Change is the parameter's relative change, new/old − 1; NaN for a
	// count raised from 0.
	Change float64
	// Set and Scale are the override that makes the perturbation: one of
	// them is set ("path=value", "path=factor").
	Set, Scale string
}

// Plan lists the perturbations of params: a factor 1 ± delta for
// everything but counts, and for a count of n a step of
// max(1, round(n × delta)) each way, leaving out a side below the count's
// least value. A value the scenario gives a range moves to the range's
// ends instead: the range is what the scenario says it may be.
func Plan(params []model.Param, delta float64) []Perturbation {
	var out []Perturbation
	for _, p := range params {
		if p.Lo != "" {
			out = append(out, rangeEnd(p, -1, p.Lo), rangeEnd(p, 1, p.Hi))
			continue
		}
		if p.Kind != model.ParamCount {
			for _, side := range []int{-1, 1} {
				// Rounded as multipliers are: 1 - 0.99 is
				// 0.010000000000000009 in floating point, and that is what
				// --list printed and --scale was given.
				f := model.RoundMultiplier(1 + float64(side)*delta)
				fs := strconv.FormatFloat(f, 'g', -1, 64)
				pt := Perturbation{Param: p, Side: side, To: "x" + fs, Change: f - 1, Scale: p.Path + "=" + fs}
				if v, err := strconv.ParseFloat(p.Value, 64); err == nil {
					// A weight or a number may be whole as written and
					// fractional once scaled: it is set, not scaled.
					pt.Scale, pt.Set = "", p.Path+"="+strconv.FormatFloat(v*f, 'g', -1, 64)
				}
				out = append(out, pt)
			}
			continue
		}
		n, _ := strconv.Atoi(p.Value)
		step := max(1, int(math.Round(float64(n)*delta)))
		for _, side := range []int{-1, 1} {
			v := n + side*step
			if v < p.Min {
				continue
			}
			change := math.NaN()
			if n != 0 {
				change = float64(v-n) / float64(n)
			}
			out = append(out, Perturbation{Param: p, Side: side, To: strconv.Itoa(v), Change: change, Set: p.Path + "=" + strconv.Itoa(v)})
		}
	}
	return out
}

// rangeEnd moves a ranged parameter to one end of its range.
func rangeEnd(p model.Param, side int, to string) Perturbation {
	change := math.NaN()
	if from, ok := paramValue(p, p.Value); ok && from != 0 {
		if v, ok := paramValue(p, to); ok {
			change = v/from - 1
		}
	}
	return Perturbation{Param: p, Side: side, To: to, Change: change, Set: p.Path + "=" + to}
}

// paramValue reads a ranged parameter's value as a number: a time as
// written is its Mean, and a range's ends are written in seconds.
func paramValue(p model.Param, s string) (float64, bool) {
	if p.Kind == model.ParamTime {
		if s == p.Value {
			return p.Mean, !math.IsNaN(p.Mean)
		}
		s = strings.TrimSuffix(s, "s")
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// ListedTwice refuses a parameter named twice in names: it would be
// perturbed, or fitted, twice and reported in two rows.
func ListedTwice(names []string) error {
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("parameter %q is listed twice", n)
		}
	}
	return nil
}

// Select keeps the parameters named in list (names or paths, comma-
// separated), in the scenario's order; "all" or "" keeps every one.
func Select(params []model.Param, list string) ([]model.Param, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		return params, nil
	}
	want := map[string]bool{}
	var order []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, fmt.Errorf("expected parameter names separated by commas, or all, got %q", list)
		}
		want[n] = true
		order = append(order, n)
	}
	if err := ListedTwice(order); err != nil {
		return nil, err
	}
	var out []model.Param
	found := map[string]bool{}
	for _, p := range params {
		if want[p.Name] || want[p.Path] {
			out = append(out, p)
			found[p.Name], found[p.Path] = true, true
		}
	}
	for _, n := range order {
		if !found[n] {
			return nil, fmt.Errorf("unknown parameter %q (capsim sensitivity --list shows them)%s", n, suggest(params, n))
		}
	}
	return out, nil
}

// suggest names the parameter a mistyped name most likely meant.
func suggest(params []model.Param, name string) string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	if best := model.Nearest(name, names, 4); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// Design is one design of the scenario to analyse: its base and the
// perturbations planned for it, each compiled.
type Design struct {
	Name          string
	Base          *model.Compiled
	Perturbations []Perturbation
	Compiled      []*model.Compiled // one per perturbation
}

// Config is one analysis.
type Config struct {
	Scenario     string
	Delta        float64
	Designs      []Design
	Multipliers  []float64
	Replications int
	Seed         uint64
	Workers      int
	Refine       int
	// Until, when above Replications, gives every first failure's search
	// replications until its verdicts are sure, up to Until, by the
	// sweep's rule (sweep.Config.Until): the base's and each
	// perturbation's, so that its interval, and with it the noise
	// verdict, rests on clear verdicts or the cap.
	Until    int
	Progress func(sweep.Progress)
	// From, when set, supplies the sweep's outcomes from its shards, run
	// over machines, instead of running them (see Sweep).
	From *sweep.Shards
}

// Row is one perturbation's outcome.
type Row struct {
	Perturbation
	FirstFailure sweep.FirstFailure
	// Effect is the first failure's relative change against the base,
	// perturbed/base − 1; Elasticity is ln(1 + Effect) / ln(1 + Change).
	// NaN where either first failure was not found inside the range, or
	// Change is NaN.
	Effect, Elasticity float64
	// Noise says whether the first failure moved beyond the replications'
	// noise (see Judge).
	Noise Noise
	// Settling is how far its search went.
	Settling Settling
}

// Settling is how far one first failure's search went: the most
// replications given to a cell that could still move it, and why it
// stopped there.
type Settling struct {
	Replications int
	Stop         Stop
}

// Stop is why a first failure's search stopped adding replications:
// the sweep's words, which the hindcast's observations use too.
type Stop = sweep.Stop

const (
	// Sure: every verdict that could move the first failure is clear.
	Sure = sweep.Sure
	// Unsure: one is not, at the fixed replications (no Until).
	Unsure = sweep.Unsure
	// Capped: one is not, with Until's replications.
	Capped = sweep.Capped
)

// settlingOf reads how far ff's search went; until is Config.Until.
func settlingOf(ff sweep.FirstFailure, until int) Settling {
	runs, sure := ff.Settled()
	switch {
	case sure:
		return Settling{runs, Sure}
	case until > 0:
		return Settling{runs, Capped}
	}
	return Settling{runs, Unsure}
}

// Noise is a perturbation's verdict against the replications' noise.
type Noise string

const (
	Beyond Noise = "beyond"
	Within Noise = "within"
)

// interval is where a first failure lies, (lo, hi]: lo the highest
// multiplier below it that passed surely, hi the lowest that failed
// surely. An end the search left open — no multiplier passed surely
// below it, as a rate SLO with too few events gives — counts as the first
// failure itself: what the search did not settle does not widen the
// interval, or every move would hide in it. A design that held over the
// range fails above the highest multiplier tried.
func interval(ff sweep.FirstFailure) (lo, hi float64) {
	if !ff.Found {
		lo = 0
		for _, c := range ff.Tried {
			lo = max(lo, c.Multiplier)
		}
		return lo, math.Inf(1)
	}
	lo, hi = ff.Lo, ff.Hi
	if math.IsNaN(lo) || ff.BelowRange {
		lo = ff.Multiplier
	}
	if math.IsNaN(hi) {
		hi = ff.Multiplier
	}
	return lo, hi
}

// Judge says whether a perturbed first failure moved beyond the noise of
// the base's: it is within the noise when it did not move, when its
// interval overlaps the base's, or when it moved less than the base's
// interval is wide (the search's resolution and the replications' spread
// together); beyond it otherwise. Both come from the same seeds, so what
// noise remains is the search's: how finely it tried multipliers, and
// which it could not call with the replications it had.
func Judge(base, ff sweep.FirstFailure) Noise {
	blo, bhi := interval(base)
	plo, phi := interval(ff)
	if plo < bhi && blo < phi {
		return Within
	}
	if comparable(base) && comparable(ff) {
		if d := math.Abs(ff.Multiplier - base.Multiplier); d == 0 || d < bhi-blo {
			return Within
		}
	}
	return Beyond
}

// Outcome is one design's analysis.
type Outcome struct {
	Design       string
	Base         sweep.FirstFailure
	BaseSettling Settling
	Rows         []Row
}

// Ranked is one parameter's two sides, for the table and the chart.
type Ranked struct {
	Param     model.Param
	Low, High *Row // nil for a side not perturbed
	// Elasticity combines the sides, ln(ff+/ff−) / ln(p+/p−), when both
	// have a first failure, else it is the one side's.
	Elasticity float64
	// Noise is Beyond when either side moved the first failure beyond
	// the noise, else Within.
	Noise Noise
	// Swing is the larger |effect| of the two sides, what ranks the
	// parameter after Noise; 0 when neither side has one.
	Swing float64
}

// Result is the whole analysis.
type Result struct {
	Scenario     string
	Delta        float64
	Replications int
	// Until is Config.Until; VerdictLevel the confidence every verdict,
	// and so every interval, is judged at (sweep.Config.VerdictLevel).
	Until        int
	VerdictLevel float64
	Seed         uint64
	Multipliers  []float64
	Designs      []Outcome
}

// Run makes every design's base and perturbed first-failure searches in
// one sweep (or, with From, reads them from the shards of that sweep split
// over machines).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	sc, err := cfg.Sweep()
	if err != nil {
		return nil, err
	}
	res, err := sweep.Run(ctx, sc)
	if err != nil {
		return nil, err
	}
	return Assemble(cfg, res), nil
}

// Sweep is the one sweep the analysis runs: per design, its base and then
// each perturbation, in order, each a design of the sweep named
// "DESIGN PATH TO". Its shards (sweep.RunShard) split the analysis over
// machines.
func (cfg Config) Sweep() (sweep.Config, error) {
	sc := sweep.Config{Scenario: cfg.Scenario, Multipliers: cfg.Multipliers, Replications: cfg.Replications,
		Seed: cfg.Seed, Workers: cfg.Workers, Refine: cfg.Refine, Until: cfg.Until, Progress: cfg.Progress, From: cfg.From}
	for _, d := range cfg.Designs {
		if len(d.Compiled) != len(d.Perturbations) {
			return sweep.Config{}, fmt.Errorf("sensitivity: design %s: %d compiled scenarios for %d perturbations", d.Name, len(d.Compiled), len(d.Perturbations))
		}
		sc.Designs = append(sc.Designs, sweep.Design{Name: d.Name, Compiled: d.Base})
		for i, p := range d.Perturbations {
			sc.Designs = append(sc.Designs, sweep.Design{Name: d.Name + " " + p.Param.Path + " " + p.To, Compiled: d.Compiled[i]})
		}
	}
	return sc, nil
}

// Assemble reads the analysis from res, the result of cfg.Sweep():
// each design's base first failure and every perturbation's, with its
// effect and elasticity.
func Assemble(cfg Config, res *sweep.Result) *Result {
	out := &Result{Scenario: cfg.Scenario, Delta: cfg.Delta, Replications: cfg.Replications, Until: cfg.Until,
		VerdictLevel: sweep.Level, Seed: cfg.Seed, Multipliers: cfg.Multipliers}
	if res.Precision != nil {
		out.VerdictLevel = res.Precision.Level
	}
	i := 0
	for _, d := range cfg.Designs {
		o := Outcome{Design: d.Name, Base: res.FirstFailures[i], BaseSettling: settlingOf(res.FirstFailures[i], cfg.Until)}
		o.Base.Design = d.Name
		i++
		for _, p := range d.Perturbations {
			ff := res.FirstFailures[i]
			i++
			ff.Design = d.Name
			r := Row{Perturbation: p, FirstFailure: ff, Effect: math.NaN(), Elasticity: math.NaN(), Noise: Judge(o.Base, ff),
				Settling: settlingOf(ff, cfg.Until)}
			if comparable(o.Base) && comparable(ff) {
				r.Effect = ff.Multiplier/o.Base.Multiplier - 1
				r.Elasticity = math.Log(ff.Multiplier/o.Base.Multiplier) / math.Log1p(p.Change)
			}
			o.Rows = append(o.Rows, r)
		}
		out.Designs = append(out.Designs, o)
	}
	return out
}

// comparable says a first failure is a point, not a bound: found, and
// above the lowest multiplier of the range.
func comparable(ff sweep.FirstFailure) bool { return ff.Found && !ff.BelowRange }

// swing is the larger |effect| of a parameter's two sides; 0 when
// neither side has one. A side whose first failure is a bound (the design
// held over the range, or failed at its lowest multiplier) counts for the
// least its effect can be.
func (k Ranked) swing(base sweep.FirstFailure) float64 {
	w := 0.0
	for _, r := range []*Row{k.Low, k.High} {
		if r == nil {
			continue
		}
		switch ff := r.FirstFailure; {
		case !math.IsNaN(r.Effect):
			w = max(w, math.Abs(r.Effect))
		case !comparable(base):
		case !ff.Found:
			if top, _ := interval(ff); top > 0 {
				w = max(w, top/base.Multiplier-1)
			}
		case ff.BelowRange:
			w = max(w, 1-ff.Multiplier/base.Multiplier)
		}
	}
	return w
}

// Rank pairs each parameter's sides and orders the parameters: those
// that moved the first failure beyond the noise (on either side) first,
// then by the larger |effect| of their two sides, then in the scenario's
// order. The elasticity does not rank: a count moved by one whole step
// or a value moved from 0 has none, yet may move the answer most.
func (o *Outcome) Rank() []Ranked {
	var out []Ranked
	idx := map[string]int{}
	for i := range o.Rows {
		r := &o.Rows[i]
		j, ok := idx[r.Param.Path]
		if !ok {
			j = len(out)
			idx[r.Param.Path] = j
			out = append(out, Ranked{Param: r.Param, Elasticity: math.NaN(), Noise: Within})
		}
		if r.Side < 0 {
			out[j].Low = r
		} else {
			out[j].High = r
		}
		if r.Noise == Beyond {
			out[j].Noise = Beyond
		}
	}
	for i := range out {
		k := &out[i]
		switch {
		case k.Low != nil && k.High != nil && comparable(k.Low.FirstFailure) && comparable(k.High.FirstFailure) &&
			comparable(o.Base) && !math.IsNaN(k.Low.Change) && !math.IsNaN(k.High.Change):
			k.Elasticity = math.Log(k.High.FirstFailure.Multiplier/k.Low.FirstFailure.Multiplier) /
				(math.Log1p(k.High.Change) - math.Log1p(k.Low.Change))
		case k.High != nil && !math.IsNaN(k.High.Elasticity):
			k.Elasticity = k.High.Elasticity
		case k.Low != nil && !math.IsNaN(k.Low.Elasticity):
			k.Elasticity = k.Low.Elasticity
		}
		k.Swing = k.swing(o.Base)
	}
	slices.SortStableFunc(out, func(a, b Ranked) int {
		if a.Noise != b.Noise {
			if a.Noise == Beyond {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.Swing, a.Swing)
	})
	return out
}
