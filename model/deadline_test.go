package model_test

import (
	"math"
	"testing"

	"capsim/model"
)

// One request, three steps of 300 ms holding one thread, under a 500 ms
// deadline. The caller fails at 500 ms whatever the route does; what the
// route does with the deadline decides how long the thread is held and how
// much work is done for no one.
var threeStepsSrc = onceSrc("three-steps", "10s", "  threads: {kind: pool, servers: 1}\n", ` [{call: handle, deadline: 500ms}]
routes:
  handle:
    MODE
    steps:
      - hold: threads
      - work: 300ms
      - work: 300ms
      - work: 300ms
`)

func TestOnDeadlineTimelines(t *testing.T) {
	for _, tc := range []struct {
		mode           string
		routeEnd, busy float64 // the route's end and the thread's busy seconds
		orphaned       int64
		orphanedWork   float64
		routeStatus    int32
	}{
		// Every work inside stops at 500 ms, giving the thread back.
		{"on_deadline: cut", 0.5, 0.5, 0, 0, 504},
		// The second step, under way at 500 ms, ends at 600 ms; the route
		// reads the clock before the third and stops: 100 ms for no one.
		{"on_deadline: check", 0.6, 0.6, 1, 0.1, 504},
		// Not told of the deadline: all three steps, 400 ms for no one.
		{"on_deadline: ignore", 0.9, 0.9, 1, 0.4, 200},
		{"ignores_deadline: true", 0.9, 0.9, 1, 0.4, 200},
	} {
		res, events := runYAML(t, replace(threeStepsSrc, "MODE", tc.mode), model.RunOptions{})
		end := journeyEnd(t, events)
		r, _ := res.Route("handle")
		if end.Duration != 0.5 || end.Status != 504 {
			t.Errorf("%s: journey ended at %gs with %d; want 0.5s, 504", tc.mode, end.Duration, end.Status)
		}
		if math.Abs(float64(r.Latency.Mean)-tc.routeEnd) > 1e-9 || len(r.Statuses) != 1 || r.Statuses[0].Status != tc.routeStatus {
			t.Errorf("%s: route took %gs, statuses %v; want %gs, %d", tc.mode, r.Latency.Mean, r.Statuses, tc.routeEnd, tc.routeStatus)
		}
		if math.Abs(busySeconds(res, "threads")-tc.busy) > 1e-9 {
			t.Errorf("%s: thread busy %gs; want %gs", tc.mode, busySeconds(res, "threads"), tc.busy)
		}
		if r.Orphaned != tc.orphaned || math.Abs(r.OrphanedSeconds-tc.orphanedWork) > 1e-9 {
			t.Errorf("%s: orphaned %d for %gs; want %d for %gs", tc.mode, r.Orphaned, r.OrphanedSeconds, tc.orphaned, tc.orphanedWork)
		}
		if got := metricValue(t, res, "route.handle.orphaned_work_s"); math.Abs(got-tc.orphanedWork) > 1e-9 {
			t.Errorf("%s: orphaned_work_s %g; want %g", tc.mode, got, tc.orphanedWork)
		}
	}
}

// A route that checks the deadline does not start a step once it has
// passed, even an optional one, and what it calls checks too: the deadline
// passes at 500 ms inside the inner route's first step, which ends at
// 700 ms; neither route starts another step.
func TestCheckedDeadlineReachesCallsInside(t *testing.T) {
	src := onceSrc("nested-check", "10s", "  threads: {kind: pool, servers: 1}\n", ` [{call: outer, deadline: 500ms}]
routes:
  outer:
    on_deadline: check
    steps:
      - work: 200ms
      - call: inner
      - {work: 1s, optional: true}
  inner:
    on_deadline: check
    steps:
      - {use: threads, work: 500ms}
      - {use: threads, work: 500ms}
`)
	res, events := runYAML(t, src, model.RunOptions{})
	end := journeyEnd(t, events)
	outer, _ := res.Route("outer")
	inner, _ := res.Route("inner")
	if end.Duration != 0.5 || end.Status != 504 {
		t.Errorf("journey ended at %gs with %d; want 0.5s, 504", end.Duration, end.Status)
	}
	// outer gives up on inner at 500 ms (its step is the call) and stops.
	if math.Abs(float64(outer.Latency.Mean)-0.5) > 1e-9 || math.Abs(float64(inner.Latency.Mean)-0.5) > 1e-9 ||
		math.Abs(busySeconds(res, "threads")-0.5) > 1e-9 {
		t.Errorf("outer took %gs, inner %gs, thread busy %gs; want 0.5s, 0.5s (200 ms to 700 ms), 0.5s",
			outer.Latency.Mean, inner.Latency.Mean, busySeconds(res, "threads"))
	}
	if inner.Orphaned != 1 || math.Abs(inner.OrphanedSeconds-0.2) > 1e-9 || outer.Orphaned != 1 || outer.OrphanedSeconds != 0 {
		t.Errorf("orphaned: inner %d for %gs, outer %d for %gs; want 1 for 0.2s, 1 for 0s",
			inner.Orphaned, inner.OrphanedSeconds, outer.Orphaned, outer.OrphanedSeconds)
	}
}

func TestOnDeadlineErrors(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"on_deadline: stop", `t.yaml:14:18: routes.handle.on_deadline: on_deadline must be cut, check, ignore, got "stop"`},
		{"{on_deadline: check, ignores_deadline: true}", "t.yaml:14:18: routes.handle.on_deadline: " +
			"on_deadline: check contradicts ignores_deadline: true; keep one"},
	} {
		src := replace(threeStepsSrc, "MODE", tc.mode)
		if tc.mode[0] == '{' {
			src = replace(threeStepsSrc, "    MODE\n", "")
			src = replace(src, "  handle:\n", "  handle:\n    on_deadline: check\n    ignores_deadline: true\n")
		}
		checkRefusedWith(t, tc.mode, "t.yaml", src, tc.want)
	}
}

// metricValue is the value of the metric called name in res, 0 when it is not
// listed (a sparse metric that is zero).
func metricValue(t *testing.T, res *model.Result, name string) float64 {
	t.Helper()
	for _, m := range res.Metrics() {
		if m.Name() == name {
			return m.Value
		}
	}
	return 0
}

// Past the deadline an optional step does not swallow the check: the route
// stops before it with 504 at 600 ms, instead of skipping it and ending
// with 200.
func TestCheckedDeadlineIsNotTolerated(t *testing.T) {
	src := replace(threeStepsSrc, "MODE", "on_deadline: check")
	src = replace(src, "      - work: 300ms\n      - work: 300ms\n      - work: 300ms\n",
		"      - work: 600ms\n      - {work: 300ms, optional: true}\n")
	res, _ := runYAML(t, src, model.RunOptions{})
	r, _ := res.Route("handle")
	if math.Abs(float64(r.Latency.Mean)-0.6) > 1e-9 || len(r.Statuses) != 1 || r.Statuses[0].Status != 504 || res.Tolerated != 0 {
		t.Errorf("route took %gs, statuses %v, tolerated %d; want 0.6s, 504, 0", r.Latency.Mean, r.Statuses, res.Tolerated)
	}
}
