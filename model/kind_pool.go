package model

import (
	"fmt"
	"math/rand/v2"

	"capsim/sim"
)

// pool and semaphore: a set of identical servers (threads, connections,
// permits) with a FIFO waiting room in front.

var poolKind = &kindDef{name: "pool", capacityUnit: "servers", newSpec: func() kindSpec { return &PoolSpec{} }, status: 503, capacity: true, priorities: true}

// A semaphore is a pool counted in permits, and its results say pool.
var semaphoreKind = &kindDef{name: "semaphore", capacityUnit: "permits", newSpec: func() kindSpec { return &SemaphoreSpec{} }, status: 503, capacity: true, priorities: true,
	reportAs: "pool"}

// PoolSpec is a thread pool, executor or connection pool.
type PoolSpec struct {
	Servers  *int   `yaml:"servers" bound:"[1,count]"`
	Queue    *int   `yaml:"queue" bound:"[0,count]" zero:"no waiting room: a request that finds every server busy is refused"` // waiting room; unset = unbounded
	Admit    *int   `yaml:"admit" bound:"[1,count]"`                                                                           // at most this many in service + waiting
	WhenFull string `yaml:"when_full"`                                                                                         // reject (default) | caller_runs
	// Schedule changes the servers over time: [{at: 1h, servers: 4}];
	// with SchedulePeriod its steps repeat every period.
	Schedule       []CapacityStep `yaml:"schedule" nonempty:"remove schedule:, or give at least one step, such as {at: 1h, servers: 4}"`
	SchedulePeriod *Duration      `yaml:"schedule_period" bound:"(0,time]"`
	WaitTimeout    *DistRef       `yaml:"wait_timeout" bound:"(0,time]"` // longest wait before failing
	// A server's memory (a thread's stack, a connection's buffers) and
	// what the process has for them, in MB: see checkMemory.
	MemoryPerServer *float64 `yaml:"memory_per_server_mb" bound:"(0,inf)"`
	MemoryLimit     *float64 `yaml:"memory_limit_mb" bound:"(0,inf)"`
	Balk            *Balk    `yaml:"balk"`
}

// Balk makes a request that would have to wait go away instead with a
// probability that depends on the queue it sees, as callers who find a long
// line do: seeing at least Queue[i] waiting, it balks with Probability[i]
// (the last such i); below Queue[0] it always joins. A request that finds a
// free server never balks, and one that finds the waiting room full is
// refused as before. A balked request fails with the component's status,
// like a refusal, and is counted as balked, not rejected.
type Balk struct {
	Queue       []int     `yaml:"queue" bound:"[0,count]"`
	Probability []float64 `yaml:"probability" bound:"[0,1]"`
}

// SemaphoreSpec is a pool counted in permits.
type SemaphoreSpec struct {
	Permits        *int           `yaml:"permits" bound:"[1,count]"`
	Schedule       []CapacityStep `yaml:"schedule" nonempty:"remove schedule:, or give at least one step, such as {at: 1h, permits: 4}"` // permits over time
	SchedulePeriod *Duration      `yaml:"schedule_period" bound:"(0,time]"`
	Queue          *int           `yaml:"queue" bound:"[0,count]" zero:"no waiting room: a request that finds every permit taken is refused"`
	WaitTimeout    *DistRef       `yaml:"wait_timeout" bound:"(0,time]"`
	Balk           *Balk          `yaml:"balk"`
}

type poolProg struct {
	servers    int
	queue      int // sim.Unbounded or the waiting room
	callerRuns bool
	schedule   []capacityAt
	// period repeats the schedule: step i also applies at its at + k ×
	// period for every k; 0 applies each step once.
	period sim.Time
	balk   *balkRule // nil: every request that must wait joins the queue
}

// balkRule is a compiled Balk: probability[i] from queue[i] waiting on.
type balkRule struct {
	queue       []int
	probability []float64
}

// chance is the probability that a request seeing waiting ahead of it
// balks.
func (b *balkRule) chance(waiting int) float64 {
	p := 0.0
	for i, q := range b.queue {
		if waiting >= q {
			p = b.probability[i]
		}
	}
	return p
}

