package sim

import "math"

// CPUStats is what a CPU records, whichever way it schedules its work.
type CPUStats struct {
	Busy     TimeWeighted // cores in use, switching included
	Useful   TimeWeighted // cores' worth of work done: Busy less the switching
	InSystem TimeWeighted // jobs present, running or ready
	Wait     Tally        // seconds from a job's start to its first run on a core
	Served   int64
}

// ResetStats starts the statistics afresh at now, keeping the current state.
func (st *CPUStats) ResetStats(now Time) {
	st.Busy.Reset(now)
	st.Useful.Reset(now)
	st.InSystem.Reset(now)
	st.Wait.Reset()
	st.Served = 0
}

// Stats returns the statistics themselves, for callers that hold a CPU
// through an interface.
func (st *CPUStats) Stats() *CPUStats { return st }

// Cores is a CPU whose cores each run one job at a time, as threads whose
// work does not yield do: a job keeps its core until its work is done or
// its time slice (the quantum) ends, and the others wait in a ready queue.
// With an infinite quantum a job runs to completion (FIFO, c servers); with
// a finite one it runs min(remaining, quantum) and goes to the back of the
// queue if someone waits (round robin). As the quantum shrinks, round robin
// tends to processor sharing; as it grows, to FIFO.
//
// Jobs carry a priority class >= 0: a free core takes the oldest job of the
// highest class waiting, and a slice that ends gives way only to a job of
// its class or higher. Preemptive (preemptive-resume) cores also stop the
// running job of the lowest class, below the arriving one's, when every
// core is busy; the stopped job keeps the work it has done and is the next
// of its class to run.
//
// A switch cost σ charges each switch, a core taking up a job from the
// ready queue, with σ·e·quantum of core time before the job's work
// resumes, e the jobs beyond the cores at that moment: with every core
// saturated, each quantum of work then costs quantum·(1 + σ·e) and the
// cores do c/(1 + σ·e) cores' worth of work, the throughput
// ProcessorSharing's switch cost gives. Without a finite quantum nothing
// is charged.
type Cores struct {
	s       *Sim
	n       int     // cores
	quantum float64 // seconds; +Inf runs each job to completion
	preempt bool
	sigma   float64
	done    func(id int32)
	kTimer  Kind

	slots  []coreSlot // the cores started so far, at most n
	idle   []int32    // slots with no job, a stack
	busy   int        // slots with a job
	work   int        // slots with a job past its switch
	jobs   []coreJob  // by job id
	ready  []readyQueue
	queued int

	CPUStats
}

type coreSlot struct {
	job       int32 // -1 when idle
	timer     Timer
	switching bool    // the timer ends the switch, then the slice runs
	from      Time    // when the slice's work began (after the switch)
	slice     float64 // work seconds of the slice
}

// job states
const (
	jobAbsent uint8 = iota
	jobReady
	jobRunning
)

type coreJob struct {
	left  float64 // work still to do, in seconds
	since Time    // when it started, for Wait
	class int32
	gen   uint32 // which start of the id a ready entry belongs to
	core  int32
	state uint8
	ran   bool // has been on a core: Wait recorded
}

// readyQueue is a ring buffer of ready jobs of one class. A job that
// leaves while ready (Abandon) stays in place and is skipped when it
// reaches the front: its entry's generation no longer matches the job's.
type readyQueue struct {
	buf  []readyEntry // its length is 0 or a power of two
	head int
	size int
	live int
}

type readyEntry struct {
	id  int32
	gen uint32
}

