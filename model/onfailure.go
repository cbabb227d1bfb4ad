package model

import (
	"capsim/sim"
)

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

// onFailure compiles route r's on_failure block.
func (c *compiler) onFailure(r int32, rt *Route) {
	if rt.OnFailure == nil {
		return
	}
	p := "routes." + c.p.routes[r].name + ".on_failure"
	if len(rt.OnFailure) == 0 {
		c.failKey(rt.Node, "on_failure", p, "on_failure needs at least one step (or leave it out)")
		return
	}
	c.p.routes[r].onFailure = c.block(rt.OnFailure, p, r)
}

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
