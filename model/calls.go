package model

import (
	"math"
	"slices"

	"capsim/sim"
)

// Calls, jobs, fan-outs and polls: everything that runs work in another proc
// and joins it.

// spawn creates a child of p running blk and starts it at the current
// instant. p must already be waiting (its seq bumped) when the child is to
// report back.
func (r *run) spawn(p *proc, kind procKind, blk int32) *proc {
	child := r.newProc(kind, p.journey, p)
	b := &r.p.blocks[blk]
	child.pushFrame(b.entryOps, 1, child.stage, false, b.entryTails)
	child.seq++
	child.waiting = waitStart
	r.s.After(0, r.kWake, pack(child))
	return child
}

// await makes p wait for its children in state kind, giving up after
// timeout (0: none) or at its deadline.
func (r *run) await(p *proc, kind waitKind, timeout sim.Time) {
	r.awaitUntil(p, kind, r.waitUntil(p, timeout))
}

// awaitUntil makes p wait for its children in state kind, giving up at
// end.
func (r *run) awaitUntil(p *proc, kind waitKind, end sim.Time) {
	p.kids = p.kids[:0]
	p.seq++
	p.waiting = kind
	if end != sim.Never {
		p.timer = r.s.Timer(end, r.kTimeout, pack(p))
	}
}

func (r *run) startCall(p *proc, o *op) {
	if r.guardInFlight() {
		return
	}
	now := r.s.Now()
	if p.attempt == 0 && o.deadline > 0 {
		// One absolute deadline for the whole call, retries included: each
		// stage inside gets what remains, never a fresh budget.
		p.callDeadline = now + o.deadline
	} else if p.attempt == 0 {
		p.callDeadline = sim.Never
	}
	p.attempt++
	route := &r.p.routes[o.route]
	deadline := min(p.callDeadline, p.deadline, p.checkAt)
	end := r.waitUntil(p, r.drawTime(o.timeout))
	if route.onDeadline != deadlineCut || route.onFailure >= 0 {
		// The callee does not end at the deadline (or its on_failure
		// block runs past it): the caller gives up then.
		end = min(end, deadline)
	}
	r.awaitUntil(p, waitCall, end)
	child := r.spawn(p, procCall, route.body)
	child.route = o.route
	p.kids = append(p.kids, kid{child, child.gen})
	r.nextReq++
	child.reqID = r.nextReq
	p.awaitedReq = child.reqID
	if p.client {
		p.journey.lastReq = child.reqID
	}
	child.stage = -1
	child.frames[0].stage = -1
	child.deadline, child.checkAt = sim.Never, sim.Never
	switch route.onDeadline {
	case deadlineCut:
		child.deadline = deadline
	case deadlineCheck:
		child.checkAt = deadline
	}
	r.emitOpen(EvRequestStart, child)
	if o.pollBlk >= 0 {
		// The poller stops by itself once p no longer waits for this
		// call (see pollTick), so a retry starts a fresh one.
		poller := r.spawn(p, procPoller, o.pollBlk)
		poller.client = p.client
		poller.deadline, poller.checkAt = sim.Never, sim.Never
	}
}

func (r *run) startJob(p *proc, o *op) {
	if r.guardInFlight() {
		return
	}
	if !o.async {
		r.await(p, waitJoin, r.drawTime(o.timeout))
	}
	child := r.spawn(p, procJob, r.p.routes[o.route].body)
	child.route = o.route
	child.deadline, child.checkAt = sim.Never, sim.Never
	child.stage = -1
	child.frames[0].stage = -1
	r.nextJob++
	child.jobID = r.nextJob
	p.journey.lastJob = child.jobID
	p.journey.jobs++
	if o.async {
		child.parent = nil
	} else {
		p.kids = append(p.kids, kid{child, child.gen})
	}
	r.emitOpen(EvJobStart, child)
}

func (r *run) startFanout(p *proc, o *op, n int32) {
	limit := n
	if o.limit.attr >= 0 || o.limit.n > 0 {
		limit = max(1, r.count(p, o.limit))
	}
	r.await(p, waitJoin, 0)
	p.outcome, p.outStage, p.outComp = 200, -1, -1
	p.toSpawn, p.pending, p.body = n, 0, o.body
	p.failFast = o.failFast
	for i := int32(0); i < min(n, limit); i++ {
		r.spawnBranch(p)
	}
}

func (r *run) spawnBranch(p *proc) {
	if r.guardInFlight() {
		return
	}
	b := r.spawn(p, procBranch, p.body)
	b.client = p.client
	b.route = p.route
	p.kids = append(p.kids, kid{b, b.gen})
	p.toSpawn--
	p.pending++
}

