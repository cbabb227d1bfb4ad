package model

import (
	"fmt"
	"math"

	"capsim/sim"
)

// cpu: the cores work runs on, scheduled by a discipline. ps (processor
// sharing, the default): every use with work in flight runs at once, each
// at min(1, cores/n) of a core, so more work slows all of it instead of
// queueing: threads whose work yields often, a container's vCPU share.
// With switch_cost σ, the jobs beyond the cores also cost throughput
// (context switches, cold caches): each runs at min(1, c/n)/(1 + σ·max(0,
// n − max(c, 1))), the model of sim.ProcessorSharing. fifo: each core runs
// one job to completion, the others wait (work that never yields). rr: a
// job runs for at most quantum, then gives its core to the next waiting
// job (a preemptive runtime or kernel time slice); a switch with e jobs
// beyond the cores costs σ·e·quantum of core time, the same throughput as
// ps's at saturation. fifo and rr are sim.Cores, and take priority
// classes.

var cpuKind = &kindDef{name: "cpu", capacityUnit: "cores", newSpec: func() kindSpec { return &CPUSpec{} }, status: 503, capacity: true, runsWork: true,
	measures: []Measure{
		// mean cores' worth of work done: busy less switching
		componentMeasure("useful_busy_count", UnitCount, func(c *ComponentResult) (float64, bool) { return float64(c.UsefulBusy), true }),
	}}

// CPUSpec is a set of cores and the discipline that shares them.
type CPUSpec struct {
	Cores      *float64  `yaml:"cores" bound:"(0,count]"`                                                                                                              // may be fractional under ps
	SwitchCost *float64  `yaml:"switch_cost" bound:"[0,1]" hint:"a share of throughput per thread beyond the cores, e.g. 0.02" zero:"no throughput lost to switching"` // σ: throughput lost per job beyond the cores; default 0
	Discipline string    `yaml:"discipline"`                                                                                                                           // ps (default), fifo or rr
	Quantum    *Duration `yaml:"quantum" bound:"[quantum,time]"`                                                                                                       // rr: the time slice
	Priorities string    `yaml:"priorities"`                                                                                                                           // fifo, rr: nonpreemptive or preemptive; default none
}

// cpuDiscipline is one way of sharing the cores: the only place that says
// what each discipline takes.
type cpuDiscipline struct {
	name string
	// queues: each core runs one job at a time and the rest wait (sim.Cores);
	// the cores are then whole, and priority classes can order the wait.
	queues     bool
	quantum    bool // takes (and needs) quantum:
	switchCost bool // takes switch_cost:
	why        string
}

var cpuDisciplines = []cpuDiscipline{
	{name: "ps", switchCost: true},
	{name: "fifo", queues: true, why: "a fifo core runs each job to its end and never switches it out"},
	{name: "rr", queues: true, quantum: true, switchCost: true},
}

// cpuPriorities maps the priorities: key to whether a higher class stops
// a lower one that runs.
var cpuPriorities = map[string]bool{"nonpreemptive": false, "preemptive": true}

type cpuProg struct {
	cores, switchCost float64
	disc              *cpuDiscipline
	quantum           float64 // seconds, rr only
	priorities        bool
	preemptive        bool
}

func (s *CPUSpec) compile(c *compiler, _ *compProg, at site) kindProg {
	cp := &cpuProg{disc: &cpuDisciplines[0]}
	if s.Discipline != "" {
		cp.disc = nil
		for i := range cpuDisciplines {
			if cpuDisciplines[i].name == s.Discipline {
				cp.disc = &cpuDisciplines[i]
			}
		}
		if cp.disc == nil {
			c.failAt(at, "discipline", "discipline must be ps, fifo or rr, got %q", s.Discipline)
			return cp
		}
	}
	d := cp.disc
	switch {
	case s.Cores == nil:
		c.failAt(at, "cores", "a cpu needs cores (e.g. cores: 4)")
	case *s.Cores <= 0:
		c.failAt(at, "cores", "cores must be > 0, got %g", *s.Cores)
	case d.queues && (*s.Cores != math.Trunc(*s.Cores) || *s.Cores > MaxCount):
		c.failAt(at, "cores", "cores must be a whole number up to %d with discipline %s, where each core runs one job at a time, got %g", MaxCount, d.name, *s.Cores)
	default:
		cp.cores = *s.Cores
	}
	// σ is a share of throughput. Above 1, a single job beyond the cores
	// would more than halve the work done, c/(1 + σ) < c/2: not scheduling
	// overhead but another failure (swapping), which this model does not
	// describe.
	if s.SwitchCost != nil {
		switch {
		case !d.switchCost:
			c.failAt(at, "switch_cost", "switch_cost does not apply to discipline %s: %s (use rr for time slices)", d.name, d.why)
		case !(*s.SwitchCost >= 0 && *s.SwitchCost <= 1):
			c.failAt(at, "switch_cost", "switch_cost must be between 0 and 1 (a share of throughput per thread beyond the cores, e.g. 0.02), got %g", *s.SwitchCost)
		default:
			cp.switchCost = *s.SwitchCost
		}
	}
	switch {
	case s.Quantum != nil && !d.quantum:
		c.failAt(at, "quantum", "quantum applies to discipline rr, not %s", d.name)
	case s.Quantum == nil && d.quantum:
		c.failAt(at, "discipline", "discipline rr needs a quantum, the time slice a job runs before the next waiting one (e.g. quantum: 10ms)")
	case s.Quantum != nil && s.Quantum.T < MinQuantum:
		c.failAt(at, "quantum", "quantum must be at least %s, got %s", MinQuantum, s.Quantum.T)
	case s.Quantum != nil:
		cp.quantum = s.Quantum.T.Seconds()
	}
	if s.Priorities != "" {
		pre, ok := cpuPriorities[s.Priorities]
		switch {
		case !ok:
			c.failAt(at, "priorities", "priorities must be nonpreemptive or preemptive, got %q", s.Priorities)
		case !d.queues:
			c.failAt(at, "priorities", "priorities need discipline fifo or rr, where work waits for a core; under %s every job runs at once", d.name)
		default:
			cp.priorities, cp.preemptive = true, pre
		}
	}
	return cp
}

