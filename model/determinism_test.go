package model_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"capsim/cmd/golden"
	"capsim/model"
	"capsim/scenarios"
)

// runBytes runs once and returns the result and the trace, as bytes.
func runBytes(t *testing.T, c *model.Compiled, opts model.RunOptions) ([]byte, []byte) {
	t.Helper()
	var trace bytes.Buffer
	enc := json.NewEncoder(&trace)
	opts.Trace = func(e *model.TraceEvent) { enc.Encode(e) }
	res := mustRun(t, c, opts)
	out, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return out, trace.Bytes()
}

// A run is a pure function of (scenario, design, multiplier, seed): the
// same inputs give the same bytes, whatever GOMAXPROCS is and however many
// runs share the process.
func TestRunsAreReproducible(t *testing.T) {
	c := compileFile(t, "features.yaml", model.LoadOptions{Sets: []string{"duration=2h"}})
	opts := model.RunOptions{Seed: 42, Multiplier: 3}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	res1, trace1 := runBytes(t, c, opts)
	runtime.GOMAXPROCS(2)
	res2, trace2 := runBytes(t, c, opts)
	if !bytes.Equal(res1, res2) || !bytes.Equal(trace1, trace2) {
		t.Fatal("same inputs gave different bytes")
	}
	if bytes.Count(trace1, []byte("\n")) < 1000 {
		t.Fatalf("trace has only %d events; the scenario exercises too little", bytes.Count(trace1, []byte("\n")))
	}
	res3, _ := runBytes(t, c, model.RunOptions{Seed: 43, Multiplier: 3})
	if bytes.Equal(res1, res3) {
		t.Fatal("a different seed gave the same result")
	}
}

// Common random numbers: a design that changes one component leaves the
// arrival stream untouched, so both designs see the same journeys.
func TestDesignsShareArrivals(t *testing.T) {
	base := compileFile(t, "features.yaml", model.LoadOptions{Sets: []string{"arrivals=poisson"}})
	bigger := compileFile(t, "features.yaml", model.LoadOptions{Sets: []string{"arrivals=poisson", "components.app.servers=40"}})
	starts := func(c *model.Compiled) []float64 {
		var ts []float64
		c.Run(model.RunOptions{Seed: 5, Trace: func(e *model.TraceEvent) {
			if e.Event == "capsim.journey_start" {
				ts = append(ts, e.T)
			}
		}})
		return ts
	}
	a, b := starts(base), starts(bigger)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("journey starts: %d vs %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("journey %d starts at %v in one design and %v in the other", i, a[i], b[i])
		}
	}
}

// Memory is bounded by what is in flight, not by run length: a run ten
// times longer allocates about the same.
func TestMemoryDoesNotGrowWithRunLength(t *testing.T) {
	alloc := func(customers string) uint64 {
		c := compileEmbedded(t, "mmc", model.LoadOptions{Sets: []string{"journeys.customer.count=" + customers, "duration=10000000s", "warmup=0s"}})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := c.Run(model.RunOptions{Seed: 1}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	short, long := alloc("20000"), alloc("200000")
	t.Logf("allocated %d bytes for 20k customers, %d for 200k", short, long)
	if float64(long) > 1.5*float64(short) {
		t.Fatalf("10x the customers allocated %.1fx the memory", float64(long)/float64(short))
	}
}

// No embedded scenario allocates per event: the same scenario run three
// times as long (its arrivals going on at their rate, at steady state
// after the warm-up) makes about as many allocations, whatever its
// components and steps. They are counted, not weighed: the buffers that
// double as a longer run reaches a longer queue add bytes, few
// allocations. One allocation on the path of an event, as a copy of the
// step per acquire of a backend behind a balancer was, triples the count.
func TestNoScenarioAllocatesPerEvent(t *testing.T) {
	allocs := func(c *model.Compiled) (uint64, uint64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := c.Run(model.RunOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs, res.Events
	}
	for _, name := range scenarios.List() {
		t.Run(name, func(t *testing.T) {
			l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := time.Duration(l.Scenario.Duration.T)
			a, ae := allocs(compileEmbedded(t, name, model.LoadOptions{}))
			b, be := allocs(compileEmbedded(t, name, model.LoadOptions{Sets: []string{"duration=" + (3 * d).String()}}))
			t.Logf("%d allocations in %v (%d events), %d in three times as long (%d events)", a, d, ae, b, be)
			if float64(b) > 1.25*float64(a) {
				t.Errorf("three times as long made %.2fx the allocations (%d against %d)", float64(b)/float64(a), b, a)
			}
		})
	}
}

// A run pushed to 50x its capacity stops at a guard instead of eating
// memory: it ends, says which guard tripped, fails its SLOs, and allocates
// within the bound the README documents.
func TestRunawayRunStopsAtAGuard(t *testing.T) {
	c := compileEmbedded(t, "mmc", model.LoadOptions{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := mustRun(t, c, model.RunOptions{Seed: 1, Multiplier: 50})
	runtime.ReadMemStats(&after)
	if res.Broken == nil || res.Broken.Guard != "max_in_flight" || res.Broken.Component != "server" {
		t.Fatalf("broken = %+v, want the max_in_flight guard, naming the server where the queue grew", res.Broken)
	}
	for _, s := range res.SLOs {
		if s.Met {
			t.Errorf("SLO %s met by a broken run", s.SLO)
		}
	}
	const bound = 100 << 20
	if got := after.TotalAlloc - before.TotalAlloc; got > bound {
		t.Fatalf("a runaway run allocated %d MB, above the documented %d MB", got>>20, bound>>20)
	}
}

// The first events of a reference run are pinned: any change to event
// order, tie-breaking or stream derivation shows up here first, as a diff
// of the trace a user would see. If it changes, the change must be meant.
func TestTraceIsStableAcrossVersions(t *testing.T) {
	c := compileFile(t, "features.yaml", model.LoadOptions{})
	_, trace := runBytes(t, c, model.RunOptions{Seed: 1})
	lines := bytes.SplitAfterN(trace, []byte("\n"), 121)
	got := bytes.Join(lines[:120], nil)
	golden.Check(t, filepath.Join("testdata", "features_trace.golden"), got)
}