// compileBalk checks a balking rule: queue lengths >= 0 and increasing,
// one probability in [0, 1] for each.
func (c *compiler) compileBalk(b *Balk, at site) *balkRule {
	if b == nil {
		return nil
	}
	p := at.path + ".balk"
	n := valueNode(at.node, "balk")
	switch {
	case len(b.Queue) == 0 || len(b.Queue) != len(b.Probability):
		c.fail(n, p, "balk needs queue (the queue lengths seen) and probability (of balking from each on), lists of the same length, e.g. {queue: [1, 5], probability: [0.5, 1]}")
		return nil
	}
	for i := range b.Queue {
		if b.Queue[i] < 0 || i > 0 && b.Queue[i] <= b.Queue[i-1] {
			c.failKey(n, "queue", p+".queue", "queue lengths must be >= 0 and increase, got %v", b.Queue)
			return nil
		}
		if pr := b.Probability[i]; !(pr >= 0 && pr <= 1) {
			c.failKey(n, "probability", p+".probability", "probabilities must be between 0 and 1, got %v", b.Probability)
			return nil
		}
	}
	return &balkRule{queue: b.Queue, probability: b.Probability}
}

// CapacityStep sets a pool's servers (or a semaphore's permits) from a
// time on. Work in service when capacity drops runs to its end; no one is
// granted until the count in use is below the new capacity.
type CapacityStep struct {
	At      Duration `yaml:"at" bound:"[0,time]"`
	Servers *int     `yaml:"servers" bound:"[0,count]" zero:"closed: nothing is granted until a later step"`
	Permits *int     `yaml:"permits" bound:"[0,count]" zero:"closed: nothing is granted until a later step"`
}

type capacityAt struct {
	at sim.Time
	n  int
}

// compileSchedule checks a capacity schedule: times increasing, counts
// >= 0, given under the kind's own word.
func (c *compiler) compileSchedule(steps []CapacityStep, at site, word string) []capacityAt {
	var out []capacityAt
	prev := sim.Time(-1)
	for i, st := range steps {
		p := fmt.Sprintf("%s.schedule[%d]", at.path, i)
		n := st.Servers
		if word == "permits" {
			n = st.Permits
		}
		switch {
		case !st.At.Set || st.At.T <= prev:
			c.fail(at.node, p+".at", "a schedule's times must be given and increase, got %s", st.At.T)
		case n == nil || *n < 0 || (word == "servers" && st.Permits != nil) || (word == "permits" && st.Servers != nil):
			c.fail(at.node, p, "each step of the schedule needs at and %s >= 0 (e.g. {at: 1h, %s: 4})", word, word)
		default:
			out = append(out, capacityAt{at: st.At.T, n: *n})
		}
		prev = st.At.T
	}
	return out
}

// schedulePeriod checks the period a schedule repeats over: it needs the
// steps it repeats and must be longer than the last step's at, so that a
// period's steps all fall inside it and keep their order. The decoder
// already bounds it by MaxDuration. given is how many steps were written;
// out, those that compiled.
func (c *compiler) schedulePeriod(d *Duration, out []capacityAt, given int, at site) sim.Time {
	switch {
	case d == nil:
		return 0
	case given == 0:
		c.failAt(at, "schedule_period", "schedule_period needs a schedule (the steps it repeats)")
	case d.T <= 0:
		c.failAt(at, "schedule_period", "schedule_period must be > 0, got %s", d.T)
	case len(out) == given && d.T <= out[len(out)-1].at:
		c.failAt(at, "schedule_period", "schedule_period (%s) must be longer than the last step's at (%s): the steps repeat every period",
			d.T, out[len(out)-1].at)
	default:
		return d.T
	}
	return 0
}

// poolSize is the servers a pool or a semaphore declares under key (0
// when missing), failing with missing when it is left out and when it is
// less than one.
func (c *compiler) poolSize(at site, key, missing string, size *int) int {
	if size == nil {
		c.failAt(at, key, "%s", missing)
		return 0
	}
	if *size < 1 {
		c.failAt(at, key, "must be >= 1, got %d", *size)
	}
	return *size
}

