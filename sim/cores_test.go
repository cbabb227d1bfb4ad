package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

type coreEnd struct {
	id int32
	at Time
}

func newRecordedCores(s *Sim, cores int, quantum float64, preemptive bool) (*Cores, *[]coreEnd) {
	var ends []coreEnd
	c := NewCores(s, cores, quantum, preemptive, func(id int32) { ends = append(ends, coreEnd{id, s.Now()}) })
	return c, &ends
}

func startAt(s *Sim, at Time, f func()) {
	s.At(at, s.Handle(func(int64) { f() }), 0)
}

func checkEnds(t *testing.T, got []coreEnd, want ...coreEnd) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("ends %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ends %v, want %v", got, want)
		}
	}
}

// Round robin by hand, quantum 10 ms, one core: A (25 ms) at 0, B (15 ms)
// at 5 ms. A runs 0–10; B, waiting, runs 10–20; A 20–30 (5 ms left);
// B finishes its last 5 ms 30–35; A its last 5 ms 35–40.
func TestCoresRoundRobinTimeline(t *testing.T) {
	s := New()
	c, ends := newRecordedCores(s, 1, 0.010, false)
	c.Start(0, 1, 0.025, 0)
	startAt(s, 5*Millisecond, func() { c.Start(s.Now(), 2, 0.015, 0) })
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{2, 35 * Millisecond}, coreEnd{1, 40 * Millisecond})
	// B waited 10 − 5 ms for its first slice; A not at all.
	if got := c.Wait.Mean(); math.Abs(got-0.0025) > 1e-12 {
		t.Fatalf("mean wait %v, want 2.5ms", got)
	}
	if got := c.Busy.Mean(40 * Millisecond); got != 1 || c.Served != 2 {
		t.Fatalf("busy %v served %d, want 1 and 2", got, c.Served)
	}
}

// The same with switch cost 0.1: each switch with one job beyond the core
// costs 0.1·1·10 ms = 1 ms. A 0–10; switch 10–11, B 11–21; switch 21–22,
// A 22–32; switch 32–33, B 33–38 done; A alone, no switch, 38–43.
func TestCoresRoundRobinSwitchCostTimeline(t *testing.T) {
	s := New()
	c, ends := newRecordedCores(s, 1, 0.010, false)
	c.SetSwitchCost(0.1)
	c.Start(0, 1, 0.025, 0)
	startAt(s, 5*Millisecond, func() { c.Start(s.Now(), 2, 0.015, 0) })
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{2, 38 * Millisecond}, coreEnd{1, 43 * Millisecond})
	// 40 ms of work in 43 ms, the core busy throughout.
	if got := c.Busy.Mean(43 * Millisecond); got != 1 {
		t.Fatalf("busy %v, want 1", got)
	}
	if got, want := c.Useful.Mean(43*Millisecond), 40.0/43; math.Abs(got-want) > 1e-12 {
		t.Fatalf("useful %v, want %v", got, want)
	}
}

// FIFO on two cores: three 1 s jobs at 0; the third waits for a core and
// ends at 2 s. A 0.5 s job at 0.5 s waits behind it and runs 1–1.5 s.
func TestCoresFIFOTimeline(t *testing.T) {
	s := New()
	c, ends := newRecordedCores(s, 2, math.Inf(1), false)
	for id := int32(1); id <= 3; id++ {
		c.Start(0, id, 1, 0)
	}
	startAt(s, 500*Millisecond, func() { c.Start(s.Now(), 4, 0.5, 0) })
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{1, Second}, coreEnd{2, Second}, coreEnd{4, 1500 * Millisecond}, coreEnd{3, 2 * Second})
}

// Non-preemptive priority: a class-1 job that arrives while a class-0 job
// runs waits for it, then goes before the class-0 job queued earlier.
// Preemptive-resume: it takes the core at once, and the stopped job resumes
// first with the work it had done.
func TestCoresPriorities(t *testing.T) {
	s := New()
	c, ends := newRecordedCores(s, 1, math.Inf(1), false)
	c.Start(0, 1, 1, 0)
	c.Start(0, 2, 1, 0)
	startAt(s, 500*Millisecond, func() { c.Start(s.Now(), 3, 1, 1) })
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{1, Second}, coreEnd{3, 2 * Second}, coreEnd{2, 3 * Second})

	s = New()
	c, ends = newRecordedCores(s, 1, math.Inf(1), true)
	c.Start(0, 1, 1, 0)
	c.Start(0, 2, 1, 0)
	startAt(s, 500*Millisecond, func() { c.Start(s.Now(), 3, 1, 1) })
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{3, 1500 * Millisecond}, coreEnd{1, 2 * Second}, coreEnd{2, 3 * Second})
}

