package model

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"capsim/sim"
	"capsim/sim/human"
)

// A run's life: the run is built from the program, its journeys arrive
// and start, each ends, and the run's result is read when nothing is left
// to happen. What a journey's procs do in between is the interpreter's
// (exec.go).

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
		r.draws = append(r.draws, draw{dist: &p.dists[i], rng: st.Get(p.distName[i])})
	}
	for _, name := range p.streams {
		r.streams = append(r.streams, st.Get(name))
	}
	for i := range p.journeys {
		j := &p.journeys[i]
		r.arrRng = append(r.arrRng, st.Get("arrivals/"+j.name))
		r.meanGap = append(r.meanGap, 1/(j.rate*r.multOf(j)))
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
		r.comps[i].behind, r.comps[i].waitTimeout = cp.behind, cp.waitTimeout
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
			n := int(math.Round(float64(j.clients) * r.multOf(j)))
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
		if j.rate*r.multOf(j) > 0 {
			// A constant arrival rate starts at once, as a load tester's
			// does; a Poisson stream starts one random gap in.
			first := j.start
			if !j.even {
				first += r.gap(ji, j)
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
	r.s.Horizon = clockEnd
	r.s.RunUntil(end)
	switch {
	case r.broken != nil:
	case r.s.PastHorizon():
		r.breakRun("clock", -1, fmt.Sprintf("the next event falls past %s of simulated time, the furthest a run reaches, with %d journeys in flight%s",
			human.Seconds(clockEnd.Seconds()), r.active, r.waitingWhere()))
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

// onArrive starts a journey of type arg and schedules the next arrival.
// The count of arrivals is kept in n from its increment on: nothing the
// journey's start runs counts another, and reading r.arrivals again after
// those calls would cost a reload and a bounds check per arrival.
func (r *run) onArrive(arg int64) {
	ji, j := int(arg), &r.p.journeys[arg]
	if r.ended {
		return
	}
	n := r.arrivals[ji] + 1
	r.arrivals[ji] = n
	r.startJourney(int32(ji), j, -1)
	r.runReady()
	if r.replay != nil && r.replay[ji] != nil {
		times := r.replay[ji]
		if n < int64(len(times)) {
			r.s.At(max(times[n], r.s.Now()), r.kArrive, arg)
		}
		return
	}
	if j.count > 0 && n >= j.count {
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
	if next := r.s.Now() + r.gap(ji, j); next < j.stop {
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
	r.startJourney(ji, j, int32(arg))
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
	if !r.ended { // kEnd can follow arrivalsDone: the first call is the end
		r.endedAt, r.endActive, r.drainedAt = r.s.Now(), r.active, -1
		if r.active == 0 {
			r.drainedAt = r.endedAt
		}
	}
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

func (r *run) startJourney(ji int32, j *journeyProg, client int32) {
	if r.guardInFlight() {
		return
	}
	jr := r.freeJ
	if jr != nil {
		r.freeJ = jr.nextFree
	} else {
		jr = &jrec{slot: int32(len(r.jrecs))}
		r.jrecs = append(r.jrecs, jr)
	}
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
	root.pushFrame(j.entryOps, 1, -1, false, j.entryTails)
	if r.tr != nil { // here, not in a wrapper: a function this large inlines none
		r.emitOpenTraced(EvJourneyStart, root)
	}
	r.exec(root)
}

func (r *run) endJourney(p *proc, status int32) {
	jr := p.journey
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
	if r.tr != nil { // here, not in a wrapper: a function this large inlines none
		r.emitEndTraced(p, status)
	}
	if jr.client >= 0 && !r.ended && r.clientStays(jr.typ, jr.client) {
		think := sim.Time(0)
		if j := &r.p.journeys[jr.typ]; j.think >= 0 {
			think = sim.Seconds(r.draws[j.think].sample())
		}
		r.s.After(think, r.kClient, int64(jr.typ)<<32|int64(jr.client))
	}
	if r.ended && r.active == 0 {
		r.drainedAt = now
		if r.p.drain == sim.Never {
			r.s.Stop()
		}
	}
}

func (r *run) result(c *Compiled) *Result {
	now := r.s.Now()
	res := &Result{Scenario: c.Name, Design: c.Design, Multiplier: r.mult, Seed: r.opts.Seed,
		SimTime: now.Seconds(), Events: r.s.Fired(), Broken: r.broken, Tolerated: r.st.tolerated}
	if res.Design == "" {
		res.Design = "base"
	}
	unfinished := make([]int64, len(r.p.journeys))
	for _, jr := range r.jrecs {
		if jr.active && jr.counted {
			unfinished[jr.typ]++
		}
	}
	for i := range r.p.journeys {
		js := &r.st.journeys[i]
		jres := JourneyResult{Name: r.p.journeys[i].name, Started: js.started, Succeeded: js.succeeded,
			Failed: js.failed, Unfinished: unfinished[i], SuccessRate: ratio(js.succeeded, js.started),
			Requests: js.requests, RequestFailures: js.requestFailures,
			HTTPFailureRate: ratio(js.requestFailures, js.requests), Latency: latencyOf(&js.latency),
			LatencyAll: latencyOf(js.allEnded())}
		for _, s := range js.stages {
			jres.Stages = append(jres.Stages, StageResult{Stage: s.stage, Component: s.component, Count: s.n})
		}
		if unfinished[i] > 0 {
			jres.Stages = append(jres.Stages, StageResult{Stage: "unfinished", Count: unfinished[i]})
		}
		res.Journeys = append(res.Journeys, jres)
	}
	for i := range r.p.routes {
		rs := &r.st.routes[i]
		rr := RouteResult{Name: r.p.routes[i].name, Calls: rs.calls, Failures: rs.failures,
			FailureRate: ratio(rs.failures, rs.calls), Latency: latencyOf(&rs.latency),
			LatencyAll: latencyOf(&rs.client), Orphaned: rs.orphaned,
			OrphanedSeconds: rs.orphanedTime}
		for _, s := range rs.statuses {
			rr.Statuses = append(rr.Statuses, StatusCount{Status: s.status, Count: s.n})
		}
		res.Routes = append(res.Routes, rr)
	}
	for i := range r.p.comps {
		res.Components = append(res.Components, r.componentResult(i, now))
	}
	res.SLOs = evaluateSLOs(r.p.slos, res, r.worstWindow)
	if r.series != nil {
		res.Series = r.series.finish(now)
	}
	if r.recovery != nil {
		res.Recovery = r.recoveryResult()
	}
	res.Drain = r.drainResult(now)
	return res
}
