package model

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"capsim/sim"
	"capsim/sim/human"
)

// RunOptions are the knobs of one run.
type RunOptions struct {
	Multiplier float64 // scales every journey rate and closed population (but scaled: false); 0 means 1
	Seed       uint64
	// Trace, when set, receives every traced event in simulated-time order.
	// The event is reused after the call returns.
	Trace func(*TraceEvent)
	// SeriesStep, when > 0, samples in-flight journeys and every component's
	// queue and occupancy at that step for time-series charts.
	SeriesStep sim.Time
	// Interrupted, when set, is polled during the run; once it reports
	// true the run stops and Run returns ErrInterrupted.
	Interrupted func() bool
	// Arrivals, when it names a journey, replaces that journey's arrivals
	// (rate, profile or clients, and the multiplier) with these start
	// times, sorted: a recorded run's journeys replayed.
	Arrivals map[string][]sim.Time
}

// ErrInterrupted is returned by Run when RunOptions.Interrupted stopped it.
var ErrInterrupted = errors.New("run interrupted")

type procKind uint8

const (
	procRoot   procKind = iota // a journey's client
	procCall                   // a request being served
	procJob                    // a job being run
	procBranch                 // one arm of a fan-out
	procPoller                 // polls while its parent's call is open
)

type frame struct {
	blk   int32
	pc    int32
	iter  int32
	n     int32
	stage int32 // stage label in force before this frame
	held  int32 // held resources below this frame
	// tails counts the frames this one stands for besides its own: the
	// frames of scopes that were the last step of their frame, whose place
	// they took (see exec).
	tails    int32
	optional bool // a failure inside ends the frame, not the process
}

type held struct {
	comp int32
	key  int64 // lock key, worker instance, or balancer replica (bit 32: a session)
	leak bool  // not released when its frame ends by a failure
}

type proc struct {
	// Fields are grouped by use and ordered by size, so that a proc packs
	// tightly: the interpreter touches the first ones on every step.
	journey *jrec
	frames  []frame
	held    []held
	id      int32
	seq     uint32 // bumped on every new wait, so stale wake-ups are ignored
	gen     uint32 // bumped on free, so stale references are detected
	stage   int32
	route   int32

	kind      procKind
	waiting   waitKind
	client    bool // requests it makes are what HTTP dashboards count
	waitLeak  bool // the hold awaited is taken with leak_on_failure
	unwinding bool // frames are ending by a failure
	resume    bool // a failure was swallowed while its ops ran: go on
	cancelled bool // its caller gave up and it observes that: it only unwinds
	abandoned bool // it found its deadline spent before a step: it only unwinds
	failFast  bool // its fan-out fails at the first failed branch

	deadline sim.Time
	checkAt  sim.Time // the deadline it reads before each step (on_deadline: check)
	start    sim.Time
	// orphanedAt is when its caller gave up on it, if it did.
	orphanedAt sim.Time
	waitKey    int64
	timer      sim.Timer
	waitComp   int32

	parent *proc
	pgen   uint32 // parent's gen at spawn
	pseq   uint32 // parent's wait seq at spawn
	reqID  int64
	jobID  int64

	// children
	pending      int32
	toSpawn      int32
	body         int32 // fan-out body still to spawn
	attempt      int32
	polls        int32
	outcome      int32 // status delivered by the last child
	outStage     int32
	outComp      int32
	callDeadline sim.Time
	awaitedReq   int64 // the request of the call being waited for, for tracing its timeout

	failStage  int32
	failComp   int32
	failStatus int32 // the status p is unwinding with
	// recovering: p runs its route's on_failure block, and ends with
	// failStatus, failStage and failComp whatever the block does.
	recovering bool

	picks []pick // balancer replicas this request was routed to, inherited by callees
	// lastBackoff is the last retry sleep, for decorrelated jitter.
	lastBackoff sim.Time
	// kids are the children it waits for (the call, the job, the fan-out's
	// branches), with their generation at spawn, so that they can be
	// cancelled.
	kids []kid
}