func (s *PoolSpec) compile(c *compiler, cp *compProg, at site) kindProg {
	pp := &poolProg{queue: sim.Unbounded}
	pp.servers = c.poolSize(at, "servers", "a pool needs servers (how many requests it serves at once)", s.Servers)
	if s.Queue != nil && s.Admit != nil {
		c.failAt(at, "admit", "give queue or admit, not both (admit = servers + queue)")
	}
	pp.queue = c.queueSize(s.Queue, at, pp.queue)
	if s.Admit != nil {
		if *s.Admit < pp.servers {
			c.failAt(at, "admit", "admit (%d) must be at least servers (%d)", *s.Admit, pp.servers)
		}
		pp.queue = *s.Admit - pp.servers
	}
	switch s.WhenFull {
	case "", "reject":
	case "caller_runs":
		pp.callerRuns = true
	default:
		c.failAt(at, "when_full", "when_full must be reject or caller_runs, got %q", s.WhenFull)
	}
	s.checkMemory(c, at, pp.servers)
	cp.waitTimeout = c.patience(s.WaitTimeout, at, "wait_timeout")
	pp.schedule = c.compileSchedule(s.Schedule, at, "servers")
	pp.period = c.schedulePeriod(s.SchedulePeriod, pp.schedule, len(s.Schedule), at)
	pp.balk = c.compileBalk(s.Balk, at)
	return pp
}

// checkMemory refuses a pool whose servers do not fit its memory. A
// thread's stack and a connection's buffers are taken when the server is
// created and kept while the pool lives, busy or idle, so the test is
// static: servers × memory_per_server_mb <= memory_limit_mb. A design
// that cannot start has no throughput to rank; the message says how many
// servers fit.
func (s *PoolSpec) checkMemory(c *compiler, at site, servers int) {
	per, limit := s.MemoryPerServer, s.MemoryLimit
	switch {
	case per == nil && limit == nil:
		return
	case per == nil:
		c.failAt(at, "memory_limit_mb", "memory_limit_mb needs memory_per_server_mb (what one server takes)")
		return
	case limit == nil:
		c.failAt(at, "memory_per_server_mb", "memory_per_server_mb needs memory_limit_mb (what the servers may take)")
		return
	}
	bad := false
	if *per <= 0 {
		c.failAt(at, "memory_per_server_mb", "memory_per_server_mb must be > 0, got %g", *per)
		bad = true
	}
	if *limit <= 0 {
		c.failAt(at, "memory_limit_mb", "memory_limit_mb must be > 0, got %g", *limit)
		bad = true
	}
	if bad || servers < 1 {
		return
	}
	// A relative tolerance, so that 3 × 0.1 MB fits in 0.3 MB.
	if need := float64(servers) * *per; need > *limit*(1+1e-12) {
		fit := int(*limit / *per * (1 + 1e-12))
		c.failAt(at, "servers", "%d servers × %g MB = %g MB do not fit memory_limit_mb %g MB (at most %d servers fit)",
			servers, *per, need, *limit, fit)
	}
}

func (s *SemaphoreSpec) compile(c *compiler, cp *compProg, at site) kindProg {
	pp := &poolProg{queue: sim.Unbounded}
	pp.servers = c.poolSize(at, "permits", "a semaphore needs permits", s.Permits)
	pp.queue = c.queueSize(s.Queue, at, pp.queue)
	cp.waitTimeout = c.patience(s.WaitTimeout, at, "wait_timeout")
	pp.schedule = c.compileSchedule(s.Schedule, at, "permits")
	pp.period = c.schedulePeriod(s.SchedulePeriod, pp.schedule, len(s.Schedule), at)
	pp.balk = c.compileBalk(s.Balk, at)
	return pp
}

// queueSize checks a waiting room's size; unset keeps def.
func (c *compiler) queueSize(q *int, at site, def int) int {
	if q == nil {
		return def
	}
	if *q < 0 {
		c.failAt(at, "queue", "queue must be >= 0, got %d", *q)
	}
	return *q
}

// patience compiles a longest wait, which may be a distribution (the
// patience of callers, each drawing their own), into a distribution index;
// -1 when there is none.
func (c *compiler) patience(d *DistRef, at site, key string) int32 {
	if d == nil {
		return -1
	}
	errs := len(c.errs)
	i := c.dist(d, valueNode(at.node, key), at.path+"."+key)
	if len(c.errs) == errs && d.Ref == "" && c.p.dists[i].Quantile(1) == 0 {
		// A wait of 0 is how the interpreter spells "no limit": written
		// here it would read as "refuse at once" and mean the opposite.
		c.fail(valueNode(at.node, key), at.path+"."+key, "%s 0 would mean no limit at all: give a time > 0, leave %s out for no limit, or refuse at once with queue: 0", key, key)
	}
	return i
}

