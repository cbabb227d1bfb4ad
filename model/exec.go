package model

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"capsim/sim"
	"capsim/sim/human"
)

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

// The interpreter. A proc runs ops until it has to wait; whatever wakes it
// (a timer, a grant, a child's end) goes through an event, so no proc ever
// runs inside another's step and the order of everything is the event
// queue's (time, seq) order.

func (r *run) newProc(kind procKind, jr *jrec, parent *proc) *proc {
	var p *proc
	if n := len(r.freeProcs); n > 0 {
		p = r.procs[r.freeProcs[n-1]]
		r.freeProcs = r.freeProcs[:n-1]
	} else {
		p = &proc{id: int32(len(r.procs))}
		r.procs = append(r.procs, p)
	}
	p.kind, p.journey, p.parent = kind, jr, parent
	jr.refs++
	p.client = false
	p.start = r.s.Now()
	p.frames, p.held = p.frames[:0], p.held[:0]
	p.waiting = waitNone
	p.pending, p.toSpawn, p.attempt, p.polls = 0, 0, 0, 0
	p.failStage, p.failComp = -1, -1
	p.reqID, p.jobID = 0, 0
	p.picks, p.unwinding = p.picks[:0], false
	p.cancelled, p.abandoned, p.failFast, p.kids = false, false, false, p.kids[:0]
	p.recovering = false
	p.orphanedAt = sim.Never
	if parent != nil {
		p.picks = append(p.picks, parent.picks...)
		p.pgen, p.pseq = parent.gen, parent.seq
		p.deadline, p.checkAt, p.stage = parent.deadline, parent.checkAt, parent.stage
		p.reqID, p.jobID = parent.reqID, parent.jobID
	}
	r.inFlight++
	return p
}

func (r *run) freeProc(p *proc) {
	p.gen++
	p.seq++
	if jr := p.journey; jr != nil {
		if jr.refs--; jr.refs == 0 && !jr.active {
			r.freeJ = append(r.freeJ, jr.slot)
		}
	}
	p.journey, p.parent = nil, nil
	r.inFlight--
	r.freeProcs = append(r.freeProcs, p.id)
}

func pack(p *proc) int64 { return int64(p.id) | int64(p.seq)<<32 }

// reportJobFailure fails p with the failure of an async job of its journey
// that no wait has reported yet, as a client polling a job's status learns
// that it failed, and says whether it did.
func (r *run) reportJobFailure(p *proc) bool {
	jr := p.journey
	if jr.jobFailStatus == 0 {
		return false
	}
	status, stage, comp := jr.jobFailStatus, jr.jobFailStage, jr.jobFailComp
	jr.jobFailStatus = 0
	r.failAt(p, status, comp, stage)
	return true
}

// granted is called by a component when queued proc id obtains it.
// Pools and locks grant while a model handler runs (a release inside some
// proc's step): the proc joins the ready list, run as soon as that step
// ends, which saves an event per queued request. A worker grants from its
// own kernel event, so its proc is woken through the queue.
func (r *run) granted(id int32, comp int32, key int64, fromKernel bool) {
	p := r.procs[id]
	p.held = append(p.held, held{comp: comp, key: key, leak: p.waitLeak})
	if r.tr != nil {
		r.traceAcquired(p, comp, key)
	}
	r.s.Cancel(p.timer)
	p.waiting = waitSleep
	p.seq++
	if fromKernel {
		r.s.After(0, r.kWake, pack(p))
		return
	}
	r.ready = append(r.ready, readyProc{p: p, seq: p.seq})
}

// runReady runs the procs granted a resource during the current event, in
// the order they were granted. Every model handler ends with it.
func (r *run) runReady() {
	for i := 0; i < len(r.ready); i++ {
		p, seq := r.ready[i].p, r.ready[i].seq
		r.ready[i] = readyProc{}
		if p.seq != seq {
			continue // cancelled since it was granted
		}
		p.waiting = waitNone
		r.exec(p)
	}
	r.ready = r.ready[:0]
}

