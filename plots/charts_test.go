package plots

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

// Charts in these tests are small but carry every awkward case a sweep
// produces: gaps, saturated runs, intervals, names that need escaping.

func ptr(v float64) *float64 { return &v }

var nan = math.NaN()

// sweepChart looks like "journey success vs multiplier": one design
// degrades, one saturates at the top multipliers, one has a missing point.
func sweepChart() LineChart {
	return LineChart{
		Title:   "Journey success vs load",
		XLabel:  "load multiplier",
		YLabel:  "journeys completed",
		YMin:    ptr(0),
		YMax:    ptr(1),
		Percent: true,
		Series: []Series{
			{Name: "v1-original", Points: []Point{
				{X: 0.5, Y: 0.999, Lo: 0.998, Hi: 1},
				{X: 1, Y: 0.99, Lo: 0.985, Hi: 0.995},
				{X: 1.5, Y: 0.95, Lo: 0.94, Hi: 0.96},
				{X: 2, Y: 0.7, Lo: 0.65, Hi: 0.75},
				{X: 2.5, Saturated: true, Y: math.Inf(1)},
				{X: 3, Saturated: true, Y: nan},
			}},
			{Name: "v2-cache", Points: []Point{
				{X: 0.5, Y: 1, Lo: nan, Hi: nan},
				{X: 1, Y: 0.998},
				{X: 1.5, Y: nan},
				{X: 2, Y: 0.97, Lo: 0.96, Hi: 0.98},
				{X: 2.5, Y: 0.93, Lo: 0.9, Hi: 0.95},
				{X: 3, Y: 0.88, Lo: 0.84, Hi: 0.91},
			}},
			// Unsorted input: lines are drawn in x order regardless.
			{Name: "v3 <queue> & \"retry\"", Points: []Point{
				{X: 3, Y: 0.9}, {X: 1, Y: 0.99}, {X: 2, Y: 0.95},
			}},
		},
	}
}

func utilisationChart() BarChart {
	return BarChart{
		Title:      "Utilisation at 2x",
		XLabel:     "component",
		YLabel:     "busy",
		Categories: []string{"api", "db", "cache"},
		Percent:    true,
		Groups: []Series{
			{Name: "v1-original", Points: []Point{{Y: 0.95, Lo: 0.93, Hi: 0.97}, {Y: 1.0, Saturated: true}, {Y: 0.2}}},
			{Name: "v2-cache", Points: []Point{{Y: 0.6}, {Y: nan}, {Y: 0.45, Lo: 0.4, Hi: 0.5}}},
		},
	}
}

func stagesChart() BarChart {
	return BarChart{
		Title:      "Failed journeys by stage",
		YLabel:     "journeys",
		Categories: []string{"v1-original", "v2-cache"},
		Stacked:    true,
		Groups: []Series{
			{Name: "search", Points: []Point{{Y: 120}, {Y: 10}}},
			{Name: "book", Points: []Point{{Y: 40}, {Y: math.Inf(1)}}},
			{Name: "pay", Points: []Point{{Y: 5}}},
		},
	}
}

func queueChart() TimeSeriesChart {
	api := make([]float64, 600)
	db := make([]float64, 600)
	for i := range api {
		api[i] = float64(i % 37)
		db[i] = math.Sqrt(float64(i))
	}
	db[300] = nan // a sampling gap
	return TimeSeriesChart{
		Title:  "Queue length, first failing run",
		YLabel: "requests queued",
		Step:   0.5,
		Series: []Signal{{Name: "api", Values: api}, {Name: "db", Values: db}},
	}
}

func latencyHistogram() Histogram {
	vs := make([]float64, 400)
	for i := range vs {
		// Deterministic, right-skewed sample.
		vs[i] = math.Exp(-2 + float64(i%40)/20)
	}
	vs[7] = nan
	vs[8] = math.Inf(1)
	return Histogram{
		Title:  "Service time, api",
		XLabel: "seconds",
		Values: vs,
		Density: func(x float64) float64 {
			if x <= 0 {
				return math.Inf(1) // a pole must not break the chart
			}
			return math.Exp(-x) * 2
		},
		DensityName: "exponential fit",
	}
}

func fitQQ() QQ {
	obs := make([]float64, 1000)
	for i := range obs {
		obs[i] = -math.Log(1 - (float64(i)+0.5)/1000)
	}
	return QQ{
		Title:    "Exponential fit, api",
		Observed: obs,
		Quantile: func(p float64) float64 { return -math.Log(1 - p) },
	}
}

