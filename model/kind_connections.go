package model

import (
	"fmt"

	"capsim/sim"
)

// connections: a table of client connections kept alive between requests,
// as a server's worker_connections with keepalive_timeout, or an HTTP
// client's connections to one host. A connection carries one request at a
// time and belongs to the client that opened it; released, it stays open
// (idle) for that client until idle_timeout. The table counts idle
// connections against max, so it can fill while few requests are in
// flight: a spike of clients leaves one open connection each behind it for
// the keep-alive time.

var connectionsKind = &kindDef{name: "connections", capacityUnit: "connections", newSpec: func() kindSpec { return &ConnectionsSpec{} }, status: 503,
	capacity: true,
	measures: []Measure{
		// open connections, idle ones included; connections opened, and
		// uses of an idle one
		componentMeasure("mean_open_count", UnitCount, func(c *ComponentResult) (float64, bool) { return float64(c.MeanOpen), true }),
		componentMeasure("peak_open_count", UnitCount, func(c *ComponentResult) (float64, bool) { return c.PeakOpen, true }),
		componentMeasure("connects_count", UnitCount, func(c *ComponentResult) (float64, bool) { return float64(c.Connects), true }),
		componentMeasure("reuses_count", UnitCount, func(c *ComponentResult) (float64, bool) { return float64(c.Reuses), true }),
	}}

// ConnectionsSpec is a table of keep-alive connections.
type ConnectionsSpec struct {
	Max         *int      `yaml:"max" bound:"[1,count]"`         // connections open at most, idle ones included
	IdleTimeout *Duration `yaml:"idle_timeout" bound:"(0,time]"` // keep-alive; unset or 0 = closed when released
	Connect     *DistRef  `yaml:"connect" bound:"[0,time]"`      // cost of opening a connection, paid by the request that opens it
	Key         string    `yaml:"key"`                           // attribute naming the client; default each journey, user for the journey's user
	WhenFull    string    `yaml:"when_full"`                     // reject (default) | wait
	WaitTimeout *DistRef  `yaml:"wait_timeout" bound:"(0,time]"` // longest wait, with when_full: wait
}

type connectionsProg struct {
	cfg    sim.KeyedSlotsConfig
	key    string // attribute naming the client; "" for the journey, "user" for its user
	byUser bool
}

func (s *ConnectionsSpec) compile(c *compiler, cp *compProg, at site) kindProg {
	cfg := sim.KeyedSlotsConfig{Open: sim.Constant(0)}
	if s.Max == nil {
		c.failAt(at, "max", "connections need max (how many may be open at once, idle ones included)")
	} else {
		cfg.Max = *s.Max
		if cfg.Max < 1 {
			c.failAt(at, "max", "max must be >= 1, got %d", cfg.Max)
		}
	}
	if s.IdleTimeout != nil {
		if s.IdleTimeout.T < 0 {
			c.failAt(at, "idle_timeout", "idle_timeout must be >= 0, got %s", s.IdleTimeout.T)
		}
		cfg.IdleClose = s.IdleTimeout.T
	}
	if s.Connect != nil {
		cfg.Open = c.p.dists[c.dist(s.Connect, valueNode(at.node, "connect"), at.path+".connect")]
	}
	switch s.WhenFull {
	case "", "reject":
	case "wait":
		cfg.Wait = true
	default:
		c.failAt(at, "when_full", "when_full must be reject or wait, got %q", s.WhenFull)
	}
	if s.WaitTimeout != nil && !cfg.Wait {
		c.failAt(at, "wait_timeout", "wait_timeout applies with when_full: wait; a full table refuses at once")
	}
	cp.waitTimeout = c.patience(s.WaitTimeout, at, "wait_timeout")
	if cfg.Max >= 1 {
		c.reserve(at.node, "max", joinPath(at.path, "max"), fmt.Sprintf("max: %d connections", cfg.Max), cfg.Bytes())
	}
	return &connectionsProg{cfg: cfg, key: s.Key, byUser: s.Key == "user"}
}

// keyAttr is the attribute that names a use's client, or "" when the
// client is the journey or its user.
func (pr *connectionsProg) keyAttr() string {
	if pr.byUser {
		return ""
	}
	return pr.key
}

