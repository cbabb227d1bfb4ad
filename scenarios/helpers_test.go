package scenarios_test

import (
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
	"capsim/model"
	"capsim/scenarios"
)

// runScenario loads, compiles and runs a design of an embedded scenario
// once, with --set overrides.
func runScenario(t *testing.T, name, design string, opts model.RunOptions, sets ...string) *model.Result {
	t.Helper()
	l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{Design: design, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runOnce runs an embedded scenario once and insists it did not run away.
func runOnce(t *testing.T, name, design string, seed uint64, trace func(*model.TraceEvent), sets ...string) *model.Result {
	t.Helper()
	return held(t, name, design, runScenario(t, name, design, model.RunOptions{Seed: seed, Trace: trace}, sets...))
}

// held fails the test when a guard stopped the run of a scenario's design.
func held(t *testing.T, name, design string, res *model.Result) *model.Result {
	t.Helper()
	if res.Broken != nil {
		t.Fatalf("%s/%s: %s", name, design, res.Broken)
	}
	return res
}

// journey, route and component look a result up by name, failing the test
// when it is missing.
func journey(t *testing.T, r *model.Result, name string) model.JourneyResult {
	t.Helper()
	j, ok := r.Journey(name)
	return must(t, j, ok, "journey", name)
}

func route(t *testing.T, r *model.Result, name string) model.RouteResult {
	t.Helper()
	x, ok := r.Route(name)
	return must(t, x, ok, "route", name)
}

func component(t *testing.T, r *model.Result, name string) model.ComponentResult {
	t.Helper()
	c, ok := r.Component(name)
	return must(t, c, ok, "component", name)
}

func must[T any](t *testing.T, v *T, ok bool, kind, name string) T {
	t.Helper()
	if !ok {
		t.Fatalf("no %s %s in the result", kind, name)
	}
	return *v
}

// withinRel fails unless got is within rel of want.
func withinRel(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if got < want*(1-rel) || got > want*(1+rel) {
		t.Errorf("%s = %.4g, want %.4g within ±%.0f%%", what, got, want, 100*rel)
	} else {
		t.Logf("%s = %.4g (seed %.4g)", what, got, want)
	}
}
