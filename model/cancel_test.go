package model_test

import (
	"math"
	"testing"

	"capsim/model"
)

// Giving up is not cancelling: a caller whose fan-out fails fast, or whose
// timeout fires, stops waiting, but the work it started goes on (orphaned)
// unless the route observes cancellation. Constant times, exact outcomes.

// One server with no waiting room: of four branches, two at a time, the
// first takes the server for 1 s and the second is refused at once.
var fanoutSrc = onceSrc("fanout", "10s", "  one: {kind: pool, servers: 1, queue: 0}\n", `
      - fanout: 4
        limit: 2
        FAILFAST
        steps: [{call: r}]
routes:
  r:
    CANCELLABLE
    steps: [{use: one, work: 1s}]
`)

func journeyEnd(t *testing.T, events []model.TraceEvent) model.TraceEvent {
	t.Helper()
	for _, e := range events {
		if e.Event == model.EvJourneyEnd && e.Journey == "j" {
			return e
		}
	}
	t.Fatal("no journey end in the trace")
	return model.TraceEvent{}
}

func TestFanoutRunsEveryBranchByDefault(t *testing.T) {
	res, events := runYAML(t, replace(replace(fanoutSrc, "FAILFAST", "fail_fast: false"), "CANCELLABLE", "cancellable: false"), model.RunOptions{})
	end := journeyEnd(t, events)
	r, _ := res.Route("r")
	// b1 holds the server to 1 s; b2, then b3 and b4 as each slot frees,
	// are refused at 0: the step fails when b1 ends.
	if end.Duration != 1 || end.Status != 503 || r.Calls != 4 || r.Orphaned != 0 {
		t.Errorf("journey ended at %gs with %d, route calls %d, orphaned %d; want 1s, 503, 4, 0", end.Duration, end.Status, r.Calls, r.Orphaned)
	}
}

func TestFailFastFanoutLeavesOrphans(t *testing.T) {
	res, events := runYAML(t, replace(replace(fanoutSrc, "FAILFAST", "fail_fast: true"), "CANCELLABLE", "cancellable: false"), model.RunOptions{})
	end := journeyEnd(t, events)
	r, _ := res.Route("r")
	// The refusal at 0 fails the step at once; b3 and b4 never start; b1's
	// call works on to 1 s for nobody.
	if end.Duration != 0 || end.Status != 503 || r.Calls != 2 || r.Orphaned != 1 || busySeconds(res, "one") != 1 {
		t.Errorf("journey ended at %gs with %d, route calls %d, orphaned %d, server busy %gs; want 0s, 503, 2, 1, 1s",
			end.Duration, end.Status, r.Calls, r.Orphaned, busySeconds(res, "one"))
	}
}

func TestFailFastCancelsACancellableRoute(t *testing.T) {
	res, events := runYAML(t, replace(replace(fanoutSrc, "FAILFAST", "fail_fast: true"), "CANCELLABLE", "cancellable: true"), model.RunOptions{})
	end := journeyEnd(t, events)
	r, _ := res.Route("r")
	var cancelled int64
	for _, s := range r.Statuses {
		if s.Status == 499 {
			cancelled = s.Count
		}
	}
	// b1's call is cancelled at 0 and gives the server back at once.
	if end.Duration != 0 || r.Calls != 2 || r.Orphaned != 0 || cancelled != 1 || busySeconds(res, "one") != 0 {
		t.Errorf("journey ended at %gs, route calls %d, orphaned %d, cancelled %d, server busy %gs; want 0s, 2, 0, 1, 0s",
			end.Duration, r.Calls, r.Orphaned, cancelled, busySeconds(res, "one"))
	}
}

// A caller's timeout orphans the call it gave up on, or cancels it when the
// route observes cancellation.
func TestTimeoutOrphansOrCancels(t *testing.T) {
	src := onceSrc("timeout", "10s", "  one: {kind: pool, servers: 1}\n", ` [{call: slow, timeout: 1s}]
routes:
  slow:
    CANCELLABLE
    steps: [{use: one, work: 3s}]
`)
	res, _ := runYAML(t, replace(src, "CANCELLABLE", "cancellable: false"), model.RunOptions{})
	r, _ := res.Route("slow")
	if r.Orphaned != 1 || busySeconds(res, "one") != 3 {
		t.Errorf("orphaned %d, server busy %gs; want 1 orphan working on to 3s", r.Orphaned, busySeconds(res, "one"))
	}
	res, _ = runYAML(t, replace(src, "CANCELLABLE", "cancellable: true"), model.RunOptions{})
	r, _ = res.Route("slow")
	if r.Orphaned != 0 || busySeconds(res, "one") != 1 || len(r.Statuses) != 1 || r.Statuses[0].Status != 499 {
		t.Errorf("orphaned %d, server busy %gs, statuses %v; want the call cancelled at 1s with 499", r.Orphaned, busySeconds(res, "one"), r.Statuses)
	}
}

