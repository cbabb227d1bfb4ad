package model

import "capsim/sim"

// worker: instances taking one job each, that start cold, stop when idle
// (scale to zero) and keep a minimum warm. The same kind models a
// connection pool: a new connection pays cold_start (connect), an idle one
// is reused, and idle ones close after idle_stop.

var workerKind = &kindDef{name: "worker", newSpec: func() kindSpec { return &WorkerSpec{} }, status: 503, capacity: true,
	extraMetrics: func(c *ComponentResult, add func(string, float64)) {
		add("cold_starts_count", float64(c.ColdStarts))
	}}

// WorkerSpec is a pool of worker instances.
type WorkerSpec struct {
	Instances   *int      `yaml:"instances"` // at most
	Min         *int      `yaml:"min_instances"`
	ColdStart   *DistRef  `yaml:"cold_start"`
	WarmStart   *DistRef  `yaml:"warm_start"`
	IdleStop    *Duration `yaml:"idle_stop"`
	Queue       *int      `yaml:"queue"`
	WaitTimeout *DistRef  `yaml:"wait_timeout"`
	// DiscardOnFailure: an instance whose holder failed (its deadline or
	// timeout abandoned the response) is stopped, not reused, as an HTTP
	// client closes a connection whose body it did not read: the next job
	// pays cold_start (the connect).
	DiscardOnFailure bool `yaml:"discard_on_failure"`
	// DiscardOn: discard only when the holder failed with one of these
	// statuses (an abandoned response, 504; a body that failed to parse),
	// and keep an instance whose holder received a complete error
	// response (a 503 with its body read leaves the connection reusable).
	DiscardOn []int `yaml:"discard_on"`
}

type workerProg struct {
	cfg       sim.WorkerConfig
	discard   bool
	discardOn []int32 // empty: every failure
}

func (s *WorkerSpec) compile(c *compiler, cp *compProg, at site) kindProg {
	cp.waitTimeout = c.patience(s.WaitTimeout, at, "wait_timeout")
	w := sim.WorkerConfig{Max: 1, QueueCap: sim.Unbounded, ColdStart: sim.Constant(0), WarmStart: sim.Constant(0)}
	if s.Instances != nil {
		if *s.Instances < 1 {
			c.failAt(at, "instances", "instances must be >= 1, got %d", *s.Instances)
		}
		w.Max = *s.Instances
	}
	if s.Min != nil {
		if *s.Min < 0 || *s.Min > w.Max {
			c.failAt(at, "min_instances", "min_instances must be between 0 and instances (%d), got %d", w.Max, *s.Min)
		}
		w.Min = *s.Min
	}
	if s.ColdStart != nil {
		w.ColdStart = c.p.dists[c.dist(s.ColdStart, valueNode(at.node, "cold_start"), at.path+".cold_start")]
	}
	if s.WarmStart != nil {
		w.WarmStart = c.p.dists[c.dist(s.WarmStart, valueNode(at.node, "warm_start"), at.path+".warm_start")]
	}
	if s.IdleStop != nil {
		w.IdleStop = s.IdleStop.T
	} else if s.Min == nil {
		w.Min = w.Max // never stops: all warm
	}
	w.QueueCap = c.queueSize(s.Queue, at, w.QueueCap)
	wp := &workerProg{cfg: w, discard: s.DiscardOnFailure || len(s.DiscardOn) > 0}
	for _, st := range s.DiscardOn {
		if st < 400 || st > 599 {
			c.failAt(at, "discard_on", "discard_on takes failure statuses from 400 to 599, got %d", st)
		}
		wp.discardOn = append(wp.discardOn, int32(st))
	}
	return wp
}

func (wp *workerProg) newRuntime(r *run, ci int32, cp *compProg, st *sim.Streams) component {
	grant := func(id, inst int32) { r.granted(id, ci, int64(inst), true) }
	return &workerRT{WorkerPool: sim.NewWorkerPool(r.s, wp.cfg, st.Get("start/"+cp.seedName), grant), prog: wp}
}

type workerRT struct {
	*sim.WorkerPool
	prog *workerProg
}

func (c *workerRT) acquire(r *run, p *proc, _ *op, _ *compRT) (acquired, int64) {
	switch c.Submit(r.s.Now(), p.id) {
	case sim.Granted:
		return acqGranted, 0
	case sim.Queued:
		return acqQueued, 0
	}
	return acqRejected, 0
}

func (c *workerRT) release(r *run, p *proc, h held, failed bool) {
	if failed && c.prog.discard && (len(c.prog.discardOn) == 0 || contains(c.prog.discardOn, p.failStatus)) {
		c.Discard(r.s.Now(), int32(h.key))
		return
	}
	c.Release(r.s.Now(), int32(h.key))
}
func (c *workerRT) abandon(now sim.Time, p *proc) { c.Abandon(now, p.id) }
func (c *workerRT) waiting() int                  { return c.Waiting() }
func (c *workerRT) resetStats(now sim.Time)       { c.ResetStats(now) }

func (c *workerRT) result(_ *run, cr *ComponentResult, now sim.Time) {
	cr.Capacity = float64(c.prog.cfg.Max)
	cr.MeanBusy, cr.MeanQueue = Num(c.Busy.Mean(now)), Num(c.QueueLen.Mean(now))
	cr.PeakQueue = c.QueueLen.Max()
	cr.Wait = latencyOf(&c.Wait)
	cr.ColdStarts = c.ColdStarts
	cr.PeakBusy = c.Busy.Max()
}

func (c *workerRT) signals() []string { return []string{"busy", "queue"} }
func (c *workerRT) sample(put func(float64)) {
	put(c.Busy.Value())
	put(float64(c.Waiting()))
}

func (c *workerRT) busy() *sim.TimeWeighted { return &c.Busy }
func (c *workerRT) busyNow() float64        { return c.Busy.Value() }
func (c *workerRT) capacity() float64       { return float64(c.prog.cfg.Max) }
