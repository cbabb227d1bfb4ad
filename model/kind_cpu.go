package model

import "capsim/sim"

// cpu: processor sharing. Every use with work in flight runs at once, each
// at min(1, cores/n) of a core, so more work slows all of it instead of
// queueing: a thread pool's CPU, a container's vCPU share. With
// switch_cost σ, the jobs beyond the cores also cost throughput (context
// switches, cold caches): each runs at min(1, c/n)/(1 + σ·max(0, n −
// max(c, 1))), the model of sim.ProcessorSharing.

var cpuKind = &kindDef{name: "cpu", newSpec: func() kindSpec { return &CPUSpec{} }, status: 503, capacity: true, runsWork: true,
	measures: []Measure{
		// mean cores' worth of work done: busy less switching
		componentMeasure("useful_busy_count", UnitCount, func(c *ComponentResult) (float64, bool) { return float64(c.UsefulBusy), true }),
	}}

// CPUSpec is a processor-sharing server.
type CPUSpec struct {
	Cores      *float64 `yaml:"cores"`       // may be fractional
	SwitchCost *float64 `yaml:"switch_cost"` // σ: throughput lost per job beyond the cores; default 0
}

type cpuProg struct{ cores, switchCost float64 }

func (s *CPUSpec) compile(c *compiler, _ *compProg, at site) kindProg {
	cp := &cpuProg{}
	switch {
	case s.Cores == nil:
		c.failAt(at, "cores", "a cpu needs cores (e.g. cores: 4)")
	case *s.Cores <= 0:
		c.failAt(at, "cores", "cores must be > 0, got %g", *s.Cores)
	default:
		cp.cores = *s.Cores
	}
	// σ is a share of throughput. Above 1, a single job beyond the cores
	// would more than halve the work done, c/(1 + σ) < c/2: not scheduling
	// overhead but another failure (swapping), which this model does not
	// describe.
	if s.SwitchCost != nil {
		if !(*s.SwitchCost >= 0 && *s.SwitchCost <= 1) {
			c.failAt(at, "switch_cost", "switch_cost must be between 0 and 1 (a share of throughput per thread beyond the cores, e.g. 0.02), got %g", *s.SwitchCost)
		} else {
			cp.switchCost = *s.SwitchCost
		}
	}
	return cp
}

func (cp *cpuProg) newRuntime(r *run, _ int32, _ *compProg, _ *sim.Streams) component {
	c := &cpuRT{cores: cp.cores}
	c.ProcessorSharing = sim.NewProcessorSharing(r.s, cp.cores, func(id int32) { r.workDone(id) })
	c.SetSwitchCost(cp.switchCost)
	return c
}

type cpuRT struct {
	*sim.ProcessorSharing
	cores float64
}

// acquire starts a draw of the step's work on the shared cores; p sleeps
// until it is done (workDone) or its deadline fails it.
func (c *cpuRT) acquire(r *run, p *proc, o *op, _ *compRT) (acquired, int64) {
	c.Start(r.s.Now(), p.id, r.p.dists[o.dist].Sample(r.distRng[o.dist])*attrFactor(p.journey, o.per))
	r.runningAt(p, o.comp)
	return acqParked, 0
}

func (c *cpuRT) release(*run, *proc, held, bool) {}
func (c *cpuRT) abandon(now sim.Time, p *proc)   { c.Abandon(now, p.id) }

// waiting counts work in excess of the cores: it is slowed, not queued,
// but it is the load a queue would hold.
func (c *cpuRT) waiting() int            { return max(0, int(c.InSystem.Value()-c.cores)) }
func (c *cpuRT) resetStats(now sim.Time) { c.ResetStats(now) }

func (c *cpuRT) result(_ *run, cr *ComponentResult, now sim.Time) {
	cr.Capacity = c.cores
	// Busy cores, as a dashboard shows them: switching is busy time too.
	// UsefulBusy is the part of it that did work.
	cr.MeanBusy = Num(c.Busy.Mean(now))
	cr.UsefulBusy = Num(c.Useful.Mean(now))
	// Work beyond the cores is not queued but slowed: "queue" counts the
	// jobs in excess of the cores.
	cr.MeanQueue = Num(c.InSystem.Mean(now)) - cr.MeanBusy
	cr.PeakQueue = max(0, c.InSystem.Max()-c.cores)
	cr.PeakBusy = min(c.InSystem.Max(), c.cores)
	cr.Wait = latencyOf(&sim.Tally{}) // nothing waits: work slows instead
}

func (c *cpuRT) signals() []string { return []string{"busy", "queue"} }
func (c *cpuRT) sample(put func(float64)) {
	busy := c.Busy.Value()
	put(busy)
	put(c.InSystem.Value() - busy)
}

func (c *cpuRT) busy() *sim.TimeWeighted { return &c.Busy }
func (c *cpuRT) busyNow() float64        { return c.Busy.Value() }
func (c *cpuRT) capacity() float64       { return c.cores }
