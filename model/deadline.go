package model

import (
	"strings"

	"capsim/sim"
)

// What a route does with a deadline that reaches it (a call's `deadline:`,
// or one its caller was given). The caller always fails at the deadline;
// the modes differ in what the route's own work does then.
type deadlineMode uint8

const (
	// deadlineCut: every wait and work inside ends at the deadline, which
	// gives back what the route holds then.
	deadlineCut deadlineMode = iota
	// deadlineCheck: nothing is cut; the route reads the clock before each
	// step and stops (504) when the deadline has passed, so the step under
	// way runs to its end for nobody.
	deadlineCheck
	// deadlineIgnore: the route is not told of the deadline and works on.
	deadlineIgnore
)

// deadlineModes are the values of a route's on_deadline, by mode.
var deadlineModes = [...]string{deadlineCut: "cut", deadlineCheck: "check", deadlineIgnore: "ignore"}

// deadlineMode compiles a route's on_deadline (and the older
// ignores_deadline, the same as on_deadline: ignore).
func (c *compiler) deadlineMode(name string, rt *Route) deadlineMode {
	path := "routes." + name + ".on_deadline"
	mode := deadlineCut
	if rt.IgnoresDeadline {
		mode = deadlineIgnore
	}
	if rt.OnDeadline == "" {
		return mode
	}
	for m, s := range deadlineModes {
		if s != rt.OnDeadline {
			continue
		}
		if rt.IgnoresDeadline && deadlineMode(m) != deadlineIgnore {
			c.failKey(rt.Node, "on_deadline", path, "on_deadline: %s contradicts ignores_deadline: true; keep one", s)
		}
		return deadlineMode(m)
	}
	c.failKey(rt.Node, "on_deadline", path, "on_deadline must be %s, got %q", strings.Join(deadlineModes[:], ", "), rt.OnDeadline)
	return mode
}

// pastCheck says whether p, checking the clock before a step, finds its
// deadline spent; it then stops with a 504 that no optional step
// swallows, as a handler returning its context's error does.
func (r *run) pastCheck(p *proc) bool {
	if p.checkAt == sim.Never || r.s.Now() < p.checkAt || p.unwinding {
		return false
	}
	p.abandoned = true
	r.fail(p, 504, -1)
	return true
}
