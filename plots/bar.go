package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarChart draws one bar per group in each category, side by side or
// stacked. Groups[g].Points[c].Y is group g's value in category c; X is
// ignored. A missing, NaN or infinite value draws no bar; a Saturated one
// draws the saturation marker above the category instead. Intervals are
// drawn on side-by-side bars only: a stacked segment's interval has no
// sensible place.
type BarChart struct {
	Title, XLabel, YLabel string
	Categories            []string
	Groups                []Series
	Stacked               bool
	// YMin and YMax fix the y range when set; otherwise it fits the data
	// and always includes zero, where the bars start.
	YMin, YMax *float64
	// Percent labels the y axis as percentages of fractions: 0.5 is "50%".
	Percent bool
}

// Render draws the chart as "svg" or "png", widthCm by heightCm.
func (bc BarChart) Render(format string, widthCm, heightCm float64) ([]byte, error) {
	return render(format, widthCm, heightCm, bc.figure)
}

// Bars span this fraction of the distance between category centres,
// leaving a gap that shows where one category ends.
const groupWidth = 0.8

type bar struct {
	x0, x1, y0, y1 float64
	fill           color.Color
}

// bars draws rectangles given in data coordinates, so their widths follow
// the axis rather than a fixed length guessed before the layout is known.
type bars []bar

func (bs bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	edge := draw.LineStyle{Color: barOutline, Width: vg.Points(0.5)}
	for _, b := range bs {
		pts := []vg.Point{
			{X: trX(b.x0), Y: trY(b.y0)},
			{X: trX(b.x1), Y: trY(b.y0)},
			{X: trX(b.x1), Y: trY(b.y1)},
			{X: trX(b.x0), Y: trY(b.y1)},
		}
		c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
		c.StrokeLines(edge, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

func (bc BarChart) figure() (*figure, error) {
	const kind = "bar chart"
	nc := len(bc.Categories)
	for _, g := range bc.Groups {
		if len(g.Points) > nc {
			return nil, fmt.Errorf("plots: %s %q: group %q has %d values for %d categories",
				kind, bc.Title, g.Name, len(g.Points), nc)
		}
	}

	var ys span
	ys.add(0)
	drawable, saturated := 0, false
	var pos, neg []float64 // running stack heights per category
	if bc.Stacked {
		pos, neg = make([]float64, nc), make([]float64, nc)
	}
	for _, g := range bc.Groups {
		for c, pt := range g.Points {
			switch {
			case pt.Saturated:
				drawable++
				saturated = true
			case !finite(pt.Y):
			case bc.Stacked:
				drawable++
				if pt.Y >= 0 {
					pos[c] += pt.Y
					ys.add(pos[c])
				} else {
					neg[c] += pt.Y
					ys.add(neg[c])
				}
			default:
				drawable++
				ys.add(pt.Y)
				if pt.hasInterval() {
					ys.add(pt.Lo, pt.Hi)
				}
			}
		}
	}
	if drawable == 0 {
		return nil, noData(kind, bc.Title)
	}
	lo, top, err := yRange(ys, bc.YMin, bc.YMax, saturated)
	if err != nil {
		return nil, fmt.Errorf("plots: %s %q: %w", kind, bc.Title, err)
	}

	p := newPlot(bc.Title, bc.XLabel, bc.YLabel)
	f := &figure{p: p, legend: newLegend()}
	var rects bars
	var extras []plot.Plotter
	if bc.Stacked {
		pos, neg = make([]float64, nc), make([]float64, nc)
	}
	slot := groupWidth / float64(max(len(bc.Groups), 1))
	for g, grp := range bc.Groups {
		lk := seriesLook(g)
		iv := newIntervals(draw.LineStyle{Color: black})
		var sat plotter.XYs
		for c, pt := range grp.Points {
			x0 := float64(c) - groupWidth/2 + float64(g)*slot
			x1 := x0 + slot*0.9
			if bc.Stacked {
				x0, x1 = float64(c)-groupWidth/2*0.85, float64(c)+groupWidth/2*0.85
			}
			mid := (x0 + x1) / 2
			switch {
			case pt.Saturated:
				sat = append(sat, plotter.XY{X: mid, Y: top})
			case !finite(pt.Y):
			case bc.Stacked:
				base := &pos[c]
				if pt.Y < 0 {
					base = &neg[c]
				}
				rects = append(rects, bar{x0: x0, x1: x1, y0: *base, y1: *base + pt.Y, fill: lk.colour})
				*base += pt.Y
			default:
				rects = append(rects, bar{x0: x0, x1: x1, y0: 0, y1: pt.Y, fill: lk.colour})
				if pt.hasInterval() {
					iv.add(mid, pt.Lo, pt.Hi)
				}
			}
		}
		if len(iv.x) > 0 {
			extras = append(extras, iv)
		}
		if len(sat) > 0 {
			extras = append(extras, &plotter.Scatter{XYs: sat, GlyphStyle: saturatedStyle(lk.colour)})
		}
		f.addLegend(grp.Name, swatch{fill: lk.colour})
	}
	if saturated {
		f.addLegend(saturatedLegend, &plotter.Scatter{GlyphStyle: saturatedStyle(lightGrey)})
	}
	p.Add(rects)
	p.Add(extras...)

	p.X.Min, p.X.Max = -0.5, float64(nc)-0.5
	p.Y.Min, p.Y.Max = lo, top
	p.X.Tick.Marker = categoryTicks(bc.Categories)
	p.X.Tick.Length = 0
	if crowded(bc.Categories) {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	if bc.Percent {
		p.Y.Tick.Marker = niceTicks{percent: true}
	}
	return f, nil
}

// crowded guesses whether horizontal category labels would collide; the
// threshold is a rough count of characters that fit across a chart.
func crowded(names []string) bool {
	total := 0
	for _, n := range names {
		total += len([]rune(n)) + 2
	}
	return total > 60
}
