package model

import (
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"capsim/sim"

	"go.yaml.in/yaml/v3"
)

// Compile checks the scenario's cross-references and builds its program.
func (l *Loaded) Compile() (*Compiled, error) {
	c := &compiler{l: l, sc: l.Scenario, p: &program{sc: l.Scenario, design: l.Design},
		compIdx: map[string]int32{}, routeIdx: map[string]int32{}, nameIdx: map[string]int32{},
		attrIdx: map[string]int32{}, distIdx: map[string]int32{}}
	c.compile()
	c.checkSince()
	if len(c.errs) > 0 {
		return nil, c.errs.sorted()
	}
	return &Compiled{prog: c.p, Name: l.Scenario.Name, Design: l.Design}, nil
}

func (c *compiler) compile() {
	sc := c.sc
	c.p.sites = []string{""}
	c.siteNodes = []*yaml.Node{nil}
	if sc.Name == "" {
		c.fail(nil, "name", "name is required")
	}
	if !sc.Duration.Set || sc.Duration.T <= 0 {
		c.fail(nil, "duration", "duration is required and must be > 0 (e.g. duration: 1h)")
	}
	c.p.duration = sc.Duration.T
	c.p.drain = sim.Never
	if sc.Drain.Set {
		c.p.drain = sc.Drain.T
	}
	c.p.warmup = sc.Warmup.T
	if sc.Warmup.T >= sc.Duration.T && sc.Duration.Set {
		c.fail(nil, "warmup", "warmup (%s) must be shorter than duration (%s)", sc.Warmup.T, sc.Duration.T)
	}
	switch sc.Arrivals {
	case "", "poisson", "even":
	default:
		c.fail(nil, "arrivals", "arrivals must be even or poisson, got %q", sc.Arrivals)
	}
	c.limits()
	for _, it := range sc.Distributions.Items {
		c.distribution(it)
	}
	for _, it := range sc.Components.Items {
		c.component(it.Name, &it.Value, it.node)
	}
	c.replicate()
	for i, it := range sc.Routes.Items {
		c.routeIdx[it.Name] = int32(i)
		c.p.routes = append(c.p.routes, routeProg{name: it.Name, body: -1, onFailure: -1, cancellable: it.Value.Cancellable,
			onDeadline: c.deadlineMode(it.Name, &it.Value)})
		c.p.routeLabel = append(c.p.routeLabel, c.name(it.Name))
	}
	// Routes compile on first call so that recursion is caught on the path
	// that makes it; unreachable routes are compiled afterwards all the same.
	for i := range sc.Routes.Items {
		c.routeBody(int32(i), sc.Routes.Items[i].node)
	}
	if len(sc.Journeys.Items) == 0 {
		c.fail(nil, "journeys", "at least one journey is required")
	}
	for _, it := range sc.Journeys.Items {
		c.journey(it.Name, &it.Value, it.node)
	}
	c.finishAttrs()
	c.checkPicks()
	c.slos()
	c.recovery()
	c.entries()
}

// entries sets every block's entry (see block).
func (c *compiler) entries() {
	for i := range c.p.blocks {
		b := &c.p.blocks[i]
		b.entry = int32(i)
		for {
			ops := c.p.blocks[b.entry].ops
			if len(ops) != 1 || ops[0].code != opScope || ops[0].optional {
				break
			}
			b.entry = ops[0].body
			b.entryTails++
		}
		b.entryOps = c.p.blocks[b.entry].ops
	}
	for i := range c.p.journeys {
		j := &c.p.journeys[i]
		b := &c.p.blocks[j.body]
		j.entryOps, j.entryTails = b.entryOps, b.entryTails
	}
}

func (c *compiler) routeBody(r int32, key *yaml.Node) int32 {
	rp := &c.p.routes[r]
	if rp.body >= 0 {
		return rp.body
	}
	if c.visiting == nil {
		c.visiting = map[int32]bool{}
	}
	if c.visiting[r] {
		return -2
	}
	c.visiting[r] = true
	c.callPath = append(c.callPath, r)
	defer func() {
		delete(c.visiting, r)
		c.callPath = c.callPath[:len(c.callPath)-1]
	}()
	rt := &c.sc.Routes.Items[r].Value
	p := "routes." + rp.name
	if len(rt.Steps) == 0 {
		c.fail(key, p+".steps", "a route needs at least one step")
	}
	body := c.block(rt.Steps, p+".steps", r)
	// The on_failure block compiles while r is still being visited, so a
	// call back to r from it is the cycle it is, as from the steps: a route
	// that fails into itself recurses as long as it fails.
	c.onFailure(r, rt)
	c.p.routes[r].body = body
	return body
}

