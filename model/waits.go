package model

import (
	"fmt"

	"capsim/sim"
)

// What a proc waits for, and what every event does to a proc waiting so.
// A proc waits in exactly one state at a time (proc.waiting); the events
// that can end a wait are its own end (kWake: the sleep is over, the child
// ended), its timer (kTimeout: the wait's timeout or the deadline, whichever
// comes first, as the wait armed it), its cancellation (its caller gave up
// and it observes that), and the end of the run (the drain is over, or a
// guard stopped it). Each state is one row of waitStates, which says what
// each of those does; the handlers only look the row up, so a state cannot
// be handled by one event and forgotten by another.
// TestEveryWaitStateUnderEveryEvent drives a scenario into every state and
// fires every event at it.

type waitKind uint8

// The states. Their order is the order a stopped run's message lists what
// procs wait for (see waitingWhere).
const (
	waitNone     waitKind = iota // running, or free
	waitStart                    // spawned, not yet run
	waitSleep                    // delay, work, token wait, or granted and about to run; pc past the op
	waitJobs                     // the journey's jobs; pc past the op
	waitCall                     // a call's callee; pc on the call
	waitJoin                     // a sync job's or a fan-out's children; pc on the op
	waitPollCall                 // a poll loop's status call; pc on the poll
	waitAcquire                  // queued at a component; pc past the op
	waitRetry                    // a retry's backoff; pc on the call, which runs again
	waitPollGap                  // a poll's gap; pc on the poll, which runs again
	waitDeadline                 // work cut short by the deadline: fails on wake
	// States of one kind; their rows are in the kind's file.
	waitRunning // kind_cpu.go: work running on shared cores; pc past the op
	waitRefused // kind_bucket.go: waiting out max_wait for nothing: fails on wake
	waitFailing // kind_bucket.go: a refusal on its way (outcome holds its status): fails on wake

	waitKinds // the number of states
)

// waitState is one row: what each event does to a proc in the state.
type waitState struct {
	name string
	// wake ends the wait when what it waits for has come (kWake). nil for
	// a state a component ends (a grant, work done), which first moves
	// the proc to waitSleep and wakes it from there.
	wake func(r *run, p *proc)
	// expire ends the wait when its timer fires (kTimeout): the wait's
	// own timeout or the deadline, whichever the wait armed it at. nil for
	// a state that arms no timer.
	expire func(r *run, p *proc)
	// timeout names the wait's own timeout, as a scenario writes it; ""
	// for a wait that has none.
	timeout string
	// deadline is how a deadline that reaches the proc (on_deadline: cut)
	// ends a wait in the state.
	deadline deadlineReach
	// withdraw takes a cancelled proc out of what it waits for, before it
	// unwinds and releases what it holds; nil when there is nothing to
	// take it out of (its pending wake-up only goes stale).
	withdraw func(r *run, p *proc)
	// children says the state waits for children the proc spawned: their
	// end wakes it (see procEnded).
	children bool
	// where names the procs left in the state when a run stops with
	// journeys in flight (a deadlock's message); "" leaves them out. The
	// end of the run and a guard's stop do nothing else to any state: the
	// proc stays in flight, and what it holds counts as in use at the end.
	where string
}

// deadlineReach is how a deadline ends a wait.
type deadlineReach uint8

const (
	// reachNever: the state lasts no simulated time, or is not a wait.
	reachNever deadlineReach = iota
	// reachTimer: the wait's timer is armed at the deadline when it comes
	// before the wait's own timeout; expire fails the proc then.
	reachTimer
	// reachCut: the state is the wait already cut short to end at the
	// deadline; wake fails the proc with a 504.
	reachCut
	// reachBounded: the wait is never longer than what the deadline
	// leaves: a work, a poll's gap or a refusal on its way that would pass
	// it sleeps to it in waitDeadline instead (sleepCut); a token wait, a
	// bucket's max_wait and a retry's backoff are held short of it.
	reachBounded
)

var deadlineReaches = [...]string{reachNever: "never", reachTimer: "timer", reachCut: "cut", reachBounded: "bounded"}

func (d deadlineReach) String() string { return deadlineReaches[d] }

// waitStates is the table, one row per state. It is filled by init
// functions (this file's and the kinds'), since its rows call the
// interpreter, which reads the table: a literal would be an
// initialisation cycle.
var waitStates [waitKinds]waitState

