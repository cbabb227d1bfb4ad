package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"capsim/sim"
)

// balancer: spreads requests over replicas. A use or hold of a balancer
// picks a replica (with session: true the pick counts as a session until
// released); every component declared behind: the balancer has one copy per
// replica, and a use of it reaches the copy of the replica picked for the
// request or any caller up its call chain. Replicas report sessions and
// load every report_every (stale in between).

var balancerKind = &kindDef{name: "balancer", capacityUnit: "replicas", newSpec: func() kindSpec { return &BalancerSpec{} }, status: 503,
	sessions: true, passThrough: true, measures: balancerMeasures}

// BalancerSpec is a load balancer in front of replicas.
type BalancerSpec struct {
	Replicas *int   `yaml:"replicas" bound:"[1,count]"`
	Policy   string `yaml:"policy"` // round_robin (default) | least_request | least_sessions | least_load | hybrid
	// RequestPolicy, when set, places the picks that are not sessions
	// (use, or hold without session: true) by another policy, so that
	// policy places only sessions.
	RequestPolicy string `yaml:"request_policy"`
	// Load names the component behind the balancer whose busy share
	// (busy / capacity) each replica reports as its load. least_load and
	// hybrid need it; it also says when a pick is overloaded (the replica
	// had no free capacity at that moment).
	Load        string    `yaml:"load"`
	ReportEvery *Duration `yaml:"report_every" bound:"[0,time]" zero:"live: the balancer sees the replicas' counts as they are, as when unset"` // report interval of sessions and load; unset = the balancer sees them live
	TTL         *Duration `yaml:"ttl" bound:"(0,time]"`                                                                                         // a report older than this is ignored and picks fall back to least_request
	ReportGap   *Span     `yaml:"report_gap"`                                                                                                   // reports due in [from, to) are lost (a partition)
	Target      *float64  `yaml:"target" bound:"(0,1]"`                                                                                         // hybrid: load to fill replicas up to (default 0.7)
	Safety      *float64  `yaml:"safety" bound:"(0,1]"`                                                                                         // hybrid: share of the spare capacity offered per report (default 0.5)
	MaxSessions *int      `yaml:"max_sessions" bound:"[1,count]"`                                                                               // hybrid: static session slots per replica
	// How a replica's session counter is decremented when a session ends
	// by failure (a dropped or timed-out session): once (correct), never
	// (missing_decrement) or twice (double_decrement).
	Counter string `yaml:"counter"`
}

type balancerProg struct {
	cfg      sim.BalancerConfig
	load     int32 // component behind the balancer whose busy share is the load, or -1
	counter  int8  // decrements of the session counter when a session ends by failure
	replicas int
}

var policies = map[string]sim.BalancePolicy{"round_robin": sim.RoundRobin, "least_request": sim.LeastInFlight,
	"least_sessions": sim.LeastCount, "least_load": sim.LeastLoad, "hybrid": sim.Headroom}

var policyNames = []string{"round_robin", "least_request", "least_sessions", "least_load", "hybrid"}

