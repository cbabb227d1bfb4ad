package model

import (
	"capsim/sim"
)

// The interpreter. A proc runs ops until it has to wait; whatever wakes it
// (a timer, a grant, a child's end) goes through an event, so no proc ever
// runs inside another's step and the order of everything is the event
// queue's (time, seq) order.

func (r *run) newProc(kind procKind, jr *jrec, parent *proc) *proc {
	p := r.freeProcs
	if p != nil {
		r.freeProcs = p.nextFree
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
	p.picks, p.kids = p.picks[:0], p.kids[:0]
	p.unwinding, p.cancelled, p.abandoned, p.failFast = false, false, false, false
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
			jr.nextFree, r.freeJ = r.freeJ, jr
		}
	}
	p.journey, p.parent = nil, nil
	r.inFlight--
	p.nextFree, r.freeProcs = r.freeProcs, p
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
// own kernel event, so its proc is woken through the queue. The zero timer
// (a wait with no timeout, the commonest) is tested here, though Cancel
// tests it too: granted is inlined into the components' grant callbacks,
// where Cancel, one inlining deeper, would be a call.
func (r *run) granted(id int32, comp int32, key int64, fromKernel bool) {
	p := r.procs[id]
	p.held = append(p.held, held{comp: comp, key: key, leak: p.waitLeak})
	if r.tr != nil {
		r.traceAcquired(p, comp, key)
	}
	if p.timer != (sim.Timer{}) { // the zero timer: see above
		r.s.Cancel(p.timer)
	}
	p.waiting = waitSleep
	p.seq++
	if fromKernel {
		r.s.After(0, r.kWake, pack(p))
		return
	}
	r.ready = append(r.ready, readyProc{p: p, seq: p.seq})
}

// runReady runs the procs granted a resource during the current event, in
// the order they were granted. Every model handler ends with it. The
// entries are not cleared: the procs they point to live in r.procs for
// the whole run, so the list keeps nothing alive.
func (r *run) runReady() {
	for i := 0; i < len(r.ready); i++ {
		p, seq := r.ready[i].p, r.ready[i].seq
		if p.seq != seq {
			continue // cancelled since it was granted
		}
		r.exec(p)
	}
	r.ready = r.ready[:0]
}

// drawTime draws a time from distribution d; 0 when d is -1 (none).
func (r *run) drawTime(d int32) sim.Time {
	if d < 0 {
		return 0
	}
	return sim.Seconds(r.draws[d].sample())
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

// exec ends p's wait and runs its ops until it waits again or ends. It
// never recurses: a failure that an optional frame swallows while p's ops
// run (failAt calls exec again) only marks p to go on, and the loop here
// carries on with the step after the frame.
func (r *run) exec(p *proc) {
	if p.running {
		p.resume = true
		return
	}
	p.waiting = waitNone // it was woken, or never waited
	p.running = true
	// n counts the ops run since p was woken, across swallowed failures,
	// for the yield below. Each frame holds its block's ops: a step reads
	// them there.
	n := 0
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
		ops := f.ops
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
			d := sim.Seconds(r.draws[o.dist].sample() * attrFactor(p.journey, o.per))
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
				f.ops, f.pc, f.iter, f.n = r.p.blocks[o.body].ops, 0, 0, 1
				f.tails++
				continue
			}
			b := &r.p.blocks[o.body]
			p.pushFrame(b.entryOps, 1, p.stage, o.optional, b.entryTails)
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
	p.running = false
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
	p.pushFrame(r.p.blocks[blk].ops, n, p.stage, optional, 0)
}

// pushFrame starts a frame running ops, a block's, n times (0 counts as once)
// above the holds p has now, standing for tails frames besides its own: a
// frame pushed at a block's entry (see block) passes its entryTails. The
// fields are written where the frame lives: a frame literal appended whole
// is built on the stack in 4-byte stores and copied in 16-byte loads, which
// the processor cannot forward from those stores, a stall on every frame
// pushed.
func (p *proc) pushFrame(ops []op, n, stage int32, optional bool, tails int32) {
	if len(p.frames) == cap(p.frames) {
		p.frames = append(p.frames, frame{})
	} else {
		p.frames = p.frames[:len(p.frames)+1]
	}
	f := &p.frames[len(p.frames)-1]
	f.ops, f.pc, f.iter, f.n = ops, 0, 0, n
	f.stage, f.held, f.optional, f.tails = stage, int32(len(p.held)), optional, tails
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
	comp := o.comp
	c := &r.comps[comp]
	if c.behind >= 0 {
		// The replica of p's pick, passed beside the op: a copy of the op
		// naming it escaped to the heap, an allocation per acquire.
		comp = r.replicaComp(p, o.comp)
		if comp < 0 {
			r.breakRun("no_replica", o.comp, "used outside any pick of its balancer "+r.p.comps[c.behind].name)
			return false
		}
		c = &r.comps[comp]
	}
	// behind and waitTimeout are c's copies of the program's: see compRT.
	c.offered++
	out, key := c.rt.acquire(r, p, o, comp, c)
	switch out {
	case acqGranted:
		p.held = append(p.held, held{comp: comp, key: key, leak: o.leak})
		if r.tr != nil {
			r.traceAcquired(p, comp, key)
		}
		return true
	case acqPassed:
		return true
	case acqParked:
		return false
	case acqRejected:
		c.rejected++
		r.emit(EvRejected, p, comp, r.p.comps[comp].status)
		r.fail(p, r.p.comps[comp].status, comp)
		return false
	}
	p.seq++
	p.waiting = waitAcquire
	p.waitComp, p.waitKey, p.waitLeak = comp, key, o.leak
	if end := r.waitUntil(p, r.drawTime(c.waitTimeout)); end != sim.Never {
		p.timer = r.s.Timer(end, r.kTimeout, pack(p))
	}
	r.emit(EvEnqueue, p, comp, 0)
	r.guardQueue(c, comp)
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

// A route's on_failure: steps run when the route's steps fail, before its
// failure reaches its caller, as a handler spends time writing its 503 or
// 504. The block is compiled like the route's body and run by the route's
// own proc once the failure has unwound every frame of the body (giving
// back what they held), so it costs nothing to a request that succeeds.
//
// The rules, which docs/language.md states:
//   - the route fails with the status (and stage, and component) of the
//     first failure, after the block, and the block's time counts in the
//     route's latency;
//   - a step of the block that fails ends the block there (an optional
//     step inside it swallows a failure as anywhere); the block never runs
//     twice;
//   - the deadline no longer applies inside the block: a handler writes
//     its 504 after its deadline, so a spent deadline does not cut it. The
//     caller does not wait for it past the deadline: it gives up at it;
//   - a cancelled route (its caller gave up and it is cancellable) runs no
//     block, and a cancel during the block stops it: nobody reads the
//     response.

// startOnFailure starts p's on_failure block once its failure has unwound
// every frame, and says whether it did.
func (r *run) startOnFailure(p *proc) bool {
	if p.recovering || p.cancelled || p.route < 0 || (p.kind != procCall && p.kind != procJob) {
		return false
	}
	blk := r.p.routes[p.route].onFailure
	if blk < 0 {
		return false
	}
	p.recovering = true
	p.unwinding, p.abandoned = false, false
	p.deadline, p.checkAt = sim.Never, sim.Never
	r.pushFrame(p, blk, 1, false)
	r.exec(p)
	return true
}
