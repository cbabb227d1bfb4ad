package plots

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Signal is a named quantity sampled at a fixed step, such as the queue
// length of one component.
type Signal struct {
	Name   string
	Values []float64
}

// TimeSeriesChart draws signals against time: Values[i] is at i*Step
// seconds. NaN and infinite samples leave gaps. A signal of more than
// 2000 samples is drawn as the minimum and maximum of each of 1000 equal
// buckets, which keeps spikes visible and the SVG small.
type TimeSeriesChart struct {
	Title, YLabel string
	// XLabel defaults to "time (s)".
	XLabel string
	// Step is the sampling interval in seconds.
	Step   float64
	Series []Signal
	// Bounds are horizontal reference lines, such as a component's
	// capacity: a queue that stays at it is full.
	Bounds []Bound
}

// Render draws the chart as "svg" or "png", widthCm by heightCm.
func (tc TimeSeriesChart) Render(format string, widthCm, heightCm float64) ([]byte, error) {
	return render(format, widthCm, heightCm, tc.figure)
}

// maxSamples bounds the points drawn per signal: about two per PNG pixel
// across a wide chart, beyond which extra points are invisible.
const maxSamples = 2000

func (tc TimeSeriesChart) figure() (*figure, error) {
	const kind = "time series chart"
	if !finite(tc.Step) || tc.Step <= 0 {
		return nil, fmt.Errorf("plots: %s %q: step %g is not a positive number of seconds", kind, tc.Title, tc.Step)
	}
	xlabel := tc.XLabel
	if xlabel == "" {
		xlabel = "time (s)"
	}
	p := newPlot(tc.Title, xlabel, tc.YLabel)
	f := &figure{p: p, legend: newLegend()}

	var xs, ys span
	for i, sig := range tc.Series {
		lk := seriesLook(i)
		var seg, lone plotter.XYs
		flush := func() {
			switch len(seg) {
			case 0:
			case 1:
				// A single sample between gaps would vanish as a line.
				lone = append(lone, seg[0])
			default:
				p.Add(newLine(seg, lk.line))
			}
			seg = nil
		}
		for _, s := range decimate(sig.Values) {
			if !finite(s.Y) {
				flush()
				continue
			}
			xy := plotter.XY{X: s.X * tc.Step, Y: s.Y}
			seg = append(seg, xy)
			xs.add(xy.X)
			ys.add(xy.Y)
		}
		flush()
		if len(lone) > 0 {
			g := lk.glyph
			g.Radius = vg.Points(1.5)
			p.Add(&plotter.Scatter{XYs: lone, GlyphStyle: g})
		}
		f.addLegend(sig.Name, &plotter.Line{LineStyle: lk.line})
	}
	if !ys.ok {
		return nil, noData(kind, tc.Title)
	}
	for _, b := range tc.Bounds {
		if finite(b.Y) {
			ys.add(b.Y)
			rl := &refLine{at: b.Y, style: boundStyle}
			p.Add(rl)
			f.addLegend(b.Label, rl)
		}
	}
	// Queue lengths and counts read wrongly against a floating baseline.
	if ys.lo > 0 {
		ys.lo = 0
	}
	p.X.Min, p.X.Max = xs.lo, xs.hi
	p.Y.Min, p.Y.Max = ys.lo, ys.hi
	return f, nil
}

// decimate returns the samples to draw, with X as the sample index. Short
// signals pass through; long ones keep each bucket's minimum and maximum
// in time order, and a bucket holding any NaN keeps one NaN so that gaps
// survive.
func decimate(vs []float64) plotter.XYs {
	if len(vs) <= maxSamples {
		out := make(plotter.XYs, len(vs))
		for i, v := range vs {
			out[i] = plotter.XY{X: float64(i), Y: v}
		}
		return out
	}
	buckets := maxSamples / 2
	out := make(plotter.XYs, 0, maxSamples)
	for b := range buckets {
		start, end := b*len(vs)/buckets, (b+1)*len(vs)/buckets
		lo, hi, gap := -1, -1, -1
		for i := start; i < end; i++ {
			v := vs[i]
			if !finite(v) {
				if gap < 0 {
					gap = i
				}
				continue
			}
			if lo < 0 || v < vs[lo] {
				lo = i
			}
			if hi < 0 || v > vs[hi] {
				hi = i
			}
		}
		var keep []int
		for _, i := range []int{lo, hi, gap} {
			if i >= 0 {
				keep = append(keep, i)
			}
		}
		slices.Sort(keep)
		for _, i := range slices.Compact(keep) {
			y := math.NaN()
			if i != gap {
				y = vs[i]
			}
			out = append(out, plotter.XY{X: float64(i), Y: y})
		}
	}
	return out
}
