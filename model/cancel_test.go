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
const fanoutSrc = `name: fanout
duration: 1s
drain: 10s
arrivals: even
components:
  one: {kind: pool, servers: 1, queue: 0}
journeys:
  j:
    rate: 1/s
    count: 1
    steps:
      - fanout: 4
        limit: 2
        FAILFAST
        steps: [{call: r}]
routes:
  r:
    CANCELLABLE
    steps: [{use: one, work: 1s}]
`

func journeyEnd(t *testing.T, events []model.TraceEvent) model.TraceEvent {
	t.Helper()
	for _, e := range events {
		if e.Event == "j" {
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
	src := `name: timeout
duration: 1s
drain: 10s
arrivals: even
components:
  one: {kind: pool, servers: 1}
journeys:
  j:
    rate: 1/s
    count: 1
    steps: [{call: slow, timeout: 1s}]
routes:
  slow:
    CANCELLABLE
    steps: [{use: one, work: 3s}]
`
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
	src := `name: bucket
duration: 1s
arrivals: even
components:
  api: {kind: bucket, rate: 1/s, burst: 1, max_wait: 10s, deadline_status: 504, refuse_cost: 1ms}
journeys:
  j:
    rate: 1/s
    count: 1
    steps:
      - fanout: 3
        steps: [{call: r, deadline: 500ms, optional: true}]
routes:
  r:
    steps: [{use: api}, {log: admitted}]
`
	res, events := runYAML(t, src, model.RunOptions{})
	_, statuses := endsOf(events, "request_end", "r")
	times, _ := endsOf(events, "request_end", "r")
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

// A deadline is passed down to every call inside, unless the callee is a
// remote service not told of it: then the caller stops waiting at the
// deadline and the callee works on, orphaned.
func TestIgnoresDeadlineLeavesTheRemoteWorking(t *testing.T) {
	src := `name: deadline
duration: 1s
drain: 10s
arrivals: even
components:
  one: {kind: pool, servers: 1}
journeys:
  j:
    rate: 1/s
    count: 1
    steps: [{call: CALLED, deadline: 1s}]
routes:
  client:
    steps: [{delay: 200ms}, {call: remote}]
  remote:
    IGNORES
    steps: [{use: one, work: 3s}]
`
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
