package model

import "capsim/sim"

// lock: a family of row locks (SELECT … FOR UPDATE). Requests for the same
// key wait in FIFO order; different keys never wait for each other.

var lockKind = &kindDef{name: "lock", newSpec: func() kindSpec { return &LockSpec{} }, status: 500, keyed: true}

// LockSpec is a family of locks keyed by an attribute.
type LockSpec struct {
	Key         string   `yaml:"key"`                           // attribute that names the key (default: the journey's user)
	WaitTimeout *DistRef `yaml:"wait_timeout" bound:"(0,time]"` // longest wait before failing
}

type lockProg struct {
	key string // attribute naming the key; "" or "user" for the journey's user
}

func (s *LockSpec) compile(c *compiler, cp *compProg, at site) kindProg {
	cp.waitTimeout = c.patience(s.WaitTimeout, at, "wait_timeout")
	return &lockProg{key: s.Key}
}

// keyAttr is the attribute a step's key defaults to, or "" for the user.
func (lp *lockProg) keyAttr() string {
	if lp.key == "user" {
		return ""
	}
	return lp.key
}

func (lp *lockProg) newRuntime(r *run, ci int32, _ *compProg, _ *sim.Streams) component {
	return &lockRT{sim.NewKeyedLock(func(id int32) { r.granted(id, ci, r.procs[id].waitKey, false) })}
}

type lockRT struct{ *sim.KeyedLock }

func (c *lockRT) acquire(r *run, p *proc, o *op, _ int32, _ *compRT) (acquired, int64) {
	key := p.journey.user
	if o.keyAttr >= 0 {
		key = int64(p.journey.attrs[o.keyAttr])
	}
	if c.Acquire(r.s.Now(), key, p.id) == sim.Granted {
		return acqGranted, key
	}
	return acqQueued, key // a lock has no waiting room to fill
}

func (c *lockRT) release(r *run, _ *proc, h held, _ bool) { c.Release(r.s.Now(), h.key) }
func (c *lockRT) abandon(now sim.Time, p *proc)           { c.Abandon(now, p.waitKey, p.id) }
func (c *lockRT) waiting() int                            { return int(c.Waiting.Value()) }
func (c *lockRT) resetStats(now sim.Time)                 { c.ResetStats(now) }

func (c *lockRT) result(_ *run, cr *ComponentResult, now sim.Time) {
	cr.MeanBusy, cr.MeanQueue = Num(c.Held.Mean(now)), Num(c.Waiting.Mean(now))
	cr.PeakQueue = c.Waiting.Max()
	cr.Wait = latencyOf(&c.Wait)
}

func (c *lockRT) signals() []string { return []string{"busy", "queue"} }
func (c *lockRT) sample(put func(float64)) {
	put(c.Held.Value())
	put(c.Waiting.Value())
}
