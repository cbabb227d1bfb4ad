package sim

// ProcessorSharing is a processor-sharing server with a number of cores:
// every job in it progresses at once, each at rate min(1, cores/n) for n
// jobs, as threads time-sliced on a CPU do. A job's sojourn then depends
// on its own work and the load, not on who came first.
//
// A switch cost σ > 0 charges for the threads that time-slice: when n jobs
// exceed the c cores, each context switch and the cache and TLB misses
// after it take core time from useful work, and their number grows with
// the jobs waiting for a core (Li, Ding and Shen, "Quantifying the Cost of
// Context Switch", ExpCS 2007). The first-order model charged here is the
// contention term of Gunther's Universal Scalability Law (Guerrilla
// Capacity Planning, 2007): useful throughput, in cores of work done,
//
//	X(n) = min(n, c) / (1 + σ·e),  e = max(0, n − max(c, 1))
//
// so each job runs at X(n)/n = min(1, c/n) / (1 + σ·e). The cores stay
// busy (Busy is min(n, c), as a dashboard shows it) while less of their
// time is work; Useful is X(n). A lone job on a fractional core is
// throttled, not switched against another thread, hence max(c, 1). X(n)
// falls towards 0 as n grows, so with σ > 0 an open workload has no steady
// state: once enough jobs pile up, completions slow and the pile grows
// (thrashing). σ = 0 is exact processor sharing.
//
// It runs on virtual time: v counts the work each job present has
// received, so a job's finish is fixed in v when it starts (v + work) and
// only the mapping from v to real time changes as jobs come and go. The
// next finish is the smallest; one timer, rescheduled on every change,
// stands for it.
type ProcessorSharing struct {
	s     *Sim
	cores float64
	sigma float64 // switch cost, see SetSwitchCost
	done  func(id int32)
	kDone Kind
	timer Timer

	v    float64 // work each present job has received, in seconds
	last Time
	jobs []psJob // min-heap by (finish, seq)
	seq  uint64

	// Busy is min(n, cores); Useful is X(n); nothing waits, so Wait
	// stays empty.
	CPUStats
}

type psJob struct {
	finish float64
	seq    uint64
	id     int32
}

func (a *psJob) before(b *psJob) bool {
	return a.finish < b.finish || (a.finish == b.finish && a.seq < b.seq)
}

// NewProcessorSharing returns an idle server on s with cores > 0; done is
// called (from the server's own event) with the id of a job that finished.
func NewProcessorSharing(s *Sim, cores float64, done func(id int32)) *ProcessorSharing {
	c := &ProcessorSharing{s: s, cores: cores, done: done}
	c.kDone = s.Handle(c.onDone)
	return c
}

// SetSwitchCost sets σ >= 0: with e jobs beyond the cores, the useful
// throughput is divided by 1 + σ·e (see the type's doc). Call it before
// the first Start.
func (c *ProcessorSharing) SetSwitchCost(sigma float64) { c.sigma = sigma }

// rate is the work each present job receives per second, X(n)/n. It
// depends only on n, so it is constant between arrivals and departures and
// virtual time advances linearly in between.
func (c *ProcessorSharing) rate() float64 {
	n := float64(len(c.jobs))
	r := min(1, c.cores/n)
	if e := n - max(c.cores, 1); c.sigma > 0 && e > 0 {
		r /= 1 + c.sigma*e
	}
	return r
}

func (c *ProcessorSharing) advance(now Time) {
	if len(c.jobs) > 0 {
		c.v += (now - c.last).Seconds() * c.rate()
	}
	c.last = now
}

// Start adds job id needing work seconds of one core.
func (c *ProcessorSharing) Start(now Time, id int32, work float64) {
	c.advance(now)
	c.seq++
	c.push(psJob{finish: c.v + work, seq: c.seq, id: id})
	c.changed(now)
}

// Abandon removes job id before it finishes (its caller gave up) and
// reports whether it was there.
func (c *ProcessorSharing) Abandon(now Time, id int32) bool {
	for i := range c.jobs {
		if c.jobs[i].id == id {
			c.advance(now)
			c.removeAt(i)
			c.changed(now)
			return true
		}
	}
	return false
}

func (c *ProcessorSharing) onDone(int64) {
	now := c.s.Now()
	c.advance(now)
	// The timer was set to reach the earliest finish; rounding to whole
	// nanoseconds may leave v a hair short of it.
	if len(c.jobs) > 0 && c.v < c.jobs[0].finish {
		c.v = c.jobs[0].finish
	}
	var finished []int32
	for len(c.jobs) > 0 && c.jobs[0].finish <= c.v {
		finished = append(finished, c.jobs[0].id)
		c.removeAt(0)
	}
	c.changed(now)
	for _, id := range finished {
		c.Served++
		c.done(id)
	}
}

// changed records the new load and reschedules the next finish.
func (c *ProcessorSharing) changed(now Time) {
	n := float64(len(c.jobs))
	c.InSystem.Set(now, n)
	c.Busy.Set(now, min(n, c.cores))
	if len(c.jobs) == 0 {
		c.s.Cancel(c.timer)
		c.Useful.Set(now, 0)
	} else {
		rate := c.rate()
		c.Useful.Set(now, n*rate)
		left := (c.jobs[0].finish - c.v) / rate
		c.timer = c.s.Reschedule(c.timer, now.Add(Seconds(max(left, 0))), c.kDone, 0)
	}
}

func (c *ProcessorSharing) push(j psJob) {
	c.jobs = append(c.jobs, j)
	for i := len(c.jobs) - 1; i > 0; {
		p := (i - 1) / 2
		if !c.jobs[i].before(&c.jobs[p]) {
			break
		}
		c.jobs[i], c.jobs[p] = c.jobs[p], c.jobs[i]
		i = p
	}
}

func (c *ProcessorSharing) removeAt(i int) {
	n := len(c.jobs) - 1
	c.jobs[i] = c.jobs[n]
	c.jobs = c.jobs[:n]
	if i == n {
		return
	}
	// Restore the heap both ways: the moved element may belong above or
	// below position i.
	for i > 0 {
		p := (i - 1) / 2
		if !c.jobs[i].before(&c.jobs[p]) {
			break
		}
		c.jobs[i], c.jobs[p] = c.jobs[p], c.jobs[i]
		i = p
	}
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if l+1 < n && c.jobs[l+1].before(&c.jobs[l]) {
			m = l + 1
		}
		if !c.jobs[m].before(&c.jobs[i]) {
			return
		}
		c.jobs[i], c.jobs[m] = c.jobs[m], c.jobs[i]
		i = m
	}
}