// compile checks a balancer's own keys. Its load component is resolved by
// replicate, once every component is known.
func (s *BalancerSpec) compile(c *compiler, _ *compProg, at site) kindProg {
	x := &balancerProg{load: -1}
	if s.Replicas == nil || *s.Replicas < 1 {
		got := "nothing"
		if s.Replicas != nil {
			got = fmt.Sprint(*s.Replicas)
		}
		c.failAt(at, "replicas", "a balancer needs replicas >= 1, got %s", got)
	} else {
		x.replicas = *s.Replicas
	}
	x.cfg = sim.BalancerConfig{Targets: x.replicas, TargetLoad: 0.7, Safety: 0.5, GapFrom: sim.Never, GapTo: sim.Never}
	// The kernel's counts per replica, and the model's sessions and
	// overloads beside them (newRuntime).
	perRun := x.cfg.Bytes() + float64(x.replicas)*float64(unsafe.Sizeof(sim.TimeWeighted{})+unsafe.Sizeof(int64(0)))
	if !c.reserve(at.node, "replicas", joinPath(at.path, "replicas"), fmt.Sprintf("replicas: %d", x.replicas), perRun) {
		x.replicas, x.cfg.Targets = 0, 0
	}
	if s.Policy != "" {
		pol, ok := policies[s.Policy]
		if !ok {
			c.failAt(at, "policy", "policy must be one of round_robin, least_request, least_sessions, least_load or hybrid, got %q", s.Policy)
		}
		x.cfg.Policy = pol
	}
	if s.RequestPolicy != "" {
		pol, ok := policies[s.RequestPolicy]
		if !ok {
			c.failAt(at, "request_policy", "request_policy must be one of round_robin, least_request, least_sessions, least_load or hybrid, got %q", s.RequestPolicy)
		}
		x.cfg.RequestPolicy, x.cfg.SplitRequests = pol, true
	}
	if s.ReportEvery != nil {
		x.cfg.ReportEvery = s.ReportEvery.T
	}
	if s.TTL != nil {
		if x.cfg.ReportEvery == 0 {
			c.failAt(at, "ttl", "ttl needs report_every: live figures never age")
		}
		x.cfg.TTL = s.TTL.T
	}
	if g := s.ReportGap; g != nil {
		if x.cfg.ReportEvery == 0 {
			c.failAt(at, "report_gap", "report_gap needs report_every: live figures cannot be lost")
		}
		if !g.From.Set || !g.To.Set || g.To.T <= g.From.T {
			c.failAt(at, "report_gap", "report_gap needs from and to, with to after from (e.g. {from: 10m, to: 15m})")
		}
		x.cfg.GapFrom, x.cfg.GapTo = g.From.T, g.To.T
	}
	if s.Target != nil {
		if *s.Target <= 0 || *s.Target > 1 {
			c.failAt(at, "target", "target is a share of capacity, in (0, 1], got %g", *s.Target)
		}
		x.cfg.TargetLoad = *s.Target
	}
	if s.Safety != nil {
		if *s.Safety <= 0 || *s.Safety > 1 {
			c.failAt(at, "safety", "safety is a share, in (0, 1], got %g", *s.Safety)
		}
		x.cfg.Safety = *s.Safety
	}
	if s.MaxSessions != nil {
		if *s.MaxSessions < 1 {
			c.failAt(at, "max_sessions", "max_sessions must be >= 1, got %d", *s.MaxSessions)
		}
		x.cfg.MaxCount = float64(*s.MaxSessions)
	}
	switch s.Counter {
	case "", "correct":
		x.counter = 1
	case "missing_decrement":
		x.counter = 0
	case "double_decrement":
		x.counter = 2
	default:
		c.failAt(at, "counter", "counter must be correct, missing_decrement or double_decrement, got %q", s.Counter)
	}
	if (x.cfg.Policy == sim.LeastLoad || x.cfg.Policy == sim.Headroom) && s.Load == "" {
		c.failAt(at, "policy", "policy %s needs load: (the component behind this balancer whose busy share is the load)", s.Policy)
	}
	if x.cfg.SplitRequests && (x.cfg.RequestPolicy == sim.LeastLoad || x.cfg.RequestPolicy == sim.Headroom) && s.Load == "" {
		c.failAt(at, "request_policy", "request_policy %s needs load: (the component behind this balancer whose busy share is the load)", s.RequestPolicy)
	}
	return x
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
		if cs.Behind == "" {
			continue
		}
		at := site{node: cs.Node, path: "components." + items[i].Name}
		if at.node == nil {
			at.node = items[i].node
		}
		bi, ok := c.compIdx[cs.Behind]
		if !ok || c.p.comps[bi].kind != balancerKind {
			c.failAt(at, "behind", "behind names a balancer; %q is not one", cs.Behind)
			continue
		}
		if c.p.comps[i].kind == balancerKind {
			c.failAt(at, "behind", "a balancer cannot be behind another")
			continue
		}
		cp := &c.p.comps[i]
		cp.behind = bi
		reps := c.p.comps[bi].prog.(*balancerProg).replicas
		b := &items[bi]
		bat := site{node: b.Value.Node, path: "components." + b.Name}
		if bat.node == nil {
			bat.node = b.node
		}
		if !c.reserve(bat.node, "replicas", joinPath(bat.path, "replicas"), fmt.Sprintf("replicas: %d of %s", reps, items[i].Name), float64(reps-1)*replicaBytes) {
			continue
		}
		name := cp.name
		cp.copies = []int32{int32(i)}
		for r := 1; r < reps; r++ {
			cpy := *cp
			cpy.name = fmt.Sprintf("%s[%d]", name, r)
			cpy.seedName = cpy.name
			c.p.comps = append(c.p.comps, cpy)
			cp = &c.p.comps[i]
			cp.copies = append(cp.copies, int32(len(c.p.comps)-1))
		}
		cp.name = name + "[0]"
	}
	for i := 0; i < base; i++ {
		spec, ok := items[i].Value.Spec.(*BalancerSpec)
		if !ok || spec.Load == "" || c.p.comps[i].kind != balancerKind {
			continue
		}
		at := site{node: items[i].Value.Node, path: "components." + items[i].Name}
		if at.node == nil {
			at.node = items[i].node
		}
		li, ok := c.compIdx[spec.Load]
		if !ok || c.p.comps[li].behind != int32(i) {
			c.failAt(at, "load", "load names a component behind this balancer (behind: %s); %q is not one", items[i].Name, spec.Load)
			continue
		}
		if !c.p.comps[li].kind.capacity {
			c.failAt(at, "load", "load must be a %s (something with a capacity), not %s", capacityKindNames(), spec.Load)
			continue
		}
		c.p.comps[i].prog.(*balancerProg).load = li
	}
}

