package plots

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// intervals draws vertical confidence bars with caps. gonum/plot's
// YErrorBars takes offsets relative to Y and folds their signs, which
// silently redraws an interval that does not contain Y; absolute bounds
// avoid that and let bars sit at dodged or bar-centre positions.
type intervals struct {
	x, lo, hi []float64
	style     draw.LineStyle
	cap       vg.Length
}

func (iv *intervals) add(x, lo, hi float64) {
	if lo > hi {
		lo, hi = hi, lo
	}
	iv.x = append(iv.x, x)
	iv.lo = append(iv.lo, lo)
	iv.hi = append(iv.hi, hi)
}

func (iv *intervals) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range iv.x {
		x := trX(iv.x[i])
		if !c.ContainsX(x) {
			continue
		}
		ylo, yhi := trY(iv.lo[i]), trY(iv.hi[i])
		c.StrokeLines(iv.style, c.ClipLinesY([]vg.Point{{X: x, Y: ylo}, {X: x, Y: yhi}})...)
		for _, y := range []vg.Length{ylo, yhi} {
			if c.ContainsY(y) {
				c.StrokeLine2(iv.style, x-iv.cap/2, y, x+iv.cap/2, y)
			}
		}
	}
}

// GlyphBoxes reserves room for the caps so that an interval at the edge
// of the x range is not cut in half.
func (iv *intervals) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	bs := make([]plot.GlyphBox, 0, 2*len(iv.x))
	r := vg.Rectangle{Min: vg.Point{X: -iv.cap / 2}, Max: vg.Point{X: iv.cap / 2}}
	for i := range iv.x {
		for _, y := range []float64{iv.lo[i], iv.hi[i]} {
			bs = append(bs, plot.GlyphBox{X: p.X.Norm(iv.x[i]), Y: p.Y.Norm(y), Rectangle: r})
		}
	}
	return bs
}

func newIntervals(colour draw.LineStyle) *intervals {
	sty := colour
	sty.Dashes = nil
	sty.Width = vg.Points(1)
	return &intervals{style: sty, cap: vg.Points(5)}
}

// refLine is a horizontal line at Y = at, or a vertical one at X = at,
// across the whole data area. Its thumbnail draws it the same way, so
// the legend shows which of the two it is.
type refLine struct {
	at       float64
	vertical bool
	style    draw.LineStyle
}

func (r *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if r.vertical {
		x := trX(r.at)
		if c.ContainsX(x) {
			c.StrokeLine2(r.style, x, c.Min.Y, x, c.Max.Y)
		}
		return
	}
	y := trY(r.at)
	if c.ContainsY(y) {
		c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
	}
}

func (r *refLine) Thumbnail(c *draw.Canvas) {
	if r.vertical {
		x := (c.Min.X + c.Max.X) / 2
		c.StrokeLine2(r.style, x, c.Min.Y, x, c.Max.Y)
		return
	}
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
}

// boundStyle draws a reference bound: dark enough to read as the line
// to compare with, dashed so it is not taken for a series.
var boundStyle = draw.LineStyle{Color: color.NRGBA{0x40, 0x40, 0x40, 0xFF}, Width: vg.Points(1.25),
	Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}

func markStyle(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}
}

// swatch is a filled-box legend thumbnail for bars.
type swatch struct {
	fill color.Color
}

func (s swatch) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y + h*0.1},
		{X: c.Max.X, Y: c.Min.Y + h*0.1},
		{X: c.Max.X, Y: c.Max.Y - h*0.1},
		{X: c.Min.X, Y: c.Max.Y - h*0.1},
	}
	c.FillPolygon(s.fill, pts)
	c.StrokeLines(draw.LineStyle{Color: barOutline, Width: vg.Points(0.5)}, append(pts, pts[0]))
}

// line is gonum/plot's line that tells the plot only the glyph boxes that
// can pad it. plotter.Line gives one box per point, every box the same
// size, and the plot asks for them four times a draw (twice to align small
// multiples, twice to draw) only to keep the leftmost, rightmost, lowest
// and highest: for the time series' thousands of points that was a
// quarter of a sweep's allocation. The boxes kept are those the plot
// would not drop (inside the axes' range) and within a hair of an extreme,
// in their order, the first of those alike, so that the plot's pick, ties
// and rounding included, is the one it makes among all of them and the
// chart's bytes do not change. They are worked out once for the axes'
// range the plot asks with, which is set before it draws.
type line struct {
	*plotter.Line
	axes  [4]float64 // the range boxes was told for: x min and max, y min and max
	boxes []plot.GlyphBox
	told  bool
}

func newLine(xys plotter.XYs, style draw.LineStyle) *line {
	return &line{Line: &plotter.Line{XYs: xys, LineStyle: style}}
}

// edgeHair is how far, as a fraction of an axis, a box may lie from the
// extreme and still be kept: far above the rounding of the plot's own
// arithmetic (which maps a fraction onto some hundreds of points), far
// below a visible difference.
const edgeHair = 1e-9

func (l *line) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	axes := [4]float64{p.X.Min, p.X.Max, p.Y.Min, p.Y.Max}
	if !l.told || axes != l.axes {
		l.boxes, l.axes, l.told = l.edgeBoxes(p), axes, true
	}
	return l.boxes
}

func (l *line) edgeBoxes(p *plot.Plot) []plot.GlyphBox {
	r := 0.5 * l.LineStyle.Width
	if r <= 0 || l.XYs.Len() == 0 {
		return nil // a box of no size pads nothing
	}
	box := func(i int) plot.GlyphBox {
		x, y := l.XY(i)
		return plot.GlyphBox{X: p.X.Norm(x), Y: p.Y.Norm(y), Rectangle: vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}}
	}
	inside := func(b plot.GlyphBox) bool { return b.X >= 0 && b.X <= 1 && b.Y >= 0 && b.Y <= 1 }
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range l.XYs.Len() {
		if b := box(i); inside(b) {
			minX, maxX = min(minX, b.X), max(maxX, b.X)
			minY, maxY = min(minY, b.Y), max(maxY, b.Y)
		}
	}
	// Boxes alike in a coordinate are alike to the plot's pick in that
	// direction, and it takes the first of them: a queue's series at 0
	// for most of a run ties a thousand points at the bottom.
	var kept []plot.GlyphBox
	var xs, ys []float64
	for i := range l.XYs.Len() {
		b := box(i)
		if !inside(b) {
			continue
		}
		padsX := (b.X <= minX+edgeHair || b.X >= maxX-edgeHair) && !slices.Contains(xs, b.X)
		padsY := (b.Y <= minY+edgeHair || b.Y >= maxY-edgeHair) && !slices.Contains(ys, b.Y)
		if padsX {
			xs = append(xs, b.X)
		}
		if padsY {
			ys = append(ys, b.Y)
		}
		if padsX || padsY {
			kept = append(kept, b)
		}
	}
	return kept
}