// busySeconds is the server-seconds component name was busy in the run.
func busySeconds(res *model.Result, name string) float64 {
	c, _ := res.Component(name)
	return float64(c.MeanBusy) * res.SimTime
}

// A bucket tells a refusal for the deadline from one for max_wait, and a
// refusal may take time to arrive.
func TestBucketRefusalReasonAndCost(t *testing.T) {
	src := onceSrc("bucket", "", "  api: {kind: bucket, rate: 1/s, burst: 1, max_wait: 10s, deadline_status: 504, refuse_cost: 1ms}\n", `
      - fanout: 3
        steps: [{call: r, deadline: 500ms, optional: true}]
routes:
  r:
    steps: [{use: api}, {log: admitted}]
`)
	res, events := runYAML(t, src, model.RunOptions{})
	_, statuses := endsOf(events, "capsim.request_end", "r")
	times, _ := endsOf(events, "capsim.request_end", "r")
	api, _ := res.Component("api")
	// The first takes the token; the next two would wait 1 s and 2 s for
	// one, within max_wait but past their 0.5 s deadline: refused with 504,
	// each 1 ms later.
	want := []int32{200, 504, 504}
	if len(statuses) != 3 || statuses[0] != want[0] || statuses[1] != want[1] || statuses[2] != want[2] ||
		times[1] != 0.001 || times[2] != 0.001 || api.Rejected != 2 {
		t.Errorf("statuses %v at %v, rejected %d; want %v, the refusals at 0.001s, 2", statuses, times, api.Rejected, want)
	}
}

// A wait at a full pool cut by the caller's deadline fails with 504 (the
// deadline), not with the pool's own status, though the wait's timer and
// the deadline fall on the same instant.
func TestDeadlineCutsAPoolWaitWith504(t *testing.T) {
	src := scenarioSrc("cut", "1s", "arrivals: even\n",
		"  one: {kind: pool, servers: 1, status: 503}\n", `  holder:
    rate: 1/s
    count: 1
    steps: [{call: r}]
  waiter:
    rate: 1/s
    count: 1
    steps: [{call: r, deadline: 1s}]
routes:
  r:
    steps: [{use: one, work: 3s}]
`)
	_, events := runYAML(t, src, model.RunOptions{})
	ends, statuses := endsOf(events, "capsim.request_end", "r")
	if !equalFloats(ends, []float64{1, 3}) || statuses[0] != 504 || statuses[1] != 200 {
		t.Errorf("ends %v with %v; want the waiter cut at 1s with 504, the holder done at 3s", ends, statuses)
	}
}

// A retry whose backoff would outlast the caller's own deadline is not
// made: the call fails at once with the callee's status.
func TestNoRetryPastTheCallersDeadline(t *testing.T) {
	src := oneJourney + `      - call: outer
        deadline: 2s
routes:
  outer:
    steps:
      - call: flaky
        retry: {attempts: 3, backoff: 5s}
  flaky:
    steps: [{fail: {p: 1, status: 503}}]
`
	_, events := runYAML(t, src, model.RunOptions{})
	_, statuses := endsOf(events, "capsim.request_end", "flaky")
	outerEnds, outer := endsOf(events, "capsim.request_end", "outer")
	if len(statuses) != 1 || !equalFloats(outerEnds, []float64{0}) || outer[0] != 503 {
		t.Errorf("flaky tried %d times, outer ended at %v with %v; want one try and 503 at 0s", len(statuses), outerEnds, outer)
	}
}

