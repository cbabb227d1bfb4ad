package sweepreport

import (
	"fmt"
	"math"
	"strings"

	"capsim/plots"
)

// leftOut decides which charts a report draws and gathers, for the one
// section that names them, those it does not and why: nothing measured,
// flat at every load (every series empty or constant: a line that says
// only its number), the same data as a chart already drawn, or a signal
// of a run over time that never moved. The data of every chart drawn is
// kept so that no chart is drawn twice.
type leftOut struct {
	empty, flat, same []string
	overRun           []string
	drawn             map[string]string // a drawn chart's data → what it shows
}

func newLeftOut() *leftOut { return &leftOut{drawn: map[string]string{}} }

// shows reports whether chart, showing what, is to be drawn, and notes
// why when it is not.
func (l *leftOut) shows(chart plots.Renderer, what string) bool {
	if !drawable(chart) {
		l.empty = append(l.empty, what)
		return false
	}
	if v, flat := flatChart(chart); flat {
		if v != "" {
			what += " (" + v + ")"
		}
		l.flat = append(l.flat, what)
		return false
	}
	key := dataKey(chart)
	if first, ok := l.drawn[key]; ok && key != "" {
		l.same = append(l.same, what+" (the same as "+first+")")
		return false
	}
	if key != "" {
		l.drawn[key] = what
	}
	return true
}

// keep adds fig with chart when [leftOut.shows] says so.
func (l *leftOut) keep(figs []plots.Figure, fig plots.Figure, chart plots.Renderer, what string) []plots.Figure {
	if !l.shows(chart, what) {
		return figs
	}
	fig.Chart = chart
	return append(figs, fig)
}

// section is the "Charts left out" section, one line a reason; false
// when every chart was drawn.
func (l *leftOut) section() (plots.Section, bool) {
	var b strings.Builder
	line := func(head string, items []string) {
		if len(items) > 0 {
			fmt.Fprintf(&b, "- %s: %s\n", head, mdEscape(strings.Join(items, ", ")))
		}
	}
	line("flat at every load", l.flat)
	line("nothing measured", l.empty)
	line("drawn once", l.same)
	for _, r := range l.overRun {
		fmt.Fprintf(&b, "- %s\n", mdEscape(r))
	}
	if b.Len() == 0 {
		return plots.Section{}, false
	}
	return plots.Section{Heading: "Charts left out", Text: "Charts with nothing to show are left out: a line flat at every load for every design " +
		"(the value in brackets when all are at one), nothing measured, or the same data as a chart drawn.\n\n" + b.String()}, true
}

// flatChart reports whether every series of the chart is empty or
// constant, with the value when they all sit at one. A saturated point
// (a run stopped by a guard) is never flat.
func flatChart(chart plots.Renderer) (string, bool) {
	var series []plots.Series
	percent := false
	switch c := chart.(type) {
	case plots.LineChart:
		series, percent = c.Series, c.Percent
	case plots.BarChart:
		series, percent = c.Groups, c.Percent
	case plots.SmallMultiples:
		for _, p := range c.Panels {
			lc, ok := p.(plots.LineChart)
			if !ok {
				return "", false
			}
			series, percent = append(series, lc.Series...), lc.Percent
		}
	default:
		return "", false
	}
	one, v, seen := true, 0.0, false
	for _, s := range series {
		sv, sseen := 0.0, false
		for _, p := range s.Points {
			if p.Saturated {
				return "", false
			}
			if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
				continue
			}
			if sseen && p.Y != sv {
				return "", false
			}
			sv, sseen = p.Y, true
		}
		if sseen {
			one = one && (!seen || sv == v)
			v, seen = sv, true
		}
	}
	switch {
	case !one || !seen:
		return "", true
	case percent:
		return plots.Percent(v), true
	}
	return plots.Number(v), true
}

// dataKey is what a chart draws, its title aside: two charts with one
// key draw the same lines against the same axes.
func dataKey(chart plots.Renderer) string {
	deref := func(p *float64) string {
		if p == nil {
			return "auto"
		}
		return fmt.Sprint(*p)
	}
	switch c := chart.(type) {
	case plots.LineChart:
		return fmt.Sprintf("line %q %q %v %v %v %v %s %s", c.XLabel, c.YLabel, c.Series, c.Bounds, c.Marks, c.Percent,
			deref(c.YMin), deref(c.YMax))
	case plots.BarChart:
		return fmt.Sprintf("bar %q %q %q %v %v %v %s %s", c.XLabel, c.YLabel, c.Categories, c.Groups, c.Stacked, c.Percent,
			deref(c.YMin), deref(c.YMax))
	case plots.SmallMultiples:
		keys := []string{fmt.Sprintf("multiples %d %v %v", c.Cols, c.SharedY, c.Legend)}
		for _, p := range c.Panels {
			k := dataKey(p)
			if k == "" {
				return ""
			}
			keys = append(keys, k)
		}
		return strings.Join(keys, "\n")
	}
	return "" // a kind of chart not compared: never alike
}
