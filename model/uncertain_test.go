package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
	"capsim/sim"
)

const uncertainScenario = `name: u
duration: 100s
distributions:
  service:
    dist: gamma(shape=4, scale=0.25s)
    uncertainty: {n: 120, method: fisher, se: {shape: 0.5, scale: 0.03s}, corr: -0.9}
    source: {files: [x.csv]}
  think:
    dist: empirical(1s, 2s, 4s)
    uncertainty: {n: 3, method: bootstrap}
components:
  app: {kind: pool, servers: {range: [1, 3]}, wait_timeout: {triangular: [20s, 30s, 60s]}}
  cpu: {kind: cpu, cores: {range: [1, 2]}}
journeys:
  j:
    rate: 1/s
    steps:
      - use: app
        work: service
      - delay: think
`

// The base run uses each point value; Uncertain lists every declaration
// in document order, with what a draw needs.
func TestUncertainValuesLoadAsTheirPoints(t *testing.T) {
	l := mustLoadNamed(t, "u.yaml", uncertainScenario, model.LoadOptions{})
	us := l.Uncertain()
	var got []string
	for _, u := range us {
		got = append(got, u.Path+" "+u.Form+" "+u.Point)
	}
	want := []string{
		"distributions.service fisher gamma(shape=4, scale=0.25s)",
		"distributions.think bootstrap empirical(1s, 2s, 4s)",
		"components.app.servers range 2",
		"components.app.wait_timeout triangular 30s",
		"components.cpu.cores range 1.5",
	}
	if !slices.Equal(got, want) {
		t.Errorf("uncertain values\n got %q\nwant %q", got, want)
	}
	// The same scenario written with the point values compiles to the same
	// program: its runs are identical.
	plain := strings.NewReplacer(
		"    uncertainty: {n: 120, method: fisher, se: {shape: 0.5, scale: 0.03s}, corr: -0.9}\n", "",
		"    uncertainty: {n: 3, method: bootstrap}\n", "",
		"{range: [1, 3]}", "2", "{triangular: [20s, 30s, 60s]}", "30s", "{range: [1, 2]}", "1.5",
	).Replace(uncertainScenario)
	a, b := runOnce(t, uncertainScenario, nil), runOnce(t, plain, nil)
	if a != b {
		t.Errorf("point values run differently from the values written:\n%s\n%s", a, b)
	}
}

func runOnce(t *testing.T, src string, sets []string) string {
	t.Helper()
	c := mustCompileNamed(t, "u.yaml", src, model.LoadOptions{Sets: sets})
	res := mustRun(t, c, model.RunOptions{Multiplier: 1, Seed: 7})
	var b strings.Builder
	for _, m := range res.Metrics() {
		fmt.Fprintf(&b, "%s=%v\n", m.Name(), m.Value)
	}
	return b.String()
}

// Draws are a pure function of (seed, path): the same for any order of
// asking, different between seeds, inside their ranges, and each drawn
// scenario loads.
func TestDrawSetsAreSeededByPath(t *testing.T) {
	l := mustLoadNamed(t, "u.yaml", uncertainScenario, model.LoadOptions{})
	us := l.Uncertain()
	a := model.DrawSets(us, 11)
	b := model.DrawSets(slices.Clone(us), 11)
	if !slices.Equal(a, b) {
		t.Fatalf("draws differ for the same seed:\n%q\n%q", a, b)
	}
	// A parameter's draw does not depend on the others being there.
	alone := model.DrawSets(us[2:3], 11)
	if alone[0] != a[2] {
		t.Errorf("servers alone drew %q, with the others %q", alone[0], a[2])
	}
	servers := map[string]int{}
	for seed := range uint64(300) {
		sets := model.DrawSets(us, seed)
		if len(sets) != 5 {
			t.Fatalf("seed %d: %q", seed, sets)
		}
		servers[strings.TrimPrefix(sets[2], "components.app.servers=")]++
		if seed < 20 {
			if _, err := model.LoadBytes(fstest.MapFS{}, "u.yaml", []byte(uncertainScenario), model.LoadOptions{Sets: sets}); err != nil {
				t.Fatalf("seed %d: drawn values %q do not load: %v", seed, sets, err)
			}
		}
	}
	// 300 uniform draws over {1, 2, 3}: each about 100 (sd 8.2).
	for _, v := range []string{"1", "2", "3"} {
		if n := servers[v]; n < 70 || n > 130 {
			t.Errorf("servers=%s drawn %d times of 300: %v", v, n, servers)
		}
	}
	if len(servers) != 3 {
		t.Errorf("servers drawn outside [1, 3]: %v", servers)
	}
}