func init() {
	resume := (*run).exec // which ends the wait
	waitStates[waitNone] = waitState{name: "none", wake: resume}
	waitStates[waitStart] = waitState{name: "start", wake: resume}
	waitStates[waitSleep] = waitState{name: "sleep", wake: resume, deadline: reachBounded}
	waitStates[waitRetry] = waitState{name: "retry", wake: resume, deadline: reachBounded}
	waitStates[waitPollGap] = waitState{name: "poll gap", wake: resume, deadline: reachBounded}
	waitStates[waitDeadline] = waitState{name: "deadline", deadline: reachCut,
		wake: func(r *run, p *proc) {
			p.waiting = waitNone
			r.fail(p, 504, -1)
		}}
	waitStates[waitJobs] = waitState{name: "jobs", deadline: reachTimer, where: "for the journey's jobs",
		wake: func(r *run, p *proc) {
			r.s.Cancel(p.timer)
			p.waiting = waitNone
			if !r.reportJobFailure(p) {
				r.exec(p)
			}
		},
		expire: func(r *run, p *proc) {
			p.seq++ // the jobs' end is no longer awaited
			p.waiting = waitNone
			p.journey.awaiter = nil
			r.fail(p, 504, -1)
		},
		withdraw: func(r *run, p *proc) {
			r.s.Cancel(p.timer)
			p.journey.awaiter = nil
		}}
	// The three states that wait for children differ only in how the
	// op settles once they ended (done) or it gave up on them (timedOut).
	children := func(name, timeout, where string, done, timedOut func(r *run, p *proc, o *op)) waitState {
		return waitState{name: name, timeout: timeout, deadline: reachTimer, where: where, children: true,
			wake: func(r *run, p *proc) {
				p.waiting = waitNone
				r.s.Cancel(p.timer)
				f := &p.frames[len(p.frames)-1]
				done(r, p, &f.ops[f.pc])
			},
			expire: func(r *run, p *proc) {
				p.seq++ // the child becomes an orphan: its end is no longer awaited
				p.waiting = waitNone
				r.cancelKids(p, nil) // unless it observes cancellation
				f := &p.frames[len(p.frames)-1]
				o := &f.ops[f.pc]
				r.emitTimeout(p, o)
				timedOut(r, p, o)
			},
			withdraw: func(r *run, p *proc) {
				r.s.Cancel(p.timer)
				p.toSpawn = 0
			}}
	}
	waitStates[waitCall] = children("call", "a call's timeout", "for a call",
		func(r *run, p *proc, o *op) { r.callEnded(p, o, p.outcome, p.outComp, p.outStage) },
		func(r *run, p *proc, o *op) { r.callEnded(p, o, 504, -1, -1) })
	waitStates[waitJoin] = children("join", "a job's timeout", "for a job or fan-out", (*run).joinEnded, (*run).joinTimedOut)
	waitStates[waitPollCall] = children("poll call", "", "for a poll's status call", (*run).pollCallEnded, (*run).pollTimedOut)
	waitStates[waitAcquire] = waitState{name: "acquire", timeout: "a component's wait_timeout", deadline: reachTimer, where: "in a queue",
		expire: func(r *run, p *proc) {
			now := r.s.Now()
			c := &r.comps[p.waitComp]
			c.rt.abandon(now, p)
			c.timedOut++
			p.waiting = waitNone
			r.emit(EvTimeout, p, p.waitComp, 0)
			status := r.p.comps[p.waitComp].status
			if p.deadline <= now {
				status = 504
			}
			r.fail(p, status, p.waitComp)
		},
		withdraw: (*run).leaveComponent}
}

// leaveComponent withdraws p from the component it waits at or runs work
// at, and disarms its timer.
func (r *run) leaveComponent(p *proc) {
	r.comps[p.waitComp].rt.abandon(r.s.Now(), p)
	r.s.Cancel(p.timer)
}

func (r *run) onWake(arg int64) {
	p := r.procs[int32(arg)]
	if p.seq != uint32(arg>>32) {
		return // stale: the proc moved on (timed out, failed or finished)
	}
	wake := waitStates[p.waiting].wake
	if wake == nil {
		panic(fmt.Sprintf("model: a proc waiting in state %s was woken, which only its component may end", waitStates[p.waiting].name))
	}
	wake(r, p)
	r.runReady()
}

func (r *run) onTimeout(arg int64) {
	p := r.procs[int32(arg)]
	if p.seq != uint32(arg>>32) {
		return
	}
	if expire := waitStates[p.waiting].expire; expire != nil {
		expire(r, p)
	}
	r.runReady()
}

// cancel stops p: what it waits for is withdrawn, what it holds is
// released, the children it waits for are cancelled in turn (as
// cancelKids says), and it ends with statusCancelled, which nobody awaits.
func (r *run) cancel(p *proc) {
	p.cancelled = true
	if withdraw := waitStates[p.waiting].withdraw; withdraw != nil {
		withdraw(r, p)
	}
	p.seq++ // whatever was to wake it is stale
	p.waiting = waitNone
	r.cancelKids(p, nil)
	r.failAt(p, statusCancelled, -1, r.label(p))
}

// sleepCut parks p in state kind for d, or, when its deadline comes
// first, until the deadline (waitDeadline), when it fails: what a cut
// deadline does to a wait that arms no timer. (The interpreter's work and
// delay do the same inline, on the hot path.)
func (r *run) sleepCut(p *proc, kind waitKind, d sim.Time) {
	if now := r.s.Now(); p.deadline != sim.Never && now+d > p.deadline {
		r.sleep(p, waitDeadline, p.deadline-now)
		return
	}
	r.sleep(p, kind, d)
}

// sleep parks p in state kind until now+d.
func (r *run) sleep(p *proc, kind waitKind, d sim.Time) {
	if d > clockEnd-r.s.Now() {
		r.clockBroke(p, d)
		return
	}
	p.seq++
	p.waiting = kind
	r.s.After(d, r.kWake, pack(p))
}
