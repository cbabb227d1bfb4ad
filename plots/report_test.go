package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"regexp"
	"strings"
	"testing"
)

func sampleReport() Report {
	return Report{
		Title:    "Sweep: trip <booking> & search",
		Preamble: "seed: 1   reps: 10\n\nMultipliers scale the **baseline** arrival rate.",
		Sections: []Section{
			{
				Heading: "Journeys",
				Text:    "Journey success falls before HTTP success does:\n\n- one failed call fails a journey\n- retries hide HTTP errors",
				Table: &Table{
					Header: []string{"design", "first failure", "SLO | broken"},
					Rows: [][]string{
						{"v1-original", "1.8 ± 0.1", "p95 < 2s"},
						{"v2-cache", "2.9 ± 0.2"},
						{"<script>alert(1)</script>", "a|b", "x\ny"},
					},
				},
				Figures: []Figure{
					{Name: "journey_success", Caption: "Journey success vs multiplier, 95 % CI", Chart: sweepChart()},
					{Name: "utilisation", Caption: "Utilisation <by component>", Chart: utilisationChart(), WidthCm: 12, HeightCm: 8},
				},
			},
			{
				Heading: "Failures",
				Figures: []Figure{
					{Name: "failure_stages", Chart: stagesChart()},
					{Name: "queue_first_failure", Caption: "Queue lengths", Chart: queueChart()},
				},
			},
			{Heading: "Calibration", Figures: []Figure{
				{Name: "fit_api.hist", Chart: latencyHistogram()},
				{Name: "fit_api.qq", Chart: fitQQ()},
			}},
		},
	}
}

func buildFiles(t *testing.T, r Report) map[string][]byte {
	t.Helper()
	files, err := r.Build()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for i, f := range files {
		if i > 0 && files[i-1].Name >= f.Name {
			t.Errorf("files not sorted: %q before %q", files[i-1].Name, f.Name)
		}
		m[f.Name] = f.Data
	}
	return m
}

func TestBuildFiles(t *testing.T) {
	t.Parallel()
	for _, withPNG := range []bool{false, true} {
		r := sampleReport()
		r.PNG = withPNG
		files := buildFiles(t, r)
		var names []string
		for _, s := range r.Sections {
			for _, f := range s.Figures {
				names = append(names, f.Name)
			}
		}
		perFigure := 1
		if withPNG {
			perFigure = 2
		}
		if want := 2 + perFigure*len(names); len(files) != want {
			t.Errorf("PNG %v: got %d files, want %d", withPNG, len(files), want)
		}
		md := string(files["report.md"])
		page := string(files["report.html"])
		for _, n := range names {
			svg, ok := files["charts/"+n+".svg"]
			if !ok {
				t.Errorf("no charts/%s.svg", n)
			}
			svgTexts(t, svg)
			pngData, hasPNG := files["charts/"+n+".png"]
			shown, link := "](charts/"+n+".svg)\n", "([SVG](charts/"+n+".svg))"
			switch {
			case withPNG:
				if _, err := png.Decode(bytes.NewReader(pngData)); err != nil {
					t.Errorf("charts/%s.png: %v", n, err)
				}
				shown = "](charts/" + n + ".png)\n"
			case hasPNG:
				t.Errorf("charts/%s.png drawn without PNG", n)
			}
			if !strings.Contains(md, shown) {
				t.Errorf("PNG %v: report.md does not show %s", withPNG, shown)
			}
			if strings.Contains(md, link) != withPNG {
				t.Errorf("PNG %v: report.md has %q: %v", withPNG, link, !withPNG)
			}
			if !strings.Contains(page, `<figure id="fig-`+n+`">`+"\n<svg") {
				t.Errorf("report.html does not inline the svg of %s", n)
			}
		}
		if got, want := strings.Count(page, "<svg"), len(names); got != want {
			t.Errorf("report.html has %d <svg elements, want %d", got, want)
		}
		for _, bad := range []string{`src="http`, "<?xml", "<script>", "<link", "@import"} {
			if strings.Contains(page, bad) {
				t.Errorf("report.html contains %q", bad)
			}
		}
	}
}

// The PNGs change report.md's image links and nothing else: report.html
// and every SVG are the same bytes with and without them.
func TestBuildPNGLeavesPageAndSVGAlone(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	without := buildFiles(t, r)
	r.PNG = true
	with := buildFiles(t, r)
	for name, data := range without {
		if name == "report.md" {
			continue
		}
		if !bytes.Equal(data, with[name]) {
			t.Errorf("%s differs with PNG", name)
		}
	}
	md := strings.NewReplacer(".png)", ".svg)").Replace(string(with["report.md"]))
	md = regexp.MustCompile(` \(\[SVG\]\(charts/[^)]*\.svg\)\)`).ReplaceAllString(md, "")
	if md != string(without["report.md"]) {
		t.Errorf("report.md differs in more than its images:\n%s\n---\n%s", md, without["report.md"])
	}
}

func TestBuildDeterministic(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	r.PNG = true
	a := buildFiles(t, r)
	b := buildFiles(t, r)
	for name, data := range a {
		if strings.HasSuffix(name, ".png") {
			continue // PNG bytes are only required to decode
		}
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between builds", name)
		}
	}
}

