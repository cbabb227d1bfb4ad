package model

import (
	"fmt"
	"strings"

	"capsim/sim"
	"go.yaml.in/yaml/v3"
)

// verbs lists a step's verb keys in the order they are documented.
var verbs = []string{"delay", "work", "use", "hold", "call", "job", "await", "repeat", "fanout", "choose", "poll", "fail", "log", "stage"}

func stepVerbs(s *Step) []string {
	var v []string
	add := func(ok bool, name string) {
		if ok {
			v = append(v, name)
		}
	}
	add(s.Delay != nil, "delay")
	add(s.Use != "", "use")
	add(s.Work != nil && s.Use == "", "work")
	add(s.Hold != "", "hold")
	add(s.Call != "", "call")
	add(s.Job != "", "job")
	add(s.Await != "", "await")
	add(s.Repeat != nil, "repeat")
	add(s.Fanout != nil, "fanout")
	add(s.Choose != nil, "choose")
	add(s.Poll != nil && s.Call == "", "poll")
	add(s.Fail != nil, "fail")
	return v
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
		for _, o := range c.step(&steps[i], at, route) {
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
		c.fail(n, p, "a step does one thing; this one has %s (split it into separate steps)", strings.Join(vs, " and "))
		return nil
	}
	c.checkModifiers(s, n, p, vs)
	var core []op
	if len(vs) == 1 {
		core = c.verb(s, vs[0], n, p, route)
	} else if s.Log == "" && s.Stage == "" {
		c.fail(n, p, "a step needs one of: %s", strings.Join(verbs, ", "))
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
	if s.Log != "" {
		core = append(core, op{code: opLog, name: c.name(s.Log)})
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
	c.p.blocks = append(c.p.blocks, block{ops: ops, route: route})
	return int32(len(c.p.blocks) - 1)
}

// checkModifiers refuses modifiers that the step's verb would ignore.
func (c *compiler) checkModifiers(s *Step, n *yaml.Node, p string, vs []string) {
	verb := ""
	if len(vs) == 1 {
		verb = vs[0]
	}
	allowed := map[string][]string{
		"steps":           {"use", "repeat", "fanout"},
		"limit":           {"fanout"},
		"timeout":         {"call", "job"},
		"deadline":        {"call"},
		"retry":           {"call"},
		"async":           {"job"},
		"key":             {"use", "hold"},
		"signal":          {"call"},
		"status":          {"delay", "work", "use"},
		"work":            {"use", "work"},
		"poll":            {"call", "poll"},
		"session":         {"use", "hold"},
		"leak_on_failure": {"use", "hold"},
	}
	present := map[string]bool{"steps": s.Steps != nil, "limit": s.Limit != nil, "timeout": s.Timeout != nil,
		"deadline": s.Deadline != nil, "retry": s.Retry != nil, "async": s.Async, "key": s.Key != "",
		"signal": s.Signal != "", "status": s.Status != nil, "work": s.Work != nil, "poll": s.Poll != nil,
		"session": s.Session, "leak_on_failure": s.Leak}
	for _, m := range []string{"steps", "limit", "timeout", "deadline", "retry", "async", "key", "signal", "status", "work", "poll", "session", "leak_on_failure"} {
		if !present[m] {
			continue
		}
		ok := false
		for _, v := range allowed[m] {
			ok = ok || v == verb
		}
		if !ok {
			if verb == "" {
				c.failKey(n, m, joinPath(p, m), "%s needs a verb to modify", m)
			} else {
				c.failKey(n, m, joinPath(p, m), "%s does not apply to a %s step", m, verb)
			}
		}
	}
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

func (c *compiler) verb(s *Step, verb string, n *yaml.Node, p string, route int32) []op {
	status := int32(504)
	if s.Status != nil {
		status = int32(*s.Status)
	}
	switch verb {
	case "delay":
		return []op{{code: opDelay, dist: c.dist(s.Delay, n, p+".delay"), status: status, name: -1}}
	case "work":
		return []op{{code: opWork, dist: c.dist(s.Work, n, p+".work"), status: status, name: -1}}
	case "use", "hold":
		name := s.Use + s.Hold
		ci, ok := c.component0(name, n, p+"."+verb)
		if !ok {
			return nil
		}
		kd := c.p.comps[ci].kind
		if kd.runsWork {
			// Work on a cpu is not held and released: it runs there,
			// sharing the cores with whatever else runs.
			if verb == "hold" || s.Work == nil || s.Steps != nil {
				c.fail(n, p, "a %s runs work: write use: %s with work: and no steps", kd.name, name)
				return nil
			}
			return []op{{code: opAcquire, comp: ci, keyAttr: -1, dist: c.dist(s.Work, n, p+".work"), status: status, name: -1}}
		}
		acq := op{code: opAcquire, comp: ci, keyAttr: -1, name: -1, session: s.Session, leak: s.Leak}
		if s.Session && !kd.sessions {
			c.failKey(n, "session", p+".session", "session applies to a balancer; %s is not one", name)
		}
		if s.Key != "" {
			if !kd.keyed {
				c.failKey(n, "key", p+".key", "key applies to a lock; %s is not one", name)
			}
			acq.keyAttr = c.attr(s.Key)
		} else if kp, ok := c.p.comps[ci].prog.(keyedProg); ok && kp.keyAttr() != "" {
			acq.keyAttr = c.attr(kp.keyAttr())
		}
		if kd.noHold && verb == "hold" {
			c.fail(n, p, "a %s hands out tokens; it cannot be held (write use: %s)", kd.name, name)
			return nil
		}
		if verb == "hold" {
			return []op{acq}
		}
		ops := []op{acq}
		if s.Work != nil {
			ops = append(ops, op{code: opWork, dist: c.dist(s.Work, n, p+".work"), status: status, name: -1})
		}
		if s.Steps != nil {
			inner := c.block(s.Steps, p+".steps", route)
			ops = append(ops, c.p.blocks[inner].ops...)
		}
		return []op{{code: opScope, body: c.rawBlock(ops, route), name: -1}}
	case "call":
		r, ok := c.routeRef(s.Call, n, p+".call")
		if !ok {
			return nil
		}
		o := op{code: opCall, route: r, signal: -1, name: -1, pollBlk: -1}
		if s.Timeout != nil {
			o.timeout = s.Timeout.T
			if o.timeout <= 0 {
				c.failKey(n, "timeout", p+".timeout", "timeout must be > 0")
			}
		}
		if s.Deadline != nil {
			o.deadline = s.Deadline.T
			if o.deadline <= 0 {
				c.failKey(n, "deadline", p+".deadline", "deadline must be > 0")
			}
		}
		if s.Retry != nil {
			o.retry = c.retry(s.Retry, n, p+".retry")
		}
		if s.Signal != "" {
			if ci, ok := c.component0(s.Signal, n, p+".signal"); ok {
				// A bucket without adapt: ignores signals, so a design can
				// turn adaptation off without rewriting every call.
				if !c.p.comps[ci].kind.signals {
					c.failKey(n, "signal", p+".signal", "signal names a bucket; %s is a %s", s.Signal, c.p.comps[ci].kind.name)
				}
				o.signal = ci
			}
		}
		if s.Poll != nil {
			po := c.poll(s.Poll, n, p+".poll", "response")
			if po != nil {
				po.code = opPollWhile
				o.pollBlk = c.rawBlock([]op{*po}, route)
			}
		}
		return []op{o}
	case "job":
		r, ok := c.routeRef(s.Job, n, p+".job")
		if !ok {
			return nil
		}
		o := op{code: opJob, route: r, async: s.Async, name: -1}
		if s.Timeout != nil {
			o.timeout = s.Timeout.T
		}
		return []op{o}
	case "await":
		if s.Await != "jobs" {
			c.failKey(n, "await", p+".await", "await takes jobs (wait for the journey's jobs), got %q", s.Await)
			return nil
		}
		return []op{{code: opAwaitJobs, name: -1}}
	case "repeat", "fanout":
		ct := s.Repeat
		if verb == "fanout" {
			ct = s.Fanout
		}
		if len(s.Steps) == 0 {
			c.failKey(n, "steps", p+".steps", "%s needs steps to run", verb)
			return nil
		}
		if verb == "fanout" && ct.Attr == "" && ct.N == 0 {
			c.failKey(n, "fanout", p+".fanout", "fanout must be >= 1, got 0")
		}
		o := op{code: opRepeat, count: c.countOf(ct), body: c.block(s.Steps, p+".steps", route), name: -1}
		if verb == "fanout" {
			o.code = opFanout
			o.limit = count{attr: -1}
			if s.Limit != nil {
				o.limit = c.countOf(s.Limit)
				if s.Limit.Attr == "" && s.Limit.N < 1 {
					c.failKey(n, "limit", p+".limit", "limit must be >= 1, got %d", s.Limit.N)
				}
			}
		}
		return []op{o}
	case "choose":
		if len(s.Choose) == 0 {
			c.failKey(n, "choose", p+".choose", "choose needs at least one branch")
			return nil
		}
		o := op{code: opChoose, stream: c.stream("choose/" + p), name: -1}
		for i, b := range s.Choose {
			bp := fmt.Sprintf("%s.choose[%d]", p, i)
			w := count64{v: b.Weight.V, attr: -1}
			if b.Weight.Attr != "" {
				w.attr = c.attr(b.Weight.Attr)
			}
			o.branches = append(o.branches, branchProg{weight: w, body: c.block(b.Steps, bp+".steps", route)})
		}
		return []op{o}
	case "poll":
		if po := c.poll(s.Poll, n, p+".poll", "jobs"); po != nil {
			return []op{*po}
		}
		return nil
	case "fail":
		f := s.Fail
		if f.P < 0 || f.P > 1 {
			c.fail(n, p+".fail.p", "p is a probability and must be between 0 and 1, got %g", f.P)
		}
		if f.Status < 400 || f.Status > 599 {
			c.fail(n, p+".fail.status", "status must be an HTTP error status (400-599), got %d", f.Status)
		}
		return []op{{code: opFail, p: f.P, status: int32(f.Status), stream: c.stream("fail/" + p), name: -1}}
	}
	panic("model: verb without a compiler: " + verb)
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
	if r.Attempts < 1 {
		c.failKey(n, "attempts", p+".attempts", "attempts counts every try, the first included; it must be >= 1, got %d", r.Attempts)
	}
	rp := &retryProg{attempts: int32(r.Attempts), backoff: r.Backoff.T, multiplier: 2}
	if r.Multiplier != 0 {
		if r.Multiplier < 1 {
			c.failKey(n, "multiplier", p+".multiplier", "multiplier must be >= 1, got %g", r.Multiplier)
		}
		rp.multiplier = r.Multiplier
	}
	rp.on = []int32{429, 503, 504}
	if len(r.On) > 0 {
		rp.on = nil
		for _, s := range r.On {
			rp.on = append(rp.on, int32(s))
		}
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
			if s.RejectionRate != nil || s.Utilisation != nil {
				c.fail(s.Node, p, "rejection_rate and utilisation apply to components")
			}
		case s.Route != "":
			if _, ok := c.routeIdx[s.Route]; !ok {
				c.fail(s.Node, p+".route", "unknown route %q", s.Route)
			}
			if s.SuccessRate != nil || s.HTTPFailureRate != nil || s.RejectionRate != nil || s.Utilisation != nil {
				c.fail(s.Node, p, "a route SLO takes failure_rate, mean, p50, p95 or p99")
			}
		default:
			if _, ok := c.compIdx[s.Component]; !ok {
				c.fail(s.Node, p+".component", "unknown component %q", s.Component)
			}
			if s.SuccessRate != nil || s.HTTPFailureRate != nil || s.FailureRate != nil || s.P50 != nil || s.P95 != nil || s.P99 != nil || s.Mean != nil {
				c.fail(s.Node, p, "a component SLO takes rejection_rate, utilisation, or wait bounds under a route")
			}
		}
		c.p.slos = append(c.p.slos, s)
	}
	_ = sim.Never
}
