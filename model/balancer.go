package model

import (
	"fmt"
	"math"

	"capsim/sim"
	"go.yaml.in/yaml/v3"
)

// Balancers, replicated components, leaked holds and buckets that make a
// refused caller wait: the parts of the language that spread work over
// copies of a service and that model holds never given back.

// compExt is the part of a compiled component that only some kinds use.
type compExt struct {
	// balancer
	bal      sim.BalancerConfig
	load     int32 // component behind the balancer whose busy share is the load, or -1
	counter  int8  // decrements of the session counter when a session ends by failure
	replicas int
	// replicated component: its balancer and the program index of each
	// copy (copy 0 is the component itself)
	behind int32
	copies []int32
	// bucket
	refuseAfterWait bool
}

// pick is a balancer's choice made for a request, inherited by everything
// the request calls.
type pick struct {
	bal     int32
	replica int32
}

// BalancerResult is what a balancer saw: per replica, the picks it made,
// the sessions held and the load reported.
type BalancerResult struct {
	Policy   string `json:"policy"`
	Picks    int64  `json:"picks"`
	Sessions int64  `json:"session_picks"`
	// Overloaded counts picks sent to a replica whose load component had no
	// free capacity at that moment; OverloadedRate is their share.
	Overloaded     int64 `json:"overloaded_picks"`
	OverloadedRate Num   `json:"overloaded_rate"`
	// SessionImbalance is the largest replica's time-average of sessions
	// held over the mean of all replicas' (1 = perfectly even).
	SessionImbalance Num `json:"session_imbalance"`
	// Fallback counts picks made by least_request because the last report
	// was older than the ttl.
	Fallback int64           `json:"fallback_picks"`
	Replicas []ReplicaResult `json:"replicas"`
}

// ReplicaResult is one replica behind a balancer.
type ReplicaResult struct {
	Picks        int64 `json:"picks"`
	MeanSessions Num   `json:"mean_sessions"`
	PeakSessions int64 `json:"peak_sessions"`
	// Counter is the replica's own session counter at the end, which a
	// buggy decrement makes drift from the sessions it really holds.
	Counter    float64 `json:"session_counter"`
	Overloaded int64   `json:"overloaded_picks"`
}

var policies = map[string]sim.BalancePolicy{"round_robin": sim.RoundRobin, "least_request": sim.LeastInFlight,
	"least_sessions": sim.LeastCount, "least_load": sim.LeastLoad, "hybrid": sim.Headroom}

var policyNames = []string{"round_robin", "least_request", "least_sessions", "least_load", "hybrid"}

