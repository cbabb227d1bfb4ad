package sensitivity_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/cmd/golden"
	"capsim/model"
	"capsim/model/sensitivity"
	"capsim/model/sweep"
	"capsim/scenarios"
)

// The M/M/c/K queue under a utilisation objective, the textbook case
// where a sensitivity is known in closed form (Gross & Harris, the
// finite-capacity M/M/c/K): utilisation is a(1 − p_K)/c with a = λ·s the
// offered load, so it depends on the multiplier m and the mean service
// time s only through m·s. The multiplier at which it crosses a bound is
// then a*/(λ₀·s): scaling s by f moves the first failure by exactly 1/f,
// an elasticity of exactly −1 (as a ratio of logarithms).

// mmckSets shorten the embedded M/M/4/6 and give it a utilisation SLO.
var mmckSets = []string{"duration=6000s", "warmup=500s", `slos=[{component: server, utilisation: "<= 0.6"}]`}

const (
	mmckServers  = 4
	mmckCapacity = 6
	mmckRate     = 5.0 // arrivals per second at multiplier 1
	mmckBound    = 0.6
)

// utilisation of M/M/c/K with offered load a erlangs.
func utilisation(a float64) float64 {
	c, k := mmckServers, mmckCapacity
	p, sum, term := 0.0, 0.0, 1.0
	for n := 0; n <= k; n++ {
		if n > 0 {
			if n <= c {
				term *= a / float64(n)
			} else {
				term *= a / float64(c)
			}
		}
		sum += term
		p = term
	}
	return a * (1 - p/sum) / float64(c)
}