func (q *readyQueue) grow() {
	if q.size < len(q.buf) {
		return
	}
	grown := make([]readyEntry, max(8, 2*len(q.buf)))
	for i := 0; i < q.size; i++ {
		grown[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = grown, 0
}

func (q *readyQueue) pushBack(e readyEntry) {
	q.grow()
	q.buf[(q.head+q.size)&(len(q.buf)-1)] = e
	q.size++
	q.live++
}

func (q *readyQueue) pushFront(e readyEntry) {
	q.grow()
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = e
	q.size++
	q.live++
}

// NewCores returns idle cores on s: cores >= 1 of them, each job running at
// most quantum seconds at a time (+Inf or 0 for no limit), stopping lower
// classes for higher ones if preemptive. done is called (from the cores'
// own event) with the id of a job that finished.
func NewCores(s *Sim, cores int, quantum float64, preemptive bool, done func(id int32)) *Cores {
	if cores < 1 {
		panic("sim: Cores needs at least one core")
	}
	if !(quantum > 0) {
		quantum = math.Inf(1)
	}
	c := &Cores{s: s, n: cores, quantum: quantum, preempt: preemptive, done: done}
	c.kTimer = s.Handle(c.onTimer)
	return c
}

// SetSwitchCost sets σ >= 0, the core time a switch costs as a share of
// the quantum per job beyond the cores (see the type's doc). Call it before
// the first Start.
func (c *Cores) SetSwitchCost(sigma float64) { c.sigma = sigma }

// Start adds job id, needing work seconds of one core, in priority class
// class >= 0. An id must not be started again before it finishes or is
// abandoned.
func (c *Cores) Start(now Time, id int32, work float64, class int) {
	if id < 0 {
		panic("sim: negative job id")
	}
	if int(id) >= len(c.jobs) {
		grown := make([]coreJob, max(int(id)+1, 2*len(c.jobs), 64))
		copy(grown, c.jobs)
		c.jobs = grown
	}
	j := &c.jobs[id]
	if j.state != jobAbsent {
		panic("sim: job started twice on the cores")
	}
	j.left, j.since, j.class, j.ran = work, now, int32(class), false
	j.gen++
	c.InSystem.Set(now, c.InSystem.Value()+1)
	if k, ok := c.freeSlot(); ok {
		c.run(now, k, id, false)
		return
	}
	if c.preempt {
		if k, ok := c.lowestBelow(int32(class)); ok {
			c.stop(now, k)
			c.run(now, k, id, true)
			return
		}
	}
	c.enqueue(id, false)
}

// Abandon removes job id before it finishes (its caller gave up) and
// reports whether it was there.
func (c *Cores) Abandon(now Time, id int32) bool {
	if id < 0 || int(id) >= len(c.jobs) {
		return false
	}
	j := &c.jobs[id]
	switch j.state {
	case jobReady:
		j.state = jobAbsent
		c.ready[j.class].live--
		c.queued--
	case jobRunning:
		k := j.core
		c.s.Cancel(c.slots[k].timer)
		j.state = jobAbsent
		c.leave(now, k)
	default:
		return false
	}
	c.InSystem.Set(now, c.InSystem.Value()-1)
	return true
}

// freeSlot returns a core with no job, starting one more while fewer than
// n are: a large core count costs memory only for the cores work reaches.
func (c *Cores) freeSlot() (int32, bool) {
	if n := len(c.idle); n > 0 {
		k := c.idle[n-1]
		c.idle = c.idle[:n-1]
		return k, true
	}
	if len(c.slots) < c.n {
		c.slots = append(c.slots, coreSlot{job: -1})
		return int32(len(c.slots) - 1), true
	}
	return 0, false
}

// lowestBelow returns the core running the job of the lowest class below
// class, the latest started among equals (it has done the least of its
// slice).
func (c *Cores) lowestBelow(class int32) (int32, bool) {
	best, found := int32(0), false
	for k := range c.slots {
		sl := &c.slots[k]
		if sl.job < 0 {
			continue
		}
		jc := c.jobs[sl.job].class
		if jc >= class {
			continue
		}
		if !found || jc < c.jobs[c.slots[best].job].class ||
			jc == c.jobs[c.slots[best].job].class && sl.from >= c.slots[best].from {
			best, found = int32(k), true
		}
	}
	return best, found
}

// stop takes the job off core k, crediting the work it did, and puts it at
// the front of its class: preemptive-resume.
func (c *Cores) stop(now Time, k int32) {
	sl := &c.slots[k]
	c.s.Cancel(sl.timer)
	id := sl.job
	j := &c.jobs[id]
	if !sl.switching {
		j.left -= min(sl.slice, max(0, (now-sl.from).Seconds()))
	}
	c.setIdle(now, k)
	c.enqueue(id, true)
}

func (c *Cores) enqueue(id int32, front bool) {
	j := &c.jobs[id]
	j.state = jobReady
	for int(j.class) >= len(c.ready) {
		c.ready = append(c.ready, readyQueue{})
	}
	e := readyEntry{id: id, gen: j.gen}
	if front {
		c.ready[j.class].pushFront(e)
	} else {
		c.ready[j.class].pushBack(e)
	}
	c.queued++
}

// waitingFrom reports whether a job of class class or higher is ready.
func (c *Cores) waitingFrom(class int32) bool {
	for k := len(c.ready) - 1; k >= int(class); k-- {
		if c.ready[k].live > 0 {
			return true
		}
	}
	return false
}

// next takes the oldest ready job of the highest class.
func (c *Cores) next() (int32, bool) {
	for k := len(c.ready) - 1; k >= 0; k-- {
		q := &c.ready[k]
		for q.live > 0 {
			e := q.buf[q.head]
			q.head = (q.head + 1) & (len(q.buf) - 1)
			q.size--
			j := &c.jobs[e.id]
			if j.state != jobReady || j.gen != e.gen {
				continue // abandoned while ready
			}
			q.live--
			c.queued--
			return e.id, true
		}
		// Only dead entries are left: drop them.
		q.head, q.size = 0, 0
	}
	return 0, false
}

// run puts job id on core k; switched says it replaces another job and
// pays the switch.
func (c *Cores) run(now Time, k, id int32, switched bool) {
	sl := &c.slots[k]
	j := &c.jobs[id]
	if !j.ran {
		j.ran = true
		c.Wait.Add((now - j.since).Seconds())
	}
	j.state, j.core = jobRunning, k
	sl.job = id
	c.busy++
	c.Busy.Set(now, float64(c.busy))
	if e := c.busy + c.queued - c.n; switched && c.sigma > 0 && e > 0 && !math.IsInf(c.quantum, 1) {
		sl.switching = true
		sl.timer = c.s.Timer(now.Add(Seconds(c.sigma*float64(e)*c.quantum)), c.kTimer, int64(k))
		return
	}
	c.slice(now, k)
}

// slice starts the work of core k's job for min(left, quantum).
func (c *Cores) slice(now Time, k int32) {
	sl := &c.slots[k]
	sl.switching = false
	sl.from = now
	sl.slice = min(c.jobs[sl.job].left, c.quantum)
	c.work++
	c.Useful.Set(now, float64(c.work))
	sl.timer = c.s.Timer(now.Add(Seconds(sl.slice)), c.kTimer, int64(k))
}

func (c *Cores) onTimer(arg int64) {
	now := c.s.Now()
	k := int32(arg)
	sl := &c.slots[k]
	if sl.switching {
		c.slice(now, k)
		return
	}
	id := sl.job
	j := &c.jobs[id]
	j.left -= sl.slice
	if j.left > 0 {
		if !c.waitingFrom(j.class) {
			c.work--
			c.slice(now, k) // nobody to give way to: no switch
			return
		}
		c.setIdle(now, k)
		c.enqueue(id, false)
		c.takeNext(now, k)
		return
	}
	j.state = jobAbsent
	c.InSystem.Set(now, c.InSystem.Value()-1)
	c.leave(now, k)
	c.Served++
	c.done(id)
}

// setIdle clears core k of its job, leaving the slot in hand.
func (c *Cores) setIdle(now Time, k int32) {
	sl := &c.slots[k]
	if !sl.switching {
		c.work--
		c.Useful.Set(now, float64(c.work))
	}
	sl.job, sl.switching = -1, false
	c.busy--
	c.Busy.Set(now, float64(c.busy))
}

// leave frees core k, whose job has gone, for the next ready job.
func (c *Cores) leave(now Time, k int32) {
	c.setIdle(now, k)
	c.takeNext(now, k)
}

func (c *Cores) takeNext(now Time, k int32) {
	if id, ok := c.next(); ok {
		c.run(now, k, id, true)
		return
	}
	c.idle = append(c.idle, k)
}
