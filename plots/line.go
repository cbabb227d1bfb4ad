package plots

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Point is one observation: Y at X, with an optional confidence interval
// [Lo, Hi].
type Point struct {
	X, Y float64
	// Lo and Hi bound the interval around Y. There is no interval when
	// either is NaN or infinite, or when Lo == Hi, so a Point literal that
	// leaves them zero draws no bar.
	Lo, Hi float64
	// Saturated marks a point whose run broke a guard or whose queue grew
	// without bound. Its Y means nothing; it is drawn with the saturation
	// marker at the top of the y axis and never joined to its neighbours.
	Saturated bool
}

func (pt Point) hasInterval() bool {
	return finite(pt.Lo, pt.Hi) && pt.Lo != pt.Hi
}

// Series is a named sequence of points. On a [BarChart] it is one group
// and Points[i].Y is its value in category i (X is ignored).
type Series struct {
	Name   string
	Points []Point
	// Look, when > 0, gives the series the colour and marker of position
	// Look-1 instead of its own, so two series of one design (its journey
	// and its HTTP failure rates) read as a pair.
	Look int
	// Dashed draws the line dashed: the second series of such a pair.
	Dashed bool
}

// LineChart draws each series as a line through its points, sorted by X,
// with its confidence intervals as error bars. A point with a NaN or
// infinite Y leaves a gap in the line; a Saturated point leaves a gap and
// is marked at the top of the axis. When series carry intervals they are
// shifted sideways by a few percent of the x spacing so that bars at the
// same X stay apart.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	// YMin and YMax fix the y range when set; otherwise it fits the data.
	YMin, YMax *float64
	// Percent labels the y axis as percentages of fractions: 0.5 is "50%".
	Percent bool
	// Bounds are horizontal reference lines, such as an SLO's bound:
	// the line a reader compares every series with.
	Bounds []Bound
	// Marks are vertical lines at an X of interest to one series, such
	// as the multiplier where a design first fails.
	Marks []Mark
}

// Bound is a horizontal reference line at Y, named in the legend.
type Bound struct {
	Y     float64
	Label string
}

// Mark is a dotted vertical line at X in the colour of Series (an index
// into the chart's series). Marks sharing a Label share a legend entry.
type Mark struct {
	X      float64
	Series int
	Label  string
}

// Render draws the chart as "svg" or "png", widthCm by heightCm.
func (lc LineChart) Render(format string, widthCm, heightCm float64) ([]byte, error) {
	return render(format, widthCm, heightCm, lc.figure)
}