func (c *compiler) journey(name string, js *Journey, key *yaml.Node) {
	p := "journeys." + name
	jp := journeyProg{name: name, think: -1, even: c.sc.Arrivals == "even"}
	switch {
	case js.Rate != nil && js.Clients != nil:
		c.fail(key, p, "give rate (open workload) or clients (closed workload), not both")
	case js.Clients != nil:
		// A ramp may start from no clients; a fixed population may not.
		if *js.Clients < 1 && js.Stages == nil {
			c.failKey(js.Node, "clients", p+".clients", "clients must be >= 1, got %d (or give stages: to ramp the clients from it)", *js.Clients)
		}
		jp.clients, jp.closed = *js.Clients, true
	case js.Rate != nil || js.Stages != nil:
		if js.Rate != nil {
			jp.rate = js.Rate.PerSecond
		}
	default:
		c.fail(key, p, "a journey needs rate (e.g. rate: 4/h) or clients (e.g. clients: 100)")
	}
	if js.Think != nil {
		if js.Clients == nil && js.Rate != nil || js.Clients == nil && js.Stages != nil {
			// An open workload starts journeys at its rate whatever the
			// last one did: a pause between them would change nothing.
			c.failKey(js.Node, "think", p+".think", "think applies to a closed workload (clients:); an open one (rate:) starts its journeys at its rate whatever the one before did")
		}
		jp.think = c.dist(js.Think, key, p+".think")
	}
	jp.unscaled = js.Scaled != nil && !*js.Scaled
	switch js.Arrivals {
	case "":
	case "even":
		jp.even = true
	case "poisson":
		jp.even = false
	default:
		c.fail(key, p+".arrivals", "arrivals must be even or poisson, got %q", js.Arrivals)
	}
	if js.Start != nil {
		jp.start = js.Start.T
		if jp.start >= c.p.duration {
			// Arrivals end at the duration: the journey would never start.
			c.failKey(js.Node, "start", p+".start", "start must be before the duration (%s), when arrivals end, got %s", c.p.duration, jp.start)
		}
	}
	if js.Priority != nil {
		if *js.Priority < 0 || *js.Priority > maxPriority {
			c.fail(key, p+".priority", "priority must be between 0 and %d, got %d", maxPriority, *js.Priority)
		}
		jp.priority = *js.Priority
		c.p.priorities = true
	}
	if js.Stages != nil {
		c.compileProfile(&jp, js, key, p)
	} else if js.RepeatEvery != nil {
		c.failKey(js.Node, "repeat_every", p+".repeat_every", "repeat_every repeats the journey's stages, and it has none")
	}
	if js.Wave != nil {
		c.compileWave(&jp, js, p)
	}
	jp.stop = c.p.duration
	if js.Stop != nil {
		if js.Stop.T <= jp.start || js.Stop.T > c.p.duration {
			c.fail(key, p+".stop", "stop must be after start (%s) and at most the duration (%s), got %s", jp.start, c.p.duration, js.Stop.T)
		}
		jp.stop = min(jp.stop, js.Stop.T)
	}
	if js.Count != nil {
		if *js.Count < 1 {
			c.fail(key, p+".count", "count must be >= 1, got %d", *js.Count)
		}
		jp.count = int64(*js.Count)
	}
	if js.Users != nil {
		if *js.Users < 1 {
			c.fail(key, p+".users", "users must be >= 1, got %d", *js.Users)
		}
		jp.users = int64(*js.Users)
	}
	if len(js.Steps) == 0 {
		c.fail(key, p+".steps", "a journey needs at least one step")
	}
	jp.body = c.block(js.Steps, p+".steps", -1)
	// Attributes are looked up by index at run time; every attribute any
	// step names gets a slot, NaN where this journey does not set it.
	for _, it := range js.Attributes.Items {
		c.attr(it.Name)
	}
	c.p.journeys = append(c.p.journeys, jp)
}

