package plots

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg/draw"
)

// Tornado draws a one-at-a-time sensitivity: one row per parameter, the
// most influential at the top, with a bar from the base value to the value
// the result took with the parameter lowered and another to the value with
// it raised. A NaN end (a side not perturbed, or a result outside the
// range searched) draws no bar on that side.
type Tornado struct {
	Title, XLabel string
	Base          float64 // the result with every parameter as given
	// LowName and HighName label the two sides in the legend ("-10%").
	LowName, HighName string
	Rows              []TornadoRow // top row first
}

// TornadoRow is one parameter's two results.
type TornadoRow struct {
	Name      string
	Low, High float64
}

// Render draws the chart as "svg" or "png", widthCm by heightCm.
func (t Tornado) Render(format string, widthCm, heightCm float64) ([]byte, error) {
	return render(format, widthCm, heightCm, t.figure)
}

func (t Tornado) figure() (*figure, error) {
	const kind = "tornado chart"
	if !finite(t.Base) {
		return nil, fmt.Errorf("plots: %s %q: the base value must be finite, got %g", kind, t.Title, t.Base)
	}
	var xs span
	xs.add(t.Base)
	drawable := 0
	for _, r := range t.Rows {
		for _, v := range []float64{r.Low, r.High} {
			if finite(v) {
				xs.add(v)
				drawable++
			}
		}
	}
	if drawable == 0 {
		return nil, noData(kind, t.Title)
	}
	p := newPlot(t.Title, t.XLabel, "")
	f := &figure{p: p, legend: newLegend()}
	n := len(t.Rows)
	low, high := seriesLook(0).colour, seriesLook(1).colour
	var rects bars
	names := make([]string, n)
	for i, r := range t.Rows {
		// Row i is drawn at y = n-1-i so the first row is at the top.
		y := float64(n - 1 - i)
		names[n-1-i] = r.Name
		for _, side := range []struct {
			v    float64
			fill color.Color
		}{{r.Low, low}, {r.High, high}} {
			if finite(side.v) {
				rects = append(rects, bar{x0: t.Base, x1: side.v, y0: y - 0.35, y1: y + 0.35, fill: side.fill})
			}
		}
	}
	p.Add(rects)
	p.Add(&refLine{at: t.Base, vertical: true, style: boundStyle})
	f.addLegend(t.LowName, swatch{fill: low})
	f.addLegend(t.HighName, swatch{fill: high})
	f.addLegend(fmt.Sprintf("base %s", Number(t.Base)), &refLine{vertical: true, style: boundStyle})

	pad := (xs.hi - xs.lo) * 0.08
	if pad == 0 {
		pad = 0.05 * t.Base
	}
	p.X.Min, p.X.Max = xs.lo-pad, xs.hi+pad
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.Y.Tick.Marker = categoryTicks(names)
	p.Y.Tick.Length = 0
	p.Y.Tick.Label.XAlign = draw.XRight
	return f, nil
}
