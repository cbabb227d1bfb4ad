// Package diagram draws a scenario's structure (model.Graph) as a picture
// an architect reviews: journeys, routes and components in three columns,
// an edge style per relation, and, given a run's loads, each component's
// utilisation, queue and rejections on its node. The layout is a pure
// function of its input: the same graph gives the same bytes.
package diagram

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"capsim/model"
)

// Load is a component's load in one run or cell.
type Load struct {
	Utilisation, MeanQueue, Rejected float64
}

// Options add a run's figures to the drawing.
type Options struct {
	// Loads by component name as results name them; copies behind a
	// balancer ("backend[3]") are summed into their component's node,
	// utilisation averaged.
	Loads map[string]Load
	// Highlight names the component drawn with a red outline: the one
	// that fails first.
	Highlight string
	Caption   string // under the title
}

// LoadsOf reads the loads of a run's result.
func LoadsOf(res *model.Result) map[string]Load {
	out := map[string]Load{}
	for _, c := range res.Components {
		out[c.Name] = Load{Utilisation: float64(c.Utilisation), MeanQueue: float64(c.MeanQueue), Rejected: float64(c.Rejected)}
	}
	return out
}

// relStyle is how one relation is drawn: the legend's rows, in order.
type relStyle struct {
	rel    model.Relation
	colour string
	dash   string // SVG stroke-dasharray, "" solid
	dot    string // Graphviz style
}

var relStyles = []relStyle{
	{model.RelCall, "#1f4e99", "", "solid"},
	{model.RelJob, "#6a3d9a", "8 4", "dashed"},
	{model.RelAsyncJob, "#6a3d9a", "2 4", "dotted"},
	{model.RelPoll, "#2a9d8f", "6 3 2 3", "dashed"},
	{model.RelHold, "#b5651d", "", "bold"},
	{model.RelUse, "#555555", "", "solid"},
	{model.RelBehind, "#c0392b", "4 4", "dashed"},
}

func styleOf(r model.Relation) relStyle {
	for _, s := range relStyles {
		if s.rel == r {
			return s
		}
	}
	return relStyles[0]
}

// node is one box of the layout.
type node struct {
	ref        model.GraphRef
	title      string
	lines      []string
	util       float64 // NaN: no bar
	highlight  bool
	x, y, w, h float64
	in, out    []int // edge indices, ordered by the other end's position
}

const (
	charW   = 7.0 // an estimate of a 12px sans-serif glyph's width
	lineH   = 15.0
	portGap = 14.0
	colGap  = 150.0
	rowGap  = 18.0
	margin  = 20.0
	top     = 60.0
)

type layout struct {
	nodes []*node
	index map[model.GraphRef]int
	edges []model.GraphEdge
	w, h  float64
}

// LoadOf is the load of c's node: its own, or its copies' summed, their
// utilisation averaged.
func LoadOf(c model.GraphComponent, loads map[string]Load) (Load, bool) {
	if l, ok := loads[c.Name]; ok {
		return l, true
	}
	var sum Load
	n := 0
	for i := 0; i < c.Replicas; i++ {
		if l, ok := loads[fmt.Sprintf("%s[%d]", c.Name, i)]; ok {
			sum.Utilisation += l.Utilisation
			sum.MeanQueue += l.MeanQueue
			sum.Rejected += l.Rejected
			n++
		}
	}
	if n == 0 {
		return Load{}, false
	}
	sum.Utilisation /= float64(n)
	return sum, true
}

