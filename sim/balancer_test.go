package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBalancerRoundRobinAndLeastInFlight(t *testing.T) {
	s := New()
	b := NewBalancer(s, BalancerConfig{Targets: 3, Policy: RoundRobin}, nil)
	var got []int
	for k := 0; k < 6; k++ {
		got = append(got, b.Pick(0, 0))
	}
	if want := []int{0, 1, 2, 0, 1, 2}; !slices.Equal(got, want) {
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

// Least in flight breaks ties in round-robin order, starting after the last
// pick, so that equal targets share the picks.
//
//	picks 0, 1, 2 (all idle; each tie goes to the next in turn)   in flight 1 1 1
//	1 done: pick 1, the only one with fewer                       1 1 1
//	pick 2 (tie, the turn after 1)                                1 1 2
//	pick 0 (0 and 1 tie, 0 comes first after 2)                   2 1 2
//	pick 1                                                        2 2 2
func TestBalancerLeastInFlightTieBreak(t *testing.T) {
	b := NewBalancer(New(), BalancerConfig{Targets: 3, Policy: LeastInFlight}, nil)
	var got []int
	for k := 0; k < 3; k++ {
		got = append(got, b.Pick(0, 0))
	}
	b.Done(0, 1)
	for k := 0; k < 4; k++ {
		got = append(got, b.Pick(0, 0))
	}
	if want := []int{0, 1, 2, 1, 2, 0, 1}; !slices.Equal(got, want) {
		t.Fatalf("picked %v, want %v", got, want)
	}
	if b.Picks[0] != 2 || b.Picks[1] != 3 || b.Picks[2] != 2 {
		t.Fatalf("picks per target %v, want [2 3 2]", b.Picks)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Done without a pick in flight did not panic")
		}
	}()
	nb := NewBalancer(New(), BalancerConfig{Targets: 2, Policy: RoundRobin}, nil)
	nb.Done(0, 1)
}

// Without reports, least count and least load see the targets as they are.
func TestBalancerLiveCountAndLoad(t *testing.T) {
	s := New()
	load := []float64{0.5, 0.2, 0.2}
	b := NewBalancer(s, BalancerConfig{Targets: 3, Policy: LeastLoad}, func(i int) float64 { return load[i] })
	// 1 and 2 tie at 0.2: 1 first, then 2 (the turn after 1).
	if i, j := b.Pick(0, 0), b.Pick(0, 0); i != 1 || j != 2 {
		t.Fatalf("least load picked %d, %d; want 1, 2", i, j)
	}
	load[0] = 0.1
	if i := b.Pick(0, 0); i != 0 {
		t.Fatalf("least load picked %d after target 0's load fell, want 0", i)
	}
	c := NewBalancer(s, BalancerConfig{Targets: 3, Policy: LeastCount}, nil)
	c.AddCount(0, 2)
	c.AddCount(1, 1)
	c.AddCount(2, 3)
	if i := c.Pick(0, 1); i != 1 {
		t.Fatalf("least count picked %d, want 1", i)
	}
	c.AddCount(1, 2) // 1 now counts 3
	if i := c.Pick(0, 1); i != 0 {
		t.Fatalf("least count picked %d, want 0", i)
	}
	if n, _ := c.Reported(1); n != 3 || c.Count(1) != 3 {
		t.Fatalf("target 1 reports %v, counts %v; want 3 and 3", n, c.Count(1))
	}
}

// With reports every 10 s, a policy sees the figures of the last report:
// a load that changes in between changes nothing until the next one.
func TestBalancerLeastLoadSeesTheLastReport(t *testing.T) {
	s := New()
	load := []float64{0.1, 0.9}
	b := NewBalancer(s, BalancerConfig{Targets: 2, Policy: LeastLoad, ReportEvery: 10 * Second}, func(i int) float64 { return load[i] })
	load[0], load[1] = 0.9, 0.1 // after the report at 0 s
	s.RunUntil(9 * Second)
	if i := b.Pick(s.Now(), 0); i != 0 {
		t.Fatalf("picked %d before the next report, want 0 (reported 0.1)", i)
	}
	s.RunUntil(10 * Second)
	if i := b.Pick(s.Now(), 0); i != 1 {
		t.Fatalf("picked %d after the report at 10 s, want 1", i)
	}
	if b.Fallback != 0 {
		t.Fatalf("%d fallback picks without a TTL", b.Fallback)
	}
}

// With a request policy, picks of no units (short requests) go by it and
// only the picks that count (sessions) by the main policy.
func TestBalancerRequestPolicy(t *testing.T) {
	b := NewBalancer(New(), BalancerConfig{Targets: 2, Policy: LeastCount, RequestPolicy: RoundRobin, SplitRequests: true}, nil)
	var got []int
	s := b.Pick(0, 1) // a session: both counts 0, ties start at target 0
	b.AddCount(s, 1)
	for k := 0; k < 4; k++ {
		got = append(got, b.Pick(0, 0))
	}
	if s != 0 || !slices.Equal(got, []int{1, 0, 1, 0}) {
		t.Fatalf("session on %d, requests on %v; want 0 and [1 0 1 0] (round robin)", s, got)
	}
	if i := b.Pick(0, 1); i != 1 {
		t.Fatalf("second session on %d, want 1 (the fewest sessions)", i)
	}
	one := NewBalancer(New(), BalancerConfig{Targets: 2, Policy: LeastCount}, nil)
	one.AddCount(one.Pick(0, 1), 1)
	got = got[:0]
	for k := 0; k < 4; k++ {
		got = append(got, one.Pick(0, 0))
	}
	if !slices.Equal(got, []int{1, 1, 1, 1}) {
		t.Fatalf("without a request policy requests went to %v, want all on 1 (the fewest sessions)", got)
	}
}

// argLeast picks what argBest picks of the values negated, ties (in
// round-robin order from next), NaNs and infinities included.
func TestArgLeastIsArgBestNegated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pool := []float64{0, 1, 1, 2, math.NaN(), math.Inf(1), math.Inf(-1), -0.0}
	for trial := 0; trial < 2000; trial++ {
		n := 1 + r.IntN(8)
		v := make([]float64, n)
		for i := range v {
			v[i] = pool[r.IntN(len(pool))]
		}
		b := &Balancer{cfg: BalancerConfig{Targets: n}, next: r.IntN(n)}
		want := b.argBest(func(j int) float64 { return -v[j] })
		if got := argLeast(b.next, v); got != want {
			t.Fatalf("values %v from %d: argLeast %d, argBest of the negations %d", v, b.next, got, want)
		}
	}
}
