package sim

import (
	"math"
	"math/rand/v2"
	"unsafe"
)

// WorkerConfig describes a pool of worker instances that start cold, stop
// when idle, and take one job at a time each.
type WorkerConfig struct {
	Max       int  // instances at most
	Min       int  // instances kept running even when idle (warm)
	ColdStart Dist // time from start to ready, paid by the first job after a stop
	WarmStart Dist // time for a running idle instance to pick up a job
	IdleStop  Time // idle time after which an instance above Min stops; 0 = never
	QueueCap  int  // Unbounded, or jobs allowed to wait
	// Autoscale, when set, makes a target-tracking rule decide how many
	// instances run, between Min and Max; see AutoscaleConfig.
	Autoscale *AutoscaleConfig
}

// AutoscaleMetric is what an autoscaled pool tracks, per running instance.
type AutoscaleMetric uint8

const (
	Utilisation         AutoscaleMetric = iota // busy instances / running instances
	QueuePerInstance                           // waiting jobs / running instances
	InFlightPerInstance                        // (busy instances + waiting jobs) / running instances
)

// AutoscaleConfig is a target-tracking rule in the manner of Kubernetes'
// HorizontalPodAutoscaler. Every Period the pool averages its metric over
// the period just ended (time-weighted, so a burst between two syncs counts
// for as long as it lasted, not only if it is under way at the sync) and
// recommends ceil(current × metric / Target) instances, or current when
// |metric/Target − 1| <= Tolerance. The count applied is the lowest
// recommendation of the last UpWindow when raising it and the highest of
// the last DownWindow when lowering it (the HPA's stabilisation windows),
// then held between Min and Max and raised by at most MaxStep.
//
// Instances still cold-starting count as running and idle: the HPA assumes
// a not-yet-ready pod uses none of its target when it scales up, so new
// capacity that is not serving yet damps the next recommendation instead of
// being asked for twice.
type AutoscaleConfig struct {
	Metric     AutoscaleMetric
	Target     float64 // > 0
	Period     Time    // > 0: the HPA's sync period (default 15 s there)
	UpWindow   Time    // scale-up stabilisation (HPA default 0 s)
	DownWindow Time    // scale-down stabilisation (HPA default 300 s)
	Tolerance  float64 // in [0, 1) (HPA default 0.1)
	MaxStep    int     // instances added per sync at most; 0 = no limit
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
	// draining: the autoscaler took the instance away while it was busy;
	// it stops when its job ends instead of taking the next one, as a pod
	// being terminated finishes the request it holds.
	draining bool
	// epoch tells a cold start's ready event from that of an earlier start
	// the autoscaler cancelled; it stays 0 without autoscaling.
	epoch uint32
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
	as            *autoscaler // nil without autoscaling

	Busy       TimeWeighted // instances running a job
	Running    TimeWeighted // instances not stopped
	QueueLen   TimeWeighted
	Wait       Tally // seconds from submission to the job starting on a ready instance
	ColdStarts int64
	Granted    int64
	Rejected   int64
	// ScaleUps and ScaleDowns count the syncs at which the autoscaler
	// raised or lowered the instance count (not the instances moved).
	ScaleUps, ScaleDowns int64
	// OnScale, if set, is told of each change of the autoscaler's count.
	OnScale func(now Time, from, to int)
	// OnCold, if set, is told when instance i starts cold (ready false)
	// and when it is ready after it (ready true), before it takes a job.
	OnCold func(now Time, i int32, ready bool)
	// GrantCold is true while grant runs for a job that takes an instance
	// straight from its cold start.
	GrantCold bool
}

// autoscaler is the state of a pool's target-tracking rule.
type autoscaler struct {
	cfg   AutoscaleConfig
	kSync Kind
	// desired is the count the rule last set: instances not stopped and
	// not draining.
	desired int
	// busy, queue and running are the pool's signals since the last sync,
	// apart from its statistics so that a warm-up's reset does not cut a
	// period short.
	busy, queue, running TimeWeighted
	changed              bool // a signal moved since the last sync
	// recs holds past recommendations, a ring as long as the longest
	// window needs.
	recs []recommendation
	head int
	// asleep: the rule reached a fixed point (nothing moved for a whole
	// period, every recommendation in both windows equals the count), so
	// the sync stops rescheduling itself until a signal moves; a pool at
	// rest then leaves nothing pending and a run's end (or deadlock) is
	// seen as without autoscaling. wake replays the syncs missed.
	asleep  bool
	sleptAt Time
	lastRec int
}

// neverSleep keeps every sync, for tests that hold a sleeping autoscaler
// to one that never sleeps.
var neverSleep = false

type recommendation struct {
	at Time
	n  int
	ok bool
}

