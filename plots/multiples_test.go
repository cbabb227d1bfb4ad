package plots

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Every series colour stands out from white by at least 3:1, the contrast
// graphics need to be seen (relative luminance as sRGB defines it).
func TestPaletteReadableOnWhite(t *testing.T) {
	lin := func(c uint8) float64 {
		v := float64(c) / 255
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	for i, c := range palette {
		l := 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
		if ratio := 1.05 / (l + 0.05); ratio < 3 {
			t.Errorf("palette[%d] %s has contrast %.2f:1 on white", i, svgColour(c), ratio)
		}
	}
}

// A bound and marks are drawn and named in the legend; an interval past a
// fixed axis bound is cut at it rather than widening the axis.
func TestLineChartBoundsAndMarks(t *testing.T) {
	lc := sweepChart()
	lc.Series[0].Points[0].Hi = 1.02 // an interval that would run past 100 %
	lc.Bounds = []Bound{{Y: 0.99, Label: "SLO ≥ 99%"}}
	lc.Marks = []Mark{{X: 1.5, Series: 0, Label: "first failure"}, {X: 2.5, Series: 1, Label: "first failure"}}
	f, err := lc.figure()
	if err != nil {
		t.Fatal(err)
	}
	if f.p.Y.Max != 1 {
		t.Errorf("y axis runs to %g, want 1", f.p.Y.Max)
	}
	var names []string
	for _, e := range f.items {
		names = append(names, e.name)
	}
	if got := strings.Join(names, "|"); strings.Count(got, "first failure") != 1 || !strings.Contains(got, "SLO ≥ 99%") {
		t.Errorf("legend %q", got)
	}
	svg, err := lc.Render(SVG, 16, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("SLO ≥ 99%")) {
		t.Error("bound label missing from the SVG")
	}
}

// Small multiples draw each panel once, with one shared legend and, when
// asked, one y range.
func TestSmallMultiples(t *testing.T) {
	a := LineChart{Title: "panel a", Series: []Series{{Name: "journeys", Points: []Point{{X: 1, Y: 0}, {X: 2, Y: 0.2}}}}}
	b := LineChart{Title: "panel b", Series: []Series{{Name: "journeys", Points: []Point{{X: 1, Y: 0}, {X: 2, Y: 0.8}}}}}
	c := TimeSeriesChart{Title: "panel c", Step: 1, Series: []Signal{{Name: "q", Values: []float64{0, 1, 2}}}}
	sm := SmallMultiples{Title: "all", Panels: []Panel{a, b, c}, Cols: 2, SharedY: true, Legend: true}
	if sm.Rows() != 2 {
		t.Errorf("%d rows for 3 panels of 2", sm.Rows())
	}
	f, err := sm.figure()
	if err != nil {
		t.Fatal(err)
	}
	if f.tiles[0].p.Y.Max != f.tiles[1].p.Y.Max || f.tiles[0].p.Y.Max < 2 {
		t.Errorf("y ranges not shared: %g, %g", f.tiles[0].p.Y.Max, f.tiles[1].p.Y.Max)
	}
	svg, err := sm.Render(SVG, 16, 12)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"panel a", "panel b", "panel c", ">all<"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if n := bytes.Count(svg, []byte(">journeys<")); n != 1 {
		t.Errorf("legend entry drawn %d times, want once", n)
	}
	if _, err := (SmallMultiples{}).Render(PNG, 16, 10); err == nil {
		t.Error("no panels: no error")
	}
}

// The contents link every section that is not folded, with the anchors
// both files use, and a folded section is a closed <details> in both.
func TestContentsAndFoldedSections(t *testing.T) {
	r := Report{Title: "t", ContentsAfter: 1, Sections: []Section{
		{Heading: "Verdict", Text: "the answer"},
		{Heading: "Method and settings", Text: "how", Folded: true},
		{Heading: "Design v1-original", Text: "rows"},
	}}
	m := buildFiles(t, r)
	md, page := string(m["report.md"]), string(m["report.html"])
	for _, want := range []string{"## Contents\n\n- [Design v1-original](#design-v1-original)\n",
		"<details>\n<summary>Method and settings</summary>\n\nhow\n\n</details>"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	for _, want := range []string{`<a href="#design-v1-original">`, `<section id="design-v1-original">`, `<details id="method-and-settings">`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(md, "](#method-and-settings)") {
		t.Error("a folded section is in the contents")
	}
	if strings.Index(page, "the answer") > strings.Index(page, `<nav id="contents">`) {
		t.Error("contents before the first section")
	}
}

// Figures of a section sit in one grid; a wide one spans it.
func TestWideFigures(t *testing.T) {
	r := Report{Sections: []Section{{Heading: "Charts", Figures: []Figure{
		{Name: "a", Chart: sweepChart(), Wide: true},
		{Name: "b", Chart: sweepChart()},
	}}}}
	page := string(buildFiles(t, r)["report.html"])
	for _, want := range []string{`<div class="figures">`, `<figure id="fig-a" class="wide">`, `<figure id="fig-b">`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A figure with a summary is shown closed under it, in both files, and
// spans the grid when it is wide.
func TestFoldedFigures(t *testing.T) {
	r := Report{Sections: []Section{{Heading: "Over time", Figures: []Figure{
		{Name: "a", Chart: sweepChart(), Caption: "one run", Wide: true, Summary: "design a at 2x <seed 1>"},
		{Name: "b", Chart: sweepChart()},
	}}}}
	m := buildFiles(t, r)
	md, page := string(m["report.md"]), string(m["report.html"])
	wantMD := "<details>\n<summary>design a at 2x &lt;seed 1&gt;</summary>\n\n![one run](charts/a.svg)\n\n" +
		"*Figure 1. one run*\n\n</details>\n\n![b](charts/b.svg)"
	if !strings.Contains(md, wantMD) {
		t.Errorf("report.md lacks %q:\n%s", wantMD, md)
	}
	for _, want := range []string{"<details class=\"figure wide\">\n<summary>design a at 2x &lt;seed 1&gt;</summary>\n<figure id=\"fig-a\">\n<svg",
		"</figure>\n</details>\n<figure id=\"fig-b\">"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A shared legend names every panel's entries once, a bound only one
// panel draws included, and wraps onto a new line before an entry that
// would cross the figure's right edge: none is cut.
func TestSharedLegendNamesEachOnceAndWraps(t *testing.T) {
	pts := []Point{{X: 1, Y: 0.1}, {X: 2, Y: 0.2}}
	a := LineChart{Title: "a", Series: []Series{{Name: "v1-original", Points: pts}}}
	b := LineChart{Title: "b", Series: []Series{{Name: "v1-original", Points: pts}, {Name: "v1-improved and 2 alike", Points: pts}},
		Bounds: []Bound{{Y: 0.5, Label: "SLO <= 50%"}}}
	f, err := SmallMultiples{Panels: []Panel{a, b}, Legend: true}.figure()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range f.items {
		names = append(names, e.name)
	}
	if got := strings.Join(names, "|"); got != "v1-original|v1-improved and 2 alike|SLO <= 50%" {
		t.Errorf("legend %q", got)
	}

	var many []Series
	for _, n := range []string{"v1-original", "v1-improved and 2 alike", "queue-wait", "async-ai", "direct-upload",
		"warm-worker", "two-workers", "a design with a long name"} {
		many = append(many, Series{Name: n, Points: pts})
	}
	f, err = SmallMultiples{Panels: []Panel{LineChart{Title: "c", Series: many}}, Legend: true}.figure()
	if err != nil {
		t.Fatal(err)
	}
	c := draw.New(vgsvg.New(12*vg.Centimeter, 6*vg.Centimeter))
	places, bottom := f.sharedLegendPlaces(c, c.Max.Y)
	lines := map[vg.Length]bool{}
	for i, at := range places {
		lines[at.Y] = true
		if right := at.X + f.legendEntryWidth(f.items[i]); right > c.Max.X {
			t.Errorf("%q ends at %.1f pt, past the edge at %.1f", f.items[i].name, right, c.Max.X)
		}
	}
	if len(lines) < 2 || bottom >= places[len(places)-1].Y {
		t.Errorf("8 names in 12 cm on %d lines, the panels from %.1f pt: want 2 or more lines above them", len(lines), bottom)
	}
}
