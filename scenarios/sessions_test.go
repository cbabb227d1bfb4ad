package scenarios_test

import (
	"testing"

	"capsim/model"
)

// Seed 004 is conceptual: its claims are qualitative, and so are these
// checks. The overloaded-assignment rate is the share of picks sent to a
// backend with no free processor at that moment.

func balancerOf(t *testing.T, r *model.Result) *model.BalancerResult {
	t.Helper()
	b := component(t, r, "lb").Balancer
	if b == nil {
		t.Fatal("lb has no balancer result")
	}
	return b
}

func overloaded(t *testing.T, design string, sets ...string) float64 {
	t.Helper()
	return float64(balancerOf(t, runOnce(t, "realtime-sessions", design, 1, nil, sets...)).OverloadedRate)
}

func TestSessionsCPUOnlyAndStaleOverloadAtThousands(t *testing.T) {
	rr := overloaded(t, "")
	lr := overloaded(t, "least-request")
	cpu := overloaded(t, "least-load")
	hyb := overloaded(t, "hybrid")
	stale := overloaded(t, "least-sessions")
	live := overloaded(t, "least-sessions", "components.lb.report_every=0s")
	t.Logf("overloaded picks, ~3000 sessions: round_robin %.3f, least_request %.3f, least_load %.3f, hybrid %.3f, least_sessions reported %.3f, live %.3f",
		rr, lr, cpu, hyb, stale, live)
	// CPU-only balancing herds new sessions, quiet at first, onto the
	// backend that looks idle; they overload it once they talk.
	if cpu < 2*rr {
		t.Errorf("CPU-only: %.3f overloaded picks, round robin %.3f", cpu, rr)
	}
	// The corrected hybrid charges each pick against the backend's spare
	// capacity until the next report, so it herds less than CPU-only.
	if hyb > 0.8*cpu {
		t.Errorf("hybrid %.3f is not clearly below CPU-only %.3f", hyb, cpu)
	}
	// Stale session counts mis-route: every pick of a 10 s interval goes to
	// the backend the last report called emptiest.
	if stale < 1.5*live {
		t.Errorf("reported every 10 s: %.3f overloaded picks, live: %.3f", stale, live)
	}
}

func TestSessionsPoliciesBarelyDifferAtHundreds(t *testing.T) {
	rr := overloaded(t, "hundreds")
	cpu := overloaded(t, "hundreds", "components.lb.policy=least_load")
	hyb := overloaded(t, "hundreds", "components.lb.policy=hybrid")
	t.Logf("overloaded picks, ~600 sessions: round_robin %.3f, least_load %.3f, hybrid %.3f", rr, cpu, hyb)
	for _, v := range []float64{cpu, hyb} {
		if v > 1.3*rr || v < rr/1.3 {
			t.Errorf("at hundreds of sessions the policies should be within 30%% of each other: %.3f vs round robin %.3f", v, rr)
		}
	}
}

func TestSessionsPartitionAndTTL(t *testing.T) {
	part := runOnce(t, "realtime-sessions", "stale-partition", 1, nil)
	ttl := runOnce(t, "realtime-sessions", "partition-ttl", 1, nil)
	bp, bt := balancerOf(t, part), balancerOf(t, ttl)
	sp, st := float64(journey(t, part, "voice").SuccessRate), float64(journey(t, ttl, "voice").SuccessRate)
	t.Logf("5-minute report gap: session imbalance %.2f, success %.3f; with a 30 s TTL: %.2f, %.3f (%d fallback picks)",
		float64(bp.SessionImbalance), sp, float64(bt.SessionImbalance), st, bt.Fallback)
	if bp.SessionImbalance < bt.SessionImbalance+0.1 || sp > st-0.05 || bt.Fallback == 0 {
		t.Errorf("the last snapshot without a TTL should pile sessions onto one backend and drop them")
	}
}

func TestSessionsCounterBugs(t *testing.T) {
	check := func(design string, sign float64) *model.BalancerResult {
		b := balancerOf(t, runOnce(t, "realtime-sessions", design, 1, nil))
		for i, r := range b.Replicas {
			if sign*r.Counter <= 0 {
				t.Errorf("%s: backend %d ends with counter %g", design, i, r.Counter)
			}
		}
		return b
	}
	ok := balancerOf(t, runOnce(t, "realtime-sessions", "least-sessions", 1, nil))
	for i, r := range ok.Replicas {
		if r.Counter != 0 {
			t.Errorf("correct counter: backend %d ends at %g with every session over", i, r.Counter)
		}
	}
	// A missing decrement leaves backends counting sessions they no longer
	// hold; a double one reports capacity they do not have.
	check("missing-decrement", 1)
	double := check("double-decrement", -1)
	if double.SessionImbalance <= ok.SessionImbalance {
		t.Errorf("phantom capacity should attract sessions: imbalance %.2f vs %.2f", float64(double.SessionImbalance), float64(ok.SessionImbalance))
	}
}