func (lc LineChart) figure() (*figure, error) {
	const kind = "line chart"
	p := newPlot(lc.Title, lc.XLabel, lc.YLabel)
	f := &figure{p: p, legend: newLegend()}

	// Sorting a copy keeps the caller's slices untouched; points with no
	// usable X cannot be placed at all and are dropped here.
	sorted := make([][]Point, len(lc.Series))
	anyInterval := false
	var ys span
	drawable, saturated := 0, false
	for i, s := range lc.Series {
		for _, pt := range s.Points {
			if !finite(pt.X) {
				continue
			}
			sorted[i] = append(sorted[i], pt)
			switch {
			case pt.Saturated:
				drawable++
				saturated = true
			case finite(pt.Y):
				drawable++
				ys.add(pt.Y)
				if pt.hasInterval() {
					anyInterval = true
					ys.add(pt.Lo, pt.Hi)
				}
			}
		}
		slices.SortStableFunc(sorted[i], func(a, b Point) int { return cmp.Compare(a.X, b.X) })
	}
	if drawable == 0 {
		return nil, noData(kind, lc.Title)
	}
	for _, b := range lc.Bounds {
		ys.add(b.Y)
	}
	ylo, top, err := yRange(ys, lc.YMin, lc.YMax, saturated)
	if err != nil {
		return nil, fmt.Errorf("plots: %s %q: %w", kind, lc.Title, err)
	}

	offsets := dodge(sorted, anyInterval)
	var xs span
	var lines, bars, marks, tops []plot.Plotter
	for i, s := range lc.Series {
		lk := seriesLook(i)
		if s.Look > 0 {
			lk = seriesLook(s.Look - 1)
		}
		if s.Dashed {
			lk.line.Dashes = dashPatterns[1]
		}
		iv := newIntervals(lk.line)
		var seg, pts, sat plotter.XYs
		flush := func() {
			if len(seg) > 1 {
				lines = append(lines, newLine(seg, lk.line))
			}
			seg = nil
		}
		for _, pt := range sorted[i] {
			x := pt.X + offsets[i]
			switch {
			case pt.Saturated:
				flush()
				sat = append(sat, plotter.XY{X: x, Y: top})
				xs.add(x)
			case finite(pt.Y):
				seg = append(seg, plotter.XY{X: x, Y: pt.Y})
				pts = append(pts, plotter.XY{X: x, Y: pt.Y})
				if pt.hasInterval() {
					// An interval is drawn only as far as the axes reach:
					// a bar past a fixed bound would claim room the
					// quantity cannot take (a rate above 100 %).
					iv.add(x, clamp(pt.Lo, ylo, top), clamp(pt.Hi, ylo, top))
				}
				xs.add(x)
			default:
				flush()
			}
		}
		flush()
		if len(iv.x) > 0 {
			bars = append(bars, iv)
		}
		if len(pts) > 0 {
			marks = append(marks, &plotter.Scatter{XYs: pts, GlyphStyle: lk.glyph})
		}
		if len(sat) > 0 {
			tops = append(tops, &plotter.Scatter{XYs: sat, GlyphStyle: saturatedStyle(lk.colour)})
		}
		f.addLegend(s.Name, &plotter.Line{LineStyle: lk.line}, &plotter.Scatter{GlyphStyle: lk.glyph})
	}
	if saturated {
		f.addLegend(saturatedLegend, &plotter.Scatter{GlyphStyle: saturatedStyle(lightGrey)})
	}
	var refs []plot.Plotter
	for _, b := range lc.Bounds {
		if !finite(b.Y) {
			continue
		}
		rl := &refLine{at: b.Y, style: boundStyle}
		refs = append(refs, rl)
		f.addLegend(b.Label, rl)
	}
	marked := map[string]bool{}
	for _, m := range lc.Marks {
		if !finite(m.X) || m.Series < 0 || m.Series >= len(lc.Series) {
			continue
		}
		li := m.Series
		if lk := lc.Series[li].Look; lk > 0 {
			li = lk - 1
		}
		rl := &refLine{at: m.X + offsets[m.Series], vertical: true, style: markStyle(seriesLook(li).colour)}
		refs = append(refs, rl)
		xs.add(m.X)
		if m.Label != "" && !marked[m.Label] {
			marked[m.Label] = true
			f.addLegend(m.Label, &refLine{vertical: true, style: markStyle(grey)})
		}
	}
	for _, group := range [][]plot.Plotter{refs, lines, bars, marks, tops} {
		p.Add(group...)
	}
	// Add widened the axes to the plotted data; the computed ranges win
	// so that fixed bounds and the saturation row stay where they were put.
	p.X.Min, p.X.Max = xs.lo, xs.hi
	p.Y.Min, p.Y.Max = ylo, top
	if lc.Percent {
		p.Y.Tick.Marker = niceTicks{percent: true}
	}
	return f, nil
}

// dodge spreads series sideways by a small fraction of the x spacing when
// they carry error bars, because designs measured at the same multipliers
// would otherwise stack their bars on top of each other.
func dodge(series [][]Point, intervals bool) []float64 {
	off := make([]float64, len(series))
	if !intervals || len(series) < 2 {
		return off
	}
	var xs []float64
	for _, s := range series {
		for _, pt := range s {
			xs = append(xs, pt.X)
		}
	}
	slices.Sort(xs)
	gap := math.Inf(1)
	for i := 1; i < len(xs); i++ {
		if d := xs[i] - xs[i-1]; d > 0 && d < gap {
			gap = d
		}
	}
	if math.IsInf(gap, 1) {
		return off
	}
	width := 0.12 * gap
	n := float64(len(series) - 1)
	for i := range off {
		off[i] = width * (float64(i)/n - 0.5)
	}
	return off
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
