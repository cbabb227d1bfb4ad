package model

import (
	"fmt"
	"strconv"
	"strings"

	"capsim/sim"
	"capsim/sim/human"
)

// Graph is a compiled scenario's structure as a diagram draws it: its
// journeys, routes and components in declaration order, and an edge for
// every way one reaches another. Replicas behind a balancer are one
// component with Replicas copies. It is plain data, for a renderer in
// plots.
type Graph struct {
	Scenario, Design string
	Journeys         []GraphNode
	Routes           []GraphNode
	Components       []GraphComponent
	Edges            []GraphEdge
}

// GraphNode is a journey or a route; Detail is a journey's workload.
type GraphNode struct {
	Name, Detail string
}

// GraphComponent is one declared component.
type GraphComponent struct {
	Name, Kind string
	Capacity   string // servers, permits, cores, queue… as a person reads them
	Replicas   int    // copies behind a balancer; 1 otherwise
}

// Layer is the column a node is drawn in.
type Layer uint8

const (
	LayerJourney Layer = iota
	LayerRoute
	LayerComponent
)

// GraphRef names a node.
type GraphRef struct {
	Layer Layer
	Name  string
}

// Relation is what an edge means.
type Relation string

const (
	RelCall     Relation = "call"
	RelJob      Relation = "job"
	RelAsyncJob Relation = "async job"
	RelPoll     Relation = "poll"
	RelUse      Relation = "use"
	RelHold     Relation = "hold"
	RelBehind   Relation = "balances" // a balancer to the component copied behind it
)

// GraphEdge is one relation between two nodes, merged over the steps that
// make it (the first step's label is kept).
type GraphEdge struct {
	From, To GraphRef
	Rel      Relation
	Fanout   bool   // made inside a fan-out: concurrent copies
	Label    string // repeats and fan-outs (×10), a poll's interval
	Sites    int    // steps merged into the edge
}

// Graph extracts the scenario's structure.
func (c *Compiled) Graph() Graph {
	sc := c.prog.sc
	g := Graph{Scenario: c.Name, Design: c.Design}
	for _, j := range sc.Journeys.Items {
		g.Journeys = append(g.Journeys, GraphNode{Name: j.Name, Detail: workloadText(&j.Value)})
	}
	for _, r := range sc.Routes.Items {
		g.Routes = append(g.Routes, GraphNode{Name: r.Name})
	}
	for i, it := range sc.Components.Items {
		cp := &c.prog.comps[i]
		gc := GraphComponent{Name: it.Name, Kind: it.Value.Kind, Capacity: capacityText(cp), Replicas: max(1, len(cp.copies))}
		g.Components = append(g.Components, gc)
		if it.Value.Behind != "" {
			g.addEdge(GraphEdge{From: GraphRef{LayerComponent, it.Value.Behind}, To: GraphRef{LayerComponent, it.Name}, Rel: RelBehind})
		}
	}
	for _, j := range sc.Journeys.Items {
		g.walk(GraphRef{LayerJourney, j.Name}, j.Value.Steps, nil, false)
	}
	for _, r := range sc.Routes.Items {
		g.walk(GraphRef{LayerRoute, r.Name}, r.Value.Steps, nil, false)
	}
	return g
}

// walk adds the edges of steps run by from; times are the enclosing
// repeats' and fan-outs' counts.
func (g *Graph) walk(from GraphRef, steps []Step, times []string, fanout bool) {
	label := func() string {
		if len(times) == 0 {
			return ""
		}
		return "×" + strings.Join(times, "×")
	}
	add := func(to GraphRef, rel Relation, extra string) {
		l := label()
		if extra != "" {
			l = strings.TrimSpace(l + " " + extra)
		}
		g.addEdge(GraphEdge{From: from, To: to, Rel: rel, Fanout: fanout, Label: l})
	}
	for i := range steps {
		s := &steps[i]
		switch {
		case s.Use != "":
			add(GraphRef{LayerComponent, s.Use}, RelUse, "")
		case s.Hold != "":
			add(GraphRef{LayerComponent, s.Hold}, RelHold, "")
		case s.Call != "":
			add(GraphRef{LayerRoute, s.Call}, RelCall, "")
		case s.Job != "":
			rel := RelJob
			if s.Async {
				rel = RelAsyncJob
			}
			add(GraphRef{LayerRoute, s.Job}, rel, "")
		}
		if s.Poll != nil && s.Poll.Call != "" {
			add(GraphRef{LayerRoute, s.Poll.Call}, RelPoll, "every "+human.Seconds(s.Poll.Every.T.Seconds()))
		}
		switch {
		case s.Repeat != nil:
			g.walk(from, s.Steps, append(times[:len(times):len(times)], countText(s.Repeat)), fanout)
		case s.Fanout != nil:
			g.walk(from, s.Steps, append(times[:len(times):len(times)], countText(s.Fanout)), true)
		default:
			g.walk(from, s.Steps, times, fanout)
		}
		for _, b := range s.Choose {
			g.walk(from, b.Steps, times, fanout)
		}
	}
}

func (g *Graph) addEdge(e GraphEdge) {
	for i := range g.Edges {
		o := &g.Edges[i]
		if o.From == e.From && o.To == e.To && o.Rel == e.Rel && o.Fanout == e.Fanout {
			o.Sites++
			return
		}
	}
	e.Sites = 1
	g.Edges = append(g.Edges, e)
}

func countText(c *Count) string {
	if c.Attr != "" {
		return c.Attr
	}
	return strconv.Itoa(c.N)
}

func workloadText(j *Journey) string {
	switch {
	case j.Rate != nil && j.Rate.Text != "":
		return j.Rate.Text
	case j.Clients != nil:
		return fmt.Sprintf("%d clients", *j.Clients)
	case len(j.Stages) > 0:
		return "staged rate"
	}
	return ""
}

func queueText(q int) string {
	if q == sim.Unbounded {
		return "queue ∞"
	}
	return "queue " + strconv.Itoa(q)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// capacityText says what a component holds, from its compiled form.
func capacityText(cp *compProg) string {
	switch p := cp.prog.(type) {
	case *poolProg:
		unit, units := "server", "servers"
		if cp.kind == semaphoreKind {
			unit, units = "permit", "permits"
		}
		s := plural(p.servers, unit, units) + ", " + queueText(p.queue)
		if p.callerRuns {
			s += ", caller runs"
		}
		return s
	case *workerProg:
		return fmt.Sprintf("%d–%d instances, %s", p.cfg.Min, p.cfg.Max, queueText(p.cfg.QueueCap))
	case *cpuProg:
		return strconv.FormatFloat(p.cores, 'g', -1, 64) + " cores"
	case *lockProg:
		if p.keyAttr() == "" {
			return "one per user"
		}
		return "one per " + p.key
	case *bucketProg:
		return fmt.Sprintf("%s/s, burst %s", strconv.FormatFloat(p.cfg.Rate, 'g', 4, 64), strconv.FormatFloat(p.cfg.Burst, 'g', 4, 64))
	case *balancerProg:
		for _, n := range policyNames {
			if policies[n] == p.cfg.Policy {
				return plural(p.replicas, "replica", "replicas") + ", " + n
			}
		}
		return plural(p.replicas, "replica", "replicas")
	case *connectionsProg:
		return "max " + strconv.Itoa(p.cfg.Max) + " open"
	}
	return ""
}
