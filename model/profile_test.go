package model_test

import (
	"math"
	"testing"

	"capsim/model"
)

// Load profiles against their arithmetic: even arrivals land where the
// cumulative rate crosses each whole number; Poisson arrivals count what
// the rate integrates to.

func starts(events []model.TraceEvent) []float64 {
	var ts []float64
	for _, e := range events {
		if e.Event == "journey_start" {
			ts = append(ts, e.T)
		}
	}
	return ts
}

// A ramp from 0 to 2/s over 10 s has Λ(t) = t²/10, so the k-th even
// arrival is at √(10k) s: nine of them before the window ends at 10 s.
func TestEvenArrivalsFollowARamp(t *testing.T) {
	src := `name: ramp
duration: 10s
arrivals: even
components:
  app: {kind: pool, servers: 100}
journeys:
  j:
    stages: [{target: 2/s, duration: 10s}]
    steps: [{use: app, work: 1ms}]
`
	_, events := runYAML(t, src, model.RunOptions{Seed: 1})
	ts := starts(events)
	if len(ts) != 9 {
		t.Fatalf("%d arrivals, want 9: %v", len(ts), ts)
	}
	for i, got := range ts {
		if want := math.Sqrt(10 * float64(i+1)); math.Abs(got-want) > 1e-6 {
			t.Errorf("arrival %d at %.9fs, want %.9fs", i+1, got, want)
		}
	}
}

// 10/s for 100 s, a step to 100/s for 100 s, a ramp down to 0 over 20 s
// (1,000 more) and nothing after: 12,000 Poisson arrivals expected; the
// count is within 4 standard deviations (√12000 ≈ 110), window by window.
func TestPoissonArrivalsFollowStages(t *testing.T) {
	src := `name: stages
duration: 400s
components:
  app: {kind: pool, servers: 1000}
journeys:
  j:
    rate: 10/s
    stages:
      - {target: 10/s, duration: 100s}
      - {target: 100/s, duration: 0s}
      - {target: 100/s, duration: 100s}
      - {target: 0/s, duration: 20s}
    steps: [{use: app, work: 1ms}]
`
	for _, mult := range []float64{1, 2} {
		_, events := runYAML(t, src, model.RunOptions{Seed: 7, Multiplier: mult})
		var n [4]float64
		for _, ts := range starts(events) {
			switch {
			case ts < 100:
				n[0]++
			case ts < 200:
				n[1]++
			case ts < 220:
				n[2]++
			default:
				n[3]++
			}
		}
		want := [4]float64{1000 * mult, 10000 * mult, 1000 * mult, 0}
		for i := range n {
			if math.Abs(n[i]-want[i]) > 4*math.Sqrt(want[i]) {
				t.Errorf("multiplier %g, window %d: %g arrivals, want %g ± %.0f", mult, i, n[i], want[i], 4*math.Sqrt(want[i]))
			}
		}
	}
}

// Capacity over time, as a server schedule: one server, none from 10 s to
// 20 s. A job started at 5 s runs its 8 s through the cut (no
// preemption); one arriving at 12 s waits for the server's return at 20 s.
func TestAScheduleWithAZeroCapacityWindow(t *testing.T) {
	src := `name: shift
duration: 15s
arrivals: even
components:
  desk: {kind: pool, servers: 1, schedule: [{at: 10s, servers: 0}, {at: 20s, servers: 1}]}
journeys:
  early:
    rate: 1/s
    start: 5s
    count: 1
    steps: [{use: desk, work: 8s}]
  late:
    rate: 1/s
    start: 12s
    count: 1
    steps: [{use: desk, work: 1s}]
`
	res, _ := runYAML(t, src, model.RunOptions{})
	early, late := res.Journeys[0], res.Journeys[1]
	desk, _ := res.Component("desk")
	// Capacity: 1 for 10 s, 0 for 10 s, 1 for the last 1 s of a 21 s run.
	if float64(early.Latency.Max) != 8 || float64(late.Latency.Max) != 9 || desk.Capacity != 11.0/21 {
		t.Errorf("early %v, late %v, mean capacity %g; want 8s, 9s (8 waiting), 11/21", early.Latency.Max, late.Latency.Max, desk.Capacity)
	}
}
