package model

import (
	"fmt"
	"slices"

	"capsim/sim"
)

// worker: instances taking one job each, that start cold, stop when idle
// (scale to zero) and keep a minimum warm. The same kind models a
// connection pool: a new connection pays cold_start (connect), an idle one
// is reused, and idle ones close after idle_stop. With autoscale, a
// target-tracking rule (sim.AutoscaleConfig) sets how many instances run
// instead.

var workerKind = &kindDef{name: "worker", capacityUnit: "instances", newSpec: func() kindSpec { return &WorkerSpec{} }, status: 503, capacity: true,
	measures: []Measure{
		componentMeasure("cold_starts_count", UnitCount, func(c *ComponentResult) (float64, bool) { return float64(c.ColdStarts), true }),
		// Autoscaled workers only: syncs that raised and lowered the
		// instance count, and the instances running, idle ones included.
		autoscaleMeasure("scale_ups_count", func(a *AutoscaleResult) float64 { return float64(a.ScaleUps) }),
		autoscaleMeasure("scale_downs_count", func(a *AutoscaleResult) float64 { return float64(a.ScaleDowns) }),
		autoscaleMeasure("mean_running_count", func(a *AutoscaleResult) float64 { return float64(a.MeanRunning) }),
		autoscaleMeasure("peak_running_count", func(a *AutoscaleResult) float64 { return a.PeakRunning }),
	}}

// autoscaleMeasure is a count only an autoscaled worker has.
func autoscaleMeasure(name string, read func(*AutoscaleResult) float64) Measure {
	return componentMeasure(name, UnitCount, func(c *ComponentResult) (float64, bool) {
		if c.Autoscale == nil {
			return 0, false
		}
		return read(c.Autoscale), true
	})
}

// WorkerSpec is a pool of worker instances.
type WorkerSpec struct {
	Instances   *int      `yaml:"instances" bound:"[1,count]"` // at most
	Min         *int      `yaml:"min_instances" bound:"[0,count]" zero:"scale to zero: the next job after an idle stop pays cold_start"`
	ColdStart   *DistRef  `yaml:"cold_start" bound:"[0,time]"`
	WarmStart   *DistRef  `yaml:"warm_start" bound:"[0,time]"`
	IdleStop    *Duration `yaml:"idle_stop" bound:"(0,time]"`
	Queue       *int      `yaml:"queue" bound:"[0,count]" zero:"no waiting room: a job that finds every instance busy is refused"`
	WaitTimeout *DistRef  `yaml:"wait_timeout" bound:"(0,time]"`
	// DiscardOnFailure: an instance whose holder failed (its deadline or
	// timeout abandoned the response) is stopped, not reused, as an HTTP
	// client closes a connection whose body it did not read: the next job
	// pays cold_start (the connect).
	DiscardOnFailure bool `yaml:"discard_on_failure"`
	// DiscardOn: discard only when the holder failed with one of these
	// statuses (an abandoned response, 504; a body that failed to parse),
	// and keep an instance whose holder received a complete error
	// response (a 503 with its body read leaves the connection reusable).
	DiscardOn []int `yaml:"discard_on" bound:"[400,599]"`
	// Autoscale sets the running count by a target-tracking rule, between
	// min_instances and instances.
	Autoscale *AutoscaleSpec `yaml:"autoscale"`
}

