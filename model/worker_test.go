package model_test

import (
	"testing"

	"capsim/model"
)

// A job whose wait for a worker times out leaves the queue: the worker never
// hands an instance to it later (its proc id may by then belong to another
// entity), and every job offered is either served or timed out.
func TestWorkerWaitTimeoutLeavesTheQueue(t *testing.T) {
	src := `name: w
duration: 10m
components:
  w: {kind: worker, instances: 1, cold_start: 5s, idle_stop: 30s, wait_timeout: 1s}
journeys:
  j:
    rate: 1/s
    steps:
      - use: w
        work: exponential(mean=2s)
        stage: job
`
	c := mustCompileNamed(t, "w.yaml", src, model.LoadOptions{})
	for seed := uint64(1); seed <= 5; seed++ {
		res := mustRun(t, c, model.RunOptions{Seed: seed})
		j, w := res.Journeys[0], res.Components[0]
		if j.Started != j.Succeeded+j.Failed || j.Unfinished != 0 {
			t.Fatalf("seed %d: %d started, %d succeeded, %d failed, %d unfinished", seed, j.Started, j.Succeeded, j.Failed, j.Unfinished)
		}
		if w.TimedOut != j.Failed || w.Offered != j.Started || w.TimedOut == 0 {
			t.Fatalf("seed %d: worker offered %d, timed out %d; journeys started %d, failed %d", seed, w.Offered, w.TimedOut, j.Started, j.Failed)
		}
	}
}

// A connection is discarded when its holder failed, or only when it failed
// with one of discard_on's statuses: a complete 503 keeps the connection, an
// abandoned response (504 at the deadline) closes it, and the next call
// pays the connect again.
func TestWorkerDiscardOn(t *testing.T) {
	src := scenarioSrc("discard", "10s", "arrivals: even\n",
		"  conn: {kind: worker, instances: 1, cold_start: 1s, warm_start: 0s, idle_stop: 1h, DISCARD}\n",
		`  j: {rate: 0.2/s, count: 2, steps: [{call: r, deadline: 2s}]}
routes:
  r: {steps: [{hold: conn}, FAILURE]}
`)
	for _, tc := range []struct {
		discard, failure string
		cold             int64
	}{
		{"discard_on_failure: false", "{fail: {p: 1, status: 503}}", 1},
		{"discard_on_failure: true", "{fail: {p: 1, status: 503}}", 2},
		{"discard_on: [504, 500]", "{fail: {p: 1, status: 503}}", 1},
		{"discard_on: [504, 500]", "{work: 5s}", 2},
		{"discard_on: [504, 500]", "{fail: {p: 1, status: 500}}", 2},
	} {
		res, _ := runYAML(t, replace(replace(src, "DISCARD", tc.discard), "FAILURE", tc.failure), model.RunOptions{})
		c, _ := res.Component("conn")
		j, _ := res.Journey("j")
		if c.ColdStarts != tc.cold || j.Failed != 2 {
			t.Errorf("%s, %s: %d cold starts, %d failed journeys; want %d, 2", tc.discard, tc.failure, c.ColdStarts, j.Failed, tc.cold)
		}
	}
}
