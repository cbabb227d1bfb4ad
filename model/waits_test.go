package model

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/sim"
)

// The events a wait state must handle, as TestEveryWaitStateUnderEveryEvent
// fires them at route r's proc (every one at 100 ms, while r waits).
type waitEvent uint8

const (
	evWake      waitEvent = iota // nothing comes first: the wait ends by itself
	evTimeout                    // the wait's own timeout (wait_timeout, a call's timeout)
	evDeadline                   // the caller's deadline reaches r (on_deadline: cut)
	evCancel                     // the caller gives up on a cancellable r
	evRunEnd                     // the drain ends with r waiting
	evGuardStop                  // a guard stops the run with r waiting (limits.max_time)
	waitEvents
)

var waitEventNames = [...]string{"wake", "timeout", "deadline", "cancel", "run end", "guard stop"}

// ended is where a journey, or route r's request, ended: status at t
// seconds; status 0 is still in flight when the run stopped.
type ended struct {
	status int32
	at     float64
}

// waitPair is one scenario: route r's proc waits in a state, an event
// comes, and this is what must follow.
type waitPair struct {
	call   string // keys of the journey's call of r, after `call: r`
	route  string // r's steps, after its hold of `held`
	probe  waitKind
	noted  bool   // probe holds: r's proc is in state probe at 50 ms
	j, r   ended  // the journey's end and r's
	broken string // the guard that stopped the run, if one did
	limits string // limits: of the scenario
	drain  string // the scenario's drain; default 10s
	extra  string // more routes
}

// waitPairs is a state's scenarios by event; with sets one and returns
// them, so that a case can build on its usual three.
type waitPairs map[waitEvent]waitPair

func (m waitPairs) with(ev waitEvent, p waitPair) waitPairs {
	m[ev] = p
	return m
}

// ends is a scenario in which r's wait ends without the caller doing
// anything: the journey and r both end with status at t seconds. probe is
// the state r's proc is in at 50 ms.
func ends(route string, probe waitKind, status int32, at float64) waitPair {
	return waitPair{route: route, probe: probe, noted: true, j: ended{status, at}, r: ended{status, at}}
}

// cutAtDeadline is the scenario in which the caller's deadline of 100 ms
// cuts r's wait: both end with 504 at it.
func cutAtDeadline(route string, probe waitKind) waitPair {
	p := ends(route, probe, 504, 0.1)
	p.call = "deadline: 100ms"
	return p
}

// cancelledAt100ms is the scenario in which the caller's timeout of 100 ms
// gives up on r: the journey ends with 504 and r, cancelled, with 499.
func cancelledAt100ms(route string, probe waitKind) waitPair {
	p := ends(route, probe, 504, 0.1)
	p.call, p.r.status = "timeout: 100ms", 499
	return p
}

// withCall gives scenario p the caller's keys call.
func withCall(call string, p waitPair) waitPair {
	p.call = call
	return p
}

// usualPairs are the three scenarios most states have: r waits in probe
// and its wait ends with status at t, or the deadline cuts it, or the
// caller gives up on it.
func usualPairs(route string, probe waitKind, status int32, at float64) waitPairs {
	return waitPairs{
		evWake:     ends(route, probe, status, at),
		evDeadline: cutAtDeadline(route, probe),
		evCancel:   cancelledAt100ms(route, probe),
	}
}

// sleepsToDeadline are the usual three scenarios of a wait that would
// pass the caller's deadline: r's proc sleeps to the deadline instead.
func sleepsToDeadline(route string, probe waitKind, status int32, at float64) waitPairs {
	return usualPairs(route, probe, status, at).with(evDeadline, cutAtDeadline(route, waitDeadline))
}

// noTimeout says why no timeout can reach a state: its wait has none.
func noTimeout(why string) map[waitEvent]string {
	return map[waitEvent]string{evTimeout: why}
}

// The routes of the cases that share one.
const (
	work200ms  = "      - work: 200ms\n"
	awaitJobs  = "      - job: slow\n        async: true\n      - await: jobs\n"
	callSlow   = "      - call: slow\n"
	fanoutSlow = "      - fanout: 2\n        steps: [{call: slow}]\n"
	pollCall   = "      - job: slow\n        async: true\n      - poll: {call: slow, every: 10ms, until: jobs}\n"
	usePool    = "      - use: pool\n        work: 100ms\n"
	retryFails = "      - call: fails\n        retry: {attempts: 2, on: [503], backoff: 200ms}\n"
	pollGap    = "      - job: slow\n        async: true\n      - poll: {call: slow, every: 150ms, until: jobs}\n"
	useCPU     = "      - use: cpu\n        work: 200ms\n"
	useWaste   = "      - use: waste\n      - use: waste\n"
	useLate    = "      - use: late\n      - use: late\n"
)