// finishAttrs sizes every journey's attribute table once all names are known
// and checks that each attribute a journey's steps need is set.
func (c *compiler) finishAttrs() {
	for ji := range c.p.journeys {
		j := &c.p.journeys[ji]
		js, _ := c.sc.Journeys.Get(j.name)
		j.attrs = make([]float64, len(c.p.attrs))
		for i := range j.attrs {
			j.attrs[i] = math.NaN()
		}
		for _, it := range js.Attributes.Items {
			a := c.attrIdx[it.Name]
			j.attrs[a] = it.Value.Value
			if ch := it.Value.Choose; ch != nil {
				d := attrDraw{attr: a, stream: c.stream("attribute/" + j.name + "." + it.Name)}
				total := 0.0
				for _, x := range ch {
					total += x.Weight
					d.weights = append(d.weights, total)
					d.values = append(d.values, x.Value)
				}
				j.attrs[a] = ch[0].Value
				j.draws = append(j.draws, d)
			}
		}
		seen := map[int32]bool{}
		c.needs(j, j.body, seen)
	}
}

// needs walks every block reachable from b and checks the attributes used.
// attrNode locates attribute attr of journey jname (or the journey itself
// when attr is "" or not set there), for error positions.
func (c *compiler) attrNode(jname, attr string) *yaml.Node {
	for _, it := range c.sc.Journeys.Items {
		if it.Name != jname {
			continue
		}
		for _, a := range it.Value.Attributes.Items {
			if a.Name == attr {
				return a.node
			}
		}
		return it.node
	}
	return nil
}

func (c *compiler) needs(j *journeyProg, b int32, seen map[int32]bool) {
	if b < 0 || seen[b] {
		return
	}
	seen[b] = true
	check := func(a int32, what string) bool {
		if a >= 0 && math.IsNaN(j.attrs[a]) {
			c.fail(c.attrNode(j.name, ""), "journeys."+j.name+".attributes", "%s uses attribute %q, which journey %s does not set", what, c.p.attrs[a], j.name)
			j.attrs[a] = 0 // report once
			return false
		}
		return a >= 0
	}
	// An attribute used as a count must be a whole number, at least min,
	// whatever value a draw gives it.
	countAt := func(a int32, what string, min float64) {
		if !check(a, what) {
			return
		}
		for _, v := range j.values(a) {
			if v < min || v != math.Trunc(v) || v > math.MaxInt32 {
				c.fail(c.attrNode(j.name, c.p.attrs[a]), "journeys."+j.name+".attributes."+c.p.attrs[a], "%s uses %s as a count: it must be a whole number between %g and %d, got %g", what, c.p.attrs[a], min, MaxCount, v)
				j.attrs[a] = min // report once
				return
			}
		}
	}
	for i := range c.p.blocks[b].ops {
		o := &c.p.blocks[b].ops[i]
		where := "a step"
		if r := c.p.blocks[b].route; r >= 0 {
			where = "route " + c.p.routes[r].name
		}
		if o.code == opRepeat || o.code == opFanout {
			countAt(o.count.attr, where, 0)
		}
		if o.code == opFanout {
			countAt(o.limit.attr, where, 1)
		}
		if o.code == opAcquire {
			check(o.keyAttr, where)
		}
		if a := o.per - 1; check(a, where) {
			for _, v := range j.values(a) {
				if !(v >= 0) || math.IsInf(v, 0) {
					c.fail(c.attrNode(j.name, c.p.attrs[a]), "journeys."+j.name+".attributes."+c.p.attrs[a], "%s uses %s as a factor of a time: it must be a finite number >= 0, got %g", where, c.p.attrs[a], v)
					break
				}
			}
		}
		most := 0.0 // the largest total weight the journey's values allow
		for _, br := range o.branches {
			if check(br.weight.attr, where) && !(j.attrs[br.weight.attr] >= 0) {
				c.fail(c.attrNode(j.name, c.p.attrs[br.weight.attr]), "journeys."+j.name+".attributes."+c.p.attrs[br.weight.attr], "%s uses %s as a weight: it must be >= 0, got %g", where, c.p.attrs[br.weight.attr], j.attrs[br.weight.attr])
			}
			if br.weight.attr < 0 {
				most += br.weight.v
			} else {
				most += max(0, slices.Max(j.values(br.weight.attr)))
			}
			c.needs(j, br.body, seen)
		}
		if o.code == opChoose && !(most > 0) && !negative(j, o) {
			c.fail(c.attrNode(j.name, ""), "journeys."+j.name, "%s chooses among branches whose weights are all 0 for journey %s: nothing to choose", where, j.name)
		}
		switch o.code {
		case opScope, opRepeat, opFanout:
			c.needs(j, o.body, seen)
		case opCall, opJob, opPoll, opPollWhile:
			c.needs(j, c.p.routes[o.route].body, seen)
		}
		if o.code == opCall && o.pollBlk >= 0 {
			c.needs(j, o.pollBlk, seen)
		}
	}
}