// capacityKindNames lists the kinds a balancer may read as load, from the
// registry, so that the message names every one: "a, b or c".
func capacityKindNames() string {
	var names []string
	for _, k := range kinds {
		if k.capacity {
			names = append(names, k.name)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkPicks refuses a use of a component behind a balancer at a step that
// no use or hold of that balancer encloses, on any path from a journey: at
// run time it would have no replica to reach.
func (c *compiler) checkPicks() {
	if len(c.errs) > 0 {
		return // the blocks may be incomplete
	}
	seen := map[string]bool{}
	reported := map[int32]bool{}
	var walk func(b int32, picked []int32)
	walk = func(b int32, picked []int32) {
		key := fmt.Sprint(b, picked)
		if b < 0 || seen[key] {
			return
		}
		seen[key] = true
		for i := range c.p.blocks[b].ops {
			o := &c.p.blocks[b].ops[i]
			switch o.code {
			case opAcquire:
				cp := &c.p.comps[o.comp]
				if cp.kind == balancerKind {
					picked = append(slices.Clone(picked), o.comp)
					slices.Sort(picked)
				} else if cp.behind >= 0 && !slices.Contains(picked, cp.behind) && !reported[o.site] {
					reported[o.site] = true
					lb := c.p.comps[cp.behind].name
					c.fail(c.siteNodes[o.site], c.p.sites[o.site], "uses %s, which is behind balancer %s, outside any use or hold of %s: no replica is picked there", strings.TrimSuffix(cp.name, "[0]"), lb, lb)
				}
			case opScope, opRepeat, opFanout:
				walk(o.body, picked)
			case opChoose:
				for _, br := range o.branches {
					walk(br.body, picked)
				}
			case opCall, opJob, opPoll, opPollWhile:
				walk(c.p.routes[o.route].body, picked)
				if o.code == opCall {
					walk(o.pollBlk, picked)
				}
			}
		}
	}
	for _, j := range c.p.journeys {
		walk(j.body, nil)
	}
}

// replicaComp maps a use of component ci to the copy on the replica that
// p's request was routed to; -1 when no balancer picked one for it.
func (r *run) replicaComp(p *proc, ci int32) int32 {
	cp := &r.p.comps[ci]
	if cp.behind < 0 {
		return ci
	}
	for k := len(p.picks) - 1; k >= 0; k-- {
		if p.picks[k].bal == cp.behind {
			return cp.copies[p.picks[k].replica]
		}
	}
	return -1
}

func (x *balancerProg) newRuntime(_ *run, _ int32, _ *compProg, _ *sim.Streams) component {
	return &balancerRT{prog: x, sessions: make([]sim.TimeWeighted, x.replicas), overloaded: make([]int64, x.replicas)}
}

// balancerRT is a balancer's runtime: the kernel's balancer and what the
// model counts beside it.
type balancerRT struct {
	noWaits
	prog       *balancerProg
	bal        *sim.Balancer
	sessions   []sim.TimeWeighted // sessions each replica really holds
	overloaded []int64
	picks      int64
	sessPicks  int64
	sessOver   int64 // session picks among the overloaded ones
	// load is the capacity of each replica's copy of the load component,
	// nil without load.
	load []capacityUser
}

// link builds the kernel's balancer once the components it reads the load
// of exist.
func (b *balancerRT) link(r *run, _ int32) {
	x := b.prog
	var load func(i int) float64
	if x.load >= 0 {
		copies := r.p.comps[x.load].copies
		for _, ci := range copies {
			b.load = append(b.load, r.comps[ci].rt.(capacityUser))
		}
		load = func(i int) float64 { return busyShare(b.load[i]) }
		if x.cfg.ReportEvery > 0 {
			// A reported load is the busy share averaged over the interval
			// since the last report, as a utilisation metric is, not the
			// instant's draw.
			area := make([]float64, len(copies))
			at := make([]sim.Time, len(copies))
			load = func(i int) float64 { return r.windowShare(b.load[i], &area[i], &at[i]) }
		}
	}
	b.bal = sim.NewBalancer(r.s, x.cfg, load)
}

// windowShare is u's mean busy share since *at, whose busy integral was
// *area then; it moves both to now. Component statistics restart at the
// warm-up, so the integral is taken from there.
func (r *run) windowShare(u capacityUser, area *float64, at *sim.Time) float64 {
	now := r.s.Now()
	busy, capacity := u.busy(), u.capacity()
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

// busyShare is u's busy capacity share now.
func busyShare(u capacityUser) float64 { return u.busyNow() / u.capacity() }

// acquire routes p through the balancer and records the pick: in p.picks,
// so that what p and its callees use behind the balancer is the copy on
// that replica, and as a hold, so that the pick ends with the frame.
func (b *balancerRT) acquire(r *run, p *proc, o *op, comp int32, _ *compRT) (acquired, int64) {
	now := r.s.Now()
	units := 0.0
	if o.session {
		units = 1
	}
	i := b.bal.Pick(now, units)
	b.picks++
	over := b.load != nil && b.load[i].busyNow() >= b.load[i].capacity()
	if over {
		b.overloaded[i]++
	}
	key := int64(i)
	if o.session {
		b.sessPicks++
		if over {
			b.sessOver++
		}
		b.bal.AddCount(i, 1)
		b.sessions[i].Add(now, 1)
		key |= 1 << 32
	}
	p.picks = append(p.picks, pick{bal: comp, replica: int32(i)})
	return acqGranted, key
}

// release ends a pick. A session that ends by failure is decremented from
// the replica's counter as the counter option says; its real count always
// drops by one.
func (b *balancerRT) release(r *run, p *proc, h held, failed bool) {
	now := r.s.Now()
	i := int(int32(h.key))
	b.bal.Done(now, i)
	if h.key>>32&1 == 1 {
		dec := 1.0
		if failed {
			dec = float64(b.prog.counter)
		}
		b.bal.AddCount(i, -dec)
		b.sessions[i].Add(now, -1)
	}
	for k := len(p.picks) - 1; k >= 0; k-- {
		if p.picks[k].bal == h.comp && p.picks[k].replica == int32(i) {
			p.picks = append(p.picks[:k], p.picks[k+1:]...)
			break
		}
	}
}

func (b *balancerRT) resetStats(now sim.Time) {
	b.bal.ResetStats(now)
	for i := range b.sessions {
		b.sessions[i].Reset(now)
		b.overloaded[i] = 0
	}
	b.picks, b.sessPicks, b.sessOver = 0, 0, 0
}

func (b *balancerRT) result(_ *run, cr *ComponentResult, now sim.Time) {
	x := b.prog
	cr.Capacity = float64(x.replicas)
	cr.MeanBusy, cr.MeanQueue = Num(math.NaN()), Num(math.NaN())
	res := &BalancerResult{Policy: policyNames[x.cfg.Policy], Picks: b.picks, Sessions: b.sessPicks, Fallback: b.bal.Fallback}
	var sum, peak float64
	for i := 0; i < x.replicas; i++ {
		m := b.sessions[i].Mean(now)
		sum += m
		peak = math.Max(peak, m)
		res.Overloaded += b.overloaded[i]
		res.Replicas = append(res.Replicas, ReplicaResult{Picks: b.bal.Picks[i], MeanSessions: Num(m),
			PeakSessions: int64(b.sessions[i].Max()), Counter: b.bal.Count(i), Overloaded: b.overloaded[i]})
	}
	res.OverloadedRate = ratio(res.Overloaded, b.picks)
	res.SessionOverloaded = b.sessOver
	res.SessionOverloadedRate = ratio(b.sessOver, b.sessPicks)
	res.SessionImbalance = Num(math.NaN())
	if sum > 0 {
		res.SessionImbalance = Num(peak / (sum / float64(x.replicas)))
	}
	cr.Balancer = res
}

// balancerMeasures are a balancer's own: requests routed, the share of
// picks (and of session picks) sent to a replica with no free capacity,
// the busiest replica's mean sessions over the average's, and picks made
// by least_request for want of a fresh report; then each replica's picks
// and sessions.
var balancerMeasures = []Measure{
	balancerMeasure("picks_count", UnitCount, func(b *BalancerResult) float64 { return float64(b.Picks) }),
	balancerMeasure("overloaded_rate", UnitFraction, func(b *BalancerResult) float64 { return float64(b.OverloadedRate) }),
	balancerMeasure("session_overloaded_rate", UnitFraction, func(b *BalancerResult) float64 { return float64(b.SessionOverloadedRate) }),
	balancerMeasure("session_imbalance_ratio", UnitRatio, func(b *BalancerResult) float64 { return float64(b.SessionImbalance) }),
	balancerMeasure("fallback_picks_count", UnitCount, func(b *BalancerResult) float64 { return float64(b.Fallback) }),
	replicaMeasure("picks_count", UnitCount, func(r *ReplicaResult) float64 { return float64(r.Picks) }),
	replicaMeasure("mean_sessions_count", UnitCount, func(r *ReplicaResult) float64 { return float64(r.MeanSessions) }),
	replicaMeasure("peak_sessions_count", UnitCount, func(r *ReplicaResult) float64 { return float64(r.PeakSessions) }),
}

func balancerMeasure(name string, u Unit, read func(*BalancerResult) float64) Measure {
	return componentMeasure(name, u, func(c *ComponentResult) (float64, bool) {
		if c.Balancer == nil {
			return 0, false
		}
		return read(c.Balancer), true
	})
}

func (b *balancerRT) signals() []string { return []string{"sessions"} }
func (b *balancerRT) sample(put func(float64)) {
	n := 0.0
	for i := range b.sessions {
		n += b.sessions[i].Value()
	}
	put(n)
}