// crossing is the offered load at which utilisation reaches the bound,
// by bisection: utilisation grows with a.
func crossing() float64 {
	lo, hi := 0.0, float64(mmckServers)
	for range 100 {
		mid := (lo + hi) / 2
		if utilisation(mid) < mmckBound {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func load(t *testing.T, opts model.LoadOptions) *model.Loaded {
	t.Helper()
	opts.Sets = append(append([]string{}, mmckSets...), opts.Sets...)
	l, err := model.Load(scenarios.FS(), scenarios.File("mmck"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func compile(t *testing.T, opts model.LoadOptions) *model.Compiled {
	t.Helper()
	c, err := load(t, opts).Compile()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func serviceParam(t *testing.T) model.Param {
	t.Helper()
	ps, err := sensitivity.Select(load(t, model.LoadOptions{}).Params(), "customer.work")
	if err != nil {
		t.Fatal(err)
	}
	return ps[0]
}

func TestServiceTimeElasticityIsMinusOneOnMMcK(t *testing.T) {
	const delta = 0.1
	plan := sensitivity.Plan([]model.Param{serviceParam(t)}, delta)
	d := sensitivity.Design{Name: "base", Base: compile(t, model.LoadOptions{}), Perturbations: plan}
	for _, p := range plan {
		// The window of statistics is stretched with the service time, so
		// that with common random numbers the perturbed run at m/f is the
		// base run at m in slower time, draw for draw: nothing but the
		// search's resolution separates the two first failures.
		f := strconv.FormatFloat(1+p.Change, 'g', -1, 64)
		d.Compiled = append(d.Compiled, compile(t, model.LoadOptions{Scales: []string{p.Scale, "duration=" + f, "warmup=" + f}}))
	}
	grid := []float64{0.25, 0.5, 0.75, 1}
	const refine = 8
	res, err := sensitivity.Run(context.Background(), sensitivity.Config{Scenario: "mmck", Delta: delta, Designs: []sensitivity.Design{d},
		Multipliers: grid, Replications: 4, Seed: 1, Refine: refine})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Designs[0]
	base := o.Base
	// The search brackets a crossing to a grid step / 2^refine.
	resolution := (grid[1] - grid[0]) / math.Pow(2, refine)
	want := crossing() / mmckRate
	if !base.Found || math.IsNaN(base.Lo) || math.IsNaN(base.Hi) || want < base.Lo || want > base.Hi+resolution {
		t.Errorf("base first failure %g (CI %g–%g) does not cover the analytical crossing %g", base.Multiplier, base.Lo, base.Hi, want)
	}
	for _, r := range o.Rows {
		f := 1 + r.Change
		got, exact := r.FirstFailure.Multiplier, base.Multiplier/f
		// Each search ends on the upper end of a bracket a resolution
		// wide, and base/f carries the base's error divided by f.
		if tol := resolution * (1 + 1/f); math.Abs(got-exact) > tol {
			t.Errorf("service ×%g: first failure %g, want base/%g = %g ± %g", f, got, f, exact, tol)
		}
		t.Logf("service ×%g: first failure %g (base %g, exact %g), elasticity %g", f, got, base.Multiplier, exact, r.Elasticity)
	}
	ranked := o.Rank()
	const wantE = -1.0
	// An estimate x off by at most the resolution r moves ln x by at
	// most about r/x.
	lo, hi := ranked[0].Low.FirstFailure.Multiplier, ranked[0].High.FirstFailure.Multiplier
	tol := (resolution/lo + resolution/hi) / (math.Log1p(delta) - math.Log1p(-delta))
	for _, r := range o.Rows {
		one := (resolution/r.FirstFailure.Multiplier + resolution/base.Multiplier) / math.Abs(math.Log1p(r.Change))
		if math.Abs(r.Elasticity-wantE) > one {
			t.Errorf("service ×%g: one-sided elasticity %g, want %g ± %g", 1+r.Change, r.Elasticity, wantE, one)
		}
	}
	if e := ranked[0].Elasticity; math.Abs(e-wantE) > tol {
		t.Errorf("elasticity %g, want %g ± %g", e, wantE, tol)
	} else {
		t.Logf("elasticity %g, want %g ± %g", e, wantE, tol)
	}
}

// Common random numbers: a perturbation run with the base's seed differs
// from the base by what the parameter does; run with other seeds, it also
// differs by the dice. Over 20 replications the variance of the paired
// difference in utilisation is far smaller with the same seeds.
func TestCommonRandomNumbersShrinkTheEffectsVariance(t *testing.T) {
	p := serviceParam(t)
	base := compile(t, model.LoadOptions{})
	pert := compile(t, model.LoadOptions{Scales: []string{p.Path + "=1.1"}})
	util := func(c *model.Compiled, seed uint64) float64 {
		res, err := c.Run(model.RunOptions{Multiplier: 0.5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Metrics() {
			if m.Name() == "component.server.utilisation_rate" {
				return m.Value
			}
		}
		t.Fatal("no utilisation metric")
		return 0
	}
	const n = 20
	var crn, indep []float64
	for s := uint64(1); s <= n; s++ {
		b := util(base, s)
		crn = append(crn, util(pert, s)-b)
		indep = append(indep, util(pert, s+1000)-b)
	}
	vc, vi := variance(crn), variance(indep)
	// 10 is a conservative floor: the paired runs share every draw, so
	// what is left is the end of the window that time-stretching moves.
	const factor = 10
	if !(vi > factor*vc) {
		t.Errorf("variance of the effect: %g with common random numbers, %g with independent seeds; want a ratio above %d", vc, vi, factor)
	}
	t.Logf("variance ratio independent/CRN = %.1f", vi/vc)
}

func variance(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return v / float64(len(xs)-1)
}

// A ranged value moves to its range's ends, not by ±delta: the range is
// what the scenario says the value may be. The change is relative to the
// point value, undefined from 0.
func TestPlanMovesARangedValueToItsEnds(t *testing.T) {
	params := []model.Param{
		{Name: "db.servers", Path: "components.db.servers", Kind: model.ParamCount, Value: "2", Min: 1, Lo: "1", Hi: "3"},
		{Name: "db.wait_timeout", Path: "components.db.wait_timeout", Kind: model.ParamTime, Value: "50s", Mean: 50, Lo: "20s", Hi: "90s"},
		{Name: "cpu.switch_cost", Path: "components.cpu.switch_cost", Kind: model.ParamNumber, Value: "0", Lo: "0", Hi: "0.05"},
	}
	var got []string
	for _, p := range sensitivity.Plan(params, 0.1) {
		got = append(got, p.Param.Name+" "+strconv.Itoa(p.Side)+" "+p.To+" "+p.Set+" "+strconv.FormatFloat(p.Change, 'g', 4, 64))
	}
	want := []string{
		"db.servers -1 1 components.db.servers=1 -0.5",
		"db.servers 1 3 components.db.servers=3 0.5",
		"db.wait_timeout -1 20s components.db.wait_timeout=20s -0.6",
		"db.wait_timeout 1 90s components.db.wait_timeout=90s 0.8",
		"cpu.switch_cost -1 0 components.cpu.switch_cost=0 NaN",
		"cpu.switch_cost 1 0.05 components.cpu.switch_cost=0.05 NaN",
	}
	if len(got) != len(want) {
		t.Fatalf("plan:\n%v\nwant:\n%v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("perturbation %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// A perturbed first failure is within the noise when its interval
// overlaps the base's, (0.6, 0.625] here, or when it moved less than that
// interval is wide (0.025); an end the search left open counts as the
// first failure itself and does not widen it.
func TestJudgeAgainstTheBasesInterval(t *testing.T) {
	nan := math.NaN()
	failed := func(m, lo, hi float64) sweep.FirstFailure {
		return sweep.FirstFailure{Found: true, Multiplier: m, Lo: lo, Hi: hi}
	}
	base := failed(0.625, 0.6, 0.625)
	for _, tc := range []struct {
		name string
		ff   sweep.FirstFailure
		want sensitivity.Noise
	}{
		{"overlapping from above", failed(0.64, 0.62, 0.64), sensitivity.Within},
		{"touching: failed surely where the base passed surely", failed(0.59, 0.58, 0.6), sensitivity.Beyond},
		{"apart, but moved less than the base's width", failed(0.64, 0.63, 0.64), sensitivity.Within},
		{"apart by exactly the width", failed(0.65, 0.64, 0.65), sensitivity.Beyond},
		{"apart, its own lower end open", failed(0.7, nan, 0.7), sensitivity.Beyond},
		{"near, its own lower end open", failed(0.64, nan, 0.64), sensitivity.Within},
		{"held over the range, up to 1", sweep.FirstFailure{Tried: []*sweep.Cell{
			{Multiplier: 0.5, Verdict: sweep.Pass}, {Multiplier: 1, Verdict: sweep.PassUnsure}}}, sensitivity.Beyond},
		{"failed at the lowest multiplier, 0.25", sweep.FirstFailure{Found: true, BelowRange: true, Multiplier: 0.25, Lo: nan, Hi: 0.25}, sensitivity.Beyond},
	} {
		if got := sensitivity.Judge(base, tc.ff); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// Two designs that held over the range: the same (1, ∞).
	held := sweep.FirstFailure{Tried: []*sweep.Cell{{Multiplier: 1, Verdict: sweep.PassUnsure}}}
	if got := sensitivity.Judge(held, held); got != sensitivity.Within {
		t.Errorf("both held: %q", got)
	}
	// The base's upper end open: (0.6, 0.625], as if it were settled.
	open := failed(0.625, 0.6, nan)
	for _, tc := range []struct {
		ff   sweep.FirstFailure
		want sensitivity.Noise
	}{
		{failed(2, 1.9, 2), sensitivity.Beyond},
		{failed(0.59, 0.58, 0.59), sensitivity.Beyond},
		{failed(0.61, 0.58, 0.61), sensitivity.Within},
	} {
		if got := sensitivity.Judge(open, tc.ff); got != tc.want {
			t.Errorf("base open above, %v: %q, want %q", tc.ff.Multiplier, got, tc.want)
		}
	}
}

// Parameters beyond the noise rank first, then by the larger |change| of
// their first failure, whether or not they have an elasticity: a count
// raised from 0 (no elasticity) that moved the answer 7.5 % ranks above
// an elastic parameter that moved it 1 %, and a side that held over the
// range counts for at least the top of the range.
func TestRankPutsBeyondTheNoiseFirstThenTheLargerChange(t *testing.T) {
	p := func(name string) model.Param { return model.Param{Name: name, Path: "p." + name} }
	nan := math.NaN()
	row := func(name string, change, effect, elasticity float64, noise sensitivity.Noise) sensitivity.Row {
		return sensitivity.Row{Perturbation: sensitivity.Perturbation{Param: p(name), Side: 1, Change: change},
			FirstFailure: sweep.FirstFailure{Found: true, Multiplier: 2 * (1 + effect)}, Effect: effect, Elasticity: elasticity, Noise: noise}
	}
	held := sensitivity.Row{Perturbation: sensitivity.Perturbation{Param: p("held"), Side: 1, Change: 0.1},
		FirstFailure: sweep.FirstFailure{Tried: []*sweep.Cell{{Multiplier: 3, Verdict: sweep.Pass}}}, Effect: nan, Elasticity: nan, Noise: sensitivity.Beyond}
	o := sensitivity.Outcome{Base: sweep.FirstFailure{Found: true, Multiplier: 2, Lo: 1.9, Hi: 2}, Rows: []sensitivity.Row{
		row("noisy", 0.1, 0.3, 2.8, sensitivity.Within),
		row("elastic", 0.1, 0.01, 0.1, sensitivity.Beyond),
		row("none", nan, nan, nan, sensitivity.Within),
		row("count", nan, -0.075, nan, sensitivity.Beyond),
		held,
	}}
	var got []string
	for _, k := range o.Rank() {
		got = append(got, k.Param.Name+" "+string(k.Noise)+" "+strconv.FormatFloat(k.Swing, 'g', 3, 64))
	}
	want := []string{"held beyond 0.5", "count beyond 0.075", "elastic beyond 0.01", "noisy within 0.3", "none within 0"}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %q\nwant %q", got, want)
	}
}

// A ranged parameter of a named distribution written by family is planned
// like any ranged value, to its ends, beside the distribution's own ±delta;
// each perturbation loads with the distribution it says.
func TestPlanMovesARangedDistributionParameter(t *testing.T) {
	const src = `name: f
duration: 60s
distributions:
  svc: {family: exponential, mean: {range: [0.4s, 0.8s]}, shift: 100ms}
components:
  app: {kind: pool, servers: 1}
journeys:
  j:
    rate: 1/s
    steps: [{use: app, work: svc}]
`
	load := func(set, scale []string) *model.Loaded {
		l, err := model.LoadBytes(fstest.MapFS{}, "f.yaml", []byte(src), model.LoadOptions{Sets: set, Scales: scale})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	var got []string
	for _, p := range sensitivity.Plan(load(nil, nil).Params(), 0.1) {
		if p.Param.Kind == model.ParamCount {
			continue
		}
		var set, scale []string
		if p.Set != "" {
			set = []string{p.Set}
		}
		if p.Scale != "" {
			scale = []string{p.Scale}
		}
		e, _ := load(set, scale).Scenario.Distributions.Get("svc")
		got = append(got, fmt.Sprintf("%s %s%s → mean %.4g", p.Param.Name, p.Set, p.Scale, e.Dist.Dist.Mean()))
	}
	want := []string{
		"svc distributions.svc=0.9 → mean 0.63",
		"svc distributions.svc=1.1 → mean 0.77",
		"svc.mean distributions.svc.mean=0.4s → mean 0.5",
		"svc.mean distributions.svc.mean=0.8s → mean 0.9",
	}
	golden.CheckLines(t, "plan:\n%s\nwant:\n%s", got, want)
}

// A factor 1 ± delta is rounded as multipliers are: 1 - 0.99 is
// 0.010000000000000009 in floating point, which --list printed and
// --scale was given.
func TestPlanFactorsAreRoundedAsWritten(t *testing.T) {
	var got []string
	for _, p := range sensitivity.Plan([]model.Param{serviceParam(t)}, 0.99) {
		got = append(got, p.To+" "+p.Scale+p.Set)
	}
	if len(got) != 2 || got[0][:6] != "x0.01 " || got[1][:6] != "x1.99 " ||
		!strings.HasSuffix(got[0], "=0.01") || !strings.HasSuffix(got[1], "=1.99") {
		t.Errorf("perturbations %q; want x0.01 and x1.99, scaled by 0.01 and 1.99", got)
	}
}
