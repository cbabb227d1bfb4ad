package model

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The step language as a table: each verb is one row naming its YAML key,
// the modifiers it takes and the function that compiles it. Decoding
// (schema.go's Step fields), validation (one verb per step, no modifier a
// verb would ignore) and compilation all read this table; adding a verb
// is a Step field, a row and its compile function.

// verbDef is one step verb.
type verbDef struct {
	key string
	// unless names a verb whose presence makes this key a modifier of it
	// (work inside use, poll beside call).
	unless    string
	modifiers []string
	compile   func(c *compiler, s *Step, at stepSite) []op
}

// stepSite locates a step being compiled.
type stepSite struct {
	node  *yaml.Node
	path  string
	route int32 // the route the step belongs to, -1 for journeys
	verb  string
}

// status is the step's status when it fails by deadline (default 504).
func (at stepSite) status(s *Step) int32 {
	if s.Status != nil {
		return int32(*s.Status)
	}
	return 504
}

// verbTable lists the verbs in the order they are documented. log, stage
// and optional apply to any step and are not verbs. It is filled in init:
// compiling a verb compiles the steps inside it, through this table.
var verbTable []*verbDef

func init() {
	verbTable = []*verbDef{
		{key: "delay", modifiers: []string{"status", "per"}, compile: (*compiler).delayStep},
		{key: "work", unless: "use", modifiers: []string{"status", "per"}, compile: (*compiler).workStep},
		{key: "use", modifiers: []string{"steps", "key", "status", "work", "per", "priority", "session", "leak_on_failure"}, compile: (*compiler).useStep},
		{key: "hold", modifiers: []string{"key", "priority", "session", "leak_on_failure"}, compile: (*compiler).useStep},
		{key: "call", modifiers: []string{"timeout", "deadline", "retry", "signal", "poll"}, compile: (*compiler).callStep},
		{key: "job", modifiers: []string{"timeout", "async"}, compile: (*compiler).jobStep},
		{key: "await", compile: (*compiler).awaitStep},
		{key: "repeat", modifiers: []string{"steps"}, compile: (*compiler).repeatStep},
		{key: "fanout", modifiers: []string{"steps", "limit", "fail_fast"}, compile: (*compiler).repeatStep},
		{key: "choose", compile: (*compiler).chooseStep},
		{key: "poll", unless: "call", modifiers: []string{}, compile: (*compiler).pollStep},
		{key: "fail", compile: (*compiler).failStep},
	}
}

// stepModifiers are the keys that modify a verb, in the order problems
// with them are reported.
var stepModifiers = []string{"steps", "limit", "fail_fast", "timeout", "deadline", "retry", "async", "key", "signal", "status", "work", "per", "priority", "poll", "session", "leak_on_failure"}

// stepField is the index of each YAML key's field in Step.
var _, stepField = fieldsOf(reflect.TypeOf(Step{}))

// stepHas says whether the step sets key.
func stepHas(s *Step, key string) bool {
	return !reflect.ValueOf(s).Elem().Field(stepField[key]).IsZero()
}

// stepVerbs lists the verbs a step sets.
func stepVerbs(s *Step) []*verbDef {
	var vs []*verbDef
	for _, v := range verbTable {
		if stepHas(s, v.key) && (v.unless == "" || !stepHas(s, v.unless)) {
			vs = append(vs, v)
		}
	}
	return vs
}

func verbKeys(vs []*verbDef, sep string) string {
	keys := make([]string, len(vs))
	for i, v := range vs {
		keys[i] = v.key
	}
	return strings.Join(keys, sep)
}

// checkModifiers refuses modifiers that the step's verb would ignore.
func (c *compiler) checkModifiers(s *Step, n *yaml.Node, p string, vs []*verbDef) {
	var verb *verbDef
	if len(vs) == 1 {
		verb = vs[0]
	}
	for _, m := range stepModifiers {
		if !stepHas(s, m) || (verb != nil && (verb.key == m || slices.Contains(verb.modifiers, m))) {
			continue
		}
		if verb == nil {
			c.failKey(n, m, joinPath(p, m), "%s needs a verb to modify", m)
		} else {
			c.failKey(n, m, joinPath(p, m), "%s does not apply to a %s step", m, verb.key)
		}
	}
}

func (c *compiler) delayStep(s *Step, at stepSite) []op {
	n, p := at.node, at.path
	status := at.status(s)
	return []op{{code: opDelay, dist: c.dist(s.Delay, n, p+".delay"), per: c.perAttr(s), status: status, name: -1}}
}

func (c *compiler) workStep(s *Step, at stepSite) []op {
	n, p := at.node, at.path
	status := at.status(s)
	return []op{{code: opWork, dist: c.dist(s.Work, n, p+".work"), per: c.perAttr(s), status: status, name: -1}}
}

