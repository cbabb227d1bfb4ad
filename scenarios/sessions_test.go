package scenarios_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"capsim/model"
)

// Seed 004 is conceptual: it has examples, not measurements, so these
// checks hold the model to the seed's qualitative claims, each on the mean
// of three replications (seeds 1-3) with a margin several times the spread
// seen between them. The overloaded-assignment rate is the share of session
// picks sent to a backend with no free talking slot at that moment.

const sessionSeeds = 3

func balancerOf(t *testing.T, r *model.Result) *model.BalancerResult {
	t.Helper()
	b := component(t, r, "lb").Balancer
	if b == nil {
		t.Fatal("lb has no balancer result")
	}
	return b
}

// sessionRun runs realtime-sessions once at multiplier m.
func sessionRun(t *testing.T, design string, m float64, seed uint64, sets ...string) *model.Result {
	t.Helper()
	opts := model.RunOptions{Seed: seed, Multiplier: m}
	return held(t, "realtime-sessions", design, runScenario(t, "realtime-sessions", design, opts, sets...))
}

// sessionStats is the replication mean of what a policy did.
type sessionStats struct {
	over, imbalance, success float64 // session overloaded rate, session imbalance, voice success
}

func (s sessionStats) String() string {
	return fmt.Sprintf("overloaded %.3f, imbalance %.3f, success %.3f", s.over, s.imbalance, s.success)
}

func sessionMeans(t *testing.T, design string, m float64, sets ...string) sessionStats {
	t.Helper()
	var s sessionStats
	for seed := uint64(1); seed <= sessionSeeds; seed++ {
		r := sessionRun(t, design, m, seed, sets...)
		b := balancerOf(t, r)
		s.over += float64(b.SessionOverloadedRate) / sessionSeeds
		s.imbalance += float64(b.SessionImbalance) / sessionSeeds
		s.success += float64(journey(t, r, "voice").SuccessRate) / sessionSeeds
	}
	return s
}

var sessionPolicies = []string{"", "least-request", "least-sessions", "least-load", "hybrid"}

func policyName(d string) string {
	if d == "" {
		return "round-robin"
	}
	return strings.TrimPrefix(d, "hundreds+")
}

// At about 3,000 sessions (multiplier 1) the policies that route every
// pick on one stale figure herd: every session of a 10 s report interval
// (25 of them) goes to the backend the last report called emptiest. The
// hybrid model charges each session against the backend's spare capacity
// until the next report, so it does not; nor do round robin and
// least_request, which need no report. Hybrid evens open sessions best,
// because least_request counts idle listeners as it counts sessions and
// round robin evens arrivals of every kind.
func TestSessionsPoliciesAtThousands(t *testing.T) {
	t.Parallel()
	got := map[string]sessionStats{}
	for _, d := range sessionPolicies {
		got[d] = sessionMeans(t, d, 1)
		t.Logf("~3,000 sessions, %-14s %v", policyName(d), got[d])
	}
	rr, lr, ls, cpu, hyb := got[""], got["least-request"], got["least-sessions"], got["least-load"], got["hybrid"]
	// Seeds 1-3: least_sessions 0.031-0.035, least_load 0.09-0.12; round
	// robin and least_request at most 0.002, hybrid 0.000.
	for name, stale := range map[string]sessionStats{"least_sessions": ls, "least_load": cpu} {
		if stale.over < 0.02 {
			t.Errorf("%s reported every 10 s should herd: %.3f of sessions overloaded", name, stale.over)
		}
	}
	for name, s := range map[string]sessionStats{"round robin": rr, "least_request": lr, "hybrid": hyb} {
		if s.over > 0.005 {
			t.Errorf("%s: %.3f of sessions overloaded at the design load, want <= 0.005", name, s.over)
		}
	}
	if hyb.over > math.Min(rr.over, lr.over)+0.001 {
		t.Errorf("hybrid %.4f should overload no more than round robin %.4f and least_request %.4f", hyb.over, rr.over, lr.over)
	}
	// Seeds 1-3: hybrid 1.04-1.06, least_request 1.12-1.17, round robin
	// 1.15-1.20, least_sessions 1.13-1.16, least_load 1.38-1.64.
	for name, s := range map[string]sessionStats{"round robin": rr, "least_request": lr, "least_sessions": ls, "least_load": cpu} {
		if hyb.imbalance > s.imbalance-0.04 {
			t.Errorf("hybrid should even open sessions best: imbalance %.3f vs %s %.3f", hyb.imbalance, name, s.imbalance)
		}
	}
}

// Past the design load (multiplier 1.5, about 4,500 sessions) stale
// least_sessions loses sessions, and hybrid ties with least_request: the
// seed's "lowest overloaded-assignment rate" is not a clear lead here.
func TestSessionsHybridTiesLeastRequestPastTheDesignLoad(t *testing.T) {
	t.Parallel()
	rr := sessionMeans(t, "", 1.5)
	lr := sessionMeans(t, "least-request", 1.5)
	hyb := sessionMeans(t, "hybrid", 1.5)
	ls := sessionMeans(t, "least-sessions", 1.5)
	t.Logf("x1.5: round robin %v; least_request %v; hybrid %v; least_sessions %v", rr, lr, hyb, ls)
	// Seeds 1-3: round robin 0.016-0.023, least_request 0.011-0.018,
	// hybrid 0.012-0.017, least_sessions 0.29-0.32.
	if math.Abs(hyb.over-lr.over) > 0.35*lr.over {
		t.Errorf("hybrid %.4f and least_request %.4f no longer tie: update SYSTEMS.md", hyb.over, lr.over)
	}
	if ls.over < 10*hyb.over || ls.success > hyb.success-0.01 {
		t.Errorf("stale least_sessions should overload and drop sessions: %v vs hybrid %v", ls, hyb)
	}
}

