package plots

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Histogram draws the distribution of a sample, optionally with a fitted
// density over it; with a density the bars are scaled to unit area so the
// two share an axis. NaN and infinite values are left out and not counted.
type Histogram struct {
	Title, XLabel string
	Values        []float64
	// Bins is the number of bars; zero picks one from the sample size.
	Bins int
	// Density, when set, is drawn over the bars across their range.
	Density func(x float64) float64
	// DensityName labels the density in the legend; it defaults to
	// "fitted density".
	DensityName string
}

// Render draws the chart as "svg" or "png", widthCm by heightCm.
func (h Histogram) Render(format string, widthCm, heightCm float64) ([]byte, error) {
	return render(format, widthCm, heightCm, h.figure)
}

const (
	maxBins = 1000
	// densitySteps is how finely the density curve is sampled; a fitted
	// curve is smooth, and 200 steps is below what a reader can resolve.
	densitySteps = 200
)

func (h Histogram) figure() (*figure, error) {
	const kind = "histogram"
	if h.Bins < 0 || h.Bins > maxBins {
		return nil, fmt.Errorf("plots: %s %q: bins %d out of range [0, %d]", kind, h.Title, h.Bins, maxBins)
	}
	var vs []float64
	var xs span
	for _, v := range h.Values {
		if finite(v) {
			vs = append(vs, v)
			xs.add(v)
		}
	}
	if len(vs) == 0 {
		return nil, noData(kind, h.Title)
	}
	n := h.Bins
	if n == 0 {
		// The square-root rule, capped so that a large sample does not
		// turn into hairline bars.
		n = min(max(int(math.Ceil(math.Sqrt(float64(len(vs))))), 5), 50)
	}
	lo, hi := xs.lo, xs.hi
	if lo == hi {
		// One distinct value still deserves a visible bar of some width.
		half := math.Abs(lo) * 0.1
		if half == 0 {
			half = 0.5
		}
		lo, hi = lo-half, hi+half
	}
	width := (hi - lo) / float64(n)
	bins := make([]plotter.HistogramBin, n)
	for i := range bins {
		bins[i].Min = lo + float64(i)*width
		bins[i].Max = lo + float64(i+1)*width
	}
	for _, v := range vs {
		i := min(int((v-lo)/width), n-1)
		bins[i].Weight++
	}
	ylabel := "count"
	if h.Density != nil {
		ylabel = "density"
		for i := range bins {
			bins[i].Weight /= float64(len(vs)) * width
		}
	}
	var ys span
	ys.add(0)
	for _, b := range bins {
		ys.add(b.Weight)
	}

	p := newPlot(h.Title, h.XLabel, ylabel)
	f := &figure{p: p, legend: newLegend()}
	hist := &plotter.Histogram{
		Bins:      bins,
		Width:     width,
		FillColor: lightGrey,
		LineStyle: draw.LineStyle{Color: barOutline, Width: vg.Points(0.5)},
	}
	p.Add(hist)
	f.addLegend(fmt.Sprintf("sample (n = %d)", len(vs)), swatch{fill: lightGrey})

	if h.Density != nil {
		barTop := ys.hi
		lk := seriesLook(0)
		var seg plotter.XYs
		var peak span
		flush := func() {
			if len(seg) > 1 {
				p.Add(newLine(seg, lk.line))
			}
			seg = nil
		}
		for i := range densitySteps + 1 {
			x := lo + (hi-lo)*float64(i)/densitySteps
			y := h.Density(x)
			if !finite(y) {
				flush()
				continue
			}
			seg = append(seg, plotter.XY{X: x, Y: y})
			peak.add(y)
		}
		flush()
		// A density with a pole near the data would flatten the bars to
		// nothing; past three times the tallest bar the curve is clipped.
		if peak.ok {
			ys.add(math.Min(peak.hi, 3*barTop), math.Max(peak.lo, -barTop))
		}
		name := h.DensityName
		if name == "" {
			name = "fitted density"
		}
		f.addLegend(name, &plotter.Line{LineStyle: lk.line})
	}
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = ys.lo, ys.hi
	return f, nil
}

// QQ draws a quantile–quantile plot: the sorted observations against the
// quantiles a fitted distribution predicts for them. Points on the
// diagonal mean the fit matches the sample. A sample of more than 500 is
// drawn as 500 evenly spaced order statistics, both extremes included.
// Observations and quantiles that are NaN or infinite are left out.
type QQ struct {
	Title string
	// XLabel and YLabel default to "fitted quantile" and
	// "observed quantile".
	XLabel, YLabel string
	Observed       []float64
	// Quantile is the fitted distribution's inverse CDF on (0, 1).
	Quantile func(p float64) float64
}

// Render draws the chart as "svg" or "png", widthCm by heightCm.
func (q QQ) Render(format string, widthCm, heightCm float64) ([]byte, error) {
	return render(format, widthCm, heightCm, q.figure)
}

// maxQQPoints bounds the markers drawn: beyond a few hundred they merge
// into a line and only make the SVG heavy.
const maxQQPoints = 500

func (q QQ) figure() (*figure, error) {
	const kind = "QQ plot"
	if q.Quantile == nil {
		return nil, fmt.Errorf("plots: %s %q has no quantile function", kind, q.Title)
	}
	var obs []float64
	for _, v := range q.Observed {
		if finite(v) {
			obs = append(obs, v)
		}
	}
	slices.Sort(obs)
	n := len(obs)
	m := min(n, maxQQPoints)
	var pts plotter.XYs
	var all span
	for k := range m {
		i := k
		if m < n {
			// Evenly spaced order statistics, always keeping both extremes
			// because the tails are where a fit usually fails.
			i = int(math.Round(float64(k) * float64(n-1) / float64(m-1)))
		}
		// Hazen plotting positions (i+½)/n stay strictly inside (0, 1),
		// where every inverse CDF is finite for a finite sample.
		x := q.Quantile((float64(i) + 0.5) / float64(n))
		if !finite(x) {
			continue
		}
		pts = append(pts, plotter.XY{X: x, Y: obs[i]})
		all.add(x, obs[i])
	}
	if len(pts) == 0 {
		return nil, noData(kind, q.Title)
	}
	xlabel, ylabel := q.XLabel, q.YLabel
	if xlabel == "" {
		xlabel = "fitted quantile"
	}
	if ylabel == "" {
		ylabel = "observed quantile"
	}
	p := newPlot(q.Title, xlabel, ylabel)
	f := &figure{p: p, legend: newLegend()}
	lo, hi := all.lo, all.hi
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	diag := &plotter.Line{
		XYs:       plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}},
		LineStyle: draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}},
	}
	lk := seriesLook(0)
	marks := &plotter.Scatter{XYs: pts, GlyphStyle: lk.glyph}
	p.Add(diag, marks)
	f.addLegend(fmt.Sprintf("sample (n = %d)", n), &plotter.Scatter{GlyphStyle: lk.glyph})
	f.addLegend("perfect fit (y = x)", &plotter.Line{LineStyle: diag.LineStyle})
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = lo, hi
	return f, nil
}
