package model_test

import (
	"testing"
	"time"
)

// The interpreter's own guarantees: it never recurses, it yields when no
// simulated time passes, and a loop that takes no time stops at a guard
// that names the step, quickly.

// A tolerated failure unwinds and the loop goes on: three million of them
// in one journey once overflowed the stack, one nested exec per failure.
func TestToleratedFailuresDoNotRecurse(t *testing.T) {
	src := onceSrc("tolerated", "", "  app: {kind: pool, servers: 1}\n", `
      - repeat: 3000000
        steps:
          - {fail: {p: 1, status: 500}, optional: true}
      - work: 1s
`)
	res := runYAMLNoTrace(t, src)
	if res.Broken != nil {
		t.Fatalf("run broken: %v", res.Broken)
	}
	j := res.Journeys[0]
	if res.Tolerated != 3_000_000 || j.Succeeded != 1 || float64(j.Latency.Max) != 1 {
		t.Errorf("tolerated %d, succeeded %d, latency %v; want 3000000, 1, 1s", res.Tolerated, j.Succeeded, j.Latency.Max)
	}
}

// Ten billion steps at one instant: the guard stops the run in well under
// ten seconds (about 0.05 s here) and names the innermost step of the loop.
func TestZeroTimeLoopStopsAtTheGuard(t *testing.T) {
	src := onceSrc("zero", "", "  app: {kind: pool, servers: 1}\n", `
      - call: spin
routes:
  spin:
    steps:
      - repeat: 100000
        steps:
          - repeat: 100000
            steps: [{log: tick}]
`)
	start := time.Now()
	res := runYAMLNoTrace(t, src)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the guard took %v, want well under 10s", took)
	}
	want := `stopped by guard max_steps_per_instant at 0s: 20000768 steps ran at one instant without simulated time passing (limits.max_steps_per_instant); the last at routes.spin.steps[0].steps[0].steps[0] (route spin): a loop that takes no time?`
	if res.Broken == nil || res.Broken.String() != want {
		t.Errorf("broken = %v\nwant %s", res.Broken, want)
	}
}

// A long burst of zero-time steps within the guard yields through the
// event queue and finishes: the yield is invisible to the result.
func TestYieldKeepsTheResult(t *testing.T) {
	src := onceSrc("burst", "", "  app: {kind: pool, servers: 1}\n", `
      - repeat: 1000000
        steps: [{log: tick}]
      - use: app
        work: 2s
`)
	res := runYAMLNoTrace(t, src)
	j := res.Journeys[0]
	if res.Broken != nil || j.Succeeded != 1 || float64(j.Latency.Max) != 2 {
		t.Errorf("broken %v, succeeded %d, latency %v; want a clean run of 2s", res.Broken, j.Succeeded, j.Latency.Max)
	}
}

// A job that awaits its own journey's jobs waits for itself: nothing is
// left to happen, and the run says so instead of running out the clock.
func TestDeadlockIsNamed(t *testing.T) {
	src := onceSrc("deadlock", "", "  app: {kind: pool, servers: 1}\n", ` [{job: selfish}]
routes:
  selfish:
    steps: [{await: jobs}]
`)
	res := runYAMLNoTrace(t, src)
	want := "stopped by guard deadlock at 1.00s: nothing left to happen at 1.00s with 1 journeys still waiting; waiting: 1 for the journey's jobs, 1 for a job or fan-out"
	if res.Broken == nil || res.Broken.String() != want {
		t.Errorf("broken = %v\nwant %s", res.Broken, want)
	}
}