// Bytes is what NewWorkerPool sets aside for cfg before anything runs:
// its instances and its autoscaler's window of recommendations. A caller
// sizing cfg from a user's numbers checks it first (float64: a product
// of such numbers must not wrap).
func (cfg WorkerConfig) Bytes() float64 {
	b := float64(cfg.Max) * float64(unsafe.Sizeof(instance{}))
	if a := cfg.Autoscale; a != nil && a.Period > 0 {
		b += (float64(max(a.UpWindow, a.DownWindow))/float64(a.Period) + 2) * float64(unsafe.Sizeof(recommendation{}))
	}
	return b
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
	if cfg.Autoscale != nil {
		a := &autoscaler{cfg: *cfg.Autoscale, desired: min(cfg.Min, cfg.Max), lastRec: min(cfg.Min, cfg.Max)}
		// Recommendations are a period apart at least, so the longest
		// window holds at most window/period + 1 of them.
		a.recs = make([]recommendation, max(a.cfg.UpWindow, a.cfg.DownWindow)/a.cfg.Period+2)
		a.running.Set(0, float64(a.desired))
		a.kSync = s.Handle(w.onSync)
		s.At(a.cfg.Period, a.kSync, 0)
		w.as = a
	}
	return w
}

// The pool's signals change only through these, so that the autoscaler's
// period averages follow its statistics exactly.

func (w *WorkerPool) touch(now Time) {
	if a := w.as; a != nil {
		if a.asleep {
			w.wake(now)
		}
		a.changed = true
	}
}

func (w *WorkerPool) addBusy(now Time, d float64) {
	w.touch(now)
	if w.as != nil {
		w.as.busy.Add(now, d)
	}
	w.Busy.Add(now, d)
}

func (w *WorkerPool) addRunning(now Time, d float64) {
	w.touch(now)
	if w.as != nil {
		w.as.running.Add(now, d)
	}
	w.Running.Add(now, d)
}

func (w *WorkerPool) setQueue(now Time) {
	w.touch(now)
	n := float64(w.queue.Len())
	if w.as != nil {
		w.as.queue.Set(now, n)
	}
	w.QueueLen.Set(now, n)
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
	w.setQueue(now)
	if w.as == nil {
		w.scaleUp(now)
	}
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
			startingCount++
			w.coldStart(now, int32(i))
		}
	}
}

// coldStart starts stopped instance i; it is ready after cold_start.
func (w *WorkerPool) coldStart(now Time, i int32) {
	in := &w.inst[i]
	in.state = starting
	w.ColdStarts++
	w.addRunning(now, 1)
	if w.OnCold != nil {
		w.OnCold(now, i, false)
	}
	w.s.After(Seconds(w.cfg.ColdStart.Sample(w.rng)), w.kReady, int64(in.epoch)<<32|int64(i))
}

func (w *WorkerPool) prepare(now Time, i, id int32, since Time) {
	in := &w.inst[i]
	w.s.Cancel(in.idle)
	in.state, in.job, in.since = preparing, id, since
	w.addBusy(now, 1)
	w.s.After(Seconds(w.cfg.WarmStart.Sample(w.rng)), w.kReady, int64(i))
}