type chartCase struct {
	name  string
	chart Renderer
	texts []string // texts that must appear in the drawing
}

func chartCases() []chartCase {
	return []chartCase{
		{"line", sweepChart(), []string{"Journey success vs load", "v1-original", "v2-cache", `v3 <queue> & "retry"`, saturatedLegend, "100%"}},
		{"bar", utilisationChart(), []string{"Utilisation at 2x", "v1-original", "v2-cache", "api", "db", "cache", saturatedLegend}},
		{"stacked", stagesChart(), []string{"Failed journeys by stage", "search", "book", "pay"}},
		{"timeseries", queueChart(), []string{"Queue length, first failing run", "api", "db", "time (s)"}},
		{"histogram", latencyHistogram(), []string{"Service time, api", "exponential fit", "sample (n = 398)", "density"}},
		{"qq", fitQQ(), []string{"Exponential fit, api", "fitted quantile", "observed quantile", "sample (n = 1000)"}},
	}
}

// svgTexts parses an SVG document strictly and returns the contents of
// its <text> elements.
func svgTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg does not parse as XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	return texts
}

func TestChartsSVGDeterministicAndParsable(t *testing.T) {
	t.Parallel()
	for _, tc := range chartCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := tc.chart.Render(SVG, 16, 10)
			if err != nil {
				t.Fatal(err)
			}
			b, err := tc.chart.Render(SVG, 16, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatal("two renders of the same chart differ")
			}
			texts := strings.Join(svgTexts(t, a), "\n")
			for _, want := range tc.texts {
				if !strings.Contains(texts, want) {
					t.Errorf("svg text lacks %q; has:\n%s", want, texts)
				}
			}
			for _, bad := range []string{"NaN", "Inf"} {
				if bytes.Contains(a, []byte(bad)) {
					t.Errorf("svg contains %q", bad)
				}
			}
		})
	}
}

func TestChartsPNGDecodesAtRequestedSize(t *testing.T) {
	t.Parallel()
	const wcm, hcm = 12, 8
	wantW := int(math.Round(wcm / 2.54 * DPI))
	wantH := int(math.Round(hcm / 2.54 * DPI))
	for _, tc := range chartCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, err := tc.chart.Render(PNG, wcm, hcm)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("png does not decode: %v", err)
			}
			if got := img.Bounds().Size(); got.X != wantW || got.Y != wantH {
				t.Errorf("png is %dx%d px, want %dx%d", got.X, got.Y, wantW, wantH)
			}
		})
	}
}

// A design keeps its colour across chart types when passed at the same
// index, so readers can follow it from figure to figure.
func TestSeriesColourStableAcrossCharts(t *testing.T) {
	t.Parallel()
	line, err := sweepChart().Render(SVG, 16, 10)
	if err != nil {
		t.Fatal(err)
	}
	bars, err := utilisationChart().Render(SVG, 16, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		c := svgColour(palette[i])
		if !bytes.Contains(line, []byte(c)) || !bytes.Contains(bars, []byte(c)) {
			t.Errorf("series %d colour %s missing from line or bar chart", i, c)
		}
	}
	if a, b := seriesLook(1), seriesLook(1+len(palette)); len(a.line.Dashes) == len(b.line.Dashes) {
		t.Error("series one palette apart look identical")
	}
}

func TestLineChartNaNAndSaturatedOnly(t *testing.T) {
	t.Parallel()
	// Every point is unusable except the saturated ones: still a chart.
	lc := LineChart{Title: "all saturated", Series: []Series{{Name: "s", Points: []Point{
		{X: 1, Y: nan}, {X: 2, Saturated: true, Y: math.Inf(1)}, {X: nan, Y: 3}, {X: math.Inf(1), Y: 1},
	}}}}
	for _, f := range []string{SVG, PNG} {
		if _, err := lc.Render(f, 10, 6); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestNoDataErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		chart Renderer
		want  string
	}{
		{LineChart{Title: "X"}, `plots: line chart "X" has no data`},
		{LineChart{Title: "X", Series: []Series{{Name: "a"}}}, `plots: line chart "X" has no data`},
		{LineChart{Title: "X", Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: nan}}}}}, `plots: line chart "X" has no data`},
		{BarChart{Title: "B", Categories: []string{"a"}}, `plots: bar chart "B" has no data`},
		{BarChart{Title: "B", Categories: []string{"a"}, Groups: []Series{{Name: "g", Points: []Point{{Y: nan}}}}}, `plots: bar chart "B" has no data`},
		{TimeSeriesChart{Title: "T", Step: 1, Series: []Signal{{Name: "q"}}}, `plots: time series chart "T" has no data`},
		{Histogram{Title: "H", Values: []float64{nan, math.Inf(-1)}}, `plots: histogram "H" has no data`},
		{QQ{Title: "Q", Quantile: math.Sqrt}, `plots: QQ plot "Q" has no data`},
	}
	for _, c := range cases {
		_, err := c.chart.Render(SVG, 10, 6)
		if err == nil || err.Error() != c.want {
			t.Errorf("got error %v, want %q", err, c.want)
			continue
		}
		if !errors.Is(err, ErrNoData) {
			t.Errorf("%v does not match ErrNoData", err)
		}
	}
}

