package model_test

import (
	"testing"
	"testing/fstest"

	"capsim/model"
)

// A job whose wait for a worker times out leaves the queue: the worker never
// hands an instance to it later (its proc id may by then belong to another
// entity), and every job offered is either served or timed out.
func TestWorkerWaitTimeoutLeavesTheQueue(t *testing.T) {
	src := []byte(`name: w
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
`)
	l, err := model.LoadBytes(fstest.MapFS{}, "w.yaml", src, model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := c.Run(model.RunOptions{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		j, w := res.Journeys[0], res.Components[0]
		if j.Started != j.Succeeded+j.Failed || j.Unfinished != 0 {
			t.Fatalf("seed %d: %d started, %d succeeded, %d failed, %d unfinished", seed, j.Started, j.Succeeded, j.Failed, j.Unfinished)
		}
		if w.TimedOut != j.Failed || w.Offered != j.Started || w.TimedOut == 0 {
			t.Fatalf("seed %d: worker offered %d, timed out %d; journeys started %d, failed %d", seed, w.Offered, w.TimedOut, j.Started, j.Failed)
		}
	}
}