type kid struct {
	p   *proc
	gen uint32
}

// readyProc is a proc granted a resource, with its wait seq then: a proc
// cancelled before the ready list runs has moved on and is skipped.
type readyProc struct {
	p   *proc
	seq uint32
}

type jrec struct {
	// attrs are the journey's attribute values: its type's, or its own
	// draws (in a buffer of the run's, kept across the record's reuse).
	attrs []float64
	id    int64
	user  int64
	start sim.Time
	// The last request the client made and the last job started: the
	// journey's end names them, as an application logs a journey's outcome
	// in the request that completes it.
	lastReq, lastJob int64
	awaiter          *proc
	typ              int32
	jobs             int32 // pending jobs
	client           int32 // closed workload: which client runs it; -1 for open
	slot             int32
	// procs still referring to the journey. A call whose client gave up,
	// or a job the client did not wait for, can outlive the journey; its
	// record is reused only once nothing refers to it, so such orphans go
	// on seeing their own journey's attributes, user and ids.
	refs int32
	// The first async job that failed, until an await or poll of the
	// journey's jobs reports it: status 0 = none.
	jobFailStatus, jobFailStage, jobFailComp int32
	awaiterSeq                               uint32
	counted                                  bool
	active                                   bool
}

type run struct {
	p    *program
	opts RunOptions
	s    *sim.Sim
	mult float64

	distRng []*rand.Rand
	streams []*rand.Rand
	arrRng  []*rand.Rand
	comps   []compRT

	procs     []*proc
	freeProcs []int32
	jrecs     []*jrec
	freeJ     []int32
	inFlight  int
	active    int // journeys in flight
	arrivals  []int64
	// replay is each journey's RunOptions.Arrivals, nil for one that has
	// none (and for every journey of a run without them).
	replay    [][]sim.Time
	ready     []readyProc // granted during the current event, to run when it ends
	ended     bool        // arrivals over
	exhausted []bool      // journey types that reached their count
	nextReq   int64
	nextJob   int64
	nextJrn   int64

	kArrive, kWake, kTimeout, kWarm, kEnd, kSample, kClient sim.Kind

	// ramps are the closed journeys' populations over time, nil for
	// journeys without stages; kRamp changes one.
	ramps []*clientRamp
	kRamp sim.Kind

	// executing is the proc whose ops run now; instant and instantOps
	// count the ops run at one instant, for the zero-time loop guard.
	executing  *proc
	instant    sim.Time
	instantOps int64

	// attrBufs holds the drawn attributes of the journey in each record
	// slot, reused with the slot.
	attrBufs [][]float64
	// retryTokens is each call site's retry budget (by op site; -1 until
	// its first try ends).
	retryTokens []float64

	st       stats
	broken   *Broken
	trace    TraceEvent
	tr       *tracer // nil unless the run is traced
	series   *seriesRec
	recovery *recoveryRec
}

// Run executes the program once. A run is a pure function of the compiled
// scenario and the options.
func (c *Compiled) Run(opts RunOptions) (*Result, error) {
	if opts.Multiplier == 0 {
		opts.Multiplier = 1
	}
	if opts.Multiplier < 0 || math.IsNaN(opts.Multiplier) || math.IsInf(opts.Multiplier, 0) {
		return nil, fmt.Errorf("multiplier must be a finite number > 0, got %g", opts.Multiplier)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Arrivals)) {
		times := opts.Arrivals[name]
		if !slices.ContainsFunc(c.prog.journeys, func(j journeyProg) bool { return j.name == name }) {
			return nil, fmt.Errorf("arrivals given for journey %q, which the scenario does not have", name)
		}
		if !slices.IsSorted(times) || len(times) > 0 && times[0] < 0 {
			return nil, fmt.Errorf("arrivals of journey %s must be sorted times >= 0", name)
		}
	}
	r := newRun(c.prog, opts)
	r.execute()
	if opts.Interrupted != nil && r.broken == nil && r.s.Stopped() && opts.Interrupted() {
		return nil, ErrInterrupted
	}
	return r.result(c), nil
}

