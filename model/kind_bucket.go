package model

import (
	"fmt"
	"math"

	"capsim/sim"
)

// bucket: a token bucket that admits requests at a refill rate, with an
// optional adaptive rule that lowers the rate on overload signals.

var bucketKind = &kindDef{name: "bucket", newSpec: func() kindSpec { return &BucketSpec{} }, status: 429,
	noHold: true, signals: true, passThrough: true,
	measures: []Measure{
		// adaptive refill steps down, and the refill rate at the end
		componentMeasure("rate_steps_count", UnitCount, func(c *ComponentResult) (float64, bool) { return float64(c.RateSteps), true }),
		componentMeasure("final_refill_per_s", UnitPerSecond, func(c *ComponentResult) (float64, bool) { return float64(c.FinalRate), true }),
	}}

// BucketSpec is a token bucket.
type BucketSpec struct {
	Rate    *Rate     `yaml:"rate" bound:"(0,rate]"`                                                             // refill rate
	Burst   *float64  `yaml:"burst" bound:"(0,inf)"`                                                             // capacity in tokens
	MaxWait *Duration `yaml:"max_wait" bound:"[0,time]" zero:"a request that finds no token is refused at once"` // longest wait for a token
	Adapt   *Adapt    `yaml:"adapt"`                                                                             // adaptive refill
	// What a caller whose wait for a token would pass max_wait does.
	// at_once (default): it is refused at once. after_max_wait: it waits
	// max_wait (or what its deadline leaves) for nothing, then is refused,
	// as a client polling a shared bucket until its budget runs out.
	Refuse string `yaml:"refuse"`
	// DeadlineStatus is the status of a refusal because the caller's
	// deadline would pass before a token comes (while max_wait would
	// not): default the bucket's status. A client that tells the two
	// apart retries the one and not the other.
	DeadlineStatus *int `yaml:"deadline_status" param:"-" bound:"[400,599]"` // a status: a name, not a quantity
	// RefuseCost is how long a refusal takes to reach the caller (the
	// round trip of a rate-limited API's 429); default none.
	RefuseCost *DistRef `yaml:"refuse_cost" bound:"[0,time]"`
}

// Adapt lowers a token bucket's refill rate on overload signals.
type Adapt struct {
	Rates   []Rate   `yaml:"rates" bound:"(0,rate]"`    // lower rates, stepped through in order
	Signals *int     `yaml:"signals" bound:"[1,count]"` // signals within window that trigger a step (default 1)
	Window  Duration `yaml:"window" bound:"(0,time]"`
	Recover Duration `yaml:"recover" bound:"(0,time]"` // quiet time before stepping back up; unset = never
	On      []int    `yaml:"on" bound:"[400,599]"`     // statuses of signalled calls that count (default 429, 504)
}

type bucketProg struct {
	cfg             sim.BucketConfig
	adaptOn         []int32 // statuses of signalled calls that count; nil without adapt
	refuseAfterWait bool
	deadlineStatus  int32 // 0: the bucket's status
	refuseCost      int32 // distribution index, or -1
}

func (s *BucketSpec) compile(c *compiler, _ *compProg, at site) kindProg {
	bp := &bucketProg{refuseCost: -1}
	if s.DeadlineStatus != nil {
		if *s.DeadlineStatus < 400 || *s.DeadlineStatus > 599 {
			c.failAt(at, "deadline_status", "deadline_status must be an HTTP error status (400-599), got %d", *s.DeadlineStatus)
		}
		bp.deadlineStatus = int32(*s.DeadlineStatus)
	}
	if s.RefuseCost != nil {
		bp.refuseCost = c.dist(s.RefuseCost, valueNode(at.node, "refuse_cost"), at.path+".refuse_cost")
	}
	switch s.Refuse {
	case "", "at_once":
	case "after_max_wait":
		bp.refuseAfterWait = true
	default:
		c.failAt(at, "refuse", "refuse must be at_once or after_max_wait, got %q", s.Refuse)
	}
	if s.Rate == nil || s.Rate.PerSecond <= 0 {
		c.failAt(at, "rate", "a bucket needs a refill rate > 0 (e.g. rate: 15/s)")
	} else {
		bp.cfg.Rate = s.Rate.PerSecond
	}
	bp.cfg.Burst = math.Max(1, bp.cfg.Rate)
	if s.Burst != nil {
		if *s.Burst < 1 {
			c.failAt(at, "burst", "burst must be >= 1, got %g", *s.Burst)
		}
		bp.cfg.Burst = *s.Burst
	}
	if s.MaxWait != nil {
		bp.cfg.MaxWait = s.MaxWait.T
	}
	if a := s.Adapt; a != nil {
		p := at.path
		prev := bp.cfg.Rate
		for i, r := range a.Rates {
			if r.PerSecond <= 0 || r.PerSecond >= prev {
				c.fail(at.node, fmt.Sprintf("%s.adapt.rates[%d]", p, i), "adaptive rates must be > 0 and decreasing, got %s after %g/s", r.Text, prev)
			}
			prev = r.PerSecond
			bp.cfg.LowerRates = append(bp.cfg.LowerRates, r.PerSecond)
		}
		bp.cfg.SignalsToStep = 1
		if a.Signals != nil {
			if *a.Signals < 1 {
				c.fail(at.node, p+".adapt.signals", "signals must be >= 1, got %d", *a.Signals)
			}
			bp.cfg.SignalsToStep = *a.Signals
		}
		bp.cfg.Window = a.Window.T
		if !a.Window.Set {
			bp.cfg.Window = 10 * sim.Second
		}
		bp.cfg.RecoverAfter = a.Recover.T
		bp.adaptOn = []int32{429, 504}
		if len(a.On) > 0 {
			bp.adaptOn = nil
			for _, s := range a.On {
				bp.adaptOn = append(bp.adaptOn, int32(s))
			}
		}
	}
	return bp
}

