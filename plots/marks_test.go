package plots

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A line that tells the plot only its edge boxes draws the very bytes of
// gonum/plot's line, however its points tie, lie off the axes or sit a
// rounding apart, and tells a few boxes where the other tells thousands.
func TestLinePadsAsGonumLineDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	walk := make(plotter.XYs, 2000) // a queue: mostly empty, now and then long
	q := 0.0
	for i := range walk {
		q = max(0, q+rng.NormFloat64())
		walk[i] = plotter.XY{X: float64(i), Y: q}
	}
	// Points that the plot's arithmetic rounds onto the extremes, before
	// the extremes themselves.
	hair := plotter.XYs{{X: 1e-300, Y: 5}, {X: 0, Y: 4}, {X: 3, Y: 1}, {X: 10 - 1e-15, Y: 1e-300}, {X: 10, Y: 0}}
	cases := []struct {
		name       string
		lines      []plotter.XYs
		widths     []vg.Length
		xmin, xmax float64 // the x axis; ymin, ymax likewise (0, 0: the data's)
		ymin, ymax float64
	}{
		{"queue", []plotter.XYs{walk}, []vg.Length{vg.Points(2)}, 0, 0, 0, 0},
		{"cut by the axes", []plotter.XYs{walk}, []vg.Length{vg.Points(2)}, 100, 1500, 1, 8},
		{"a rounding apart", []plotter.XYs{hair}, []vg.Length{vg.Points(3)}, 0, 0, 0, 0},
		{"two widths", []plotter.XYs{walk, hair}, []vg.Length{vg.Points(1), vg.Points(4)}, 0, 0, 0, 0},
		{"no width", []plotter.XYs{hair}, []vg.Length{0}, 0, 0, 0, 0},
	}
	draw1 := func(t *testing.T, ours bool, lines []plotter.XYs, widths []vg.Length, xmin, xmax, ymin, ymax float64) ([]byte, int) {
		p := newPlot("t", "x", "y")
		for i, xys := range lines {
			style := draw.LineStyle{Color: seriesLook(i).line.Color, Width: widths[i]}
			if ours {
				p.Add(newLine(xys, style))
			} else {
				p.Add(&plotter.Line{XYs: xys, LineStyle: style})
			}
		}
		if xmin < xmax {
			p.X.Min, p.X.Max = xmin, xmax
		}
		if ymin < ymax {
			p.Y.Min, p.Y.Max = ymin, ymax
		}
		boxes := len(p.GlyphBoxes(p))
		c := vgsvg.New(12*vg.Centimeter, 8*vg.Centimeter)
		p.Draw(draw.New(c))
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), boxes
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, all := draw1(t, false, c.lines, c.widths, c.xmin, c.xmax, c.ymin, c.ymax)
			got, kept := draw1(t, true, c.lines, c.widths, c.xmin, c.xmax, c.ymin, c.ymax)
			if !bytes.Equal(got, want) {
				t.Errorf("the chart differs from gonum/plot's line's (%d bytes against %d)", len(got), len(want))
			}
			if all > 100 && kept > 8 {
				t.Errorf("%d glyph boxes told, of gonum/plot's %d: want the few at the edges", kept, all)
			}
		})
	}
	// The boxes matter: the same lines told no boxes are drawn elsewhere,
	// so the comparison above catches boxes dropped wrongly.
	for _, c := range cases[:4] {
		want, _ := draw1(t, false, c.lines, c.widths, c.xmin, c.xmax, c.ymin, c.ymax)
		p := newPlot("t", "x", "y")
		for i, xys := range c.lines {
			// A Plotter alone hides the line's GlyphBoxes from the plot.
			p.Add(struct{ plot.Plotter }{&plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: seriesLook(i).line.Color, Width: c.widths[i]}}})
		}
		if c.xmin < c.xmax {
			p.X.Min, p.X.Max = c.xmin, c.xmax
		}
		if c.ymin < c.ymax {
			p.Y.Min, p.Y.Max = c.ymin, c.ymax
		}
		cv := vgsvg.New(12*vg.Centimeter, 8*vg.Centimeter)
		p.Draw(draw.New(cv))
		var b bytes.Buffer
		cv.WriteTo(&b)
		if bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s: the chart is the same without its glyph boxes: the test cannot tell a wrong pad", c.name)
		}
	}
}

// The boxes are worked out again when the axes' range changes between two
// questions, as gonum/plot's line's are.
func TestLineBoxesFollowTheAxes(t *testing.T) {
	xys := plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 3}, {X: 2, Y: 0}, {X: 3, Y: 2}}
	style := draw.LineStyle{Width: vg.Points(2)}
	ours, theirs := newLine(xys, style), &plotter.Line{XYs: xys, LineStyle: style}
	p := plot.New()
	for _, r := range [][4]float64{{0, 3, 0, 3}, {0.5, 3, 0, 2.5}, {0, 3, 0, 3}} {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = r[0], r[1], r[2], r[3]
		var want []plot.GlyphBox
		for _, b := range theirs.GlyphBoxes(p) {
			if b.X >= 0 && b.X <= 1 && b.Y >= 0 && b.Y <= 1 {
				want = append(want, b)
			}
		}
		got := ours.GlyphBoxes(p)
		// Here every point inside the range is at an edge of it.
		if len(got) != len(want) {
			t.Fatalf("axes %v: %d boxes, want %d", r, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("axes %v: box %d is %+v, want %+v", r, i, got[i], want[i])
			}
		}
	}
}
