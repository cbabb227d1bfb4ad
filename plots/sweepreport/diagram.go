package sweepreport

import (
	"fmt"
	"slices"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"
	"capsim/plots/diagram"
)

// Diagram is the picture beside the verdict, as diagram.svg holds it,
// and its caption: the best-ranked design that fails, at its first
// failure, with the component named there outlined. graphs are the
// designs' by name; ok is false when no design failed or its graph is not
// given.
func Diagram(res *sweep.Result, graphs map[string]model.Graph) (svg []byte, caption string, ok bool) {
	return diagramOf(res, rankOutcomes(res), graphs)
}

// diagramFile is [Diagram] as the report's file and the sentence that
// points to it.
func diagramFile(res *sweep.Result, outs []outcome, graphs map[string]model.Graph) (f plots.File, text string, ok bool) {
	svg, caption, ok := diagramOf(res, outs, graphs)
	if !ok {
		return plots.File{}, "", false
	}
	return plots.File{Name: "diagram.svg", Data: svg},
		fmt.Sprintf("\n\nThe scenario as a diagram, %s, is in `diagram.svg`.", caption), true
}

func diagramOf(res *sweep.Result, outs []outcome, graphs map[string]model.Graph) (svg []byte, caption string, ok bool) {
	for _, o := range outs {
		if !o.ff.Found {
			continue
		}
		design := res.Designs[o.designs[0]]
		g, have := graphs[design]
		i := slices.IndexFunc(o.ff.Tried, func(c *sweep.Cell) bool { return c.Multiplier == o.ff.Multiplier })
		if !have || i < 0 {
			return nil, "", false
		}
		// A refinement point may keep only its SLOs' figures: the loads
		// are then the next multiplier's that measured them.
		cell := o.ff.Tried[i]
		for _, c := range o.ff.Tried[i:] {
			if len(c.Metrics) > len(c.SLOs) {
				if _, ok := c.Stat(model.Utilisation.Of(componentEntity(g))); ok {
					cell = c
					break
				}
			}
		}
		loads := map[string]diagram.Load{}
		for _, c := range g.Components {
			names := []string{c.Name}
			for r := 0; r < c.Replicas && c.Replicas > 1; r++ {
				names = append(names, fmt.Sprintf("%s[%d]", c.Name, r))
			}
			for _, n := range names {
				u, okU := cell.Stat(model.Utilisation.Of(n))
				if !okU {
					continue
				}
				q, _ := cell.Stat(model.MeanQueue.Of(n))
				rej, _ := cell.Stat(model.Rejected.Of(n))
				loads[n] = diagram.Load{Utilisation: u.Mean, MeanQueue: q.Mean, Rejected: rej.Mean}
			}
		}
		caption = fmt.Sprintf("design %s, first failure at %sx; loads at %sx (mean of %d replications)", design,
			sweep.FormatMultiplier(o.ff.Multiplier), sweep.FormatMultiplier(cell.Multiplier), cell.Runs)
		highlight := o.ff.Component
		if highlight != "" {
			caption += "; outlined in red: " + highlight + ", where failed journeys failed most"
		} else if highlight = busiest(g, loads); highlight != "" {
			caption += "; outlined in red: " + highlight + ", the busiest component (no failure names one)"
		}
		return diagram.SVG(g, diagram.Options{Loads: loads, Highlight: highlight, Caption: caption}), caption, true
	}
	return nil, "", false
}

// componentEntity is the results' name of g's first component: its first
// copy's when it is behind a balancer.
func componentEntity(g model.Graph) string {
	if len(g.Components) == 0 {
		return ""
	}
	if c := g.Components[0]; c.Replicas > 1 {
		return c.Name + "[0]"
	}
	return g.Components[0].Name
}

// busiest is the component of highest utilisation, the first on a tie.
func busiest(g model.Graph, loads map[string]diagram.Load) string {
	best, bestU := "", -1.0
	for _, c := range g.Components {
		if l, ok := diagram.LoadOf(c, loads); ok && l.Utilisation > bestU {
			best, bestU = c.Name, l.Utilisation
		}
	}
	return best
}