// block compiles a step list into a block and returns its index.
func (c *compiler) block(steps []Step, p string, route int32) int32 {
	idx := int32(len(c.p.blocks))
	c.p.blocks = append(c.p.blocks, block{route: route})
	var ops []op
	for i := range steps {
		at := fmt.Sprintf("%s[%d]", p, i)
		site := int32(len(c.p.sites))
		c.p.sites = append(c.p.sites, at)
		c.siteNodes = append(c.siteNodes, steps[i].Node)
		outer := c.site
		c.site = site
		compiled := c.step(&steps[i], at, route)
		c.site = outer
		for _, o := range compiled {
			if o.site == 0 {
				o.site = site
			}
			ops = append(ops, o)
		}
	}
	c.p.blocks[idx].ops = ops
	return idx
}

func (c *compiler) step(s *Step, p string, route int32) []op {
	n := s.Node
	vs := stepVerbs(s)
	if len(vs) > 1 {
		c.fail(n, p, "a step does one thing; this one has %s (split it into separate steps)", verbKeys(vs, " and "))
		return nil
	}
	c.checkModifiers(s, n, p, vs)
	if len(vs) == 1 && vs[0].key == "hold" {
		// A hold lasts until its enclosing frame ends; a stage or optional
		// on the same step gives the step a frame of its own, which ends at
		// once and would release the hold before anything ran under it.
		for _, key := range []string{"stage", "optional"} {
			if stepHas(s, key) {
				c.failKey(n, key, joinPath(p, key), "%s: on a hold: step would give the hold a frame of its own and release it at once; "+
					"write %s: on a step of its own before the hold, or use: the component with steps:", key, key)
			}
		}
	}
	var core []op
	if len(vs) == 1 {
		core = vs[0].compile(c, s, stepSite{node: n, path: p, route: route, verb: vs[0].key})
	} else if s.Log == "" && s.Stage == "" {
		c.fail(n, p, "a step needs one of: %s, log, stage", verbKeys(verbTable, ", "))
		return nil
	}
	// An optional step runs in a frame of its own: a failure inside unwinds
	// to that frame and the step after it runs.
	if s.Optional && len(core) == 1 && core[0].code == opScope {
		core[0].optional = true
	} else if s.Optional && len(core) > 0 {
		body := c.rawBlock(core, route)
		core = []op{{code: opScope, body: body, name: -1, optional: true}}
	}
	if s.Since != "" && s.Log == "" {
		c.failKey(n, "since", joinPath(p, "since"), "since: names the event a log: step is timed from; this step has no log:")
	}
	if s.Log != "" {
		if strings.HasPrefix(s.Log, TracePrefix) {
			c.failKey(n, "log", joinPath(p, "log"), "log: event %q starts with %q, which names capsim's own trace events", s.Log, TracePrefix)
		}
		lo := op{code: opLog, name: c.name(s.Log), route: -1}
		if s.Since != "" {
			lo.route = c.name(s.Since)
			c.sinceRefs = append(c.sinceRefs, sinceRef{node: valueNode(n, "since"), path: joinPath(p, "since"), name: s.Since})
		}
		if c.logNames == nil {
			c.logNames = map[string]bool{}
		}
		c.logNames[s.Log] = true
		core = append(core, lo)
	}
	if s.Stage == "" {
		return core
	}
	stage := op{code: opStage, name: c.name(s.Stage)}
	if len(vs) == 0 && s.Log == "" {
		return []op{stage} // labels the rest of the enclosing block
	}
	// A stage on a step labels that step only: run it in a frame of its own.
	body := c.rawBlock(append([]op{stage}, core...), route)
	return []op{{code: opScope, body: body, name: -1}}
}

func (c *compiler) rawBlock(ops []op, route int32) int32 {
	for i := range ops {
		if ops[i].site == 0 {
			ops[i].site = c.site // the ops of the step being compiled
		}
	}
	c.p.blocks = append(c.p.blocks, block{ops: ops, route: route})
	return int32(len(c.p.blocks) - 1)
}