func (pr *connectionsProg) newRuntime(r *run, ci int32, cp *compProg, st *sim.Streams) component {
	c := &connectionsRT{prog: pr}
	keyOf := func(id int32) int64 { return r.procs[id].waitKey }
	grant := func(id, slot int32, open sim.Time) {
		p := r.procs[id]
		r.s.Cancel(p.timer)
		p.held = append(p.held, held{comp: ci, key: int64(slot), leak: p.waitLeak})
		connecting(r, p, open)
	}
	c.KeyedSlots = sim.NewKeyedSlots(r.s, pr.cfg, st.Get("connect/"+cp.seedName), keyOf, grant)
	return c
}

type connectionsRT struct {
	*sim.KeyedSlots
	prog *connectionsProg
}

// acquire takes one of the client's idle connections, or opens one. The
// caller holds a connection it opens at once and pays connect holding it,
// so the hold is taken here and the caller sleeps (a held connection being
// opened is active, as a socket in its handshake occupies a slot).
func (c *connectionsRT) acquire(r *run, p *proc, o *op, comp int32, _ *compRT) (acquired, int64) {
	key := p.journey.id
	switch {
	case o.keyAttr >= 0:
		key = int64(p.journey.attrs[o.keyAttr])
	case c.prog.byUser:
		key = p.journey.user
	}
	out, slot, open := c.Acquire(r.s.Now(), key, p.id)
	switch {
	case out == sim.Rejected:
		return acqRejected, 0
	case out == sim.Queued:
		return acqQueued, key // the key the table asks for when a slot frees
	case open == 0:
		return acqGranted, int64(slot)
	}
	p.held = append(p.held, held{comp: comp, key: int64(slot), leak: o.leak})
	connecting(r, p, open)
	return acqParked, 0
}

// connecting parks p, holding a connection, while it is opened. A deadline
// that comes first fails p then, as a cut-short delay does; releasing the
// connection before it is open closes it.
func connecting(r *run, p *proc, d sim.Time) { r.sleepCut(p, waitSleep, d) }

// release keeps the connection alive for its client, failed or not: an
// error response does not close a keep-alive connection.
func (c *connectionsRT) release(r *run, _ *proc, h held, _ bool) { c.Release(r.s.Now(), int32(h.key)) }
func (c *connectionsRT) abandon(now sim.Time, p *proc)           { c.Abandon(now, p.id) }
func (c *connectionsRT) waiting() int                            { return c.Waiting() }
func (c *connectionsRT) resetStats(now sim.Time)                 { c.ResetStats(now) }

func (c *connectionsRT) result(_ *run, cr *ComponentResult, now sim.Time) {
	cr.Capacity = float64(c.Max())
	cr.MeanBusy, cr.MeanQueue = Num(c.Held.Mean(now)), Num(c.QueueLen.Mean(now))
	cr.PeakBusy, cr.PeakQueue = c.Held.Max(), c.QueueLen.Max()
	cr.Wait = latencyOf(&c.Wait)
	cr.Delayed = c.Delayed
	cr.MeanOpen, cr.PeakOpen = Num(c.Open.Mean(now)), c.Open.Max()
	cr.Connects, cr.Reuses = c.Opened, c.Reused
}

// signals samples active connections as busy, as every kind samples what
// is in use, so charts of held resources show them; open adds the idle
// ones.
func (c *connectionsRT) signals() []string {
	if c.prog.cfg.Wait {
		return []string{"busy", "queue", "open"}
	}
	return []string{"busy", "open"}
}

func (c *connectionsRT) sample(put func(float64)) {
	put(float64(c.InUse()))
	if c.prog.cfg.Wait {
		put(float64(c.Waiting()))
	}
	put(float64(c.OpenNow()))
}

// lingers counts the open connections, in use or idle: what a spike
// leaves behind until the keep-alive closes them.
func (c *connectionsRT) lingers() int { return c.OpenNow() }

func (c *connectionsRT) busy() *sim.TimeWeighted { return &c.Held }
func (c *connectionsRT) busyNow() float64        { return float64(c.InUse()) }
func (c *connectionsRT) capacity() float64       { return float64(c.Max()) }