// Jitter schemes, on 4,000 journeys whose one retry follows a 1 s backoff:
// a journey that fails both tries lasts exactly its sleep. Full jitter is
// uniform on [0, 1 s] (mean 0.5), equal on [0.5, 1] (mean 0.75),
// decorrelated on [1, 3] (mean 2); each mean within 4 standard errors.
func TestRetryJitterSchemes(t *testing.T) {
	for _, c := range []struct {
		jitter       string
		lo, hi, mean float64
	}{{"full", 0, 1, 0.5}, {"equal", 0.5, 1, 0.75}, {"decorrelated", 1, 3, 2}, {"none", 1, 1, 1}} {
		src := `name: jitter
duration: 4000s
arrivals: even
journeys:
  j:
    rate: 1/s
    steps: [{call: down, retry: {attempts: 2, backoff: 1s, jitter: JITTER}}]
routes:
  down:
    steps: [{fail: {p: 1, status: 503}}]
`
		_, events := runYAML(t, replace(src, "JITTER", c.jitter), model.RunOptions{Seed: 3})
		var sum, lo, hi float64
		n := 0.0
		lo, hi = 1e9, -1
		for _, e := range events {
			if e.Event == model.EvJourneyEnd {
				sum += e.Duration
				lo, hi = min(lo, e.Duration), max(hi, e.Duration)
				n++
			}
		}
		mean := sum / n
		se := (c.hi - c.lo) / math.Sqrt(12*n)
		if n != 4000 || lo < c.lo || hi > c.hi || math.Abs(mean-c.mean) > 4*se+1e-9 {
			t.Errorf("%s: %g journeys, sleeps in [%g, %g] with mean %.4f; want 4000 in [%g, %g] with mean %g ± %.4f",
				c.jitter, n, lo, hi, mean, c.lo, c.hi, c.mean, 4*se)
		}
	}
}

// A retry budget stops retries once failures have spent half its tokens:
// against a downstream that always fails, 10 tokens allow 3 retries in
// all, then every call fails on its first try.
func TestRetryThrottleStopsRetries(t *testing.T) {
	src := `name: throttle
duration: 100s
arrivals: even
journeys:
  j:
    rate: 1/s
    steps: [{call: down, retry: {attempts: 3, backoff: 10ms, throttle: {max_tokens: 10, token_ratio: 0.1}}}]
routes:
  down:
    steps: [{fail: {p: 1, status: 503}}]
`
	res, _ := runYAML(t, src, model.RunOptions{})
	r, _ := res.Route("down")
	// Each failed try takes a token; a retry needs more than 5 left. The
	// first journey tries 3 times (10 → 7), the second twice (→ 5), and
	// the 98 after it once each: 103 tries.
	if r.Calls != 103 {
		t.Errorf("%d tries, want 103", r.Calls)
	}
}

// A lock keyed by an attribute: journeys of different users but the same
// account wait for each other; a step's key overrides the component's.
func TestKeyedLockByAttribute(t *testing.T) {
	src := scenarioSrc("lk", "1s", "arrivals: even\n", "  row: {kind: lock, key: account}\n", `  a:
    rate: 1/s
    count: 1
    attributes: {account: 7, region: 1}
    steps: [{use: row, STEPKEY work: 2s}]
  b:
    rate: 1/s
    count: 1
    attributes: {account: 7, region: 2}
    steps: [{use: row, STEPKEY work: 2s}]
`)
	res, _ := runYAML(t, replace(src, "STEPKEY ", ""), model.RunOptions{})
	if a, b := res.Journeys[0], res.Journeys[1]; float64(a.Latency.Max) != 2 || float64(b.Latency.Max) != 4 {
		t.Errorf("same account: a took %v, b %v; want 2s and 4s (b waits for a)", a.Latency.Max, b.Latency.Max)
	}
	res, _ = runYAML(t, replace(src, "STEPKEY ", "key: region, "), model.RunOptions{})
	if a, b := res.Journeys[0], res.Journeys[1]; float64(a.Latency.Max) != 2 || float64(b.Latency.Max) != 2 {
		t.Errorf("by region: a took %v, b %v; want 2s each", a.Latency.Max, b.Latency.Max)
	}
}

// A pick is overloaded when the replica's load component has no free
// capacity at that moment, busy equal to capacity included.
func TestBalancerCountsAPickOnAFullReplicaAsOverloaded(t *testing.T) {
	src := scenarioSrc("ov", "2s", "arrivals: even\n",
		`  lb: {kind: balancer, replicas: 1, load: app}
  app: {kind: pool, servers: 1, behind: lb}
`,
		`  j:
    rate: 1/s
    count: 2
    steps:
      - use: lb
        steps: [{use: app, work: 5s}]
`)
	res, _ := runYAML(t, src, model.RunOptions{})
	lb, _ := res.Component("lb")
	// The first pick finds app idle; the second, at 1 s, finds its one
	// server busy.
	if lb.Balancer == nil || lb.Balancer.Picks != 2 || lb.Balancer.Overloaded != 1 {
		t.Errorf("balancer %+v; want 2 picks, 1 overloaded", lb.Balancer)
	}
}

