package sim

import "math/rand/v2"

// WorkerConfig describes a pool of worker instances that start cold, stop
// when idle, and take one job at a time each.
type WorkerConfig struct {
	Max       int  // instances at most
	Min       int  // instances kept running even when idle (warm)
	ColdStart Dist // time from start to ready, paid by the first job after a stop
	WarmStart Dist // time for a running idle instance to pick up a job
	IdleStop  Time // idle time after which an instance above Min stops; 0 = never
	QueueCap  int  // Unbounded, or jobs allowed to wait
}

type instanceState uint8

const (
	stopped instanceState = iota
	starting
	idle
	preparing // warm start of a job in progress
	busy
)

type instance struct {
	state instanceState
	job   int32
	since Time // when the job now preparing was submitted
	idle  Timer
}

// WorkerPool is a job queue served by worker instances with cold start,
// idle scale-to-zero and min/max instances. Unlike Pool it schedules its own
// events (start-up, warm pick-up, idle stop), so it holds the Sim.
type WorkerPool struct {
	s     *Sim
	cfg   WorkerConfig
	rng   *rand.Rand
	inst  []instance
	queue fifo
	index waitIndex
	grant func(id int32, instance int32)

	kReady, kIdle Kind

	Busy       TimeWeighted // instances running a job
	Running    TimeWeighted // instances not stopped
	QueueLen   TimeWeighted
	Wait       Tally // seconds from submission to the job starting on a ready instance
	ColdStarts int64
	Granted    int64
	Rejected   int64
}

// NewWorkerPool builds the pool on s. rng drives start-up times. grant is
// called when job id starts on an instance; the caller later calls Release
// with that instance.
func NewWorkerPool(s *Sim, cfg WorkerConfig, rng *rand.Rand, grant func(id, instance int32)) *WorkerPool {
	w := &WorkerPool{s: s, cfg: cfg, rng: rng, inst: make([]instance, cfg.Max), grant: grant}
	w.kReady = s.Handle(w.onReady)
	w.kIdle = s.Handle(w.onIdleStop)
	for i := 0; i < cfg.Min && i < cfg.Max; i++ {
		w.inst[i].state = idle
	}
	w.Running.Set(0, float64(min(cfg.Min, cfg.Max)))
	return w
}

// Waiting is the number of queued jobs.
func (w *WorkerPool) Waiting() int { return w.queue.Len() }

// Submit queues job id, which must not be negative. The grant callback
// follows once an instance is ready; Rejected means the queue is full.
func (w *WorkerPool) Submit(now Time, id int32) Outcome {
	for i := range w.inst {
		if w.inst[i].state == idle {
			w.prepare(now, int32(i), id, now)
			return Queued
		}
	}
	if w.cfg.QueueCap != Unbounded && w.queue.Len() >= w.cfg.QueueCap {
		w.Rejected++
		return Rejected
	}
	w.queue.push(waiter{id: id, since: now}, &w.index)
	w.QueueLen.Set(now, float64(w.queue.Len()))
	w.scaleUp(now)
	return Queued
}

// scaleUp starts stopped instances until those starting cover the queue.
func (w *WorkerPool) scaleUp(now Time) {
	startingCount := 0
	for i := range w.inst {
		if w.inst[i].state == starting {
			startingCount++
		}
	}
	for i := range w.inst {
		if startingCount >= w.queue.Len() {
			return
		}
		if w.inst[i].state == stopped {
			w.inst[i].state = starting
			startingCount++
			w.ColdStarts++
			w.Running.Add(now, 1)
			w.s.After(Seconds(w.cfg.ColdStart.Sample(w.rng)), w.kReady, int64(i))
		}
	}
}

func (w *WorkerPool) prepare(now Time, i, id int32, since Time) {
	in := &w.inst[i]
	w.s.Cancel(in.idle)
	in.state, in.job, in.since = preparing, id, since
	w.Busy.Add(now, 1)
	w.s.After(Seconds(w.cfg.WarmStart.Sample(w.rng)), w.kReady, int64(i))
}

func (w *WorkerPool) onReady(arg int64) {
	now := w.s.Now()
	i := int32(arg)
	in := &w.inst[i]
	switch in.state {
	case starting:
		if q, ok := w.queue.pop(w.index); ok {
			w.QueueLen.Set(now, float64(w.queue.Len()))
			w.Busy.Add(now, 1)
			w.start(now, i, q.id, q.since)
			return
		}
		w.goIdle(now, i)
	case preparing:
		if in.job < 0 { // abandoned while the instance prepared it
			w.Busy.Add(now, -1)
			w.next(now, i)
			return
		}
		w.start(now, i, in.job, in.since)
	}
}

// Abandon withdraws job id, queued or being prepared on an instance (its
// wait timed out), and reports whether it was still waiting. An instance
// preparing it finishes preparing and then serves the next job or goes
// idle: a connection being opened for a caller that gave up is still
// opened, and kept.
func (w *WorkerPool) Abandon(now Time, id int32) bool {
	if _, ok := w.queue.remove(id, w.index); ok {
		w.QueueLen.Set(now, float64(w.queue.Len()))
		return true
	}
	for i := range w.inst {
		if in := &w.inst[i]; in.state == preparing && in.job == id {
			in.job = -1
			return true
		}
	}
	return false
}

func (w *WorkerPool) start(now Time, i, id int32, since Time) {
	in := &w.inst[i]
	in.state, in.job = busy, id
	w.Granted++
	w.Wait.Add((now - since).Seconds())
	w.grant(id, i)
}

// Release ends the job running on instance i; the instance takes the next
// queued job or goes idle.
func (w *WorkerPool) Release(now Time, i int32) {
	in := &w.inst[i]
	if in.state != busy {
		panic("sim: WorkerPool.Release of an instance not running a job")
	}
	w.Busy.Add(now, -1)
	w.next(now, i)
}

// Discard ends the job on instance i and stops the instance instead of
// reusing it (a connection closed because its response was abandoned):
// the next job it would have taken pays a cold start.
func (w *WorkerPool) Discard(now Time, i int32) {
	in := &w.inst[i]
	if in.state != busy {
		panic("sim: WorkerPool.Discard of an instance not running a job")
	}
	w.Busy.Add(now, -1)
	in.state = stopped
	w.Running.Add(now, -1)
	if w.queue.Len() > 0 {
		w.scaleUp(now)
	}
}

// next gives free instance i the next queued job, or lets it go idle.
func (w *WorkerPool) next(now Time, i int32) {
	if q, ok := w.queue.pop(w.index); ok {
		w.QueueLen.Set(now, float64(w.queue.Len()))
		w.prepare(now, i, q.id, q.since)
		return
	}
	w.goIdle(now, i)
}

func (w *WorkerPool) goIdle(now Time, i int32) {
	in := &w.inst[i]
	in.state = idle
	if w.cfg.IdleStop > 0 && int(i) >= w.cfg.Min {
		in.idle = w.s.Timer(now+w.cfg.IdleStop, w.kIdle, int64(i))
	}
}

func (w *WorkerPool) onIdleStop(arg int64) {
	in := &w.inst[arg]
	if in.state == idle {
		in.state = stopped
		w.Running.Add(w.s.Now(), -1)
	}
}

// ResetStats starts the statistics afresh at now, keeping the current state.
func (w *WorkerPool) ResetStats(now Time) {
	w.Busy.Reset(now)
	w.Running.Reset(now)
	w.QueueLen.Reset(now)
	w.Wait.Reset()
	w.ColdStarts, w.Granted, w.Rejected = 0, 0, 0
}
