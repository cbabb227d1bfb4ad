package plots

import (
	"image/color"
	"strings"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette follows the Okabe–Ito colour-blind-safe set, with its yellow,
// orange and sky blue replaced by darker tones: a thin line in any of
// them is faint on white (under the 3:1 contrast graphics need). Series
// colours are picked by position so a design passed at the same index
// keeps its colour in every chart.
var palette = [...]color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0x8C, 0x6D, 0x00, 0xFF}, // dark yellow
	{0x1F, 0x5F, 0x7F, 0xFF}, // dark sky blue
	{0xB2, 0x6B, 0x00, 0xFF}, // dark orange
}

// seriesGlyphs gives each colour of palette its marker. The triangles are
// left out: an upward triangle is the saturation marker and must not be
// mistaken for an ordinary series. The two pairs of near colours (blue and
// dark sky blue, vermillion and dark orange) differ in their markers, one
// filled and one open, so series 0 and 6, or 1 and 7, never look alike.
var seriesGlyphs = [len(palette)]draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.BoxGlyph{},
	draw.RingGlyph{},
	draw.SquareGlyph{},
	draw.CrossGlyph{},
	draw.PlusGlyph{},
	draw.SquareGlyph{},
	draw.RingGlyph{},
}

// dashPatterns distinguish series once the colours have cycled, so that
// series i and i+len(palette) never look identical.
var dashPatterns = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
}

var (
	grey        = color.NRGBA{0x80, 0x80, 0x80, 0xFF}
	lightGrey   = color.NRGBA{0xB0, 0xB0, 0xB0, 0xFF}
	black       = color.NRGBA{0x00, 0x00, 0x00, 0xFF}
	barOutline  = color.NRGBA{0x30, 0x30, 0x30, 0xFF}
	defaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

// look is the fixed appearance of the series at one position.
type look struct {
	colour color.Color
	line   draw.LineStyle
	glyph  draw.GlyphStyle
}

func seriesLook(i int) look {
	c := palette[i%len(palette)]
	dashes := dashPatterns[(i/len(palette))%len(dashPatterns)]
	return look{
		colour: c,
		line:   draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: dashes},
		glyph:  draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: seriesGlyphs[i%len(palette)]},
	}
}

// saturatedGlyph is an upward triangle with a dark outline: it reads as
// "off the top of the scale" and stays visible in the series colour even
// when it sits on the axis line.
type saturatedGlyph struct{}

func (saturatedGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	tri := []vg.Point{
		{X: pt.X - r, Y: pt.Y - r*0.8},
		{X: pt.X + r, Y: pt.Y - r*0.8},
		{X: pt.X, Y: pt.Y + r},
	}
	c.FillPolygon(sty.Color, tri)
	outline := append(tri, tri[0])
	c.StrokeLines(draw.LineStyle{Color: black, Width: vg.Points(0.75)}, outline)
}

func saturatedStyle(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: saturatedGlyph{}}
}

// saturatedLegend is the legend text for the saturation marker; it says
// where the marker is drawn because its height carries no value.
const saturatedLegend = "saturated (plotted at top)"

// newPlot returns a plot with the package's fonts. gonum/plot defaults to
// a serif face; the sans face is metric-compatible with Arial, which the
// SVG output names as a fallback (see fixFontFamily).
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = clean(title)
	p.Title.TextStyle.Font = font.From(defaultFont, 12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = clean(xlabel)
	p.Y.Label.Text = clean(ylabel)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(defaultFont, 10)
		ax.Tick.Label.Font = font.From(defaultFont, 9)
		ax.Tick.Marker = niceTicks{}
	}
	return p
}

func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(defaultFont, 9)
	l.Top = true
	l.Left = true
	l.Padding = vg.Points(2)
	l.ThumbnailWidth = vg.Points(18)
	return l
}

// clean makes caller text safe for both renderers: XML 1.0 cannot carry
// most control characters, and the SVG writer escapes markup but does not
// drop them, so a stray byte would make the whole SVG unparsable.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r), r == '\uFFFE', r == '\uFFFF':
			return -1
		}
		return r
	}, s)
}

// lineClean is clean for places that must stay on one line.
func lineClean(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}