func (c *compiler) countOf(ct *Count) count {
	if ct.Attr != "" {
		return count{attr: c.attr(ct.Attr)}
	}
	return count{n: int32(ct.N), attr: -1}
}

func (c *compiler) component0(name string, n *yaml.Node, p string) (int32, bool) {
	i, ok := c.compIdx[name]
	if !ok {
		names := c.sc.Components.Names()
		c.fail(n, p, "unknown component %q (components: %s)", name, strings.Join(names, ", "))
	}
	return i, ok
}

func (c *compiler) routeRef(name string, n *yaml.Node, p string) (int32, bool) {
	r, ok := c.routeIdx[name]
	if !ok {
		c.fail(n, p, "unknown route %q (routes: %s)", name, strings.Join(c.sc.Routes.Names(), ", "))
		return 0, false
	}
	if c.routeBody(r, c.sc.Routes.Items[r].node) == -2 {
		var cycle []string
		for i := len(c.callPath) - 1; i >= 0; i-- {
			cycle = append([]string{c.p.routes[c.callPath[i]].name}, cycle...)
			if c.callPath[i] == r {
				break
			}
		}
		cycle = append(cycle, name)
		c.fail(n, p, "routes call each other in a cycle (%s); a request cannot recurse forever", strings.Join(cycle, " → "))
		return 0, false
	}
	return r, true
}

func (c *compiler) poll(po *Poll, n *yaml.Node, p, defaultUntil string) *op {
	r, ok := c.routeRef(po.Call, n, p+".call")
	if !ok {
		return nil
	}
	if !po.Every.Set || po.Every.T <= 0 {
		c.failKey(n, "every", p+".every", "a poll needs every > 0 (e.g. every: 2s)")
		return nil
	}
	until := po.Until
	if until == "" {
		until = defaultUntil
	}
	if until != defaultUntil {
		c.failKey(n, "until", p+".until", "until must be %s here, got %q", defaultUntil, po.Until)
	}
	o := &op{code: opPoll, route: r, every: po.Every.T, name: -1}
	if po.Max != nil {
		if *po.Max < 1 {
			c.failKey(n, "max", p+".max", "max must be >= 1, got %d", *po.Max)
		}
		o.maxPolls = int32(*po.Max)
	}
	return o
}

func (c *compiler) retry(r *Retry, n *yaml.Node, p string) *retryProg {
	if r.Attempts < 1 || r.Attempts > maxAttempts {
		c.failKey(n, "attempts", p+".attempts", "attempts counts every try, the first included; it must be between 1 and %d, got %d", maxAttempts, r.Attempts)
	}
	rp := &retryProg{attempts: int32(r.Attempts), backoff: r.Backoff.T, multiplier: 2, maxBackoff: sim.Never}
	if r.Multiplier != 0 {
		if r.Multiplier < 1 {
			c.failKey(n, "multiplier", p+".multiplier", "multiplier must be >= 1, got %g", r.Multiplier)
		}
		rp.multiplier = r.Multiplier
	}
	rp.on = []int32{429, 503, 504}
	if on := valueNode(n, "on"); on != n && len(r.On) == 0 {
		// An empty list would read as "retry on nothing" and fall back
		// to the defaults, retrying on everything they name.
		c.failKey(n, "on", p+".on", "on: [] retries on no status: leave on out for the defaults (429, 503, 504), or drop retry")
	}
	if len(r.On) > 0 {
		rp.on = nil
		for _, s := range r.On {
			rp.on = append(rp.on, int32(s))
		}
	}
	if r.MaxBackoff != nil {
		rp.maxBackoff = r.MaxBackoff.T
	}
	switch r.Jitter {
	case "", "none":
	case "full":
		rp.jitter = jitterFull
	case "equal":
		rp.jitter = jitterEqual
	case "decorrelated":
		rp.jitter = jitterDecorrelated
	default:
		c.failKey(n, "jitter", p+".jitter", "jitter must be none, full, equal or decorrelated, got %q", r.Jitter)
	}
	if rp.jitter != jitterNone {
		rp.stream = c.stream("retry/" + p)
	}
	if t := r.Throttle; t != nil {
		if t.MaxTokens < 1 || t.TokenRatio <= 0 || t.TokenRatio > t.MaxTokens {
			c.failKey(n, "throttle", p+".throttle", "throttle needs max_tokens >= 1 and token_ratio in (0, max_tokens], e.g. {max_tokens: 10, token_ratio: 0.1}")
		}
		rp.maxTokens, rp.tokenRatio = t.MaxTokens, t.TokenRatio
	}
	return rp
}

