package plots

import (
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
// with Legend the first panel's legend is drawn once above the tiles, so
// panels should then list the same kinds of series in the same order.
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
		f.legend, f.items = figs[0].legend, figs[0].items
	}
	return f, nil
}

// drawMultiples lays out a small-multiples figure: title, then the shared
// legend on one line, then the panels aligned on their data areas.
func (f *figure) drawMultiples(c draw.Canvas) {
	top := c.Max.Y
	if t := f.p.Title.Text; t != "" {
		sty := f.p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, t)
		top -= sty.Rectangle(t).Size().Y + f.p.Title.Padding
	}
	if len(f.items) > 0 {
		// Entries side by side on one line: a legend per panel would
		// repeat itself.
		sty := f.legend.TextStyle
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
		h := sty.Rectangle("Mg").Size().Y
		y := top - h/2
		x := c.Min.X + vg.Points(6)
		for _, e := range f.items {
			thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - h/2}, Max: vg.Point{X: x + f.legend.ThumbnailWidth, Y: y + h/2}}}
			for _, t := range e.thumbs {
				t.Thumbnail(&thumb)
			}
			x += f.legend.ThumbnailWidth + vg.Points(4)
			c.FillText(sty, vg.Point{X: x, Y: y}, e.name)
			x += sty.Rectangle(e.name).Size().X + vg.Points(14)
		}
		top -= h + vg.Points(6)
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
