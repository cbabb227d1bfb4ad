package model_test

import (
	"math"
	"testing"

	"capsim/model"
)

// A pool of one server with no queue in front of a route that holds it
// for 1 s; requests arrive at 0 s and 0.5 s. The second is refused with
// 503; its on_failure writes the error response: 5 ms of work on the
// one-core cpu. It fails at 0.505 s, after the block, still with 503.
var onFailureSrc = scenarioSrc("on-failure", "1s", "drain: 10s\narrivals: even\n", `  threads: {kind: pool, servers: 1, queue: 0}
  cpu: {kind: cpu, cores: 1}
`, `  j:
    rate: 2/s
    count: 2
    steps: [CALL]
routes:
  handle:
    MODE
    steps:
      - hold: threads
      - work: 1s
    on_failure:
BLOCK
`)

func onFailureRun(t *testing.T, call, mode, block string) (*model.Result, []model.TraceEvent) {
	t.Helper()
	src := replace(replace(replace(onFailureSrc, "CALL", call), "MODE", mode), "BLOCK", block)
	return runYAML(t, src, model.RunOptions{})
}

// journeyEnds are the (start, end, status) of each journey, by start.
func journeyEnds(events []model.TraceEvent) [][3]float64 {
	var out [][3]float64
	for _, e := range events {
		if e.Event == model.EvJourneyEnd {
			out = append(out, [3]float64{e.T - e.Duration, e.T, float64(e.Status)})
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestOnFailureRunsBeforeTheFailureReachesTheCaller(t *testing.T) {
	res, events := onFailureRun(t, "{call: handle}", "", "      - {use: cpu, work: 5ms}")
	ends := journeyEnds(events)
	if len(ends) != 2 {
		t.Fatalf("%d journeys ended; want 2", len(ends))
	}
	first, second := ends[0], ends[1]
	if first[2] != 503 {
		first, second = second, first
	}
	// The refused request fails 5 ms after it arrived, with 503.
	if first[2] != 503 || !near(first[1]-first[0], 0.005) {
		t.Errorf("refused journey %v; want 503 after 5ms", first)
	}
	if second[2] != 200 || !near(second[1]-second[0], 1) {
		t.Errorf("served journey %v; want 200 after 1s", second)
	}
	if got := busySeconds(res, "cpu"); !near(got, 0.005) {
		t.Errorf("cpu busy %gs; want 0.005s (the error response only)", got)
	}
	r, _ := res.Route("handle")
	if r.Calls != 2 || r.Failures != 1 || !near(float64(r.Latency.Mean), (1+0.005)/2) {
		t.Errorf("route: %d calls, %d failures, mean %gs; want 2, 1, 0.5025s", r.Calls, r.Failures, r.Latency.Mean)
	}
	if len(r.Statuses) != 2 || r.Statuses[0] != (model.StatusCount{Status: 503, Count: 1}) ||
		r.Statuses[1] != (model.StatusCount{Status: 200, Count: 1}) {
		t.Errorf("route statuses %v; want one 503, one 200", r.Statuses)
	}
	j, _ := res.Journey("j")
	if j.Requests != 2 || j.RequestFailures != 1 {
		t.Errorf("journey: %d requests, %d failures; want 2, 1", j.Requests, j.RequestFailures)
	}
}

// A step of the block that fails ends the block: the route fails with its
// first status (503), not the block's (500), and the step after it never
// runs (the cpu stays idle).
func TestOnFailureStepThatFailsKeepsTheFirstStatus(t *testing.T) {
	res, events := onFailureRun(t, "{call: handle}", "",
		"      - delay: 2ms\n      - {fail: {p: 1, status: 500}}\n      - {use: cpu, work: 5ms}")
	ends := journeyEnds(events)
	refused := ends[0]
	if refused[2] != 503 {
		refused = ends[1]
	}
	if refused[2] != 503 || !near(refused[1]-refused[0], 0.002) {
		t.Errorf("refused journey %v; want 503 after 2ms", refused)
	}
	if got := busySeconds(res, "cpu"); got != 0 {
		t.Errorf("cpu busy %gs; want 0", got)
	}
	r, _ := res.Route("handle")
	if r.Failures != 1 || len(r.Statuses) != 2 || r.Statuses[0] != (model.StatusCount{Status: 503, Count: 1}) {
		t.Errorf("route: %d failures, statuses %v; want 1 failure, 503", r.Failures, r.Statuses)
	}
}

// A deadline that has passed does not cut the block: under a 300 ms
// deadline each request's work is cut at 300 ms (the thread is free again
// when the second arrives at 0.5 s); its block then works 5 ms on the cpu
// all the same, and the route ends with 504 305 ms after it started. The
// caller gives up at its deadline, 300 ms, without waiting for the block.
func TestOnFailureRunsPastTheDeadline(t *testing.T) {
	for _, mode := range []string{"on_deadline: cut"} {
		res, events := onFailureRun(t, "{call: handle, deadline: 300ms}", mode, "      - {use: cpu, work: 5ms}")
		ends := journeyEnds(events)
		for _, e := range ends {
			if e[2] != 504 || !near(e[1]-e[0], 0.3) {
				t.Errorf("%s: journey %v; want 504 after 300ms", mode, e)
			}
		}
		r, _ := res.Route("handle")
		want := 0.305
		if len(r.Statuses) != 1 || r.Statuses[0] != (model.StatusCount{Status: 504, Count: 2}) || !near(float64(r.Latency.Max), want) {
			t.Errorf("%s: route statuses %v, longest %gs; want two 504, %gs", mode, r.Statuses, r.Latency.Max, want)
		}
		if got := busySeconds(res, "cpu"); !near(got, 0.010) {
			t.Errorf("%s: cpu busy %gs; want 0.010s (two error responses)", mode, got)
		}
		if r.Orphaned != 2 || !near(r.OrphanedSeconds, 0.010) {
			t.Errorf("%s: orphaned %d for %gs; want 2 for 0.010s (the blocks after the deadline)", mode, r.Orphaned, r.OrphanedSeconds)
		}
	}
}

// A cancelled route runs no block: its caller has gone, and nobody reads
// the response. Here the caller's 300 ms timeout cancels each request
// (the thread is free again when the second arrives): both end 499 and
// the cpu stays idle.
func TestOnFailureDoesNotRunWhenCancelled(t *testing.T) {
	res, _ := onFailureRun(t, "{call: handle, timeout: 300ms}", "cancellable: true", "      - {use: cpu, work: 5ms}")
	r, _ := res.Route("handle")
	if len(r.Statuses) != 1 || r.Statuses[0] != (model.StatusCount{Status: 499, Count: 2}) || !near(float64(r.Latency.Max), 0.3) {
		t.Errorf("route statuses %v, longest %gs; want two 499, 0.3s", r.Statuses, r.Latency.Max)
	}
	if got := busySeconds(res, "cpu"); got != 0 {
		t.Errorf("cpu busy %gs; want 0", got)
	}
}

func TestOnFailureErrors(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"      - {delay: 1ms, on_failure: [{delay: 1ms}]}", "t.yaml:20:22: routes.handle.on_failure[0].on_failure: " +
			`unknown key "on_failure" (expected one of: async, await, call, choose, deadline, delay, fail, fail_fast, ` +
			"fanout, hold, job, key, leak_on_failure, limit, log, optional, per, poll, priority, repeat, retry, " +
			"session, signal, since, stage, status, steps, timeout, use, work)"},
		{"      []", "t.yaml:20:7: routes.handle.on_failure: on_failure needs at least one step (or leave it out)"},
		{"      - {use: nope, work: 1ms}", "t.yaml:20:9: routes.handle.on_failure[0].use: unknown component \"nope\" (components: threads, cpu)"},
	} {
		src := replace(replace(replace(onFailureSrc, "CALL", "{call: handle}"), "MODE", ""), "BLOCK", tc.block)
		_, err := compileNamed("t.yaml", src, model.LoadOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.block, err, tc.want)
		}
	}
}

