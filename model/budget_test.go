package model_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"capsim/sim"
)

// budgetScenario is a pool's journey with components and slos spliced in.
func budgetScenario(components, slos string) string {
	return "name: p\nduration: 10s\ncomponents:\n" + components + "journeys:\n  j:\n    rate: 10/s\n    steps:\n" +
		"      - use: db\n        work: 10ms\n" + slos
}

// Every number that sizes memory before the first event is checked
// against one budget where it is written, at once: the sizes the
// estimates give, not an out-of-memory crash (connections, autoscale)
// or minutes of copying (replicas) once the run starts.
func TestMemoryBudgetRefusesAtCompile(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"connections", budgetScenario("  db: {kind: connections, max: 1000000000}\n", ""),
			"s.yaml:4:32: components.db.max: max: 1000000000 connections would need 44 GB of memory, more than the 1.0 GB a run may set aside"},
		{"instances", budgetScenario("  db: {kind: worker, instances: 100000000}\n", ""),
			"s.yaml:4:33: components.db.instances: instances: 100000000 would need 3.2 GB of memory, more than the 1.0 GB a run may set aside"},
		{"autoscale period", budgetScenario("  db: {kind: worker, instances: 4, autoscale: {metric: utilisation, target: 0.5, period: 1ns}}\n", ""),
			"s.yaml:4:90: components.db.autoscale.period: an autoscaler deciding every 1ns over a 5m0s window would need 7.2 TB of memory, more than the 1.0 GB a run may set aside"},
		{"replicas", budgetScenario("  lb: {kind: balancer, replicas: 1000000000}\n  db: {kind: pool, servers: 4, behind: lb}\n", ""),
			"s.yaml:4:34: components.lb.replicas: replicas: 1000000000 would need 136 GB of memory, more than the 1.0 GB a run may set aside"},
		{"slo window", budgetScenario("  db: {kind: pool, servers: 4}\n", "slos:\n  - {journey: j, p95: \"< 1s\", window: 1ns}\n"),
			"s.yaml:12:39: slos[0].window: window: 1ns over a 10s run would need 1.9 TB of memory, more than the 1.0 GB a run may set aside"},
		// The budget is one for the scenario: two pools of connections
		// that fit alone do not fit together.
		{"sum", budgetScenario("  db: {kind: connections, max: 15000000}\n  db2: {kind: connections, max: 15000000}\n", ""),
			"s.yaml:5:33: components.db2.max: max: 15000000 connections would need 660 MB of memory, more than the 1.0 GB a run may set aside"},
	} {
		t0 := time.Now()
		err := compileError(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("%s: refused after %v: the estimate must come before the allocation", tc.name, d)
		}
	}
	// Within the budget the same keys compile.
	if err := compileError(budgetScenario("  db: {kind: connections, max: 1000000}\n", "")); err != nil {
		t.Errorf("a million connections: %v", err)
	}
}

// The estimates are what the allocations take: a connection table and a
// worker pool with an autoscaler set aside within 10 % of their Bytes.
func TestMemoryEstimatesMatchTheAllocations(t *testing.T) {
	heap := func(f func() any) float64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		keep := f()
		runtime.ReadMemStats(&b)
		runtime.KeepAlive(keep)
		return float64(b.TotalAlloc - a.TotalAlloc)
	}
	s := sim.New()
	kc := sim.KeyedSlotsConfig{Max: 1_000_000, Open: sim.Constant(0)}
	got := heap(func() any {
		return sim.NewKeyedSlots(s, kc, sim.NewStreams(1).Get("x"), func(int32) int64 { return 0 }, func(int32, int32, sim.Time) {})
	})
	if want := kc.Bytes(); got < 0.9*want || got > 1.1*want {
		t.Errorf("connections: allocated %.0f bytes, estimated %.0f", got, want)
	}
	wc := sim.WorkerConfig{Max: 100_000, Autoscale: &sim.AutoscaleConfig{Period: sim.Second, UpWindow: 0, DownWindow: 100_000 * sim.Second}}
	got = heap(func() any { return sim.NewWorkerPool(s, wc, sim.NewStreams(1).Get("y"), func(int32, int32) {}) })
	if want := wc.Bytes(); got < 0.9*want || got > 1.1*want {
		t.Errorf("worker: allocated %.0f bytes, estimated %.0f", got, want)
	}
	bc := sim.BalancerConfig{Targets: 1_000_000, GapFrom: sim.Never, GapTo: sim.Never}
	got = heap(func() any { return sim.NewBalancer(s, bc, nil) })
	if want := bc.Bytes(); got < 0.9*want || got > 1.1*want {
		t.Errorf("balancer: allocated %.0f bytes, estimated %.0f", got, want)
	}
}