func (c *compiler) useStep(s *Step, at stepSite) []op {
	n, p, route, verb := at.node, at.path, at.route, at.verb
	status := at.status(s)
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
		// No key or session picks a part of its cores and nothing is left
		// held; a class goes first only where its discipline has
		// priorities. A key that says otherwise would be ignored.
		for _, key := range []string{"key", "session", "leak_on_failure"} {
			if stepHas(s, key) {
				c.failKey(n, key, joinPath(p, key), "%s does not apply to a %s, which shares its cores among all the work on it", key, kd.name)
			}
		}
		o := op{code: opAcquire, comp: ci, keyAttr: -1, dist: c.dist(s.Work, n, p+".work"), per: c.perAttr(s), status: status, name: -1}
		if s.Priority != nil {
			if why := c.p.comps[ci].prog.(*cpuProg).priorityRefusal(name); why != "" {
				c.failKey(n, "priority", p+".priority", "%s", why)
			}
			o.priority = c.stepPriority(s, n, p)
		}
		return []op{o}
	}
	acq := op{code: opAcquire, comp: ci, keyAttr: -1, name: -1, session: s.Session, leak: s.Leak}
	if s.Priority != nil {
		if !kd.priorities {
			c.failKey(n, "priority", p+".priority", "priority applies to a pool or semaphore; %s is a %s", name, kd.name)
		}
		acq.priority = c.stepPriority(s, n, p)
	}
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
		ops = append(ops, op{code: opWork, dist: c.dist(s.Work, n, p+".work"), per: c.perAttr(s), status: status, name: -1})
	}
	if s.Steps != nil {
		inner := c.block(s.Steps, p+".steps", route)
		ops = append(ops, c.p.blocks[inner].ops...)
	}
	return []op{{code: opScope, body: c.rawBlock(ops, route), name: -1}}
}

// stepPriority checks a step's priority: and returns it as op.priority
// keeps it, 1 + the class.
func (c *compiler) stepPriority(s *Step, n *yaml.Node, p string) int32 {
	if *s.Priority < 0 || *s.Priority > maxPriority {
		c.failKey(n, "priority", p+".priority", "priority must be between 0 and %d, got %d", maxPriority, *s.Priority)
	}
	c.p.priorities = true
	return int32(*s.Priority) + 1
}

func (c *compiler) callStep(s *Step, at stepSite) []op {
	n, p, route := at.node, at.path, at.route
	r, ok := c.routeRef(s.Call, n, p+".call")
	if !ok {
		return nil
	}
	o := op{code: opCall, route: r, signal: -1, name: -1, pollBlk: -1}
	o.timeout = c.callTimeout(s, n, p)
	if s.Deadline != nil {
		o.deadline = s.Deadline.T
		if o.deadline <= 0 {
			c.failKey(n, "deadline", p+".deadline", "deadline must be > 0")
		}
	}
	if s.Retry != nil {
		o.retry = c.retry(s.Retry, resolve(valueNode(n, "retry")), p+".retry")
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
}

func (c *compiler) jobStep(s *Step, at stepSite) []op {
	n, p := at.node, at.path
	r, ok := c.routeRef(s.Job, n, p+".job")
	if !ok {
		return nil
	}
	o := op{code: opJob, route: r, async: s.Async, name: -1}
	o.timeout = c.callTimeout(s, n, p)
	return []op{o}
}

func (c *compiler) awaitStep(s *Step, at stepSite) []op {
	n, p := at.node, at.path
	if s.Await != "jobs" {
		c.failKey(n, "await", p+".await", "await takes jobs (wait for the journey's jobs), got %q", s.Await)
		return nil
	}
	return []op{{code: opAwaitJobs, name: -1}}
}

func (c *compiler) repeatStep(s *Step, at stepSite) []op {
	n, p, route, verb := at.node, at.path, at.route, at.verb
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
		o.failFast = s.FailFast
		o.limit = count{attr: -1}
		if s.Limit != nil {
			o.limit = c.countOf(s.Limit)
			if s.Limit.Attr == "" && s.Limit.N < 1 {
				c.failKey(n, "limit", p+".limit", "limit must be >= 1, got %d", s.Limit.N)
			}
		}
	}
	return []op{o}
}

func (c *compiler) chooseStep(s *Step, at stepSite) []op {
	n, p, route := at.node, at.path, at.route
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
}

func (c *compiler) pollStep(s *Step, at stepSite) []op {
	n, p := at.node, at.path
	if po := c.poll(s.Poll, n, p+".poll", "jobs"); po != nil {
		return []op{*po}
	}
	return nil
}

func (c *compiler) failStep(s *Step, at stepSite) []op {
	n, p := at.node, at.path
	f := s.Fail
	if f.P < 0 || f.P > 1 {
		c.fail(n, p+".fail.p", "p is a probability and must be between 0 and 1, got %g", f.P)
	}
	if f.Status < 400 || f.Status > 599 {
		c.fail(n, p+".fail.status", "status must be an HTTP error status (400-599), got %d", f.Status)
	}
	return []op{{code: opFail, p: f.P, status: int32(f.Status), stream: c.stream("fail/" + p), name: -1}}
}

// callTimeout compiles a call's or job's timeout, which may be a
// distribution of patience; -1 when there is none.
func (c *compiler) callTimeout(s *Step, n *yaml.Node, p string) int32 {
	if s.Timeout == nil {
		return -1
	}
	d := c.dist(s.Timeout, n, p+".timeout")
	if c.p.dists[d].Mean() <= 0 {
		c.failKey(n, "timeout", p+".timeout", "timeout must be > 0")
	}
	return d
}