// balancerKind compiles the keys of a balancer. Its load component is
// resolved by replicate, once every component is known.
func (c *compiler) balancerKind(cp *compProg, cs *Component, n *yaml.Node, p string, take func(...string)) {
	cp.kind = kindBalancer
	take("replicas", "policy", "load", "report_every", "ttl", "report_gap", "target", "safety", "max_sessions", "counter")
	x := &compExt{load: -1, behind: -1}
	cp.ext = x
	if cs.Replicas == nil || *cs.Replicas < 1 {
		got := "nothing"
		if cs.Replicas != nil {
			got = fmt.Sprint(*cs.Replicas)
		}
		c.failKey(n, "replicas", p+".replicas", "a balancer needs replicas >= 1, got %s", got)
	} else {
		x.replicas = *cs.Replicas
	}
	x.bal = sim.BalancerConfig{Targets: x.replicas, TargetLoad: 0.7, Safety: 0.5, GapFrom: sim.Never, GapTo: sim.Never}
	if cs.Policy != "" {
		pol, ok := policies[cs.Policy]
		if !ok {
			c.failKey(n, "policy", p+".policy", "policy must be one of round_robin, least_request, least_sessions, least_load or hybrid, got %q", cs.Policy)
		}
		x.bal.Policy = pol
	}
	if cs.ReportEvery != nil {
		x.bal.ReportEvery = cs.ReportEvery.T
	}
	if cs.TTL != nil {
		if x.bal.ReportEvery == 0 {
			c.failKey(n, "ttl", p+".ttl", "ttl needs report_every: live figures never age")
		}
		x.bal.TTL = cs.TTL.T
	}
	if g := cs.ReportGap; g != nil {
		if x.bal.ReportEvery == 0 {
			c.failKey(n, "report_gap", p+".report_gap", "report_gap needs report_every: live figures cannot be lost")
		}
		if !g.From.Set || !g.To.Set || g.To.T <= g.From.T {
			c.failKey(n, "report_gap", p+".report_gap", "report_gap needs from and to, with to after from (e.g. {from: 10m, to: 15m})")
		}
		x.bal.GapFrom, x.bal.GapTo = g.From.T, g.To.T
	}
	if cs.Target != nil {
		if *cs.Target <= 0 || *cs.Target > 1 {
			c.failKey(n, "target", p+".target", "target is a share of capacity, in (0, 1], got %g", *cs.Target)
		}
		x.bal.TargetLoad = *cs.Target
	}
	if cs.Safety != nil {
		if *cs.Safety <= 0 || *cs.Safety > 1 {
			c.failKey(n, "safety", p+".safety", "safety is a share, in (0, 1], got %g", *cs.Safety)
		}
		x.bal.Safety = *cs.Safety
	}
	if cs.MaxSessions != nil {
		if *cs.MaxSessions < 1 {
			c.failKey(n, "max_sessions", p+".max_sessions", "max_sessions must be >= 1, got %d", *cs.MaxSessions)
		}
		x.bal.MaxCount = float64(*cs.MaxSessions)
	}
	switch cs.Counter {
	case "", "correct":
		x.counter = 1
	case "missing_decrement":
		x.counter = 0
	case "double_decrement":
		x.counter = 2
	default:
		c.failKey(n, "counter", p+".counter", "counter must be correct, missing_decrement or double_decrement, got %q", cs.Counter)
	}
	if (x.bal.Policy == sim.LeastLoad || x.bal.Policy == sim.Headroom) && cs.Load == "" {
		c.failKey(n, "policy", p+".policy", "policy %s needs load: (the component behind this balancer whose busy share is the load)", cs.Policy)
	}
}

// bucketRefuse compiles a bucket's refuse key.
func (c *compiler) bucketRefuse(cp *compProg, cs *Component, n *yaml.Node, p string) {
	switch cs.Refuse {
	case "", "at_once":
	case "after_max_wait":
		if cp.ext == nil {
			cp.ext = &compExt{load: -1, behind: -1}
		}
		cp.ext.refuseAfterWait = true
	default:
		c.failKey(n, "refuse", p+".refuse", "refuse must be at_once or after_max_wait, got %q", cs.Refuse)
	}
}

// replicate resolves balancer references and makes the copies of every
// component behind a balancer. Copies go at the end of the component list,
// so the indices steps already hold stay valid; copy 0 is the component
// itself, renamed name[0].
func (c *compiler) replicate() {
	items := c.sc.Components.Items
	base := len(c.p.comps)
	for i := 0; i < base; i++ {
		cs := &items[i].Value
		n := cs.Node
		if n == nil {
			n = items[i].node
		}
		p := "components." + items[i].Name
		if cs.Behind == "" {
			continue
		}
		bi, ok := c.compIdx[cs.Behind]
		if !ok || c.p.comps[bi].kind != kindBalancer {
			c.failKey(n, "behind", p+".behind", "behind names a balancer; %q is not one", cs.Behind)
			continue
		}
		if c.p.comps[i].kind == kindBalancer {
			c.failKey(n, "behind", p+".behind", "a balancer cannot be behind another")
			continue
		}
		cp := &c.p.comps[i]
		if cp.ext == nil {
			cp.ext = &compExt{load: -1}
		}
		cp.ext.behind = bi
		reps := c.p.comps[bi].ext.replicas
		name := cp.name
		cp.ext.copies = []int32{int32(i)}
		for r := 1; r < reps; r++ {
			cpy := *cp
			cpy.name = fmt.Sprintf("%s[%d]", name, r)
			if cpy.coldStream != "" {
				cpy.coldStream = "start/" + cpy.name
			}
			c.p.comps = append(c.p.comps, cpy)
			cp = &c.p.comps[i]
			cp.ext.copies = append(cp.ext.copies, int32(len(c.p.comps)-1))
		}
		cp.name = name + "[0]"
	}
	for i := 0; i < base; i++ {
		cs := &items[i].Value
		if c.p.comps[i].kind != kindBalancer || cs.Load == "" {
			continue
		}
		n := cs.Node
		if n == nil {
			n = items[i].node
		}
		li, ok := c.compIdx[cs.Load]
		if !ok || c.p.comps[li].ext == nil || c.p.comps[li].ext.behind != int32(i) {
			c.failKey(n, "load", "components."+items[i].Name+".load", "load names a component behind this balancer (behind: %s); %q is not one", items[i].Name, cs.Load)
			continue
		}
		if k := c.p.comps[li].kind; k != kindPool && k != kindWorker && k != kindCPU {
			c.failKey(n, "load", "components."+items[i].Name+".load", "load must be a pool, semaphore, worker or cpu (something with a capacity), not %s", cs.Load)
			continue
		}
		c.p.comps[i].ext.load = li
	}
}