// priorityRefusal says why a use: of this cpu may not give a priority, or
// is "" when it may.
func (cp *cpuProg) priorityRefusal(name string) string {
	if cp.priorities {
		return ""
	}
	return fmt.Sprintf("priority on a cpu needs priorities: nonpreemptive or preemptive (with discipline fifo or rr); %s has none", name)
}

// cpuServer is what the runtime needs of either primitive.
type cpuServer interface {
	start(now sim.Time, id int32, work float64, class int)
	Abandon(now sim.Time, id int32) bool
	ResetStats(now sim.Time)
	Stats() *sim.CPUStats
}

type sharedCores struct{ *sim.ProcessorSharing }

// start ignores the class: compilation refuses priorities under ps.
func (c sharedCores) start(now sim.Time, id int32, work float64, _ int) { c.Start(now, id, work) }

type queuedCores struct{ *sim.Cores }

func (c queuedCores) start(now sim.Time, id int32, work float64, class int) {
	c.Start(now, id, work, class)
}

func (cp *cpuProg) newRuntime(r *run, _ int32, _ *compProg, _ *sim.Streams) component {
	c := &cpuRT{cores: cp.cores, priorities: cp.priorities}
	done := func(id int32) { r.workDone(id) }
	if cp.disc.queues {
		q := sim.NewCores(r.s, int(cp.cores), cp.quantum, cp.preemptive, done)
		q.SetSwitchCost(cp.switchCost)
		c.server = queuedCores{q}
	} else {
		ps := sim.NewProcessorSharing(r.s, cp.cores, done)
		ps.SetSwitchCost(cp.switchCost)
		c.server = sharedCores{ps}
	}
	c.CPUStats = c.server.Stats()
	return c
}

type cpuRT struct {
	server cpuServer
	*sim.CPUStats
	cores      float64
	priorities bool
}

// acquire starts a draw of the step's work on the cores; p sleeps until it
// is done (workDone) or its deadline fails it. Its class is the pools': the
// step's, else the journey's.
func (c *cpuRT) acquire(r *run, p *proc, o *op, comp int32, _ *compRT) (acquired, int64) {
	class := 0
	if c.priorities {
		class = r.p.journeys[p.journey.typ].priority
		if o.priority > 0 {
			class = int(o.priority - 1)
		}
	}
	c.server.start(r.s.Now(), p.id, r.draws[o.dist].sample()*attrFactor(p.journey, o.per), class)
	r.runningAt(p, comp)
	return acqParked, 0
}

func (c *cpuRT) release(*run, *proc, held, bool) {}
func (c *cpuRT) abandon(now sim.Time, p *proc)   { c.server.Abandon(now, p.id) }

// waiting counts work in excess of the cores: under ps it is slowed, not
// queued, but it is the load a queue would hold; under fifo and rr it waits.
func (c *cpuRT) waiting() int            { return max(0, int(c.InSystem.Value()-c.cores)) }
func (c *cpuRT) resetStats(now sim.Time) { c.server.ResetStats(now) }

func (c *cpuRT) result(_ *run, cr *ComponentResult, now sim.Time) {
	cr.Capacity = c.cores
	// Busy cores, as a dashboard shows them: switching is busy time too.
	// UsefulBusy is the part of it that did work.
	cr.MeanBusy = Num(c.Busy.Mean(now))
	cr.UsefulBusy = Num(c.Useful.Mean(now))
	// "queue" counts the jobs in excess of the busy cores: slowed under ps,
	// waiting for a core under fifo and rr.
	cr.MeanQueue = Num(c.InSystem.Mean(now)) - cr.MeanBusy
	cr.PeakQueue = max(0, c.InSystem.Max()-c.cores)
	cr.PeakBusy = min(c.InSystem.Max(), c.cores)
	// The wait for a first run on a core; empty under ps, where nothing
	// waits and work slows instead.
	cr.Wait = latencyOf(&c.Wait)
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

// waitRunning is the state of a proc whose work runs on the cores: the
// cores end it (workDone), its deadline's timer fails it, and a
// cancellation takes its work off the cores.
func init() {
	waitStates[waitRunning] = waitState{name: "running", deadline: reachTimer, withdraw: (*run).leaveComponent,
		expire: func(r *run, p *proc) {
			c := &r.comps[p.waitComp]
			c.rt.abandon(r.s.Now(), p)
			c.timedOut++
			p.waiting = waitNone
			r.emit(EvTimeout, p, p.waitComp, 504)
			r.fail(p, 504, p.waitComp)
		}}
}

// runningAt parks p while its work runs at component comp (a cpu, whose
// cores it shares); workDone wakes p when the work is done, or its deadline
// fails it.
func (r *run) runningAt(p *proc, comp int32) {
	p.seq++
	p.waiting = waitRunning
	p.waitComp = comp
	if p.deadline != sim.Never {
		p.timer = r.s.Timer(p.deadline, r.kTimeout, pack(p))
	}
}

func (r *run) workDone(id int32) {
	p := r.procs[id]
	r.s.Cancel(p.timer)
	p.waiting = waitSleep
	p.seq++
	r.s.After(0, r.kWake, pack(p))
}