func (bp *bucketProg) newRuntime(*run, int32, *compProg, *sim.Streams) component {
	return &bucketRT{TokenBucket: sim.NewTokenBucket(bp.cfg), prog: bp}
}

type bucketRT struct {
	*sim.TokenBucket
	prog *bucketProg
	noWaits
}

// acquire takes a token. A caller that must wait for one sleeps; one that
// would wait past max_wait (or its deadline) is refused, at once or after
// waiting out what it may wait.
func (c *bucketRT) acquire(r *run, p *proc, o *op, comp int32, rt *compRT) (acquired, int64) {
	now := r.s.Now()
	limit := sim.Time(-1)
	if p.deadline != sim.Never {
		limit = p.deadline - now
	}
	wait, ok := c.Take(now, limit)
	switch {
	case !ok && c.prog.refuseAfterWait:
		d := c.prog.cfg.MaxWait
		if p.deadline != sim.Never && p.deadline-now < d {
			d = p.deadline - now
		}
		p.waitComp = comp
		r.sleep(p, waitRefused, d)
		return acqParked, 0
	case !ok:
		c.Signal(now)
		return c.refuse(r, p, comp, rt, now)
	case wait > 0:
		r.sleep(p, waitSleep, wait)
		return acqParked, 0
	}
	return acqPassed, 0
}

// refuse answers a caller refused at once: with the bucket's status, or
// deadline_status when only its deadline stood in the way, after
// refuse_cost when the refusal takes time to arrive.
func (c *bucketRT) refuse(r *run, p *proc, comp int32, rt *compRT, now sim.Time) (acquired, int64) {
	status := r.p.comps[comp].status
	if c.prog.deadlineStatus != 0 && c.NextWait(now) <= c.prog.cfg.MaxWait {
		status = c.prog.deadlineStatus
	}
	if c.prog.refuseCost < 0 && status == r.p.comps[comp].status {
		return acqRejected, 0
	}
	rt.rejected++
	r.emit(EvRejected, p, comp, status)
	if c.prog.refuseCost < 0 {
		r.fail(p, status, comp)
		return acqParked, 0
	}
	d := sim.Seconds(r.draws[c.prog.refuseCost].sample())
	r.failLater(p, d, status, comp)
	return acqParked, 0
}

// signal counts an overload: a late refusal of its own (status 0), or a
// signalled call ending with one of the statuses adapt listens to. Without
// adapt a bucket ignores signalled calls, so a design can turn adaptation
// off without rewriting every call.
func (c *bucketRT) signal(now sim.Time, status int32) {
	if status == 0 {
		c.Signal(now)
		return
	}
	for _, s := range c.prog.adaptOn {
		if s == status {
			c.Signal(now)
		}
	}
}

func (c *bucketRT) release(*run, *proc, held, bool) {}
func (c *bucketRT) resetStats(now sim.Time)         { c.ResetStats(now) }

func (c *bucketRT) result(_ *run, cr *ComponentResult, _ sim.Time) {
	cr.Wait = latencyOf(&c.Wait)
	cr.RateSteps = c.RateSteps
	cr.FinalRate = Num(c.CurrentRate())
	cr.MeanBusy, cr.MeanQueue = Num(math.NaN()), Num(math.NaN())
}

func (c *bucketRT) signals() []string        { return []string{"rate"} }
func (c *bucketRT) sample(put func(float64)) { put(c.CurrentRate()) }

// A bucket's two states: a caller waiting out max_wait for nothing
// (refuse: after_max_wait), and a refusal on its way (refuse_cost); both
// are held short of the caller's deadline.
func init() {
	waitStates[waitRefused] = waitState{name: "refused", deadline: reachBounded,
		wake: func(r *run, p *proc) {
			p.waiting = waitNone
			c := &r.comps[p.waitComp]
			c.timedOut++
			if s, ok := c.rt.(signalled); ok {
				s.signal(r.s.Now(), 0)
			}
			r.emit(EvTimeout, p, p.waitComp, r.p.comps[p.waitComp].status)
			r.fail(p, r.p.comps[p.waitComp].status, p.waitComp)
		}}
	waitStates[waitFailing] = waitState{name: "failing", deadline: reachBounded,
		wake: func(r *run, p *proc) {
			p.waiting = waitNone
			r.fail(p, p.outcome, p.waitComp)
		}}
}

// failLater makes p fail with status after d, as a refusal that takes
// time to arrive does; comp is the component that refused.
func (r *run) failLater(p *proc, d sim.Time, status, comp int32) {
	p.outcome, p.waitComp = status, comp
	r.sleepCut(p, waitFailing, d)
}