// AutoscaleSpec is a worker's target-tracking rule, keyed and defaulted
// as Kubernetes' HorizontalPodAutoscaler: its --horizontal-pod-autoscaler-
// sync-period (15s), tolerance (0.1) and behavior's stabilizationWindow-
// Seconds (0 s up, 300 s down).
type AutoscaleSpec struct {
	Metric          string    `yaml:"metric"`                 // utilisation | queue | in_flight
	Target          *float64  `yaml:"target" bound:"(0,inf)"` // per running instance
	Period          *Duration `yaml:"period" bound:"(0,time]" hint:"the HPA syncs every 15s"`
	ScaleUpWindow   *Duration `yaml:"scale_up_window" bound:"[0,time]" zero:"no stabilisation: the latest recommendation applies (the HPA's default)"`
	ScaleDownWindow *Duration `yaml:"scale_down_window" bound:"[0,time]"`
	Tolerance       *float64  `yaml:"tolerance" bound:"[0,1)" hint:"the HPA's is 0.1"`
	MaxStep         *int      `yaml:"max_step" bound:"[1,count]" hint:"instances added per period at most"` // instances added per period at most
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
	switch {
	case s.Autoscale != nil:
		w.Autoscale = s.Autoscale.compile(c, at, s, &w)
	case s.IdleStop != nil:
		w.IdleStop = s.IdleStop.T
	case s.Min == nil:
		w.Min = w.Max // never stops: all warm
	}
	if w.Max >= 1 {
		c.reserve(at.node, "instances", joinPath(at.path, "instances"), fmt.Sprintf("instances: %d", w.Max), sim.WorkerConfig{Max: w.Max}.Bytes())
	}
	if a := w.Autoscale; a != nil && a.Period > 0 {
		window := sim.WorkerConfig{Autoscale: a}.Bytes()
		c.reserve(valueNode(at.node, "autoscale"), "period", joinPath(at.path, "autoscale.period"),
			fmt.Sprintf("an autoscaler deciding every %s over a %s window", a.Period, max(a.UpWindow, a.DownWindow)), window)
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

// compile checks the rule against its worker and fills w's minimum.
func (a *AutoscaleSpec) compile(c *compiler, at site, s *WorkerSpec, w *sim.WorkerConfig) *sim.AutoscaleConfig {
	if s.IdleStop != nil {
		c.failAt(at, "idle_stop", "idle_stop does not apply with autoscale: the autoscaler decides when instances stop")
	}
	// The HPA's minReplicas defaults to 1; none cannot be a minimum here,
	// since the rule multiplies the running count and would never leave 0.
	w.Min = 1
	if s.Min != nil {
		if *s.Min < 1 {
			c.failAt(at, "min_instances", "min_instances must be >= 1 with autoscale: the rule scales the running count, which cannot grow from none")
		}
		w.Min = *s.Min
	}
	if w.Max <= w.Min {
		c.failAt(at, "instances", "with autoscale, instances is the most that may run and must be above min_instances (%d), got %d", w.Min, w.Max)
	}
	as := site{node: resolve(valueNode(at.node, "autoscale")), path: at.path + ".autoscale"}
	cfg := &sim.AutoscaleConfig{Period: 15 * sim.Second, DownWindow: 300 * sim.Second, Tolerance: 0.1}
	switch a.Metric {
	case "utilisation":
		cfg.Metric = sim.Utilisation
	case "queue":
		cfg.Metric = sim.QueuePerInstance
	case "in_flight":
		cfg.Metric = sim.InFlightPerInstance
	case "":
		c.failAt(as, "metric", "autoscale needs a metric: utilisation, queue or in_flight")
	default:
		c.failAt(as, "metric", "metric must be utilisation, queue or in_flight, got %q", a.Metric)
	}
	switch {
	case a.Target == nil:
		c.failAt(as, "target", "autoscale needs a target: the metric's value per running instance to hold (e.g. target: 0.7)")
	case *a.Target <= 0:
		c.failAt(as, "target", "target must be > 0, got %g", *a.Target)
	case a.Metric == "utilisation" && *a.Target > 1:
		c.failAt(as, "target", "a utilisation target is a share of the running instances, at most 1, got %g", *a.Target)
	default:
		cfg.Target = *a.Target
	}
	if a.Period != nil {
		if a.Period.T <= 0 {
			c.failAt(as, "period", "period must be > 0 (the HPA syncs every 15s)")
		}
		cfg.Period = a.Period.T
	}
	if a.ScaleUpWindow != nil {
		cfg.UpWindow = a.ScaleUpWindow.T
	}
	if a.ScaleDownWindow != nil {
		cfg.DownWindow = a.ScaleDownWindow.T
	}
	if t := a.Tolerance; t != nil {
		// At 1 or more an idle pool (ratio 0) would be within tolerance
		// and never scale down.
		if *t < 0 || *t >= 1 {
			c.failAt(as, "tolerance", "tolerance must be at least 0 and below 1 (the HPA's is 0.1), got %g", *t)
		}
		cfg.Tolerance = *t
	}
	if a.MaxStep != nil {
		if *a.MaxStep < 1 {
			c.failAt(as, "max_step", "max_step must be >= 1 (instances added per period at most), got %d", *a.MaxStep)
		}
		cfg.MaxStep = *a.MaxStep
	}
	return cfg
}

func (wp *workerProg) newRuntime(r *run, ci int32, cp *compProg, st *sim.Streams) component {
	grant := func(id, inst int32) { r.granted(id, ci, int64(inst), true) }
	rt := &workerRT{WorkerPool: sim.NewWorkerPool(r.s, wp.cfg, st.Get("start/"+cp.seedName), grant), prog: wp}
	if wp.cfg.Autoscale != nil {
		rt.OnScale = func(_ sim.Time, _, to int) {
			if r.opts.Trace == nil {
				return
			}
			e := r.fillTrace(EvScale, nil)
			e.Component, e.Instances = r.p.comps[ci].name, to
			r.opts.Trace(e)
		}
	}
	if r.tr != nil {
		rt.OnCold = func(_ sim.Time, i int32, ready bool) { r.traceCold(ci, i, ready) }
	}
	return rt
}

type workerRT struct {
	*sim.WorkerPool
	prog *workerProg
}

func (c *workerRT) acquire(r *run, p *proc, _ *op, _ int32, _ *compRT) (acquired, int64) {
	switch c.Submit(r.s.Now(), p.id) {
	case sim.Granted:
		return acqGranted, 0
	case sim.Queued:
		return acqQueued, 0
	}
	return acqRejected, 0
}

func (c *workerRT) release(r *run, p *proc, h held, failed bool) {
	if failed && c.prog.discard && (len(c.prog.discardOn) == 0 || slices.Contains(c.prog.discardOn, p.failStatus)) {
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
	if c.prog.cfg.Autoscale != nil {
		cr.Autoscale = &AutoscaleResult{ScaleUps: c.ScaleUps, ScaleDowns: c.ScaleDowns,
			MeanRunning: Num(c.Running.Mean(now)), PeakRunning: c.Running.Max()}
	}
}

func (c *workerRT) signals() []string {
	if c.prog.cfg.Autoscale != nil {
		return []string{"busy", "queue", "running"}
	}
	return []string{"busy", "queue"}
}

func (c *workerRT) sample(put func(float64)) {
	put(c.Busy.Value())
	put(float64(c.Waiting()))
	if c.prog.cfg.Autoscale != nil {
		put(c.Running.Value())
	}
}

func (c *workerRT) busy() *sim.TimeWeighted { return &c.Busy }
func (c *workerRT) busyNow() float64        { return c.Busy.Value() }
func (c *workerRT) capacity() float64       { return float64(c.prog.cfg.Max) }
