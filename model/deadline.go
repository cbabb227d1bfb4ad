package model

import (
	"strings"
)

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
