package scenarios_test

import (
	"testing"

	"capsim/model"
	"capsim/scenarios"
)

// runScenario runs an embedded scenario once.
func sysRun(t *testing.T, name, design string, seed uint64, trace func(*model.TraceEvent), sets ...string) *model.Result {
	t.Helper()
	l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{Design: design, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(model.RunOptions{Seed: seed, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	if res.Broken != nil {
		t.Fatalf("%s/%s: %s", name, design, res.Broken)
	}
	return res
}

func sysJourney(t *testing.T, r *model.Result, name string) model.JourneyResult {
	t.Helper()
	for _, j := range r.Journeys {
		if j.Name == name {
			return j
		}
	}
	t.Fatalf("no journey %s", name)
	return model.JourneyResult{}
}

func sysRoute(t *testing.T, r *model.Result, name string) model.RouteResult {
	t.Helper()
	for _, x := range r.Routes {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("no route %s", name)
	return model.RouteResult{}
}

func sysComponent(t *testing.T, r *model.Result, name string) model.ComponentResult {
	t.Helper()
	for _, c := range r.Components {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no component %s", name)
	return model.ComponentResult{}
}

// within fails unless got is within rel of want.
func sysWithin(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if got < want*(1-rel) || got > want*(1+rel) {
		t.Errorf("%s = %.4g, want %.4g within ±%.0f%%", what, got, want, 100*rel)
	} else {
		t.Logf("%s = %.4g (seed %.4g)", what, got, want)
	}
}
