package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Renderer is anything that can draw itself as an SVG or PNG image of a
// given size. Every chart type in this package is one; a caller can
// supply its own to put other pictures in a [Report].
type Renderer interface {
	Render(format string, widthCm, heightCm float64) ([]byte, error)
}

// Output formats accepted by Render.
const (
	SVG = "svg"
	PNG = "png"
)

// DPI is the resolution of PNG output: a chart w cm wide is
// round(w / 2.54 * DPI) pixels wide. 150 keeps text crisp in a markdown
// viewer without making the files large.
const DPI = 150

// Sizes outside these bounds are refused rather than clamped: a 1 mm chart
// or a 10 m PNG is a caller's mistake worth reporting.
const (
	minSizeCm = 2
	maxSizeCm = 60
)

// MaxHeightCm is the tallest chart Render draws; a caller that stacks rows
// of panels splits them into figures no taller than this.
const MaxHeightCm = maxSizeCm

// ErrNoData is matched (with errors.Is) by the error a chart returns when
// it has nothing to draw, so a caller may choose to leave the chart out
// of a report instead of failing.
var ErrNoData = errors.New("plots: no data")

type noDataError struct {
	kind, title string
}

func (e *noDataError) Error() string {
	return fmt.Sprintf("plots: %s %q has no data", e.kind, e.title)
}

func (e *noDataError) Is(target error) bool { return target == ErrNoData }

func noData(kind, title string) error { return &noDataError{kind: kind, title: title} }

// figure is a chart laid out and ready to draw: the plot proper, and a
// legend kept outside the data area so it never hides points.
type figure struct {
	p       *plot.Plot
	legend  plot.Legend
	entries int
	items   []legendEntry // the legend's entries, which plot.Legend keeps to itself
	// tiles, when set, are the panels of a small-multiples figure, cols
	// to a row; p then carries only the title.
	tiles []*figure
	cols  int
}

// legendEntry is a name and its thumbnails.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

func (f *figure) addLegend(name string, thumbs ...plot.Thumbnailer) {
	f.legend.Add(lineClean(name), thumbs...)
	f.entries++
	f.items = append(f.items, legendEntry{lineClean(name), thumbs})
}

// render draws build's figure in the requested format. build runs after
// the arguments are checked so that chart-specific data errors are not
// masked by a bad size.
func render(format string, wcm, hcm float64, build func() (*figure, error)) (out []byte, err error) {
	if format != SVG && format != PNG {
		return nil, fmt.Errorf("plots: unknown format %q (want %q or %q)", format, SVG, PNG)
	}
	for _, d := range []float64{wcm, hcm} {
		if !(d >= minSizeCm && d <= maxSizeCm) {
			return nil, fmt.Errorf("plots: chart size %gx%g cm out of range [%d, %d] cm", wcm, hcm, minSizeCm, maxSizeCm)
		}
	}
	f, err := build()
	if err != nil {
		return nil, err
	}

	// gonum/plot reports some states it cannot draw by panicking; a report
	// should fail with an error naming the chart, not take the sweep down.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("plots: drawing %q: %v", f.p.Title.Text, r)
		}
	}()

	w := vg.Length(wcm) * vg.Centimeter
	h := vg.Length(hcm) * vg.Centimeter
	var buf bytes.Buffer
	switch format {
	case SVG:
		c := vgsvg.New(w, h)
		f.draw(draw.New(c))
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("plots: writing svg: %w", err)
		}
		return fixFontFamily(buf.Bytes()), nil
	default:
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
		f.draw(draw.New(c))
		// The fastest deflate: charts are flat colour, which it still
		// packs well, and the default level spent more time compressing
		// a sweep's report than the merge of its shards spent on all else.
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, c.Image()); err != nil {
			return nil, fmt.Errorf("plots: writing png: %w", err)
		}
		return buf.Bytes(), nil
	}
}

func (f *figure) draw(c draw.Canvas) {
	if f.tiles != nil {
		f.drawMultiples(c)
		return
	}
	if f.entries == 0 {
		f.p.Draw(c)
		return
	}
	pad := vg.Points(6)
	lw := f.legend.Rectangle(c).Size().X
	// A long series name must not squeeze the data area to nothing; past
	// 40 % of the width the legend is allowed to run off the right edge.
	if limit := (c.Max.X - c.Min.X) * 0.4; lw > limit {
		lw = limit
	}
	f.p.Draw(draw.Crop(c, 0, -(lw + 2*pad), 0, 0))

	top := vg.Length(0)
	if f.p.Title.Text != "" {
		top = f.p.Title.TextStyle.Rectangle(f.p.Title.Text).Size().Y + f.p.Title.Padding
	}
	legendArea := draw.Crop(c, c.Max.X-c.Min.X-lw-pad, 0, 0, -top)
	f.legend.Draw(legendArea)
}

// fixFontFamily gives the SVG text a fallback chain. gonum/plot names only
// "Liberation Sans", which most browsers lack; without a fallback they
// fall back to a serif face whose wider glyphs overflow the layout that was
// measured with Liberation metrics. Arial and Helvetica share those metrics.
func fixFontFamily(svg []byte) []byte {
	return bytes.ReplaceAll(svg,
		[]byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// finite reports whether every value is neither NaN nor infinite.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// span is a running [min, max] over finite values.
type span struct {
	lo, hi float64
	ok     bool
}

func (s *span) add(vs ...float64) {
	for _, v := range vs {
		if !finite(v) {
			continue
		}
		if !s.ok {
			s.lo, s.hi, s.ok = v, v, true
			continue
		}
		s.lo = math.Min(s.lo, v)
		s.hi = math.Max(s.hi, v)
	}
}

// yRange chooses the y range from the data span, the caller's optional
// bounds and whether saturated markers need room at the top; hi is also
// the height at which saturated markers are drawn.
func yRange(s span, ymin, ymax *float64, saturated bool) (lo, hi float64, err error) {
	lo, hi = 0.0, 1.0
	if s.ok {
		lo, hi = s.lo, s.hi
	}
	if ymin != nil {
		if !finite(*ymin) {
			return 0, 0, errors.New("YMin is not finite")
		}
		lo = *ymin
	}
	if ymax != nil {
		if !finite(*ymax) {
			return 0, 0, errors.New("YMax is not finite")
		}
		hi = *ymax
	}
	if ymin != nil && ymax != nil && lo >= hi {
		return 0, 0, fmt.Errorf("YMin %g is not below YMax %g", lo, hi)
	}
	if ymin != nil && ymax == nil && hi <= lo {
		hi = lo + 1
	}
	if ymax != nil && ymin == nil && lo >= hi {
		lo = hi - 1
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	if saturated && ymax == nil {
		// Headroom so the markers sit clearly above the highest real value.
		hi += 0.08 * (hi - lo)
	}
	return lo, hi, nil
}