func newRun(p *program, opts RunOptions) *run {
	r := &run{p: p, opts: opts, s: sim.New(), mult: opts.Multiplier}
	r.s.MaxEvents = p.limits.events
	r.s.Interrupted = opts.Interrupted
	st := sim.NewStreams(opts.Seed)
	for i := range p.dists {
		r.distRng = append(r.distRng, st.Get(p.distName[i]))
	}
	for _, name := range p.streams {
		r.streams = append(r.streams, st.Get(name))
	}
	for _, j := range p.journeys {
		r.arrRng = append(r.arrRng, st.Get("arrivals/"+j.name))
	}
	r.kWake = r.s.Handle(r.onWake)
	r.kTimeout = r.s.Handle(r.onTimeout)
	r.kArrive = r.s.Handle(r.onArrive)
	r.kWarm = r.s.Handle(r.onWarmup)
	r.kEnd = r.s.Handle(r.onArrivalsEnd)
	r.kSample = r.s.Handle(r.onSample)
	r.kClient = r.s.Handle(r.onClientNext)
	r.comps = make([]compRT, len(p.comps))
	if opts.Trace != nil {
		r.tr = newTracer(r)
	}
	for i := range p.comps {
		cp := &p.comps[i]
		r.comps[i].rt = cp.prog.newRuntime(r, int32(i), cp, st)
	}
	for i := range r.comps {
		if l, ok := r.comps[i].rt.(linker); ok { // after the rest: it reads them
			l.link(r, int32(i))
		}
	}
	r.st = newStats(p)
	r.retryTokens = make([]float64, len(p.sites))
	for i := range r.retryTokens {
		r.retryTokens[i] = -1
	}
	r.arrivals = make([]int64, len(p.journeys))
	if opts.Arrivals != nil {
		r.replay = make([][]sim.Time, len(p.journeys))
		for ji, j := range p.journeys {
			if times, ok := opts.Arrivals[j.name]; ok {
				if times == nil {
					times = []sim.Time{} // given, and empty: no arrivals
				}
				r.replay[ji] = times
			}
		}
	}
	if opts.SeriesStep > 0 {
		r.series = newSeriesRec(r, opts.SeriesStep)
		r.s.At(0, r.kSample, 0)
	}
	if p.recovery != nil {
		r.recovery = newRecoveryRec(r)
	}
	return r
}

func (r *run) execute() {
	p := r.p
	for ji := range p.journeys {
		j := &p.journeys[ji]
		if times, ok := r.opts.Arrivals[j.name]; ok {
			if len(times) > 0 {
				r.s.At(times[0], r.kArrive, int64(ji))
			}
			continue
		}
		if j.closed && j.profile != nil {
			r.startRamp(ji)
			continue
		}
		if j.clients > 0 {
			n := int(math.Round(float64(j.clients) * r.multOf(ji)))
			for c := 0; c < n; c++ {
				r.s.At(j.start, r.kClient, int64(ji)<<32|int64(c))
			}
			continue
		}
		if j.profile != nil {
			if first, ok := r.firstArrival(ji); ok {
				r.s.At(first, r.kArrive, int64(ji))
			}
			continue
		}
		if j.wave.period > 0 {
			if first, ok := r.waveFirst(ji); ok {
				r.s.At(first, r.kArrive, int64(ji))
			}
			continue
		}
		if j.rate*r.multOf(ji) > 0 {
			// A constant arrival rate starts at once, as a load tester's
			// does; a Poisson stream starts one random gap in.
			first := j.start
			if !j.even {
				first += r.gap(ji)
			}
			if first < j.stop {
				r.s.At(first, r.kArrive, int64(ji))
			}
		}
	}
	if p.warmup > 0 {
		r.s.At(p.warmup, r.kWarm, 0)
	}
	r.s.At(p.duration, r.kEnd, 0)
	end := sim.Never
	if p.drain != sim.Never {
		end = p.duration + p.drain
	}
	if p.limits.time < end {
		end = p.limits.time
	}
	r.s.RunUntil(end)
	switch {
	case r.broken != nil:
	case r.s.Stopped() && r.s.Fired() == p.limits.events:
		r.breakRun("max_events", -1, fmt.Sprintf("%d events fired", p.limits.events))
	case !r.s.Stopped() && r.s.Pending() == 0 && r.active > 0 && r.s.Now() < end:
		// Nothing is left to happen, yet journeys are in flight: they
		// wait for each other (a job awaiting its own journey's jobs).
		r.breakRun("deadlock", -1, fmt.Sprintf("nothing left to happen at %s with %d journeys still waiting%s", human.Seconds(r.s.Now().Seconds()), r.active, r.waitingWhere()))
	case !r.s.Stopped() && end == p.limits.time && r.active > 0:
		r.breakRun("max_time", -1, fmt.Sprintf("simulated time reached %s with %d journeys in flight", human.Seconds(p.limits.time.Seconds()), r.active))
	}
}