func (w *WorkerPool) onReady(arg int64) {
	now := w.s.Now()
	i := int32(arg)
	in := &w.inst[i]
	switch in.state {
	case starting:
		if uint32(arg>>32) != in.epoch {
			return // a start the autoscaler cancelled; the instance restarted since
		}
		if w.OnCold != nil {
			w.OnCold(now, i, true)
		}
		if q, ok := w.queue.pop(w.index); ok {
			w.setQueue(now)
			w.addBusy(now, 1)
			w.GrantCold = true
			w.start(now, i, q.id, q.since)
			w.GrantCold = false
			return
		}
		w.goIdle(now, i)
	case preparing:
		if in.job < 0 { // abandoned while the instance prepared it
			w.addBusy(now, -1)
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
		w.setQueue(now)
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
	w.endJob(now, i, "Release")
	w.next(now, i)
}

// endJob ends the job running on instance i, which the caller, named by
// method, must have given one.
func (w *WorkerPool) endJob(now Time, i int32, method string) *instance {
	in := &w.inst[i]
	if in.state != busy {
		panic("sim: WorkerPool." + method + " of an instance not running a job")
	}
	w.addBusy(now, -1)
	return in
}

// Discard ends the job on instance i and stops the instance instead of
// reusing it (a connection closed because its response was abandoned):
// the next job it would have taken pays a cold start. Under autoscaling
// the instance starts again at once, as a ReplicaSet replaces a pod it
// lost, so the count stays the rule's.
func (w *WorkerPool) Discard(now Time, i int32) {
	in := w.endJob(now, i, "Discard")
	in.state = stopped
	w.addRunning(now, -1)
	if w.as != nil {
		if in.draining {
			in.draining = false
		} else {
			w.coldStart(now, i)
		}
		return
	}
	if w.queue.Len() > 0 {
		w.scaleUp(now)
	}
}

// next gives free instance i the next queued job, or lets it go idle; one
// the autoscaler took away stops instead.
func (w *WorkerPool) next(now Time, i int32) {
	if in := &w.inst[i]; in.draining {
		in.state, in.draining = stopped, false
		w.addRunning(now, -1)
		return
	}
	if q, ok := w.queue.pop(w.index); ok {
		w.setQueue(now)
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
		w.addRunning(w.s.Now(), -1)
	}
}

// ResetStats starts the statistics afresh at now, keeping the current state.
func (w *WorkerPool) ResetStats(now Time) {
	w.Busy.Reset(now)
	w.Running.Reset(now)
	w.QueueLen.Reset(now)
	w.Wait.Reset()
	w.ColdStarts, w.Granted, w.Rejected = 0, 0, 0
	w.ScaleUps, w.ScaleDowns = 0, 0
}

// Desired is the instance count the autoscaler last set (0 without one).
func (w *WorkerPool) Desired() int {
	if w.as == nil {
		return 0
	}
	return w.as.desired
}

// onSync is the autoscaler's periodic evaluation.
func (w *WorkerPool) onSync(int64) {
	now, a := w.s.Now(), w.as
	busy, queue, running := a.busy.Mean(now), a.queue.Mean(now), a.running.Mean(now)
	a.busy.Reset(now)
	a.queue.Reset(now)
	a.running.Reset(now)
	var load float64
	switch a.cfg.Metric {
	case Utilisation:
		load = busy
	case QueuePerInstance:
		load = queue
	case InFlightPerInstance:
		load = busy + queue
	}
	// running >= Min >= 1 throughout: a lost instance is replaced at once.
	ratio := load / running / a.cfg.Target
	cur := a.desired
	rec := cur
	if math.Abs(ratio-1) > a.cfg.Tolerance {
		// The metric is a quotient of time integrals in floating point: a
		// product that is whole up to rounding must not add an instance.
		rec = int(math.Ceil(float64(cur)*ratio - 1e-9))
	}
	rec = min(max(rec, w.cfg.Min), w.cfg.Max)
	a.push(now, rec)
	// Stabilisation as the HPA does it: raise to no more than the lowest
	// recommendation of the scale-up window, lower to no less than the
	// highest of the scale-down window, so that a short dip does not
	// shed capacity a returning load needs.
	up, down, settled := rec, rec, true
	for _, r := range a.recs {
		if !r.ok {
			continue
		}
		inUp, inDown := r.at > now-a.cfg.UpWindow, r.at > now-a.cfg.DownWindow
		if inUp {
			up = min(up, r.n)
		}
		if inDown {
			down = max(down, r.n)
		}
		if (inUp || inDown) && r.n != rec {
			settled = false
		}
	}
	n := max(cur, up)
	n = min(n, down)
	if a.cfg.MaxStep > 0 {
		n = min(n, cur+a.cfg.MaxStep)
	}
	if n != cur {
		w.scaleTo(now, n)
	}
	if n == cur && settled && !a.changed && !neverSleep {
		a.asleep, a.sleptAt = true, now
		return
	}
	a.changed = false
	w.s.At(now+a.cfg.Period, a.kSync, 0)
}

func (a *autoscaler) push(at Time, n int) {
	a.recs[a.head] = recommendation{at: at, n: n, ok: true}
	a.head = (a.head + 1) % len(a.recs)
	a.lastRec = n
}

// wake resumes the syncs of a sleeping autoscaler before a signal moves at
// now. The syncs it slept through saw the same signals and recommended the
// same count; the last of them stands for all in the windows, and the
// period under way began at it.
func (w *WorkerPool) wake(now Time) {
	a := w.as
	a.asleep = false
	last := a.sleptAt + (now-a.sleptAt)/a.cfg.Period*a.cfg.Period
	if last > a.sleptAt {
		a.push(last, a.lastRec)
		a.busy.Reset(last)
		a.queue.Reset(last)
		a.running.Reset(last)
	}
	w.s.At(last+a.cfg.Period, a.kSync, 0)
}

// scaleTo moves the autoscaler's count to n. Going up, it first keeps
// instances still finishing a job they were to stop after, then starts
// stopped ones cold. Going down, it stops instances still starting (as a
// ReplicaSet deletes pods that are not ready first), then idle ones, then
// lets busy ones finish their job and stop; the highest-numbered first in
// each group.
func (w *WorkerPool) scaleTo(now Time, n int) {
	a := w.as
	from := a.desired
	if n > from {
		w.ScaleUps++
		for i := range w.inst {
			if in := &w.inst[i]; a.desired < n && in.draining {
				in.draining = false
				a.desired++
			}
		}
		for i := range w.inst {
			if a.desired < n && w.inst[i].state == stopped {
				w.coldStart(now, int32(i))
				a.desired++
			}
		}
	} else {
		w.ScaleDowns++
		for _, st := range [...]instanceState{starting, idle, busy} {
			for i := len(w.inst) - 1; i >= 0 && a.desired > n; i-- {
				in := &w.inst[i]
				switch {
				case in.draining || in.state == stopped:
				case st == busy && (in.state == busy || in.state == preparing):
					in.draining = true
					a.desired--
				case in.state == st:
					in.state = stopped
					if st == starting {
						in.epoch++
					}
					w.s.Cancel(in.idle)
					w.addRunning(now, -1)
					a.desired--
				}
			}
		}
	}
	if w.OnScale != nil {
		w.OnScale(now, from, n)
	}
}