func place(g model.Graph, opts Options) *layout {
	lay := &layout{index: map[model.GraphRef]int{}}
	add := func(n *node) {
		lay.index[n.ref] = len(lay.nodes)
		lay.nodes = append(lay.nodes, n)
	}
	for _, j := range g.Journeys {
		n := &node{ref: model.GraphRef{Layer: model.LayerJourney, Name: j.Name}, title: j.Name, util: math.NaN()}
		if j.Detail != "" {
			n.lines = []string{"journey · " + j.Detail}
		} else {
			n.lines = []string{"journey"}
		}
		add(n)
	}
	for _, r := range g.Routes {
		add(&node{ref: model.GraphRef{Layer: model.LayerRoute, Name: r.Name}, title: r.Name, lines: []string{"route"}, util: math.NaN()})
	}
	for _, c := range g.Components {
		n := &node{ref: model.GraphRef{Layer: model.LayerComponent, Name: c.Name}, title: c.Name, util: math.NaN(), highlight: c.Name == opts.Highlight}
		if c.Replicas > 1 {
			n.title += fmt.Sprintf(" ×%d", c.Replicas)
		}
		n.lines = []string{c.Kind}
		if c.Capacity != "" {
			n.lines[0] += " · " + c.Capacity
		}
		if l, ok := LoadOf(c, opts.Loads); ok {
			s := fmt.Sprintf("util %s · queue %s", percent(l.Utilisation), num(l.MeanQueue))
			if l.Rejected > 0 {
				s += " · " + num(l.Rejected) + " rejected"
			}
			n.lines = append(n.lines, s)
			n.util = l.Utilisation
		}
		add(n)
	}
	for _, e := range g.Edges {
		fi, ok1 := lay.index[e.From]
		ti, ok2 := lay.index[e.To]
		if !ok1 || !ok2 {
			continue // a name the compiler refused; nothing to draw it to
		}
		k := len(lay.edges)
		lay.edges = append(lay.edges, e)
		lay.nodes[fi].out = append(lay.nodes[fi].out, k)
		lay.nodes[ti].in = append(lay.nodes[ti].in, k)
	}
	// Sizes, then columns stacked in declaration order.
	colW := [3]float64{}
	for _, n := range lay.nodes {
		w := float64(len([]rune(n.title)))*charW + 24
		for _, l := range n.lines {
			w = math.Max(w, float64(len([]rune(l)))*(charW-1)+24)
		}
		n.h = math.Max(float64(1+len(n.lines))*lineH+12, math.Max(float64(len(n.in)), float64(len(n.out)))*portGap+8)
		if !math.IsNaN(n.util) {
			n.h += 8
		}
		colW[n.ref.Layer] = math.Max(colW[n.ref.Layer], w)
	}
	x := [3]float64{margin + 40, 0, 0}
	x[1] = x[0] + colW[0] + colGap
	x[2] = x[1] + colW[1] + colGap
	y := [3]float64{top, top, top}
	for _, n := range lay.nodes {
		c := n.ref.Layer
		n.x, n.y, n.w = x[c], y[c], colW[c]
		y[c] += n.h + rowGap
		lay.h = math.Max(lay.h, y[c])
	}
	lay.w = x[2] + colW[2] + margin + 60
	// Ports ordered by the other end's height, so edges cross less.
	for _, n := range lay.nodes {
		sort.SliceStable(n.in, func(a, b int) bool {
			return lay.nodes[lay.index[lay.edges[n.in[a]].From]].y < lay.nodes[lay.index[lay.edges[n.in[b]].From]].y
		})
		sort.SliceStable(n.out, func(a, b int) bool {
			return lay.nodes[lay.index[lay.edges[n.out[a]].To]].y < lay.nodes[lay.index[lay.edges[n.out[b]].To]].y
		})
	}
	return lay
}

// port is the y of edge k among ends at node n.
func port(n *node, ends []int, k int) float64 {
	for i, e := range ends {
		if e == k {
			return n.y + n.h*float64(i+1)/float64(len(ends)+1)
		}
	}
	return n.y + n.h/2
}

func percent(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*f)
}

func num(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	if f == math.Trunc(f) || math.Abs(f) >= 100 {
		return fmt.Sprintf("%.0f", f)
	}
	return strconv.FormatFloat(f, 'f', 2-int(math.Max(0, math.Floor(math.Log10(math.Abs(f))))), 64)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func title(g model.Graph) string {
	t := "scenario " + g.Scenario
	if g.Design != "" {
		t += ", design " + g.Design
	}
	return t
}