func (c *compiler) slos() {
	for i, s := range c.sc.SLOs {
		p := fmt.Sprintf("slos[%d]", i)
		subjects := 0
		for _, x := range []string{s.Journey, s.Route, s.Component} {
			if x != "" {
				subjects++
			}
		}
		if subjects != 1 {
			c.fail(s.Node, p, "an SLO names exactly one of journey, route or component")
			continue
		}
		switch {
		case s.Journey != "":
			if _, ok := c.sc.Journeys.Get(s.Journey); !ok {
				c.fail(s.Node, p+".journey", "unknown journey %q", s.Journey)
			}
		case s.Route != "":
			if _, ok := c.routeIdx[s.Route]; !ok {
				c.fail(s.Node, p+".route", "unknown route %q", s.Route)
			}
		default:
			if _, ok := c.compIdx[s.Component]; !ok {
				c.fail(s.Node, p+".component", "unknown component %q", s.Component)
			}
		}
		ji := -1
		if s.Journey != "" {
			for k, j := range c.sc.Journeys.Items {
				if j.Name == s.Journey {
					ji = k
				}
			}
		}
		switch s.Of {
		case "", "succeeded":
		case "all":
			if s.Journey == "" && s.Route == "" {
				c.failKey(s.Node, "of", p+".of", "of applies to a journey or route SLO")
			}
		default:
			c.failKey(s.Node, "of", p+".of", "of must be succeeded or all, got %q", s.Of)
		}
		if w := s.Window; w != nil {
			switch {
			case s.Journey == "":
				c.failKey(s.Node, "window", p+".window", "window applies to a journey SLO")
			case w.T > c.sc.Duration.T-c.sc.Warmup.T:
				// Not one whole window would be measured: "in every window"
				// would hold of none and read as met.
				c.failKey(s.Node, "window", p+".window", "window (%s) is longer than the run measures (%s from the warm-up to the end of the arrivals)",
					w.T, c.sc.Duration.T-c.sc.Warmup.T)
			case s.HTTPFailureRate != nil:
				c.failKey(s.Node, "window", p+".window", "a windowed SLO bounds success_rate, failure_rate, mean, p50, p95 or p99")
			default:
				// One count per window of the run, drain included.
				span := float64(c.sc.Duration.T) + max(0, float64(c.sc.Drain.T))
				c.reserve(s.Node, "window", p+".window", fmt.Sprintf("window: %s over a %s run", w.T, sim.Time(span)),
					(span/float64(w.T)+1)*windowBytes)
			}
		}
		c.p.sloJourney = append(c.p.sloJourney, ji)
		applies := measuresOf(s.subject())
		bounded := false
		for _, m := range sloMeasures {
			t := s.bound(m.key)
			if t == nil {
				continue
			}
			bounded = true
			if !slices.Contains(applies, m.key) {
				c.failKey(s.Node, m.key, joinPath(p, m.key), "%s does not apply to a %s SLO (it takes %s)", m.key, s.subject(), strings.Join(applies, ", "))
				continue
			}
			if err := t.checkUnit(m.of[s.subjectOf()].Unit()); err != nil {
				c.failKey(s.Node, m.key, joinPath(p, m.key), "%s %v", m.key, err)
			}
		}
		if !bounded {
			// Without a bound the SLO checks nothing and could only ever
			// read as met.
			c.fail(s.Node, p, "an SLO needs a bound, such as p95: \"<= 2s\" (a %s SLO takes %s)", s.subject(), strings.Join(applies, ", "))
		}
		c.p.slos = append(c.p.slos, s)
	}
}

// checkSince refuses a since: that names no log: event of the scenario:
// a typo would otherwise time the event from the journey's start.
func (c *compiler) checkSince() {
	for _, ref := range c.sinceRefs {
		if !c.logNames[ref.name] {
			names := slices.Sorted(maps.Keys(c.logNames))
			c.fail(ref.node, ref.path, "since: %q is no log: event of the scenario (log events: %s)", ref.name, strings.Join(names, ", "))
		}
	}
}