func (pp *poolProg) newRuntime(r *run, ci int32, cp *compProg, st *sim.Streams) component {
	// The pool is held by value: one pointer less on every acquire and
	// release, the interpreter's hottest path.
	c := &poolRT{Pool: *sim.NewPool(pp.servers, pp.queue, func(id int32) { r.granted(id, ci, 0, false) }), prog: pp,
		priorities: r.p.priorities}
	if pp.balk != nil {
		c.balkRng = st.Get("balk/" + cp.seedName)
	}
	if len(pp.schedule) > 0 {
		c.capacityTW.Set(0, float64(pp.servers))
		var k sim.Kind
		k = r.s.Handle(func(i int64) {
			now := r.s.Now()
			step := pp.schedule[i]
			c.capacityTW.Set(now, float64(step.n))
			c.SetServers(now, step.n)
			r.runReady() // waiters granted by a rise run now
			// A repeating step comes back a period on while the run has
			// work to do: after the arrival window with nothing in flight
			// the run is over, and a step left pending would keep it going.
			if pp.period > 0 && (!r.ended || r.active > 0) {
				r.s.At(now+pp.period, k, i)
			}
		})
		for i, step := range pp.schedule {
			r.s.At(step.at, k, int64(i))
		}
	}
	return c
}

type poolRT struct {
	sim.Pool
	prog *poolProg
	// priorities: some journey or step of the program gives a class.
	priorities bool
	// capacityTW is the servers over time, with a schedule.
	capacityTW sim.TimeWeighted
	balkRng    *rand.Rand
	balked     int64 // also in the component's rejected, taken out in result
}

func (c *poolRT) acquire(r *run, p *proc, o *op, _ int32, rt *compRT) (acquired, int64) {
	class := 0
	if c.priorities {
		class = r.p.journeys[p.journey.typ].priority
		if o.priority > 0 {
			class = int(o.priority - 1)
		}
	}
	if c.prog.balk != nil && c.balks() {
		c.balked++
		return acqRejected, 0
	}
	switch c.AcquireClass(r.s.Now(), p.id, class) {
	case sim.Granted:
		return acqGranted, 0
	case sim.Queued:
		return acqQueued, 0
	}
	if c.prog.callerRuns {
		rt.rejected++       // refused by the pool all the same
		return acqPassed, 0 // the caller does the work itself, holding nothing
	}
	return acqRejected, 0
}

// balks draws whether a request arriving now goes away: only one that would
// join the queue may, and the draw is made only when it might.
func (c *poolRT) balks() bool {
	if c.InUse() < c.Servers() || c.prog.queue != sim.Unbounded && c.Waiting() >= c.prog.queue {
		return false
	}
	pr := c.prog.balk.chance(c.Waiting())
	return pr > 0 && c.balkRng.Float64() < pr
}

func (c *poolRT) release(r *run, _ *proc, _ held, _ bool) { c.Release(r.s.Now()) }
func (c *poolRT) abandon(now sim.Time, p *proc)           { c.Abandon(now, p.id) }
func (c *poolRT) waiting() int                            { return c.Waiting() }

func (c *poolRT) result(_ *run, cr *ComponentResult, now sim.Time) {
	cr.Capacity = float64(c.Servers())
	if len(c.prog.schedule) > 0 {
		cr.Capacity = c.capacityTW.Mean(now) // utilisation of the capacity there was
	}
	cr.MeanBusy, cr.MeanQueue = Num(c.Busy.Mean(now)), Num(c.QueueLen.Mean(now))
	cr.PeakQueue = c.QueueLen.Max()
	cr.Wait = latencyOf(&c.Wait)
	cr.Delayed = c.Delayed
	cr.PeakBusy = c.Busy.Max()
	cr.Rejected -= c.balked
	cr.Balked = c.balked
}

func (c *poolRT) signals() []string { return []string{"busy", "queue"} }
func (c *poolRT) sample(put func(float64)) {
	put(float64(c.InUse()))
	put(float64(c.Waiting()))
}

func (c *poolRT) busy() *sim.TimeWeighted { return &c.Busy }
func (c *poolRT) busyNow() float64        { return float64(c.InUse()) }
func (c *poolRT) capacity() float64       { return float64(c.Servers()) }

func (c *poolRT) resetStats(now sim.Time) {
	c.ResetStats(now)
	c.capacityTW.Reset(now)
	c.balked = 0
}