// waitCases are, for each state, a route that waits in it from time 0 to
// 200 ms (r first holds `held`, so that what a proc holds is seen given
// back), and the events that can reach it; cannot says why the others
// cannot. Run end and guard stop are fired at every state's wake scenario.
var waitCases = []struct {
	state  waitKind
	pairs  map[waitEvent]waitPair
	cannot map[waitEvent]string
}{
	{state: waitNone, cannot: map[waitEvent]string{
		evWake: "not a wait", evTimeout: "not a wait", evDeadline: "not a wait", evCancel: "not a wait",
		evRunEnd: "not a wait", evGuardStop: "not a wait"}},
	{state: waitStart,
		pairs: map[waitEvent]waitPair{
			// The first branch fails at once and cancels the second,
			// spawned beside it and not yet run.
			evCancel: {route: "      - fanout: 2\n        fail_fast: true\n        steps: [{fail: {p: 1, status: 500}}]\n",
				j: ended{500, 0}, r: ended{500, 0}},
			// The two roots, r and the first branch are in flight: the second
			// branch trips max_in_flight while the first waits to start.
			evGuardStop: {route: "      - fanout: 2\n        steps: [{work: 200ms}]\n", limits: "limits: {max_in_flight: 4}",
				broken: "max_in_flight"},
		},
		cannot: map[waitEvent]string{
			evWake: "lasts no simulated time (every scenario runs through it)", evTimeout: "arms no timer",
			evDeadline: "lasts no simulated time", evRunEnd: "lasts no simulated time"}},
	// The work would pass the deadline: it sleeps to it instead.
	{state: waitSleep, pairs: sleepsToDeadline(work200ms, waitSleep, 200, 0.2),
		cannot: noTimeout("a work or delay has no timeout")},
	{state: waitJobs, pairs: usualPairs(awaitJobs, waitJobs, 200, 0.2),
		cannot: noTimeout("await: jobs has no timeout")},
	{state: waitCall, pairs: usualPairs(callSlow, waitCall, 200, 0.2).
		with(evTimeout, ends("      - call: slow\n        timeout: 100ms\n", waitCall, 504, 0.1))},
	{state: waitJoin, pairs: usualPairs(fanoutSlow, waitJoin, 200, 0.2).
		with(evWake, ends("      - job: slow\n", waitJoin, 200, 0.2)).
		with(evTimeout, ends("      - job: slow\n        timeout: 100ms\n", waitJoin, 504, 0.1))},
	// The job runs to 200 ms; the poll's first gap ends at 10 ms, and its
	// status call, from 10 to 210 ms, finds the job done.
	{state: waitPollCall, pairs: usualPairs(pollCall, waitPollCall, 200, 0.21),
		cannot: noTimeout("a poll's status call has no timeout of its own")},
	// The journey `first` holds the pool from 0 to 200 ms; r queues behind
	// it, then works 100 ms.
	{state: waitAcquire, pairs: usualPairs(usePool, waitAcquire, 200, 0.3).
		with(evTimeout, ends("      - use: timed\n        work: 100ms\n", waitAcquire, 503, 0.1))},
	// fails fails at once; the retry waits 200 ms, then fails too. The
	// backoff would pass the deadline: no retry, the first failure stands.
	{state: waitRetry, pairs: usualPairs(retryFails, waitRetry, 503, 0.2).
		with(evDeadline, withCall("deadline: 100ms", ends(retryFails, waitNone, 503, 0))),
		cannot: noTimeout("a backoff has no timeout")},
	// The job runs to 200 ms; the poll's first gap ends at 150 ms, its
	// status call at 350 ms finds the job done.
	{state: waitPollGap, pairs: sleepsToDeadline(pollGap, waitPollGap, 200, 0.35),
		cannot: noTimeout("a poll gap has no timeout")},
	// The deadline is 150 ms here, so that the caller can give up first.
	{state: waitDeadline,
		pairs: map[waitEvent]waitPair{
			evWake:   withCall("deadline: 150ms", ends(work200ms, waitDeadline, 504, 0.15)),
			evCancel: withCall("deadline: 150ms\n        timeout: 100ms", cancelledAt100ms(work200ms, waitDeadline)),
		},
		cannot: map[waitEvent]string{evTimeout: "a work has no timeout", evDeadline: "its wake is the deadline"}},
	{state: waitRunning, pairs: usualPairs(useCPU, waitRunning, 200, 0.2),
		cannot: noTimeout("a cpu has no wait_timeout")},
	// The first use takes the burst's token; the next is 1 s away, past
	// max_wait: the second waits max_wait for nothing. The wait for
	// nothing stops at the deadline, refused.
	{state: waitRefused, pairs: usualPairs(useWaste, waitRefused, 429, 0.2).
		with(evDeadline, withCall("deadline: 100ms", ends(useWaste, waitRefused, 429, 0.1))),
		cannot: noTimeout("max_wait is the wait itself")},
	// The second use is refused at once; the refusal takes 200 ms. The
	// refusal would come after the deadline: r fails at it.
	{state: waitFailing, pairs: sleepsToDeadline(useLate, waitFailing, 429, 0.2),
		cannot: noTimeout("a refusal on its way has no timeout")},
}

