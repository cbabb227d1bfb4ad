package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBalancerRoundRobinAndLeastInFlight(t *testing.T) {
	s := New()
	b := NewBalancer(s, BalancerConfig{Targets: 3, Policy: RoundRobin}, nil)
	var got []int
	for k := 0; k < 6; k++ {
		got = append(got, b.Pick(0, 0))
	}
	if want := []int{0, 1, 2, 0, 1, 2}; !equalInts(got, want) {
		t.Fatalf("round robin picked %v, want %v", got, want)
	}
	l := NewBalancer(s, BalancerConfig{Targets: 3, Policy: LeastInFlight}, nil)
	a, c := l.Pick(0, 0), l.Pick(0, 0)
	l.Pick(0, 0)
	l.Done(0, a)
	if i := l.Pick(0, 0); i != a {
		t.Fatalf("least in flight picked %d, want %d (the only target with a free pick)", i, a)
	}
	if a == c {
		t.Fatalf("two picks with nothing in flight went to the same target %d", a)
	}
}

// The corrected capacity model on the seed's two worked examples (FIGURES
// 004-10, 004-11), with target 0.7 and safety 0.5: 10 sessions at 90% take
// nothing; 80 sessions at 40% may take 0.5·(0.7−0.4)/(0.4/80) = 30 more in
// the interval, not a burst up to the 70% line (60).
func TestBalancerHeadroomWorkedExamples(t *testing.T) {
	s := New()
	load := []float64{0.9, 0.4}
	b := NewBalancer(s, BalancerConfig{Targets: 2, Policy: Headroom, ReportEvery: Second, TargetLoad: 0.7, Safety: 0.5},
		func(i int) float64 { return load[i] })
	b.AddCount(0, 10)
	b.AddCount(1, 80)
	s.RunUntil(Second) // the report at 1 s carries the counts
	// The fleet cost (1.3/90) is above target 1's own (0.4/80) and is the
	// one the corrected model charges: 0.5·0.3/(1.3/90) = 10.38.
	fleet := 1.3 / 90
	if h := b.Headroom(0); h != 0 {
		t.Fatalf("10 sessions at 90%%: headroom %g, want 0", h)
	}
	if h, want := b.Headroom(1), 0.5*0.3/fleet; math.Abs(h-want) > 1e-9 {
		t.Fatalf("80 sessions at 40%%: headroom %g, want %g", h, want)
	}
	// Alone, the target is charged its own cost: 30 sessions.
	solo := NewBalancer(New(), BalancerConfig{Targets: 1, Policy: Headroom, TargetLoad: 0.7, Safety: 0.5},
		func(int) float64 { return 0.4 })
	solo.AddCount(0, 80)
	if h := solo.Headroom(0); math.Abs(h-30) > 1e-9 {
		t.Fatalf("80 sessions at 40%% alone: headroom %g, want 30", h)
	}
	// Picks spend the headroom until the next report.
	for k := 0; k < 10; k++ {
		if i := b.Pick(s.Now(), 1); i != 1 {
			t.Fatalf("pick %d went to target %d, which has no headroom", k, i)
		}
	}
	if h := b.Headroom(1); h >= 0.5*0.3/fleet-10+1e-9 || h < 0 {
		t.Fatalf("after 10 picks headroom is %g", h)
	}
}

// Between reports a least-count policy sees the last snapshot: every pick
// in the interval goes to the same target. Lost reports keep it stale; a
// TTL turns picks over to in-flight counting.
func TestBalancerStaleReportsAndTTL(t *testing.T) {
	s := New()
	b := NewBalancer(s, BalancerConfig{Targets: 3, Policy: LeastCount, ReportEvery: 10 * Second,
		GapFrom: 15 * Second, GapTo: 45 * Second, TTL: 20 * Second}, nil)
	b.AddCount(0, 5)
	b.AddCount(1, 1)
	b.AddCount(2, 3)
	s.RunUntil(10 * Second)
	for k := 0; k < 5; k++ {
		i := b.Pick(s.Now(), 1)
		b.AddCount(i, 1)
		if i != 1 {
			t.Fatalf("pick %d went to %d; the report says target 1 has fewest", k, i)
		}
	}
	s.RunUntil(29 * Second) // reports at 20 s lost; the 10 s one is 19 s old
	if b.Stale(s.Now()) {
		t.Fatal("a 19 s old report is stale under a 20 s TTL")
	}
	s.RunUntil(31 * Second)
	if !b.Stale(s.Now()) {
		t.Fatal("a 21 s old report is not stale under a 20 s TTL")
	}
	b.Pick(s.Now(), 0)
	if b.Fallback != 1 {
		t.Fatalf("fallback picks %d, want 1", b.Fallback)
	}
	s.RunUntil(50 * Second) // the 50 s report arrives
	if b.Stale(s.Now()) {
		t.Fatal("stale right after a report")
	}
}

// An abandoned job never reaches its grant: queued, it leaves the queue;
// being prepared on an instance, the instance serves the next job instead.
func TestWorkerAbandon(t *testing.T) {
	s := New()
	var granted []int32
	w := NewWorkerPool(s, WorkerConfig{Max: 1, Min: 1, ColdStart: Constant(0), WarmStart: Constant(1), QueueCap: Unbounded},
		rand.New(rand.NewPCG(1, 2)), func(id, _ int32) { granted = append(granted, id) })
	w.Submit(0, 1) // prepares on the idle instance for 1 s
	w.Submit(0, 2) // queued
	w.Submit(0, 3) // queued
	if !w.Abandon(0, 1) || !w.Abandon(0, 2) {
		t.Fatal("abandon of a waiting job reported false")
	}
	if w.Abandon(0, 9) {
		t.Fatal("abandon of an unknown job reported true")
	}
	s.RunUntil(10 * Second)
	if !equalInts32(granted, []int32{3}) {
		t.Fatalf("granted %v, want [3]", granted)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalInts32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