// A deadline is passed down to every call inside, unless the callee is a
// remote service not told of it: then the caller stops waiting at the
// deadline and the callee works on, orphaned.
func TestIgnoresDeadlineLeavesTheRemoteWorking(t *testing.T) {
	src := onceSrc("deadline", "10s", "  one: {kind: pool, servers: 1}\n", ` [{call: CALLED, deadline: 1s}]
routes:
  client:
    steps: [{delay: 200ms}, {call: remote}]
  remote:
    IGNORES
    steps: [{use: one, work: 3s}]
`)
	for _, tc := range []struct {
		called, ignores string
		busy            float64
		orphaned        int64
	}{
		{"client", "ignores_deadline: false", 0.8, -1}, // the remote's work is cut at the deadline
		{"client", "ignores_deadline: true", 3, 1},
		{"remote", "ignores_deadline: true", 3, 1}, // called directly: the journey keeps the deadline
	} {
		res, events := runYAML(t, replace(replace(src, "CALLED", tc.called), "IGNORES", tc.ignores), model.RunOptions{})
		end := journeyEnd(t, events)
		r, _ := res.Route("remote")
		// (Cut at the deadline, the remote ends at the instant its caller
		// gives up, so whether it counts as orphaned is not the point.)
		if end.Duration != 1 || end.Status != 504 || math.Abs(busySeconds(res, "one")-tc.busy) > 1e-9 || (tc.orphaned >= 0 && r.Orphaned != tc.orphaned) {
			t.Errorf("%s, %s: journey ended at %gs with %d, server busy %gs, orphaned %d; want 1s, 504, %gs, %d",
				tc.called, tc.ignores, end.Duration, end.Status, busySeconds(res, "one"), r.Orphaned, tc.busy, tc.orphaned)
		}
	}
}

// A cancelled branch only unwinds: an optional step inside it does not
// swallow the cancellation and let the branch go on.
func TestACancelledBranchDoesNotGoOn(t *testing.T) {
	src := onceSrc("nogo", "", "  one: {kind: pool, servers: 1, queue: 0}\n", `
      - fanout: 2
        fail_fast: true
        steps:
          - {use: one, work: 1s, optional: true}
          - log: went_on
          - fail: {p: 1, status: 500}
`)
	// The second branch is refused at once, tolerates it, goes on and
	// fails; that cancels the first, which holds the server: it must not
	// go on too.
	_, events := runYAML(t, src, model.RunOptions{})
	wentOn := 0
	for _, e := range events {
		if e.Event == "went_on" {
			wentOn++
		}
	}
	if wentOn != 1 {
		t.Errorf("%d branches went on, want 1 (the refused one, not the cancelled one)", wentOn)
	}
}

// deadline_status applies only when the deadline is what refuses: a wait
// past max_wait keeps the bucket's own status.
func TestBucketMaxWaitRefusalKeepsItsStatus(t *testing.T) {
	src := onceSrc("mw", "", "  api: {kind: bucket, rate: 1/s, burst: 1, max_wait: 500ms, deadline_status: 504}\n", `
      - fanout: 2
        steps: [{call: r, deadline: 10s, optional: true}]
routes:
  r:
    steps: [{use: api}]
`)
	_, events := runYAML(t, src, model.RunOptions{})
	_, statuses := endsOf(events, "capsim.request_end", "r")
	if len(statuses) != 2 || statuses[0] != 200 || statuses[1] != 429 {
		t.Errorf("statuses %v; want [200 429]: the 1 s wait passes max_wait, not the deadline", statuses)
	}
}

// A connection released after a success is reused warm even with
// discard_on_failure: one connect for two calls in a row.
func TestDiscardOnlyOnFailure(t *testing.T) {
	src := oneJourney + `      - {use: conn, work: 1s}
      - {use: conn, work: 1s}
components:
  conn: {kind: worker, instances: 1, cold_start: 100ms, idle_stop: 1h, discard_on_failure: true}
`
	res, _ := runYAML(t, src, model.RunOptions{})
	c, _ := res.Component("conn")
	if c.ColdStarts != 1 || float64(res.Journeys[0].Latency.Max) != 2.1 {
		t.Errorf("cold starts %d, journey %v; want 1 connect and 2.1s", c.ColdStarts, res.Journeys[0].Latency.Max)
	}
}

// A hold granted at once with leak_on_failure is leaked when its step
// fails, as one granted after a wait is.
func TestLeakOnFailureWhenGrantedAtOnce(t *testing.T) {
	src := oneJourney + `      - use: slot
        leak_on_failure: true
        optional: true
        steps: [{fail: {p: 1, status: 502}}]
components:
  slot: {kind: pool, servers: 2}
`
	res, _ := runYAML(t, src, model.RunOptions{})
	c, _ := res.Component("slot")
	if c.Leaked != 1 {
		t.Errorf("leaked %d, want 1", c.Leaked)
	}
}
