package model_test

import (
	"math"
	"testing"

	"capsim/cmd/golden"
	"capsim/model"
	"capsim/scenarios"
)

// A journey of many requests fails far more often than its requests: the
// diagnostic names the gap; a journey whose failures match its requests',
// one that failed too rarely to matter, and one that never started say
// nothing.
func TestDiagnosticsNameHiddenFailures(t *testing.T) {
	r := &model.Result{Journeys: []model.JourneyResult{
		{Name: "trip", Started: 100, SuccessRate: 0.8, Requests: 1000, HTTPFailureRate: 0.02},
		{Name: "even", Started: 100, SuccessRate: 0.8, Requests: 100, HTTPFailureRate: 0.2},
		{Name: "rare", Started: 1000, SuccessRate: 0.995, Requests: 1000, HTTPFailureRate: 0},
		{Name: "idle", Started: 0, SuccessRate: model.Num(math.NaN()), Requests: 0, HTTPFailureRate: model.Num(math.NaN())},
		{Name: "silent", Started: 10, SuccessRate: 0.5, Requests: 20, HTTPFailureRate: 0},
	}}
	var got []string
	for _, d := range r.Diagnostics() {
		got = append(got, d.String())
	}
	want := []string{
		"trip: 20.00% of journeys failed but only 2.00% of their HTTP requests: an HTTP dashboard understates the failure 10x",
		"silent: 50.00% of journeys failed but only 0.00% of their HTTP requests",
	}
	golden.CheckLines(t, "diagnostics:\n%s\nwant:\n%s", got, want)
}

// The derived rates are NaN when there is nothing to divide by.
func TestRatesOfNothingAreNaN(t *testing.T) {
	j := &model.JourneyResult{SuccessRate: model.Num(math.NaN())}
	c := &model.ComponentResult{}
	if !math.IsNaN(float64(j.FailureRate())) || !math.IsNaN(float64(c.RejectionRate())) {
		t.Fatalf("failure rate %v, rejection rate %v", j.FailureRate(), c.RejectionRate())
	}
	c = &model.ComponentResult{Offered: 8, Rejected: 1, TimedOut: 1}
	if got := c.RejectionRate(); got != 0.25 {
		t.Fatalf("rejection rate %v, want 0.25", got)
	}
}

// overloads lists the Overload diagnostics of a result.
func overloads(r *model.Result) []string {
	var out []string
	for _, d := range r.Diagnostics() {
		if o, ok := d.(model.Overload); ok {
			out = append(out, o.String())
		}
	}
	return out
}

func runMM1(t *testing.T, sets ...string) *model.Result {
	t.Helper()
	l, err := model.Load(scenarios.FS(), scenarios.File("mm1"), model.LoadOptions{Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(model.RunOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// M/M/1 at ρ = 1.2 builds a backlog all run that the default drain lets
// end after it: every journey succeeds, and the diagnostic says what that
// hides. At ρ = 0.7 the few journeys in flight at the end are no backlog.
func TestDiagnosticsNameAnOverloadTheDrainHid(t *testing.T) {
	r := runMM1(t, "journeys.customer.rate=1.2/s", "duration=20000s")
	if j := r.Journeys[0]; j.Unfinished != 0 || j.Failed != 0 {
		t.Fatalf("the default drain should let every journey end: %+v", j)
	}
	if d := r.Drain; d == nil || d.ArrivalsEnd != 20000 || d.InFlight != 3867 || d.Left != 0 || d.Seconds < 3000 {
		t.Fatalf("drain %+v, want 3867 in flight at 20000 s, all ended more than 3000 s later", d)
	}
	want := []string{"3867 journeys were still in flight when the arrivals stopped at 333.3m, and draining them took 63.2m more: " +
		"the design did not keep up with the load (components at capacity: server 100%). " +
		"Journeys that drained count as succeeded or failed; --set drain=0s counts them as unfinished"}
	golden.CheckLines(t, "diagnostics:\n%s\nwant:\n%s", overloads(r), want)

	// With a drain set, those still in flight when it ends are named.
	r = runMM1(t, "journeys.customer.rate=1.2/s", "duration=20000s", "drain=600s")
	want = []string{"3867 journeys were still in flight when the arrivals stopped at 333.3m; in the 10.0m of drain that followed 641 of them ended and 3226 did not: " +
		"the design did not keep up with the load (components at capacity: server 100%). " +
		"Journeys that drained count as succeeded or failed; --set drain=0s counts them as unfinished"}
	golden.CheckLines(t, "diagnostics:\n%s\nwant:\n%s", overloads(r), want)

	// With none, nothing drained: the table already counts them.
	if got := overloads(runMM1(t, "journeys.customer.rate=1.2/s", "duration=20000s", "drain=0s")); len(got) != 0 {
		t.Fatalf("with drain=0s: %q", got)
	}
	r = runMM1(t, "journeys.customer.rate=0.7/s")
	if d := r.Drain; d == nil || d.InFlight > 20 || d.Left != 0 {
		t.Fatalf("drain at ρ = 0.7: %+v", d)
	}
	if got := r.Diagnostics(); len(got) != 0 {
		t.Fatalf("at ρ = 0.7: %q", got)
	}
}

// The criterion's edges: a backlog of under 1 in 1,000 started journeys, a
// bottleneck busy under 99 % of the time, and a run a guard stopped say
// nothing.
func TestOverloadNeedsABacklogAtCapacity(t *testing.T) {
	at := func(inFlight int64, util float64, broken bool) *model.Result {
		r := &model.Result{Journeys: []model.JourneyResult{{Name: "j", Started: 10000, SuccessRate: 1}},
			Components: []model.ComponentResult{{Name: "a", Utilisation: model.Num(util)}, {Name: "lock", Utilisation: model.Num(math.NaN())}},
			Drain:      &model.DrainResult{ArrivalsEnd: 600, InFlight: inFlight, Seconds: 300}}
		if broken {
			r.Broken = &model.Broken{Guard: "max_events"}
		}
		return r
	}
	if got := overloads(at(10, 0.99, false)); len(got) != 1 {
		t.Fatalf("10 of 10000 at 99%%: %q", got)
	}
	if got := overloadedMetrics(t, at(10, 0.99, false)); len(got) != 1 || got[0] != 1 {
		t.Fatalf("10 of 10000 at 99%%: overloaded_count %v, want one metric of 1", got)
	}
	for _, r := range []*model.Result{at(9, 1, false), at(100, 0.989, false), at(100, 1, true)} {
		if got := overloads(r); len(got) != 0 {
			t.Fatalf("%+v %+v: %q", r.Drain, r.Components[0], got)
		}
		if got := overloadedMetrics(t, r); len(got) != 0 {
			t.Fatalf("%+v %+v: overloaded_count %v, want none", r.Drain, r.Components[0], got)
		}
	}
}

// overloadedMetrics are the values of the run's overloaded_count among its
// metrics: listed, sparse, only where the diagnostic fires.
func overloadedMetrics(t *testing.T, r *model.Result) []float64 {
	t.Helper()
	var out []float64
	for _, m := range r.Metrics() {
		if m.Key == model.Overloaded.OfRun() {
			if !m.Sparse || m.Name() != "overloaded_count" {
				t.Fatalf("%s: overloaded_count is a sparse run measure", m.Name())
			}
			out = append(out, m.Value)
		}
	}
	return out
}