func TestBadArgumentsAreErrors(t *testing.T) {
	t.Parallel()
	ok := sweepChart()
	cases := []struct {
		name  string
		chart Renderer
		fmt   string
		w, h  float64
		want  string
	}{
		{"format", ok, "pdf", 10, 6, `plots: unknown format "pdf"`},
		{"zero size", ok, SVG, 0, 6, "plots: chart size"},
		{"nan size", ok, PNG, nan, 6, "plots: chart size"},
		{"huge size", ok, PNG, 10, 1e6, "plots: chart size"},
		{"y bounds", LineChart{Title: "L", YMin: ptr(1), YMax: ptr(0), Series: ok.Series}, SVG, 10, 6, `plots: line chart "L": YMin 1 is not below YMax 0`},
		{"y bound inf", LineChart{Title: "L", YMax: ptr(math.Inf(1)), Series: ok.Series}, SVG, 10, 6, `plots: line chart "L": YMax is not finite`},
		{"bar overflow", BarChart{Title: "B", Categories: []string{"a"}, Groups: []Series{{Name: "g", Points: []Point{{Y: 1}, {Y: 2}}}}}, SVG, 10, 6, `plots: bar chart "B": group "g" has 2 values for 1 categories`},
		{"step", TimeSeriesChart{Title: "T", Series: []Signal{{Name: "q", Values: []float64{1}}}}, SVG, 10, 6, `plots: time series chart "T": step 0`},
		{"bins", Histogram{Title: "H", Values: []float64{1}, Bins: -1}, SVG, 10, 6, `plots: histogram "H": bins -1`},
		{"quantile", QQ{Title: "Q", Observed: []float64{1}}, SVG, 10, 6, `plots: QQ plot "Q" has no quantile function`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := c.chart.Render(c.fmt, c.w, c.h)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v, want an error starting %q", err, c.want)
			}
			if out != nil {
				t.Error("output returned with an error")
			}
		})
	}
}

// Odd but legal inputs: each must draw without error or panic.
func TestDegenerateDataDraws(t *testing.T) {
	t.Parallel()
	long := make([]float64, 50_000)
	for i := range long {
		long[i] = float64(i % 1000)
	}
	long[25_000] = nan
	cases := map[string]Renderer{
		"single point":       LineChart{Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 1}}}}},
		"flat line":          LineChart{Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 5}, {X: 2, Y: 5}}}}},
		"interval outside y": LineChart{Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 5, Lo: 7, Hi: 6}}}}},
		"data above ymax":    LineChart{YMax: ptr(1), Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 5}, {X: 2, Y: 0.5}}}}},
		"only ymin":          LineChart{YMin: ptr(10), Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 5}}}}},
		"many series":        LineChart{Series: manySeries(20)},
		"control characters": LineChart{Title: "bad\x00\x1b[31m\ufffe title\xff", Series: []Series{{Name: "a\tb\r\n", Points: []Point{{X: 1, Y: 1}, {X: 2, Y: 2}}}}},
		"negative stacked":   BarChart{Stacked: true, Categories: []string{"a", "b"}, Groups: []Series{{Name: "g", Points: []Point{{Y: -1}, {Y: 2}}}, {Name: "h", Points: []Point{{Y: 3}, {Y: -4}}}}},
		"bar saturated only": BarChart{Categories: []string{"a"}, Groups: []Series{{Name: "g", Points: []Point{{Saturated: true}}}}},
		"crowded categories": BarChart{Categories: strings.Fields("alpha-service beta-service gamma-service delta-service epsilon-service"), Groups: []Series{{Name: "g", Points: []Point{{Y: 1}, {Y: 2}, {Y: 3}, {Y: 4}, {Y: 5}}}}},
		"long time series":   TimeSeriesChart{Step: 0.01, Series: []Signal{{Name: "q", Values: long}}},
		"isolated sample":    TimeSeriesChart{Step: 1, Series: []Signal{{Name: "q", Values: []float64{nan, 3, nan}}}},
		"constant histogram": Histogram{Values: []float64{2, 2, 2}},
		"zero histogram":     Histogram{Values: []float64{0}, Density: func(float64) float64 { return nan }},
		"qq single":          QQ{Observed: []float64{1}, Quantile: func(float64) float64 { return 1 }},
		"qq infinite tails":  QQ{Observed: []float64{1, 2, 3}, Quantile: infiniteTails},
	}
	for name, c := range cases {
		for _, f := range []string{SVG, PNG} {
			out, err := c.Render(f, 10, 6)
			if err != nil {
				t.Errorf("%s/%s: %v", name, f, err)
				continue
			}
			if f == SVG {
				svgTexts(t, out)
			}
		}
	}
}