// Without idle listeners least_request's count is the session count, kept
// live, and it evens sessions as well as hybrid does: hybrid's lead on
// evenness comes from the connections a standard balancer cannot tell from
// conversations (004 L22).
func TestSessionsEvennessNeedsIdleListeners(t *testing.T) {
	t.Parallel()
	lr := sessionMeans(t, "least-request", 1, "journeys.listener.rate=0.001/s")
	hyb := sessionMeans(t, "hybrid", 1, "journeys.listener.rate=0.001/s")
	t.Logf("no idle listeners: least_request %v; hybrid %v", lr, hyb)
	// Seeds 1-3: least_request 1.06-1.08, hybrid 1.04-1.07.
	if math.Abs(lr.imbalance-hyb.imbalance) > 0.04 {
		t.Errorf("without listeners least_request (%.3f) and hybrid (%.3f) should even sessions alike", lr.imbalance, hyb.imbalance)
	}
}

// The same 38 backends with a tenth of the load (about 300 sessions): no
// backend runs out of talking slots under any policy, so the policies do
// not differ in what users see.
func TestSessionsPoliciesBarelyDifferAtHundreds(t *testing.T) {
	t.Parallel()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range sessionPolicies {
		design := "hundreds"
		if d != "" {
			design += "+" + d
		}
		r := sessionRun(t, design, 1, 1)
		b := balancerOf(t, r)
		if len(b.Replicas) != 38 {
			t.Fatalf("%s: %d backends, want the base's 38", design, len(b.Replicas))
		}
		s := float64(journey(t, r, "voice").SuccessRate)
		lo, hi = math.Min(lo, s), math.Max(hi, s)
		t.Logf("~300 sessions, %-14s overloaded %.3f, success %.3f", policyName(d), float64(b.SessionOverloadedRate), s)
		if b.SessionOverloadedRate > 0.005 {
			t.Errorf("%s: %.3f of sessions overloaded at hundreds", design, float64(b.SessionOverloadedRate))
		}
	}
	if hi-lo > 0.01 {
		t.Errorf("at hundreds voice success spans %.3f-%.3f across policies", lo, hi)
	}
}

// Stale counts mis-route: reported every 10 s, least_sessions sends every
// session of an interval to one backend; seen live, it does not.
func TestSessionsStaleCountsMisroute(t *testing.T) {
	t.Parallel()
	stale := sessionMeans(t, "least-sessions", 1)
	live := sessionMeans(t, "least-sessions", 1, "components.lb.report_every=0s")
	t.Logf("least_sessions reported every 10 s: %v; live: %v", stale, live)
	// Seeds 1-3: reported 0.031-0.035, live 0.000-0.001.
	if stale.over < 5*live.over {
		t.Errorf("reported every 10 s: %.3f overloaded, live: %.3f", stale.over, live.over)
	}
}

func TestSessionsPartitionAndTTL(t *testing.T) {
	t.Parallel()
	part := sessionRun(t, "stale-partition", 1, 1)
	ttl := sessionRun(t, "partition-ttl", 1, 1)
	bp, bt := balancerOf(t, part), balancerOf(t, ttl)
	sp, st := float64(journey(t, part, "voice").SuccessRate), float64(journey(t, ttl, "voice").SuccessRate)
	t.Logf("5-minute report gap: session imbalance %.2f, success %.3f; with a 30 s TTL: %.2f, %.3f (%d fallback picks)",
		float64(bp.SessionImbalance), sp, float64(bt.SessionImbalance), st, bt.Fallback)
	if bp.SessionImbalance < bt.SessionImbalance+0.1 || sp > st-0.05 || bt.Fallback == 0 {
		t.Errorf("the last snapshot without a TTL should pile sessions onto one backend and drop them")
	}
}

// A missing decrement leaves backends counting sessions they no longer
// hold; a double one reports capacity they do not have. Every failed
// session (dropped or cut) moves its backend's counter by one, so the
// counters end off by at least the sessions that failed after the warm-up.
// Within this hour the drift is about 2 sessions a backend against 80
// open, too little to change where sessions go (SYSTEMS.md).
func TestSessionsCounterBugs(t *testing.T) {
	t.Parallel()
	ok := balancerOf(t, sessionRun(t, "least-sessions", 1, 1))
	for i, r := range ok.Replicas {
		if r.Counter != 0 {
			t.Errorf("correct counter: backend %d ends at %g with every session over", i, r.Counter)
		}
	}
	for _, c := range []struct {
		design string
		sign   float64
	}{{"missing-decrement", 1}, {"double-decrement", -1}} {
		r := sessionRun(t, c.design, 1, 1)
		failed := float64(journey(t, r, "voice").Failed)
		var sum float64
		for i, rep := range balancerOf(t, r).Replicas {
			if c.sign*rep.Counter < 0 {
				t.Errorf("%s: backend %d ends with counter %g", c.design, i, rep.Counter)
			}
			sum += rep.Counter
		}
		t.Logf("%s: counters sum to %g, %g sessions failed after the warm-up", c.design, sum, failed)
		if failed == 0 || c.sign*sum < failed {
			t.Errorf("%s: counters sum to %g with %g failed sessions", c.design, sum, failed)
		}
	}
}