// A fit's draws keep its correlation: shape and scale move against each
// other, so the mean shape×scale varies far less than either.
func TestFisherDrawsKeepTheCorrelation(t *testing.T) {
	l := mustLoadNamed(t, "u.yaml", uncertainScenario, model.LoadOptions{})
	u := l.Uncertain()[0]
	var shapes, scales []float64
	for i := range uint64(2000) {
		text := u.Draw(rand.New(sim.StreamSource(i, "x")))
		var k, s float64
		if _, err := fmt.Sscanf(text, "gamma(shape=%g, scale=%gs)", &k, &s); err != nil {
			t.Fatalf("draw %q: %v", text, err)
		}
		shapes, scales = append(shapes, k), append(scales, s)
	}
	r := correlation(shapes, scales)
	if r > -0.87 || r < -0.93 {
		t.Errorf("correlation of drawn shape and scale = %.3f, want -0.9 (±0.03 for 2000 draws)", r)
	}
}

// Bad declarations are reported at their place, naming the rule.
func TestUncertainErrors(t *testing.T) {
	cases := []struct{ from, to, want string }{
		{"{range: [1, 3]}", "{range: [1, 2]}", "u.yaml:12:30: components.app.servers: range: the midpoint of [1, 2] is 1.5, not a whole number"},
		{"{range: [1, 3]}", "{range: [3, 1]}", "u.yaml:12:30: components.app.servers: range: expected {range: [low, high]} with low < high, got [3, 1]"},
		{"{triangular: [20s, 30s, 60s]}", "{triangular: [20s, 60s]}", "components.app.wait_timeout: expected {triangular: [low, mode, high]}, got a list"},
		{"{range: [1, 3]}", "{range: [1, x]}", "components.app.servers: range: servers is a count: expected a whole number, got \"x\""},
		{"se: {shape: 0.5, scale: 0.03s}", "se: {shape: 0.5, mu: 0.03}", "u.yaml:6:60: distributions.service.uncertainty.se.mu: mu is not a parameter of gamma(shape=4, scale=0.25s) (it gives: shape, scale)"},
		{"{n: 3, method: bootstrap}", "{n: 4, method: bootstrap}", "distributions.think.uncertainty.n: n is 4 but the empirical distribution holds 3 values"},
		{"{n: 120, method: fisher", "{n: 120, method: fisherman", "distributions.service.uncertainty.method: expected fisher or bootstrap, got \"fisherman\""},
		// So wide that most draws are no gamma: it would draw the point
		// value, narrower the wider the fit.
		{"se: {shape: 0.5, scale: 0.03s}", "se: {shape: 40, scale: 3s}", "distributions.service.uncertainty: its standard errors leave only"},
		{"corr: -0.9}", "corr: -0.9, m: 1}", "distributions.service.uncertainty.m: unknown key \"m\" (expected one of: n, method, se, corr)"},
	}
	for _, c := range cases {
		src := strings.Replace(uncertainScenario, c.from, c.to, 1)
		_, err := model.LoadBytes(fstest.MapFS{}, "u.yaml", []byte(src), model.LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", c.to, err, c.want)
		}
	}
}

// An override replaces a range: the value is no longer uncertain.
func TestOverrideReplacesARange(t *testing.T) {
	l := mustLoadNamed(t, "u.yaml", uncertainScenario, model.LoadOptions{Sets: []string{"components.app.servers=5"}})
	for _, u := range l.Uncertain() {
		if u.Path == "components.app.servers" {
			t.Errorf("servers still uncertain after --set: %+v", u)
		}
	}
}

func correlation(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}