const waitsSrc = `name: waits
duration: 1ms
drain: DRAIN
arrivals: even
LIMITS
components:
  held: {kind: pool, servers: 1}
  pool: {kind: pool, servers: 1}
  timed: {kind: pool, servers: 1, wait_timeout: 100ms}
  cpu: {kind: cpu, cores: 1}
  waste: {kind: bucket, rate: 1/s, burst: 1, max_wait: 200ms, refuse: after_max_wait}
  late: {kind: bucket, rate: 1/s, burst: 1, refuse_cost: 200ms}
journeys:
  first:
    rate: 1/s
    count: 1
    steps:
      - use: pool
        steps: [{use: timed, work: 200ms}]
  j:
    rate: 1/s
    count: 1
    steps:
      - call: r
        CALL
routes:
  r:
    CANCELLABLE
    steps:
      - hold: held
ROUTE  slow:
    steps: [{work: 200ms}]
  fails:
    steps: [{fail: {p: 1, status: 503}}]
`

// The probes' times: while r waits, and after every event.
const (
	probeState = 50 * sim.Millisecond
	probeHeld  = 125 * sim.Millisecond
)

// TestEveryWaitStateUnderEveryEvent drives route r's proc into every wait
// state and fires every event at it: the journey and r end as hand-worked
// (a cut wait at the deadline with 504, a cancelled one at once with 499,
// a wait the deadline does not cut when it ends), r's hold is given back as
// it ends, nothing is left in flight or held once the run is over, and a
// run that stops with r waiting says so instead of failing. It also holds
// the table to the cases: every state has a row and a case, every event
// either a scenario or a reason it cannot reach the state, a timeout
// scenario exactly where the row names a timeout, and the deadline's effect
// as the row's deadline says.
func TestEveryWaitStateUnderEveryEvent(t *testing.T) {
	if len(waitCases) != int(waitKinds) {
		t.Fatalf("%d cases for %d wait states", len(waitCases), waitKinds)
	}
	for i, tc := range waitCases {
		row := waitStates[tc.state]
		name := row.name
		if tc.state != waitKind(i) || name == "" {
			t.Fatalf("case %d is for state %d (%q): cases in the states' order, every state with a row", i, tc.state, name)
		}
		if (tc.pairs[evTimeout].route != "") != (row.timeout != "") {
			t.Errorf("%s: the row names timeout %q, the case has a timeout scenario: %v", name, row.timeout, tc.pairs[evTimeout].route != "")
		}
		if (row.expire != nil) != (row.deadline == reachTimer) {
			t.Errorf("%s: expire set %v, deadline %s: a state's timer is its deadline's way in", name, row.expire != nil, row.deadline)
		}
		if (row.wake == nil) != (tc.state == waitAcquire || tc.state == waitRunning) {
			t.Errorf("%s: wake set %v: only a grant or the cores end a queue's or a cpu's wait", name, row.wake != nil)
		}
		pairs := map[waitEvent]waitPair{}
		for ev, p := range tc.pairs {
			pairs[ev] = p
		}
		if wake, ok := pairs[evWake]; ok {
			// The run ends (the drain is over), or a guard stops it,
			// while r waits: both leave r and the journey in flight.
			stopped := wake
			stopped.drain, stopped.j, stopped.r = "99ms", ended{}, ended{}
			pairs[evRunEnd] = stopped
			stopped.drain, stopped.limits, stopped.broken = "10s", "limits: {max_time: 100ms}", "max_time"
			pairs[evGuardStop] = stopped
		}
		for ev := waitEvent(0); ev < waitEvents; ev++ {
			pair, ok := pairs[ev]
			why, cannot := tc.cannot[ev]
			if ok == cannot {
				t.Errorf("%s × %s: a scenario %v and a reason it cannot happen %q: want exactly one", name, waitEventNames[ev], ok, why)
			}
			if !ok {
				continue
			}
			t.Run(name+"/"+waitEventNames[ev], func(t *testing.T) {
				runWaitPair(t, tc.state, ev, pair)
			})
		}
	}
}

