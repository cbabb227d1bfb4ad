package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"capsim/sim"

	"go.yaml.in/yaml/v3"
)

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
		for _, m := range sloMeasures {
			if s.bound(m.key) != nil && !slices.Contains(applies, m.key) {
				c.failKey(s.Node, m.key, joinPath(p, m.key), "%s does not apply to a %s SLO (it takes %s)", m.key, s.subject(), strings.Join(applies, ", "))
			}
		}
		c.p.slos = append(c.p.slos, s)
	}
}

// sinceRef is a since: to check once every log: event is known.
type sinceRef struct {
	node       *yaml.Node
	path, name string
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