// infiniteTails is a quantile function finite only at the median.
func infiniteTails(p float64) float64 {
	if p == 0.5 {
		return 0
	}
	return math.Inf(1)
}

func svgColour(c color.NRGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

func manySeries(n int) []Series {
	ss := make([]Series, n)
	for i := range ss {
		ss[i] = Series{Name: strings.Repeat("x", i+1), Points: []Point{{X: 0, Y: float64(i)}, {X: 1, Y: float64(i + 1)}}}
	}
	return ss
}

func TestNiceTicks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		lo, hi  float64
		percent bool
		want    string // labelled ticks only
	}{
		{0, 1, true, "0% 20% 40% 60% 80% 100%"},
		{0, 299.5, false, "0 50 100 150 200 250"},
		{0.5, 3, false, "0.5 1.0 1.5 2.0 2.5 3.0"},
		{-1, 1, false, "-1.0 -0.5 0.0 0.5 1.0"},
		{0.9, 1, true, "90% 92% 94% 96% 98% 100%"},
		{0, 0.01, true, "0.0% 0.2% 0.4% 0.6% 0.8% 1.0%"},
		{0, 12, false, "0 2 4 6 8 10 12"},
		{1e-3, 2e-3, false, "0.0010 0.0012 0.0014 0.0016 0.0018 0.0020"},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range (niceTicks{percent: c.percent}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("ticks(%g, %g, percent=%v) = %q, want %q", c.lo, c.hi, c.percent, s, c.want)
		}
	}
	if ts := (niceTicks{}).Ticks(1, 1); ts != nil {
		t.Errorf("empty range gave ticks %v", ts)
	}
}

func TestDecimateKeepsExtremesAndGaps(t *testing.T) {
	t.Parallel()
	vs := make([]float64, 10*maxSamples)
	vs[12345] = 99 // a spike
	vs[15000] = nan
	out := decimate(vs)
	if len(out) > maxSamples+maxSamples/2 {
		t.Fatalf("decimated to %d points, want about %d", len(out), maxSamples)
	}
	spike, gap := false, false
	for i, xy := range out {
		if i > 0 && xy.X <= out[i-1].X {
			t.Fatalf("x not increasing at %d", i)
		}
		spike = spike || (xy.X == 12345 && xy.Y == 99)
		gap = gap || math.IsNaN(xy.Y)
	}
	if !spike || !gap {
		t.Errorf("spike kept: %v, gap kept: %v", spike, gap)
	}
}

// Two series of one design share its colour; the dashed one says so in the
// SVG's stroke pattern.
func TestSeriesPairShareLook(t *testing.T) {
	pts := []Point{{X: 1, Y: 0.1}, {X: 2, Y: 0.2}}
	chart := LineChart{Title: "pair", Series: []Series{
		{Name: "a: journeys", Points: pts, Look: 2},
		{Name: "a: requests", Points: pts, Look: 2, Dashed: true},
	}}
	svg, err := chart.Render(SVG, 16, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("stroke-dasharray")) {
		t.Error("dashed series drawn without a dash pattern")
	}
	want := seriesLook(1).colour
	r, g, b, _ := want.RGBA()
	hex := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
	if n := bytes.Count(bytes.ToLower(svg), []byte(hex)); n < 2 {
		t.Errorf("colour %s of look 2 appears %d times, want both series in it", hex, n)
	}
}