// drawTime draws a time from distribution d; 0 when d is -1 (none).
func (r *run) drawTime(d int32) sim.Time {
	if d < 0 {
		return 0
	}
	return sim.Seconds(r.p.dists[d].Sample(r.distRng[d]))
}

// waitUntil is when p must stop waiting, given a timeout (0: none) and
// its deadline.
func (r *run) waitUntil(p *proc, timeout sim.Time) sim.Time {
	end := p.deadline
	if timeout > 0 && r.s.Now()+timeout < end {
		end = r.s.Now() + timeout
	}
	return end
}

// exec runs p's ops until p waits or ends. It never recurses: a failure
// that an optional frame swallows while p's ops run (failAt calls exec
// again) only marks p to go on, and the loop here carries on with the step
// after the frame.
func (r *run) exec(p *proc) {
	if r.executing == p {
		p.resume = true
		return
	}
	prev := r.executing
	r.executing = p
	// n counts the ops run since p was woken, across swallowed failures,
	// for the yield below.
	n := 0
	blocks := r.p.blocks
ops:
	for ; ; n++ {
		if n >= yieldEvery {
			if r.tooManyAtOnce(p, n) {
				break ops
			}
			r.sleep(p, waitSleep, 0)
			break ops
		}
		if len(p.frames) == 0 {
			r.finish(p, 200)
			break ops
		}
		f := &p.frames[len(p.frames)-1]
		ops := blocks[f.blk].ops
		if int(f.pc) >= len(ops) {
			if f.iter+1 < f.n {
				f.iter++
				f.pc = 0
				continue
			}
			// A frame that took the place of the frames it ended in
			// counts as their ends, for the yield.
			n += int(f.tails)
			r.popFrame(p)
			continue
		}
		o := &ops[f.pc]
		if p.checkAt != sim.Never {
			if r.pastCheck(p) {
				break ops
			}
		}
		// The commonest ops are tested one by one before the switch: a
		// switch this large becomes a jump table, one indirect branch
		// for every op, which the processor mispredicts as the ops of a
		// journey follow each other; tests it learns.
		if code := o.code; code == opWork || code == opDelay {
			f.pc++
			d := sim.Seconds(r.p.dists[o.dist].Sample(r.distRng[o.dist]) * attrFactor(p.journey, o.per))
			if now := r.s.Now(); p.deadline != sim.Never && now+d > p.deadline {
				r.sleep(p, waitDeadline, p.deadline-now)
				break ops
			}
			r.sleep(p, waitSleep, d)
			break ops
		} else if code == opAcquire {
			f.pc++
			if !r.acquire(p, o) {
				break ops
			}
			continue
		} else if code == opScope {
			f.pc++
			if int(f.pc) == len(ops) && f.iter+1 >= f.n && (f.optional || !o.optional) {
				// The frame's last step, in its last round: the scope's
				// frame would end just before this one, and the two
				// release what they hold in the same order, innermost
				// first, at the same instant, so the scope takes this
				// frame's place (a journey's one use: step is such a
				// scope). A failure inside unwinds the same way, as long
				// as this frame is as optional as the scope, or more;
				// what the two frames' ends would set in between (the
				// stage label) nothing reads.
				f.blk, f.pc, f.iter, f.n = o.body, 0, 0, 1
				f.tails++
				continue
			}
			r.pushFrame(p, o.body, 1, o.optional)
			continue
		}
		if r.step(p, f, o) {
			break ops
		}
	}
	if p.resume {
		// A failure swallowed by an optional frame while p's ops ran:
		// carry on with the step after the frame.
		p.resume = false
		goto ops
	}
	r.executing = prev
}