func TestBuildEscapes(t *testing.T) {
	t.Parallel()
	files := buildFiles(t, sampleReport())
	md := string(files["report.md"])
	for _, want := range []string{
		`# Sweep: trip \<booking\> & search`,
		`| design | first failure | SLO \| broken |`,
		`| v2-cache | 2.9 ± 0.2 |  |`,
		`| \<script>alert(1)\</script> | a\|b | x y |`,
		"| p95 < 2s |",
		"![failure_stages](charts/failure_stages.svg)\n\n*Figure 3.*\n",
		`![Utilisation \<by component\>](charts/utilisation.svg)`,
		"- retries hide HTTP errors",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	page := string(files["report.html"])
	for _, want := range []string{
		"<title>Sweep: trip &lt;booking&gt; &amp; search</title>",
		"<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>",
		"<figcaption>Figure 2. Utilisation &lt;by component&gt;</figcaption>",
		"<li>retries hide HTTP errors</li>",
		"<strong>baseline</strong>",
		"<th>SLO | broken</th>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	fig := func(name string, c Renderer) Report {
		return Report{Sections: []Section{{Figures: []Figure{{Name: name, Chart: c}}}}}
	}
	ok := sweepChart()
	cases := []struct {
		name string
		r    Report
		want string
	}{
		{"path", fig("../x", ok), `plots: figure name "../x" is not a plain file name`},
		{"empty name", fig("", ok), `plots: figure name "" is not a plain file name`},
		{"nil chart", fig("x", nil), `plots: figure "x": no chart`},
		{"no data", fig("x", LineChart{Title: "X"}), `plots: figure "x": line chart "X" has no data`},
		{"size", Report{Sections: []Section{{Figures: []Figure{{Name: "x", Chart: ok, WidthCm: -1}}}}}, `plots: figure "x": chart size`},
		{"duplicate", Report{Sections: []Section{
			{Figures: []Figure{{Name: "x", Chart: ok}}},
			{Figures: []Figure{{Name: "x", Chart: ok}}},
		}}, `plots: figure name "x" is used twice`},
		{"png", Report{PNG: true, Sections: []Section{{Figures: []Figure{{Name: "x", Chart: svgOnly{}}}}}},
			`plots: figure "x": no PNG here`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, err := c.r.Build()
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v, want an error starting %q", err, c.want)
			}
			if files != nil {
				t.Error("files returned with an error")
			}
		})
	}
	_, err := fig("x", LineChart{}).Build()
	if !errors.Is(err, ErrNoData) {
		t.Errorf("%v does not match ErrNoData", err)
	}
}

// A caller's own Renderer goes into a report like a chart.
type fixedSVG struct{}

func (fixedSVG) Render(format string, w, h float64) ([]byte, error) {
	if format == PNG {
		return sweepChart().Render(format, w, h)
	}
	return []byte(fmt.Sprintf(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="%gcm" height="%gcm"></svg>`, w, h)), nil
}

// svgOnly draws an empty SVG and fails on PNG.
type svgOnly struct{}

func (svgOnly) Render(format string, w, h float64) ([]byte, error) {
	if format == PNG {
		return nil, errors.New("no PNG here")
	}
	return fixedSVG{}.Render(format, w, h)
}

// A report without PNGs never asks a chart for one.
func TestBuildWithoutPNGDrawsNone(t *testing.T) {
	t.Parallel()
	files := buildFiles(t, Report{Sections: []Section{{Figures: []Figure{{Name: "x", Chart: svgOnly{}}}}}})
	if len(files) != 3 || files["charts/x.svg"] == nil {
		t.Errorf("got %d files, want charts/x.svg, report.html and report.md", len(files))
	}
}

func TestBuildCustomRendererAndEmptyReport(t *testing.T) {
	t.Parallel()
	files := buildFiles(t, Report{Sections: []Section{{Figures: []Figure{{Name: "custom", Chart: fixedSVG{}}}}}})
	if !strings.Contains(string(files["report.html"]), `<svg xmlns="http://www.w3.org/2000/svg" width="16cm" height="10cm"></svg>`) {
		t.Error("custom svg not inlined at the default size")
	}
	empty := buildFiles(t, Report{})
	if len(empty) != 2 {
		t.Errorf("empty report gave %d files, want 2", len(empty))
	}
}

// A Prose column's cells wrap in report.html, every other cell keeps to
// one line; MinChars counts a one-line cell whole, a Prose cell and a
// header by their longest word.
func TestProseColumnsAndMinChars(t *testing.T) {
	tab := Table{
		Header: []string{"design", "first fails at (95 % CI)", "why"},
		Rows: [][]string{
			{"a, b", "3.3125x (?–3.563)", "success fell to 98.6%: refused at derivative_create"},
			{"v1-original", "1.8125x"},
		},
		Prose: []int{0, 2},
	}
	// design: "v1-original" 11; first fails at: its cell, 17; why:
	// "derivative_create" 17.
	if chars, cols := tab.MinChars(); chars != 11+17+17 || cols != 3 {
		t.Errorf("MinChars = %d, %d; want 45, 3", chars, cols)
	}
	files, err := Report{Sections: []Section{{Heading: "Verdict", Table: &tab}}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[0].Data) // report.html sorts before report.md
	want := `<tr><td class="prose">a, b</td><td>3.3125x (?–3.563)</td><td class="prose">success fell to 98.6%: refused at derivative_create</td></tr>`
	if !strings.Contains(page, want) {
		t.Errorf("report.html lacks\n%s\nin\n%s", want, page)
	}
	if !strings.Contains(page, "td{white-space:nowrap}\ntd.prose{white-space:normal}") {
		t.Error("report.html does not keep other cells to one line and wrap prose")
	}
}
