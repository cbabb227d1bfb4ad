package model

import (
	"capsim/sim"
	"capsim/sim/human"
	"fmt"
	"strings"
)

// Guards stop a run that has run away (queues growing without bound past
// the point of failure, entities multiplying) before it exhausts memory.
// A broken run ends cleanly, says which guard tripped where, and counts as
// failing every SLO.

func (r *run) breakRun(guard string, comp int32, detail string) {
	if r.broken != nil {
		return
	}
	r.broken = &Broken{Guard: guard, Component: r.compName(comp), At: r.s.Now().Seconds(), Detail: detail}
	r.s.Stop()
}

// guardInFlight is the test, inlined where a journey starts; inFlightBroke
// the rest.
func (r *run) guardInFlight() bool {
	return (r.broken != nil || r.inFlight >= r.p.limits.inFlight) && r.inFlightBroke()
}

func (r *run) inFlightBroke() bool {
	if r.broken != nil {
		return true
	}
	// Entities pile up where work waits: name the longest queue, the
	// likeliest place the run broke.
	worst, most := int32(-1), 0
	for i := range r.comps {
		if n := r.comps[i].rt.waiting(); n > most {
			worst, most = int32(i), n
		}
	}
	detail := fmt.Sprintf("%d journeys and requests in flight (limits.max_in_flight)", r.inFlight)
	if worst >= 0 {
		detail += fmt.Sprintf("; the longest queue, %d waiting, is at this component", most)
	}
	r.breakRun("max_in_flight", worst, detail)
	return true
}

// tooManyAtOnce counts n more ops run at the current instant and stops the
// run once more than limits.max_steps_per_instant have run without
// simulated time passing: a loop of steps that take no time (a repeat of
// logs, a retry without backoff) would otherwise never end.
func (r *run) tooManyAtOnce(p *proc, n int) bool {
	now := r.s.Now()
	if now != r.instant {
		r.instant, r.instantOps = now, 0
	}
	r.instantOps += int64(n)
	if r.instantOps <= r.p.limits.instantOps {
		return false
	}
	// The loop is at the top: the op about to run, or the last of its
	// block, is the step that loops.
	where := "a journey's steps"
	if len(p.frames) > 0 {
		f := &p.frames[len(p.frames)-1]
		ops := f.ops
		if pc := min(int(f.pc), len(ops)-1); pc >= 0 && ops[pc].site > 0 {
			where = r.p.sites[ops[pc].site]
		}
	}
	if p.route >= 0 {
		where += " (route " + r.p.routes[p.route].name + ")"
	}
	r.breakRun("max_steps_per_instant", -1, fmt.Sprintf("%d steps ran at one instant without simulated time passing (limits.max_steps_per_instant); the last at %s: a loop that takes no time?", r.instantOps, where))
	return true
}

// guardQueue stops the run when more requests wait at comp, whose runtime
// is c, than limits.max_queue allows. c is passed beside comp: where a
// request queues, it is at hand.
func (r *run) guardQueue(c *compRT, comp int32) {
	n := c.rt.waiting()
	if n > r.p.limits.queue {
		r.breakRun("max_queue", comp, fmt.Sprintf("%d waiting (limits.max_queue)", n))
	}
}

// waitingWhere names what the procs in flight wait for, for a deadlock's
// message: "; waiting: 2 for the journey's jobs, 1 in a queue", in the
// order of the states, by each state's where.
func (r *run) waitingWhere() string {
	var n [waitKinds]int
	for _, p := range r.procs {
		if p.journey != nil { // else free
			n[p.waiting]++
		}
	}
	var parts []string
	for w := range waitStates {
		if n[w] > 0 && waitStates[w].where != "" {
			parts = append(parts, fmt.Sprintf("%d %s", n[w], waitStates[w].where))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; waiting: " + strings.Join(parts, ", ")
}

// clockEnd is the furthest simulated time a run reaches: twice the
// longest span a scenario may write, well inside the clock's 292 years.
// Waits that sum past it (jobs of a century queued on one server, a
// delay times a huge attribute) would saturate the clock and finish at
// "never" as if they had succeeded; the run stops instead.
const clockEnd = 2 * MaxDuration

// clockBroke stops the run at a wait of d that would end past clockEnd.
func (r *run) clockBroke(p *proc, d sim.Time) {
	who := "a wait"
	if p.journey != nil {
		who = "a wait of journey " + r.p.journeys[p.journey.typ].name
	}
	r.breakRun("clock", -1, fmt.Sprintf("%s of %s would end past %s of simulated time, the furthest a run reaches",
		who, human.Seconds(d.Seconds()), human.Seconds(clockEnd.Seconds())))
}