// A cancel during the block stops it. The first request holds the thread
// until its caller's 700 ms timeout cancels it; the second, refused at
// 0.5 s, starts a 1 s block and is cancelled at 1.2 s, its caller's
// timeout: it ends 499 after 700 ms, not 503 at 1.5 s.
func TestOnFailureStopsWhenCancelled(t *testing.T) {
	res, _ := onFailureRun(t, "{call: handle, timeout: 700ms}", "cancellable: true", "      - delay: 1s")
	r, _ := res.Route("handle")
	if len(r.Statuses) != 1 || r.Statuses[0] != (model.StatusCount{Status: 499, Count: 2}) ||
		!near(float64(r.Latency.Max), 0.7) || !near(float64(r.Latency.Mean), 0.7) {
		t.Errorf("route statuses %v, mean %gs, longest %gs; want two 499 after 0.7s", r.Statuses, r.Latency.Mean, r.Latency.Max)
	}
}

// A call back into a route from its on_failure block, directly or through
// other routes, is a cycle as one from its steps is: a route that fails
// into itself recurses for as long as it fails. It once compiled, and
// only the in-flight guard stopped the run.
func TestOnFailureCyclesAreRefused(t *testing.T) {
	for _, c := range []struct{ name, routes, want string }{
		{"itself", `  a:
    steps: [{fail: {p: 1, status: 500}}]
    on_failure: [{call: a}]
`, `c.yaml:6:18: routes.a.on_failure[0].call: routes call each other in a cycle (a → a); a request cannot recurse forever`},
		{"through a poll", `  a:
    steps: [{fail: {p: 1, status: 500}}]
    on_failure: [{call: b}]
  b:
    steps: [{poll: {call: a, every: 1s}}]
`, `c.yaml:8:13: routes.b.steps[0].poll.call: routes call each other in a cycle (a → b → a); a request cannot recurse forever`},
	} {
		src := "name: c\nduration: 100s\nroutes:\n" + c.routes + "journeys: {customer: {rate: 0.5/s, steps: [{call: a}]}}\n"
		if got := compileErrorText("c.yaml", src); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, c.want)
		}
	}
}
