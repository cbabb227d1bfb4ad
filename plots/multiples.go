package plots

import (
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Panel is a chart that can be one tile of [SmallMultiples]: a
// [LineChart] or a [TimeSeriesChart].
type Panel interface {
	Renderer
	figure() (*figure, error)
}

var (
	_ Panel = LineChart{}
	_ Panel = TimeSeriesChart{}
)

// SmallMultiples draws panels side by side in rows of Cols, one image:
// a few series per panel stay readable where a dozen in one chart would
// not. Panels carry no legend of their own: their titles name them, and
// with Legend the panels' legends are drawn once above the tiles, every
// name once, so panels should then draw each name in one look.
type SmallMultiples struct {
	Title  string
	Panels []Panel
	// Cols is the number of panels per row; 0 means 2.
	Cols int
	// SharedY gives every panel the y range of all of them, so heights
	// compare across panels.
	SharedY bool
	Legend  bool
}

// Rows is the number of rows the panels take.
func (sm SmallMultiples) Rows() int {
	cols := sm.cols()
	return (len(sm.Panels) + cols - 1) / cols
}

func (sm SmallMultiples) cols() int {
	if sm.Cols <= 0 {
		return 2
	}
	return sm.Cols
}

// Render draws the panels as "svg" or "png", widthCm by heightCm.
func (sm SmallMultiples) Render(format string, widthCm, heightCm float64) ([]byte, error) {
	return render(format, widthCm, heightCm, sm.figure)
}

func (sm SmallMultiples) figure() (*figure, error) {
	var figs []*figure
	for _, p := range sm.Panels {
		f, err := p.figure()
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	if len(figs) == 0 {
		return nil, noData("small multiples", sm.Title)
	}
	if sm.SharedY {
		var ys span
		for _, f := range figs {
			ys.add(f.p.Y.Min, f.p.Y.Max)
		}
		for _, f := range figs {
			f.p.Y.Min, f.p.Y.Max = ys.lo, ys.hi
		}
	}
	title := newPlot(sm.Title, "", "")
	for _, f := range figs {
		f.p.Title.TextStyle.Font.Size = 10
	}
	f := &figure{p: title, tiles: figs, cols: sm.cols()}
	if sm.Legend {
		// Every panel's entries once, in the order the panels first
		// name them: a bound one panel draws (its SLO) is named too.
		f.legend = figs[0].legend
		for _, p := range figs {
			for _, e := range p.items {
				if !slices.ContainsFunc(f.items, func(x legendEntry) bool { return x.name == e.name }) {
					f.items = append(f.items, e)
				}
			}
		}
	}
	return f, nil
}

// drawMultiples lays out a small-multiples figure: title, then the shared
// legend on as many lines as it needs, then the panels aligned on their
// data areas.
func (f *figure) drawMultiples(c draw.Canvas) {
	top := c.Max.Y
	if t := f.p.Title.Text; t != "" {
		sty := f.p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, t)
		top -= sty.Rectangle(t).Size().Y + f.p.Title.Padding
	}
	if len(f.items) > 0 {
		top = f.drawSharedLegend(c, top)
	}
	rows := (len(f.tiles) + f.cols - 1) / f.cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, f.cols)
		for k := range f.cols {
			if i := r*f.cols + k; i < len(f.tiles) {
				grid[r][k] = f.tiles[i].p
			}
		}
	}
	area := draw.Crop(c, 0, 0, 0, top-c.Max.Y)
	tiles := draw.Tiles{Rows: rows, Cols: f.cols, PadX: vg.Points(10), PadY: vg.Points(8), PadLeft: vg.Points(2), PadRight: vg.Points(6)}
	canvases := plot.Align(grid, tiles, area)
	for r := range grid {
		for k, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][k])
			}
		}
	}
}

// fallbackWidening is how much wider than its measure a legend's name
// may be drawn: the SVG names Liberation Sans, Arial and Helvetica, whose
// metrics it is laid out with, and a browser with none of them draws a
// wider face (DejaVu Sans, about 10 % wider), which must not run one
// entry into the next.
const fallbackWidening = 1.12

// drawSharedLegend draws a small-multiples figure's legend under top,
// entries side by side (a legend per panel would repeat itself), on as
// many lines as the width needs, and returns the top of what is below.
func (f *figure) drawSharedLegend(c draw.Canvas, top vg.Length) vg.Length {
	sty := f.legendText()
	places, bottom := f.sharedLegendPlaces(c, top)
	for i, e := range f.items {
		at := places[i]
		h := sty.Rectangle("Mg").Size().Y
		thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: at.X, Y: at.Y - h/2}, Max: vg.Point{X: at.X + f.legend.ThumbnailWidth, Y: at.Y + h/2}}}
		for _, t := range e.thumbs {
			t.Thumbnail(&thumb)
		}
		c.FillText(sty, vg.Point{X: at.X + f.legend.ThumbnailWidth + vg.Points(4), Y: at.Y}, e.name)
	}
	return bottom
}

func (f *figure) legendText() draw.TextStyle {
	sty := f.legend.TextStyle
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	return sty
}

// legendEntryWidth is how wide entry e is drawn, thumbnail and name, with
// the name at its widest face (fallbackWidening).
func (f *figure) legendEntryWidth(e legendEntry) vg.Length {
	return f.legend.ThumbnailWidth + vg.Points(4) + f.legendText().Rectangle(e.name).Size().X*fallbackWidening
}

// sharedLegendPlaces lays the shared legend out under top: where each
// entry starts (its left edge, its line's middle), a line wrapped before
// an entry that would cross the right edge, and the top of what is below.
func (f *figure) sharedLegendPlaces(c draw.Canvas, top vg.Length) (places []vg.Point, bottom vg.Length) {
	h := f.legendText().Rectangle("Mg").Size().Y
	left := c.Min.X + vg.Points(6)
	x, y := left, top-h/2
	for i, e := range f.items {
		w := f.legendEntryWidth(e)
		if i > 0 && x+w > c.Max.X {
			x, y = left, y-h-vg.Points(2)
		}
		places = append(places, vg.Point{X: x, Y: y})
		x += w + vg.Points(14)
	}
	// Room under the legend, so that it does not touch the panels' titles.
	return places, y - h/2 - vg.Points(8)
}