// multOf is the load multiplier of journey ji: the run's, or 1 for a
// journey that is not scaled.
func (r *run) multOf(ji int) float64 {
	if r.p.journeys[ji].unscaled {
		return 1
	}
	return r.mult
}

// gap is the time to the next arrival of journey ji.
func (r *run) gap(ji int) sim.Time {
	j := &r.p.journeys[ji]
	rate := j.rate * r.multOf(ji)
	// At least a nanosecond: at an absurd rate the clock must still move,
	// so that the arrival window ends (or a guard trips) instead of every
	// arrival landing on one instant.
	if j.even {
		return max(1, sim.Seconds(1/rate))
	}
	return max(1, sim.Seconds(r.arrRng[ji].ExpFloat64()/rate))
}

func (r *run) onArrive(arg int64) {
	ji := int(arg)
	j := &r.p.journeys[ji]
	if r.ended {
		return
	}
	r.arrivals[ji]++
	r.startJourney(int32(ji), -1)
	r.runReady()
	if r.replay != nil && r.replay[ji] != nil {
		times := r.replay[ji]
		if n := r.arrivals[ji]; n < int64(len(times)) {
			r.s.At(max(times[n], r.s.Now()), r.kArrive, arg)
		}
		return
	}
	if j.count > 0 && r.arrivals[ji] >= j.count {
		r.arrivalsDone(ji)
		return
	}
	if j.profile != nil {
		if next, ok := r.profileNext(ji, r.s.Now()); ok {
			r.s.At(next, r.kArrive, arg)
		}
		return
	}
	if j.wave.period > 0 {
		if next, ok := r.waveNext(ji, r.s.Now()); ok {
			r.s.At(next, r.kArrive, arg)
		}
		return
	}
	if next := r.s.Now() + r.gap(ji); next < j.stop {
		r.s.At(next, r.kArrive, arg)
	}
}

func (r *run) onClientNext(arg int64) {
	ji := int32(arg >> 32)
	if r.ended {
		return
	}
	if !r.clientStays(ji, int32(arg)) {
		return
	}
	j := &r.p.journeys[ji]
	if j.count > 0 && r.arrivals[ji] >= j.count || r.s.Now() >= j.stop {
		r.arrivalsDone(int(ji))
		return
	}
	r.arrivals[ji]++
	r.startJourney(ji, int32(arg))
	r.runReady()
}

// arrivalsDone notes that journey ji will start no more journeys; when no
// journey type will, the run ends as it would at the end of the duration.
func (r *run) arrivalsDone(ji int) {
	if r.exhausted == nil {
		r.exhausted = make([]bool, len(r.p.journeys))
	}
	r.exhausted[ji] = true
	for _, x := range r.exhausted {
		if !x {
			return
		}
	}
	r.onArrivalsEnd(0)
}

func (r *run) onArrivalsEnd(int64) {
	r.ended = true
	if r.active == 0 && r.p.drain == sim.Never {
		r.s.Stop()
	}
}

