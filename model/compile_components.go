package model

import (
	"fmt"
	"math"

	"capsim/sim"
	"go.yaml.in/yaml/v3"
)

// Compiling components: each kind takes the keys it understands and
// refuses the others, so a key set on the wrong kind is reported, never
// silently ignored.

// notFor reports keys set on a component whose kind does not use them.
func (c *compiler) notFor(n *yaml.Node, p, kind string, set map[string]bool) {
	for _, k := range []string{"servers", "permits", "queue", "admit", "when_full", "wait_timeout", "key", "rate", "burst", "max_wait", "adapt", "refuse", "instances", "min_instances", "cold_start", "warm_start", "idle_stop",
		"replicas", "policy", "load", "report_every", "ttl", "report_gap", "target", "safety", "max_sessions", "counter", "cores"} {
		if set[k] {
			c.failKey(n, k, joinPath(p, k), "%s does not apply to a component of kind %s", k, kind)
		}
	}
}

func (c *compiler) component(name string, cs *Component, key *yaml.Node) {
	p := "components." + name
	n := cs.Node
	if n == nil {
		n = key
	}
	cp := compProg{name: name, status: 503}
	if cs.Status != nil {
		if *cs.Status < 400 || *cs.Status > 599 {
			c.failKey(n, "status", p+".status", "status must be an HTTP error status (400-599), got %d", *cs.Status)
		}
		cp.status = int32(*cs.Status)
	}
	set := map[string]bool{"servers": cs.Servers != nil, "permits": cs.Permits != nil, "queue": cs.Queue != nil,
		"admit": cs.Admit != nil, "when_full": cs.WhenFull != "", "wait_timeout": cs.WaitTimeout != nil, "key": cs.Key != "",
		"rate": cs.Rate != nil, "burst": cs.Burst != nil, "max_wait": cs.MaxWait != nil, "adapt": cs.Adapt != nil,
		"instances": cs.Instances != nil, "min_instances": cs.Min != nil, "cold_start": cs.ColdStart != nil,
		"warm_start": cs.WarmStart != nil, "idle_stop": cs.IdleStop != nil, "refuse": cs.Refuse != "",
		"replicas": cs.Replicas != nil, "policy": cs.Policy != "", "load": cs.Load != "", "report_every": cs.ReportEvery != nil,
		"ttl": cs.TTL != nil, "report_gap": cs.ReportGap != nil, "target": cs.Target != nil, "safety": cs.Safety != nil,
		"max_sessions": cs.MaxSessions != nil, "counter": cs.Counter != "", "cores": cs.Cores != nil}
	take := func(keys ...string) {
		for _, k := range keys {
			delete(set, k)
		}
	}
	switch cs.Kind {
	case "pool", "semaphore":
		cp.kind = kindPool
		cp.queue = sim.Unbounded
		if cs.Kind == "pool" {
			take("servers", "queue", "admit", "when_full", "wait_timeout")
			if cs.Servers == nil {
				c.failKey(n, "servers", p+".servers", "a pool needs servers (how many requests it serves at once)")
			} else {
				cp.servers = *cs.Servers
			}
		} else {
			take("permits", "queue", "wait_timeout")
			if cs.Permits == nil {
				c.failKey(n, "permits", p+".permits", "a semaphore needs permits")
			} else {
				cp.servers = *cs.Permits
			}
		}
		if cp.servers < 1 && (cs.Servers != nil || cs.Permits != nil) {
			key := map[bool]string{true: "servers", false: "permits"}[cs.Kind == "pool"]
			c.failKey(n, key, p+"."+key, "must be >= 1, got %d", cp.servers)
		}
		if cs.Queue != nil && cs.Admit != nil {
			c.failKey(n, "admit", p+".admit", "give queue or admit, not both (admit = servers + queue)")
		}
		if cs.Queue != nil {
			if *cs.Queue < 0 {
				c.failKey(n, "queue", p+".queue", "queue must be >= 0, got %d", *cs.Queue)
			}
			cp.queue = *cs.Queue
		}
		if cs.Admit != nil {
			if *cs.Admit < cp.servers {
				c.failKey(n, "admit", p+".admit", "admit (%d) must be at least servers (%d)", *cs.Admit, cp.servers)
			}
			cp.queue = *cs.Admit - cp.servers
		}
		switch cs.WhenFull {
		case "", "reject":
		case "caller_runs":
			cp.callerRuns = true
		default:
			c.failKey(n, "when_full", p+".when_full", "when_full must be reject or caller_runs, got %q", cs.WhenFull)
		}
		if cs.WaitTimeout != nil {
			cp.waitTimeout = cs.WaitTimeout.T
		}
	case "lock":
		cp.kind = kindLock
		cp.status = 500
		if cs.Status != nil {
			cp.status = int32(*cs.Status)
		}
		take("wait_timeout", "key")
		if cs.WaitTimeout != nil {
			cp.waitTimeout = cs.WaitTimeout.T
		}
	case "bucket":
		cp.kind = kindBucket
		cp.status = 429
		if cs.Status != nil {
			cp.status = int32(*cs.Status)
		}
		take("rate", "burst", "max_wait", "adapt", "refuse")
		c.bucketRefuse(&cp, cs, n, p)
		if cs.Rate == nil || cs.Rate.PerSecond <= 0 {
			c.failKey(n, "rate", p+".rate", "a bucket needs a refill rate > 0 (e.g. rate: 15/s)")
		} else {
			cp.bucket.Rate = cs.Rate.PerSecond
		}
		cp.bucket.Burst = math.Max(1, cp.bucket.Rate)
		if cs.Burst != nil {
			if *cs.Burst < 1 {
				c.failKey(n, "burst", p+".burst", "burst must be >= 1, got %g", *cs.Burst)
			}
			cp.bucket.Burst = *cs.Burst
		}
		if cs.MaxWait != nil {
			cp.bucket.MaxWait = cs.MaxWait.T
		}
		if a := cs.Adapt; a != nil {
			prev := cp.bucket.Rate
			for i, r := range a.Rates {
				if r.PerSecond <= 0 || r.PerSecond >= prev {
					c.fail(n, fmt.Sprintf("%s.adapt.rates[%d]", p, i), "adaptive rates must be > 0 and decreasing, got %s after %g/s", r.Text, prev)
				}
				prev = r.PerSecond
				cp.bucket.LowerRates = append(cp.bucket.LowerRates, r.PerSecond)
			}
			cp.bucket.SignalsToStep = 1
			if a.Signals != nil {
				if *a.Signals < 1 {
					c.fail(n, p+".adapt.signals", "signals must be >= 1, got %d", *a.Signals)
				}
				cp.bucket.SignalsToStep = *a.Signals
			}
			cp.bucket.Window = a.Window.T
			if !a.Window.Set {
				cp.bucket.Window = 10 * sim.Second
			}
			cp.bucket.RecoverAfter = a.Recover.T
			cp.adaptOn = []int32{429, 504}
			if len(a.On) > 0 {
				cp.adaptOn = nil
				for _, s := range a.On {
					cp.adaptOn = append(cp.adaptOn, int32(s))
				}
			}
		}
	case "worker":
		cp.kind = kindWorker
		take("instances", "min_instances", "cold_start", "warm_start", "idle_stop", "queue", "wait_timeout")
		if cs.WaitTimeout != nil {
			cp.waitTimeout = cs.WaitTimeout.T
		}
		w := sim.WorkerConfig{Max: 1, QueueCap: sim.Unbounded, ColdStart: sim.Constant(0), WarmStart: sim.Constant(0)}
		if cs.Instances != nil {
			if *cs.Instances < 1 {
				c.failKey(n, "instances", p+".instances", "instances must be >= 1, got %d", *cs.Instances)
			}
			w.Max = *cs.Instances
		}
		if cs.Min != nil {
			if *cs.Min < 0 || *cs.Min > w.Max {
				c.failKey(n, "min_instances", p+".min_instances", "min_instances must be between 0 and instances (%d), got %d", w.Max, *cs.Min)
			}
			w.Min = *cs.Min
		}
		if cs.ColdStart != nil {
			w.ColdStart = c.p.dists[c.dist(cs.ColdStart, valueNode(n, "cold_start"), p+".cold_start")]
		}
		if cs.WarmStart != nil {
			w.WarmStart = c.p.dists[c.dist(cs.WarmStart, valueNode(n, "warm_start"), p+".warm_start")]
		}
		if cs.IdleStop != nil {
			w.IdleStop = cs.IdleStop.T
		} else if cs.Min == nil {
			w.Min = w.Max // never stops: all warm
		}
		if cs.Queue != nil {
			if *cs.Queue < 0 {
				c.failKey(n, "queue", p+".queue", "queue must be >= 0, got %d", *cs.Queue)
			}
			w.QueueCap = *cs.Queue
		}
		cp.worker = w
		cp.coldStream = "start/" + name
	case "balancer":
		c.balancerKind(&cp, cs, n, p, take)
	case "cpu":
		cp.kind = kindCPU
		take("cores")
		switch {
		case cs.Cores == nil:
			c.failKey(n, "cores", p+".cores", "a cpu needs cores (e.g. cores: 4)")
		case *cs.Cores <= 0:
			c.failKey(n, "cores", p+".cores", "cores must be > 0, got %g", *cs.Cores)
		default:
			cp.cores = *cs.Cores
		}
	case "":
		c.failKey(n, "kind", p+".kind", "kind is required (pool, semaphore, lock, bucket, worker, balancer or cpu)")
		return
	default:
		c.failKey(n, "kind", p+".kind", "unknown kind %q (expected pool, semaphore, lock, bucket, worker, balancer or cpu)", cs.Kind)
		return
	}
	c.notFor(n, p, cs.Kind, set)
	c.compIdx[name] = int32(len(c.p.comps))
	c.p.comps = append(c.p.comps, cp)
}