// step runs one of the less common ops, o, the op at f's pc, and says
// whether p now waits or ended. They are out of exec's loop so that the
// loop's registers serve the common ops.
func (r *run) step(p *proc, f *frame, o *op) bool {
	switch o.code {
	case opRepeat:
		f.pc++
		if times := r.count(p, o.count); times > 0 {
			r.pushFrame(p, o.body, times, false)
		}
	case opChoose:
		f.pc++
		r.pushFrame(p, r.choose(p, o), 1, false)
	case opStage:
		f.pc++
		p.stage = o.name
	case opLog:
		f.pc++
		r.emitLog(o, p)
	case opFail:
		f.pc++
		if r.streams[o.stream].Float64() < o.p {
			r.fail(p, o.status, -1)
			return true
		}
	case opAwaitJobs:
		f.pc++
		if p.journey.jobs > 0 {
			p.seq++
			p.waiting = waitJobs
			p.journey.awaiter, p.journey.awaiterSeq = p, p.seq
			if p.deadline != sim.Never {
				p.timer = r.s.Timer(p.deadline, r.kTimeout, pack(p))
			}
			return true
		}
		if r.reportJobFailure(p) {
			return true
		}
	case opCall:
		r.startCall(p, o)
		return true
	case opJob:
		r.startJob(p, o)
		if !o.async {
			return true
		}
		f.pc++
	case opFanout:
		branches := r.count(p, o.count)
		if branches == 0 {
			f.pc++
			return false
		}
		r.startFanout(p, o, branches)
		return true
	case opPoll, opPollWhile:
		if !r.pollTick(p, o) {
			return true
		}
	}
	return false
}

// yieldEvery is how many ops a proc runs before it yields through the
// event queue, so that other events of the same instant, the interrupt
// poll and the guards get their turn even when no simulated time passes.
const yieldEvery = 4096

func (r *run) count(p *proc, c count) int32 {
	if c.attr < 0 {
		return c.n
	}
	return int32(p.journey.attrs[c.attr])
}

func (r *run) choose(p *proc, o *op) int32 {
	attrs := p.journey.attrs
	weight := func(b branchProg) float64 {
		if b.weight.attr >= 0 {
			return attrs[b.weight.attr]
		}
		return b.weight.v
	}
	total := 0.0
	for _, b := range o.branches {
		total += weight(b)
	}
	u := r.streams[o.stream].Float64() * total
	for _, b := range o.branches {
		if u < weight(b) {
			return b.body
		}
		u -= weight(b)
	}
	return o.branches[len(o.branches)-1].body
}

func (r *run) pushFrame(p *proc, blk int32, n int32, optional bool) {
	p.pushFrame(blk, n, p.stage, optional)
}

// pushFrame starts a frame running block blk n times (0 counts as once)
// above the holds p has now. The fields are written where the frame lives:
// a frame literal appended whole is built on the stack in 4-byte stores
// and copied in 16-byte loads, which the processor cannot forward from
// those stores, a stall on every frame pushed.
func (p *proc) pushFrame(blk, n, stage int32, optional bool) {
	if len(p.frames) == cap(p.frames) {
		p.frames = append(p.frames, frame{})
	} else {
		p.frames = p.frames[:len(p.frames)+1]
	}
	f := &p.frames[len(p.frames)-1]
	f.blk, f.pc, f.iter, f.n = blk, 0, 0, n
	f.stage, f.held, f.optional, f.tails = stage, int32(len(p.held)), optional, 0
}

// popFrame ends the top frame, releasing what was acquired inside it.
func (r *run) popFrame(p *proc) {
	top := &p.frames[len(p.frames)-1]
	base, stage := int(top.held), top.stage
	for len(p.held) > base {
		h := p.held[len(p.held)-1]
		p.held = p.held[:len(p.held)-1]
		// Traced before the release, which may hand the component to a
		// waiter at once: its start must follow this end, or in_flight
		// would read one more than the component holds.
		if r.tr != nil {
			r.traceReleased(p, h.comp)
		}
		r.comps[h.comp].rt.release(r, p, h, p.unwinding)
	}
	p.stage = stage
	p.frames = p.frames[:len(p.frames)-1]
}