func runWaitPair(t *testing.T, state waitKind, ev waitEvent, pair waitPair) {
	row := waitStates[state]
	src := strings.NewReplacer("DRAIN", cmpOr(pair.drain, "10s"), "LIMITS", pair.limits,
		"CALL", pair.call, "ROUTE", pair.route, "CANCELLABLE", map[bool]string{true: "cancellable: true", false: ""}[ev == evCancel]).Replace(waitsSrc)
	l, err := LoadBytes(fstest.MapFS{}, "waits.yaml", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	var jEnd, rEnd ended
	trace := func(e *TraceEvent) {
		switch {
		case e.Event == EvJourneyEnd && e.Journey == "j":
			jEnd = ended{int32(e.Status), e.T}
		case e.Event == EvRequestEnd && e.Route == "r":
			rEnd = ended{int32(e.Status), e.T}
		}
	}
	r := newRun(c.prog, RunOptions{Multiplier: 1, Seed: 1, Trace: trace})
	route := int32(-1)
	for i := range c.prog.routes {
		if c.prog.routes[i].name == "r" {
			route = int32(i)
		}
	}
	// rProc is r's proc, nil once r ended.
	rProc := func() *proc {
		for _, p := range r.procs {
			if p.journey != nil && p.kind == procCall && p.route == route {
				return p
			}
		}
		return nil
	}
	seen := waitKind(255)
	r.s.At(probeState, r.s.Handle(func(int64) {
		seen = waitNone
		if p := rProc(); p != nil {
			seen = p.waiting
		}
	}), 0)
	heldBusy, rLive := -1.0, false
	held := r.compIndex(t, "held")
	r.s.At(probeHeld, r.s.Handle(func(int64) {
		heldBusy = r.comps[held].rt.(capacityUser).busyNow()
		rLive = rProc() != nil
	}), 0)
	r.execute()

	if pair.noted && seen != pair.probe {
		t.Errorf("r's proc was in state %s at %s, want %s", stateName(seen), probeState, stateName(pair.probe))
	}
	if jEnd != pair.j || rEnd != pair.r {
		t.Errorf("journey ended %+v, r %+v; want %+v and %+v", jEnd, rEnd, pair.j, pair.r)
	}
	broken := ""
	if r.broken != nil {
		broken = r.broken.Guard
	}
	if broken != pair.broken {
		t.Errorf("run broken by %q, want %q", broken, pair.broken)
	}
	if pair.j.status == 0 {
		// Stopped with r waiting: it stays in flight, as it was.
		if r.active == 0 {
			t.Error("no journey in flight when the run stopped")
		}
		return
	}
	// r's hold of held is given back when r ends, not later.
	if want := map[bool]float64{true: 1, false: 0}[rLive]; heldBusy != want || rLive != (pair.r.at > probeHeld.Seconds()) {
		t.Errorf("at %s r in flight %v and held busy %g; r ends at %gs", probeHeld, rLive, heldBusy, pair.r.at)
	}
	// What the deadline does is what the row says.
	if ev == evDeadline {
		d := 0.1
		switch {
		case row.deadline == reachTimer && (pair.r != ended{504, d}):
			t.Errorf("the row's deadline is %s, yet r did not end at it with 504", row.deadline)
		case row.deadline == reachBounded && pair.r.at > d:
			t.Errorf("the row's deadline is %s, yet r waited past it", row.deadline)
		}
	}
	if ev == evCancel && state != waitStart && pair.r.status != statusCancelled {
		t.Errorf("r cancelled ended with %d, want %d", pair.r.status, statusCancelled)
	}
	// Nothing is left once the run is over: every proc is free, every
	// component idle, nothing leaked.
	if r.inFlight != 0 || r.active != 0 {
		t.Errorf("%d procs and %d journeys still in flight at the end", r.inFlight, r.active)
	}
	for i := range r.comps {
		cr := &r.comps[i]
		busy := 0.0
		if cu, ok := cr.rt.(capacityUser); ok {
			busy = cu.busyNow()
		}
		if busy != 0 || cr.rt.waiting() != 0 || cr.leaked != 0 {
			t.Errorf("component %s ends with %g busy, %d waiting, %d leaked", r.p.comps[i].name, busy, cr.rt.waiting(), cr.leaked)
		}
	}
}

func (r *run) compIndex(t *testing.T, name string) int {
	for i := range r.p.comps {
		if r.p.comps[i].name == name {
			return i
		}
	}
	t.Fatalf("no component %s", name)
	return -1
}

func stateName(w waitKind) string {
	if int(w) < len(waitStates) {
		return waitStates[w].name
	}
	return fmt.Sprintf("unprobed (%d)", w)
}

func cmpOr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