// replicaComp maps a use of component ci to the copy on the replica that
// p's request was routed to; -1 when no balancer picked one for it.
func (r *run) replicaComp(p *proc, ci int32) int32 {
	x := r.p.comps[ci].ext
	if x == nil || x.behind < 0 {
		return ci
	}
	for k := len(p.picks) - 1; k >= 0; k-- {
		if p.picks[k].bal == x.behind {
			return x.copies[p.picks[k].replica]
		}
	}
	return -1
}

// newBalancer builds the runtime balancer of program component ci.
func (r *run) newBalancer(ci int32) *sim.Balancer {
	x := r.p.comps[ci].ext
	var load func(i int) float64
	if x.load >= 0 {
		copies := r.p.comps[x.load].ext.copies
		load = func(i int) float64 { return r.busyShare(copies[i]) }
		if x.bal.ReportEvery > 0 {
			// A reported load is the busy share averaged over the interval
			// since the last report, as a utilisation metric is, not the
			// instant's draw.
			area := make([]float64, len(copies))
			at := make([]sim.Time, len(copies))
			load = func(i int) float64 { return r.windowShare(copies[i], &area[i], &at[i]) }
		}
	}
	return sim.NewBalancer(r.s, x.bal, load)
}

// windowShare is component ci's mean busy share since *at, whose busy
// integral was *area then; it moves both to now. Component statistics
// restart at the warm-up, so the integral is taken from there.
func (r *run) windowShare(ci int32, area *float64, at *sim.Time) float64 {
	now := r.s.Now()
	c := &r.comps[ci]
	var busy *sim.TimeWeighted
	capacity := 0.0
	switch {
	case c.pool != nil:
		busy, capacity = &c.pool.Busy, float64(c.pool.Servers())
	case c.worker != nil:
		busy, capacity = &c.worker.Busy, float64(r.p.comps[ci].worker.Max)
	case c.cpu != nil:
		busy, capacity = &c.cpu.Busy, r.p.comps[ci].cores
	default:
		return 0
	}
	start := sim.Time(0)
	if r.p.warmup > 0 && now >= r.p.warmup {
		start = r.p.warmup
	}
	a := busy.Mean(now) * float64(now-start)
	prev, since := *area, *at
	if since < start {
		prev, since = 0, start
	}
	*area, *at = a, now
	if now == since {
		return busy.Value() / capacity
	}
	return (a - prev) / float64(now-since) / capacity
}

// busyShare is component ci's busy capacity share now.
func (r *run) busyShare(ci int32) float64 {
	c := &r.comps[ci]
	switch {
	case c.pool != nil:
		return float64(c.pool.InUse()) / float64(c.pool.Servers())
	case c.worker != nil:
		return c.worker.Busy.Value() / float64(r.p.comps[ci].worker.Max)
	case c.cpu != nil:
		return c.cpu.Busy.Value() / r.p.comps[ci].cores
	}
	return 0
}

// saturated reports whether component ci has no free capacity now.
func (r *run) saturated(ci int32) bool {
	c := &r.comps[ci]
	switch {
	case c.pool != nil:
		return c.pool.InUse() >= c.pool.Servers()
	case c.worker != nil:
		return c.worker.Busy.Value() >= float64(r.p.comps[ci].worker.Max)
	case c.cpu != nil:
		return c.cpu.Busy.Value() >= r.p.comps[ci].cores
	}
	return false
}