// pollTick runs one step of a poll loop; false means p now waits.
func (r *run) pollTick(p *proc, o *op) bool {
	f := &p.frames[len(p.frames)-1]
	done := false
	if o.code == opPoll {
		done = p.journey.jobs == 0
	} else {
		parent := p.parent
		done = parent == nil || parent.gen != p.pgen || parent.seq != p.pseq || !waitStates[parent.waiting].children
	}
	if done {
		p.polls, p.attempt = 0, 0
		if o.code == opPoll && r.reportJobFailure(p) {
			return false
		}
		f.pc++
		return true
	}
	if p.attempt == 0 {
		p.attempt = 1 // wait the gap, then call
		if now := r.s.Now(); p.deadline != sim.Never && now+o.every > p.deadline {
			p.attempt = 0 // the poll fails at the deadline: a later one starts afresh
		}
		r.sleepCut(p, waitPollGap, o.every)
		return false
	}
	if o.maxPolls > 0 && p.polls >= o.maxPolls {
		p.polls, p.attempt = 0, 0
		r.fail(p, 504, -1)
		return false
	}
	p.attempt = 0
	p.polls++
	r.await(p, waitPollCall, 0)
	child := r.spawn(p, procCall, r.p.routes[o.route].body)
	child.route = o.route
	child.stage = -1
	child.frames[0].stage = -1
	child.deadline, child.checkAt = sim.Never, sim.Never
	r.nextReq++
	child.reqID = r.nextReq
	r.emitOpen(EvRequestStart, child)
	return false
}

// joinEnded moves a job or fan-out on once its children ended, or fails it
// with the failure they reported.
func (r *run) joinEnded(p *proc, o *op) {
	if p.outcome >= 400 {
		r.failAt(p, p.outcome, p.outComp, p.outStage)
		return
	}
	p.frames[len(p.frames)-1].pc++
	r.exec(p)
}

// joinTimedOut fails a job or fan-out whose wait outlived its timeout or
// the deadline, at the stage in force, as a 504.
func (r *run) joinTimedOut(p *proc, o *op) { r.failAt(p, 504, -1, r.label(p)) }

// pollCallEnded counts one status call of a poll loop and lets the loop
// decide whether to go on.
func (r *run) pollCallEnded(p *proc, o *op) {
	r.countHTTP(p, p.outcome)
	r.exec(p)
}

// pollTimedOut ends a poll loop whose status call outlived the deadline:
// the call counts as a 504 and the poller fails with it.
func (r *run) pollTimedOut(p *proc, o *op) {
	r.countHTTP(p, 504)
	p.polls, p.attempt = 0, 0
	r.failAt(p, 504, -1, r.label(p))
}

func (r *run) countHTTP(p *proc, status int32) {
	if !p.client {
		return
	}
	js := &r.st.journeys[p.journey.typ]
	if p.journey.counted {
		js.requests++
		if status >= 400 {
			js.requestFailures++
		}
	}
}

// callEnded settles a call: success moves on; a failure is retried if the
// step allows, else it fails p with the callee's stage.
func (r *run) callEnded(p *proc, o *op, status, comp, stage int32) {
	r.countHTTP(p, status)
	now := r.s.Now()
	if o.signal >= 0 {
		r.comps[o.signal].rt.(signalled).signal(now, status)
	}
	f := &p.frames[len(p.frames)-1]
	if o.retry != nil && o.retry.maxTokens > 0 {
		r.throttle(o, status < 400)
	}
	if status < 400 {
		p.attempt = 0
		f.pc++
		r.exec(p)
		return
	}
	if rt := o.retry; rt != nil && p.attempt < rt.attempts && slices.Contains(rt.on, status) && r.retryAllowed(o) {
		backoff := r.backoff(p, rt)
		if now+backoff < p.callDeadline && now+backoff < p.deadline {
			r.sleep(p, waitRetry, backoff)
			return
		}
	}
	p.attempt = 0
	if stage < 0 {
		stage = r.label(p)
	}
	r.failAt(p, status, comp, stage)
}

// backoff is how long p sleeps before its next try: the exponential
// backoff of the try, capped, with the step's jitter.
func (r *run) backoff(p *proc, rt *retryProg) sim.Time {
	b := float64(rt.backoff) * math.Pow(rt.multiplier, float64(p.attempt-1))
	// Capped at the longest time a scenario may write: a multiplier of
	// 1e308 overflows to +Inf, which no clock converts.
	b = math.Min(b, math.Min(float64(rt.maxBackoff), float64(MaxDuration)))
	if rt.jitter == jitterNone {
		return sim.Time(b)
	}
	u := r.streams[rt.stream].Float64()
	switch rt.jitter {
	case jitterFull:
		b *= u
	case jitterEqual:
		b = b/2 + u*b/2
	case jitterDecorrelated:
		prev := float64(rt.backoff)
		if p.attempt > 1 {
			prev = float64(p.lastBackoff)
		}
		b = math.Min(float64(rt.maxBackoff), float64(rt.backoff)+u*(3*prev-float64(rt.backoff)))
	}
	p.lastBackoff = sim.Time(b)
	return p.lastBackoff
}