// limits takes the scenario's guards over the defaults. Their bounds are
// the schema's (Limits' bound tags), checked where the values are decoded.
func (c *compiler) limits() {
	l := c.sc.Limits
	c.p.limits = limitsProg{inFlight: DefaultMaxInFlight, queue: DefaultMaxQueue, events: DefaultMaxEvents, time: sim.Never,
		instantOps: DefaultMaxStepsPerInstant}
	if l.MaxStepsPerInstant != nil {
		c.p.limits.instantOps = *l.MaxStepsPerInstant
	}
	if l.MaxInFlight != nil {
		c.p.limits.inFlight = *l.MaxInFlight
	}
	if l.MaxQueue != nil {
		c.p.limits.queue = *l.MaxQueue
	}
	if l.MaxEvents != nil {
		c.p.limits.events = uint64(*l.MaxEvents)
	}
	if l.MaxTime != nil && l.MaxTime.Set {
		c.p.limits.time = l.MaxTime.T
	}
}

func (c *compiler) distribution(it NamedItem[DistEntry]) {
	ref := it.Value.Dist
	if ref.Ref != "" {
		c.fail(it.node, "distributions."+it.Name, "a named distribution must be a literal, not a reference to %q", ref.Ref)
		return
	}
	c.distIdx[it.Name] = int32(len(c.p.dists))
	d, ok := c.resolveFile(ref, it.node, "distributions."+it.Name)
	if !ok {
		d = sim.Constant(0)
	}
	c.p.dists = append(c.p.dists, d)
	c.p.distName = append(c.p.distName, "dist/"+it.Name)
}

// resolveFile loads empirical(file=...) values, one number of seconds per
// line (or the first column of a CSV; a non-numeric header is skipped).
func (c *compiler) resolveFile(ref DistRef, n *yaml.Node, p string) (sim.Dist, bool) {
	if ref.File == "" {
		return ref.Dist, true
	}
	name := path.Join(path.Dir(c.l.File), ref.File)
	data, err := fs.ReadFile(c.l.fsys, name)
	if err != nil {
		c.fail(n, p, "empirical: cannot read %s: %s", ref.File, fsErrorText(err))
		return sim.Dist{}, false
	}
	var vals []float64
	for i, line := range strings.Split(string(data), "\n") {
		field := strings.TrimSpace(strings.Split(line, ",")[0])
		if field == "" {
			continue
		}
		v, err := strconv.ParseFloat(field, 64)
		if err != nil {
			if i == 0 {
				continue // header
			}
			c.fail(n, p, "empirical: %s:%d: expected a number of seconds, got %q", ref.File, i+1, field)
			return sim.Dist{}, false
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			c.fail(n, p, "empirical: %s:%d: a duration must be a finite number of seconds >= 0, got %s", ref.File, i+1, field)
			return sim.Dist{}, false
		}
		if v > MaxDuration.Seconds() {
			c.fail(n, p, "empirical: %s:%d: %s seconds is more than %s, the longest time capsim simulates", ref.File, i+1, field, sim.MaxDurationText)
			return sim.Dist{}, false
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		c.fail(n, p, "empirical: %s has no values", ref.File)
		return sim.Dist{}, false
	}
	d, err := sim.Empirical(vals)
	if err != nil {
		c.fail(n, p, "%v", err)
		return sim.Dist{}, false
	}
	return d, true
}

// dist registers a distribution use site and returns its index.
func (c *compiler) dist(ref *DistRef, n *yaml.Node, p string) int32 {
	if ref.Ref != "" {
		i, ok := c.distIdx[ref.Ref]
		if ok {
			return i
		}
		c.fail(n, p, "unknown distribution %q (define it under distributions: or include a calibration file)", ref.Ref)
		// Compilation goes on to report every problem: stand in a valid
		// index, so that whoever reads it back does not fault.
		ref = &DistRef{Dist: sim.Constant(0)}
	}
	d, ok := c.resolveFile(*ref, n, p)
	if !ok {
		d = sim.Constant(0)
	}
	c.p.dists = append(c.p.dists, d)
	c.p.distName = append(c.p.distName, "dist/"+p)
	return int32(len(c.p.dists) - 1)
}

// negative says whether a branch of choose o has a negative weight for
// journey j, which is reported on its own.
func negative(j *journeyProg, o *op) bool {
	for _, br := range o.branches {
		if br.weight.attr >= 0 && slices.Min(j.values(br.weight.attr)) < 0 {
			return true
		}
	}
	return false
}

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