func (r *run) onWarmup(int64) {
	now := r.s.Now()
	for i := range r.comps {
		c := &r.comps[i]
		c.rt.resetStats(now)
		c.offered, c.rejected, c.timedOut = 0, 0, 0
	}
	r.st.reset()
}

func (r *run) startJourney(ji int32, client int32) {
	if r.guardInFlight() {
		return
	}
	var jr *jrec
	if n := len(r.freeJ); n > 0 {
		jr = r.jrecs[r.freeJ[n-1]]
		r.freeJ = r.freeJ[:n-1]
	} else {
		jr = &jrec{slot: int32(len(r.jrecs))}
		r.jrecs = append(r.jrecs, jr)
	}
	j := &r.p.journeys[ji]
	r.nextJrn++
	// Reset in place, field by field: a literal assigned whole is built on
	// the stack and copied in wider loads than its stores, which the
	// processor cannot forward (a stall on every journey start).
	slot := jr.slot
	*jr = jrec{}
	jr.typ, jr.id, jr.client, jr.slot = ji, r.nextJrn, client, slot
	jr.start = r.s.Now()
	jr.counted, jr.active = jr.start >= r.p.warmup, true
	jr.attrs = j.attrs
	if len(j.draws) > 0 {
		for int(jr.slot) >= len(r.attrBufs) {
			r.attrBufs = append(r.attrBufs, nil)
		}
		r.attrBufs[jr.slot] = r.drawAttrs(j, r.attrBufs[jr.slot])
		jr.attrs = r.attrBufs[jr.slot]
	}
	jr.user = jr.id
	if j.users > 0 {
		jr.user = (r.arrivals[ji]-1)%j.users + 1
		jr.user = -int64(ji)<<40 - jr.user // distinct from journey ids and from other journeys' users
	}
	r.active++
	if jr.counted {
		r.st.journeys[ji].started++
	}
	if r.recovery != nil {
		r.recovery.live[ji]++
	}
	root := r.newProc(procRoot, jr, nil)
	root.client = true
	root.route = -1
	root.deadline, root.checkAt = sim.Never, sim.Never
	root.stage = -1
	root.pushFrame(j.body, 0, -1, false)
	r.emitOpen(EvJourneyStart, root)
	r.exec(root)
}

func (r *run) endJourney(p *proc, status int32) {
	jr := p.journey
	j := &r.p.journeys[jr.typ]
	jr.active = false
	r.active--
	if r.recovery != nil {
		r.recovery.live[jr.typ]--
	}
	now := r.s.Now()
	if jr.counted {
		js := &r.st.journeys[jr.typ]
		d := (now - jr.start).Seconds()
		if status < 400 {
			js.succeed(d)
		} else {
			js.fail(d)
			js.addStage(r.stageName(p.failStage, p), r.compName(p.failComp))
		}
		if len(r.st.windowed) > 0 {
			r.st.journeyEnded(jr.typ, now-r.p.warmup, d, status < 400)
		}
		if r.recovery != nil {
			r.recovery.journeyEnded(jr.typ, now, r.p.warmup, d)
		}
	}
	r.emitEnd(p, status)
	if jr.client >= 0 && !r.ended && r.clientStays(jr.typ, jr.client) {
		think := sim.Time(0)
		if j.think >= 0 {
			think = sim.Seconds(r.p.dists[j.think].Sample(r.distRng[j.think]))
		}
		r.s.After(think, r.kClient, int64(jr.typ)<<32|int64(jr.client))
	}
	if r.ended && r.active == 0 && r.p.drain == sim.Never {
		r.s.Stop()
	}
}

func (r *run) stageName(stage int32, p *proc) string {
	if stage >= 0 {
		return r.p.names[stage]
	}
	if p != nil && p.route >= 0 {
		return r.p.routes[p.route].name
	}
	return "journey"
}

func (r *run) compName(c int32) string {
	if c < 0 {
		return ""
	}
	return r.p.comps[c].name
}