// throttle moves call site o's retry budget: a failed try takes a token,
// a success gives token_ratio back.
func (r *run) throttle(o *op, ok bool) {
	t := &r.retryTokens[o.site]
	if *t < 0 {
		*t = o.retry.maxTokens // full at the start
	}
	if ok {
		*t = math.Min(o.retry.maxTokens, *t+o.retry.tokenRatio)
	} else {
		*t = math.Max(0, *t-1)
	}
}

// retryAllowed says whether call site o's budget allows a retry now.
func (r *run) retryAllowed(o *op) bool {
	if o.retry.maxTokens == 0 {
		return true
	}
	return r.retryTokens[o.site] > o.retry.maxTokens/2
}

// finish ends p with status and reports to whoever waits for it.
func (r *run) finish(p *proc, status int32) {
	if p.recovering && !p.cancelled {
		status = p.failStatus // the on_failure block ran: the route fails all the same
	}
	for len(p.frames) > 0 {
		r.popFrame(p)
	}
	switch p.kind {
	case procRoot:
		r.endJourney(p, status)
	case procCall, procJob:
		r.st.routeDone(p, r.s.Now(), status)
		if !p.cancelled && p.orphanedAt == sim.Never {
			r.st.callerDone(p, r.s.Now()) // else timed when its caller gave up
		}
		stage := p.failStage
		if status >= 400 && stage < 0 {
			stage = r.p.routeLabel[p.route]
		}
		r.emitRequestEnd(p, status, stage)
		if p.kind == procJob {
			jr := p.journey
			jr.jobs--
			if status >= 400 && p.parent == nil && jr.jobFailStatus == 0 {
				// Nobody waits for an async job's status; the journey
				// learns of it when it next waits for its jobs.
				jr.jobFailStatus, jr.jobFailStage, jr.jobFailComp = status, stage, p.failComp
			}
			if jr.jobs == 0 && jr.awaiter != nil && jr.awaiter.seq == jr.awaiterSeq && jr.awaiter.waiting == waitJobs {
				r.s.After(0, r.kWake, pack(jr.awaiter))
				jr.awaiter = nil
			}
		}
		if q := p.parent; q != nil && q.gen == p.pgen && q.seq == p.pseq && waitStates[q.waiting].children {
			q.outcome, q.outComp, q.outStage = status, p.failComp, stage
			r.s.After(0, r.kWake, pack(q))
		} else if p.parent != nil && !p.cancelled {
			r.st.orphanDone(p, r.s.Now()) // worked on after its caller gave up
		}
	case procBranch:
		if q := p.parent; q != nil && q.gen == p.pgen && q.seq == p.pseq && waitStates[q.waiting].children {
			q.pending--
			if status >= 400 && q.outcome < 400 {
				q.outcome, q.outComp, q.outStage = status, p.failComp, p.failStage
			}
			if status >= 400 && q.failFast {
				// The first failure settles the fan-out: nothing more
				// starts, and the branches still running are cancelled.
				q.toSpawn, q.pending = 0, 0
				q.seq++
				r.s.After(0, r.kWake, pack(q))
				r.cancelKids(q, p)
				break
			}
			if q.toSpawn > 0 {
				r.spawnBranch(q)
			}
			if q.pending == 0 && q.toSpawn == 0 {
				r.s.After(0, r.kWake, pack(q))
			}
		}
	}
	r.freeProc(p)
}

// statusCancelled ends work cancelled because its caller gave up, as
// nginx logs a request whose client closed the connection.
const statusCancelled = 499

// cancelKids cancels the children p no longer waits for that observe it:
// every fan-out branch, and calls and jobs of cancellable routes (others
// work on, orphaned). except is a child ending now, left to finish.
func (r *run) cancelKids(p *proc, except *proc) {
	for _, k := range p.kids {
		c := k.p
		if c == except || c.gen != k.gen || c.cancelled {
			continue // ended, or ending now
		}
		if c.kind == procCall || c.kind == procJob {
			r.st.callerDone(c, r.s.Now())
		}
		if c.kind == procBranch || (c.route >= 0 && r.p.routes[c.route].cancellable) {
			r.cancel(c)
		} else {
			c.orphanedAt = r.s.Now()
		}
	}
	p.kids = p.kids[:0]
}