// acquire takes o's component for p; false means p now waits or failed.
func (r *run) acquire(p *proc, o *op) bool {
	if ci := r.replicaComp(p, o.comp); ci != o.comp {
		if ci < 0 {
			r.breakRun("no_replica", o.comp, "used outside any pick of its balancer "+r.p.comps[r.p.comps[o.comp].behind].name)
			return false
		}
		routed := *o
		routed.comp = ci
		o = &routed
	}
	cp := &r.p.comps[o.comp]
	c := &r.comps[o.comp]
	c.offered++
	out, key := c.rt.acquire(r, p, o, c)
	switch out {
	case acqGranted:
		p.held = append(p.held, held{comp: o.comp, key: key, leak: o.leak})
		if r.tr != nil {
			r.traceAcquired(p, o.comp, key)
		}
		return true
	case acqPassed:
		return true
	case acqParked:
		return false
	case acqRejected:
		c.rejected++
		r.emit(EvRejected, p, o.comp, cp.status)
		r.fail(p, cp.status, o.comp)
		return false
	}
	p.seq++
	p.waiting = waitAcquire
	p.waitComp, p.waitKey, p.waitLeak = o.comp, key, o.leak
	if end := r.waitUntil(p, r.drawTime(cp.waitTimeout)); end != sim.Never {
		p.timer = r.s.Timer(end, r.kTimeout, pack(p))
	}
	r.emit(EvEnqueue, p, o.comp, 0)
	r.guardQueue(o.comp)
	return false
}

// fail ends p's current work with status. The failure unwinds frames,
// releasing what they hold, up to an optional frame (which swallows it) or
// out of the proc.
func (r *run) fail(p *proc, status int32, comp int32) {
	r.failAt(p, status, comp, r.label(p))
}

// label is the stage a failure of p is attributed to now: the innermost
// stage label, else the route p serves.
func (r *run) label(p *proc) int32 {
	if p.stage >= 0 || p.route < 0 {
		return p.stage
	}
	return r.p.routeLabel[p.route]
}

// failAt fails p with a stage already resolved (a child's, passed up).
func (r *run) failAt(p *proc, status int32, comp int32, stage int32) {
	if p.recovering && !p.cancelled {
		// A step of the on_failure block failed: the route keeps its
		// first failure.
		status = p.failStatus
	} else {
		p.failStage, p.failComp, p.failStatus = stage, comp, status
	}
	p.unwinding = true
	for len(p.frames) > 0 {
		optional := p.frames[len(p.frames)-1].optional && !p.cancelled && !p.abandoned
		r.leakHeld(p)
		r.popFrame(p)
		if optional {
			p.unwinding = false
			r.st.tolerated++
			if !p.recovering {
				p.failStage, p.failComp = -1, -1
			}
			r.exec(p)
			return
		}
	}
	if r.startOnFailure(p) {
		return
	}
	r.finish(p, status)
}

// leakHeld drops, without releasing, the holds of the top frame that were
// taken with leak_on_failure: p is unwinding a failure, and those slots are
// never given back.
func (r *run) leakHeld(p *proc) {
	f := p.frames[len(p.frames)-1]
	kept := p.held[:f.held]
	for _, h := range p.held[f.held:] {
		if h.leak {
			r.comps[h.comp].leaked++
			continue
		}
		kept = append(kept, h)
	}
	p.held = kept
}

// pastCheck says whether p, checking the clock before a step, finds its
// deadline spent; it then stops with a 504 that no optional step
// swallows, as a handler returning its context's error does.
func (r *run) pastCheck(p *proc) bool {
	if p.checkAt == sim.Never || r.s.Now() < p.checkAt || p.unwinding {
		return false
	}
	p.abandoned = true
	r.fail(p, 504, -1)
	return true
}