// A slice that ends gives way only to its class or higher: under round
// robin a lone class-1 job keeps the core against a waiting class-0 one.
func TestCoresRoundRobinKeepsTheCoreAgainstLowerClasses(t *testing.T) {
	s := New()
	c, ends := newRecordedCores(s, 1, 0.1, false)
	c.Start(0, 1, 0.3, 1)
	c.Start(0, 2, 0.1, 0)
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{1, 300 * Millisecond}, coreEnd{2, 400 * Millisecond})
}

// An abandoned job leaves its core to the next ready one, and one abandoned
// while ready is skipped.
func TestCoresAbandon(t *testing.T) {
	s := New()
	c, ends := newRecordedCores(s, 1, math.Inf(1), false)
	c.Start(0, 1, 2, 0)
	c.Start(0, 2, 1, 0)
	c.Start(0, 3, 1, 0)
	startAt(s, Second, func() {
		if !c.Abandon(s.Now(), 1) || !c.Abandon(s.Now(), 2) || c.Abandon(s.Now(), 2) {
			t.Error("Abandon did not report the jobs there once each")
		}
	})
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{3, 2 * Second})
	if got := c.InSystem.Value(); got != 0 {
		t.Fatalf("%v jobs left, want 0", got)
	}
	// A restarted id is a new job: its old ready entry is not it.
	c.Start(s.Now(), 2, 1, 0)
	s.RunUntil(Never)
	checkEnds(t, *ends, coreEnd{3, 2 * Second}, coreEnd{2, 3 * Second})
}

// Work never goes missing: whatever the discipline, n jobs of 1 s on c
// cores started together are all done by n/c s, the cores never idle with
// work ready, and the last ends at exactly n/c s (no switch cost).
func TestCoresConserveWork(t *testing.T) {
	for _, q := range []float64{math.Inf(1), 0.3, 0.001} {
		for _, pre := range []bool{false, true} {
			s := New()
			c, ends := newRecordedCores(s, 3, q, pre)
			for id := int32(0); id < 9; id++ {
				c.Start(0, id, 1, int(id%3))
			}
			s.RunUntil(Never)
			last := (*ends)[len(*ends)-1].at
			if len(*ends) != 9 || math.Abs((last-3*Second).Seconds()) > 1e-6 {
				t.Fatalf("quantum %v preemptive %v: %d ends, last at %v, want 9 by 3s", q, pre, len(*ends), last)
			}
		}
	}
}

// Finishing slices and jobs allocates nothing.
func TestCoresAllocateNothing(t *testing.T) {
	for _, q := range []float64{math.Inf(1), 0.0003} {
		s := New()
		var c *Cores
		rng := rand.New(rand.NewPCG(1, 2))
		// Each job that ends starts again under its id, in a class drawn
		// afresh, so that preemptions happen too.
		c = NewCores(s, 2, q, true, func(id int32) { c.Start(s.Now(), id, 0.001, rng.IntN(3)) })
		c.SetSwitchCost(0.1)
		for id := int32(0); id < 8; id++ {
			c.Start(0, id, 0.001, 0)
		}
		s.RunUntil(Second)
		allocs := testing.AllocsPerRun(10, func() { s.RunUntil(s.Now() + Second) })
		if allocs != 0 {
			t.Fatalf("quantum %v: %v allocations per simulated second, want 0", q, allocs)
		}
	}
}

func benchmarkCores(b *testing.B, quantum float64) {
	s := New()
	var c *Cores
	c = NewCores(s, 4, quantum, false, func(id int32) { c.Start(s.Now(), id, 0.001, 0) })
	for id := int32(0); id < 16; id++ {
		c.Start(0, id, 0.001, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Step()
	}
}

// One event per job run to completion, with 16 jobs on 4 cores.
func BenchmarkCoresFIFO(b *testing.B) { benchmarkCores(b, math.Inf(1)) }

// One event per slice of 0.25 ms: four slices a job.
func BenchmarkCoresRoundRobin(b *testing.B) { benchmarkCores(b, 0.00025) }
