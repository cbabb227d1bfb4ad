package model

import "fmt"

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

func (r *run) guardInFlight() bool {
	if r.broken != nil {
		return true
	}
	if r.inFlight >= r.p.limits.inFlight {
		r.breakRun("max_in_flight", -1, fmt.Sprintf("%d journeys and requests in flight (limits.max_in_flight)", r.inFlight))
		return true
	}
	return false
}

func (r *run) guardQueue(comp int32) {
	c := &r.comps[comp]
	n := 0
	switch {
	case c.pool != nil:
		n = c.pool.Waiting()
	case c.lock != nil:
		n = int(c.lock.Waiting.Value())
	case c.worker != nil:
		n = c.worker.Waiting()
	}
	if n > c.peakQueue {
		c.peakQueue = n
	}
	if n > r.p.limits.queue {
		r.breakRun("max_queue", comp, fmt.Sprintf("%d waiting (limits.max_queue)", n))
	}
}