// balRT is a balancer's runtime state kept beside the kernel's.
type balRT struct {
	sessions   []sim.TimeWeighted // sessions each replica really holds
	overloaded []int64
	picks      int64
	sessPicks  int64
}

// pickReplica routes p through balancer o.comp and records the pick: in
// p.picks, so that what p and its callees use behind the balancer is the
// copy on that replica, and in p.held, so that the pick ends with the frame.
func (r *run) pickReplica(p *proc, o *op) {
	now := r.s.Now()
	c := &r.comps[o.comp]
	x := r.p.comps[o.comp].ext
	units := 0.0
	if o.session {
		units = 1
	}
	i := c.bal.Pick(now, units)
	br := c.balRT
	br.picks++
	if x.load >= 0 && r.saturated(r.p.comps[x.load].ext.copies[i]) {
		br.overloaded[i]++
	}
	key := int64(i)
	if o.session {
		br.sessPicks++
		c.bal.AddCount(i, 1)
		br.sessions[i].Add(now, 1)
		key |= 1 << 32
	}
	p.picks = append(p.picks, pick{bal: o.comp, replica: int32(i)})
	p.held = append(p.held, held{comp: o.comp, key: key, leak: o.leak})
}

// releasePick ends a pick. A session that ends by failure is decremented
// from the replica's counter as the counter option says; its real count
// always drops by one.
func (r *run) releasePick(p *proc, h held, failed bool) {
	now := r.s.Now()
	c := &r.comps[h.comp]
	i := int(int32(h.key))
	c.bal.Done(now, i)
	if h.key>>32&1 == 1 {
		dec := 1.0
		if failed {
			dec = float64(r.p.comps[h.comp].ext.counter)
		}
		c.bal.AddCount(i, -dec)
		c.balRT.sessions[i].Add(now, -1)
	}
	if p == nil {
		return
	}
	for k := len(p.picks) - 1; k >= 0; k-- {
		if p.picks[k].bal == h.comp && p.picks[k].replica == int32(i) {
			p.picks = append(p.picks[:k], p.picks[k+1:]...)
			break
		}
	}
}

func (r *run) balancerResult(cr *ComponentResult, ci int, now sim.Time) {
	c := &r.comps[ci]
	x := r.p.comps[ci].ext
	br := c.balRT
	cr.Kind, cr.Capacity = "balancer", float64(x.replicas)
	cr.MeanBusy, cr.MeanQueue = Num(math.NaN()), Num(math.NaN())
	res := &BalancerResult{Policy: policyNames[x.bal.Policy], Picks: br.picks, Sessions: br.sessPicks, Fallback: c.bal.Fallback}
	var sum, peak float64
	for i := 0; i < x.replicas; i++ {
		m := br.sessions[i].Mean(now)
		sum += m
		peak = math.Max(peak, m)
		res.Overloaded += br.overloaded[i]
		res.Replicas = append(res.Replicas, ReplicaResult{Picks: c.bal.Picks[i], MeanSessions: Num(m),
			PeakSessions: int64(br.sessions[i].Max()), Counter: c.bal.Count(i), Overloaded: br.overloaded[i]})
	}
	res.OverloadedRate = ratio(res.Overloaded, br.picks)
	res.SessionImbalance = Num(math.NaN())
	if sum > 0 {
		res.SessionImbalance = Num(peak / (sum / float64(x.replicas)))
	}
	cr.Balancer = res
}

func (r *run) resetBalancer(c *compRT, now sim.Time) {
	c.bal.ResetStats(now)
	br := c.balRT
	for i := range br.sessions {
		br.sessions[i].Reset(now)
		br.overloaded[i] = 0
	}
	br.picks, br.sessPicks = 0, 0
}

// refuseLater makes p wait what max_wait (or its deadline) allows, then
// fails it with the bucket's status: a caller polling for a token until
// its budget runs out.
func (r *run) refuseLater(p *proc, comp int32) {
	now := r.s.Now()
	wait := r.p.comps[comp].bucket.MaxWait
	if p.deadline != sim.Never && p.deadline-now < wait {
		wait = p.deadline - now
	}
	p.waitComp = comp
	r.sleep(p, waitRefused, wait)
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
