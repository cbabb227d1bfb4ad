package model_test

import (
	"math"
	"testing"

	"capsim/cmd/golden"
	"capsim/model"
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
