package sweepreport

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"
	"capsim/scenarios"
	"capsim/sim"
)

// designLoad is one design of a sweep of an embedded scenario: its name in
// the sweep and how the scenario is loaded for it.
type designLoad struct {
	name string
	opts model.LoadOptions
}

// sweepEmbedded sweeps designs of an embedded scenario as cfg says, and
// returns the result with the scenario's journeys and each design's graph.
func sweepEmbedded(t *testing.T, scenario string, cfg sweep.Config, designs ...designLoad) (*sweep.Result, []string, map[string]model.Graph) {
	t.Helper()
	var journeys []string
	graphs := map[string]model.Graph{}
	for _, d := range designs {
		l, err := model.Load(scenarios.FS(), scenarios.File(scenario), d.opts)
		if err != nil {
			t.Fatal(err)
		}
		c, err := l.Compile()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Designs = append(cfg.Designs, sweep.Design{Name: d.name, Compiled: c})
		journeys, graphs[d.name] = l.Scenario.Journeys.Names(), c.Graph()
	}
	cfg.Scenario = scenario
	res, err := sweep.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res, journeys, graphs
}

// smallSweep sweeps the embedded M/M/4/6 scenario over two designs, one
// of which breaks its SLO (success_rate >= 0.9) inside the range, so the
// report has a first failure, a comparison and a time series to show.
func smallSweep(t *testing.T) (*sweep.Result, []string) {
	t.Helper()
	servers := func(n string) model.LoadOptions {
		return model.LoadOptions{Sets: []string{"duration=600s", "warmup=60s", "components.server.servers=" + n}}
	}
	res, journeys, _ := sweepEmbedded(t, "mmck",
		sweep.Config{Multipliers: []float64{0.5, 1}, Replications: 2, Seed: 1, Workers: 2, Refine: 1, SeriesStep: sim.Second},
		designLoad{"four", servers("4")}, designLoad{"eight", servers("8")})
	return res, journeys
}

// The report's files are the same bytes however many workers draw the
// charts, with PNGs or without, and hold the sections a reader looks for;
// the PNGs add a file per chart and change report.md's images, nothing else.
func TestBuildIsTheSameWithAnyWorkers(t *testing.T) {
	res, journeys := smallSweep(t)
	build := func(workers int, png bool) map[string][]byte {
		files, err := Build(res, Options{Description: "A short M/M/c/K sweep.", Journeys: journeys,
			CommandLine: []string{"capsim", "sweep", "mmck"}, Workers: workers, PNG: png})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string][]byte{}
		for _, f := range files {
			m[f.Name] = f.Data
		}
		return m
	}
	for _, png := range []bool{false, true} {
		one, three := build(1, png), build(3, png)
		if len(one) != len(three) {
			t.Fatalf("PNG %v: %d files with 1 worker, %d with 3", png, len(one), len(three))
		}
		for name, data := range one {
			if !bytes.Equal(data, three[name]) {
				t.Errorf("PNG %v: %s differs between 1 and 3 workers", png, name)
			}
		}
	}
	svgOnly, withPNG := build(2, false), build(2, true)
	for _, name := range []string{"report.md", "report.html", "charts/success_customer.svg", "charts/success_customer.png",
		"charts/component_server.svg", "charts/failures_customer.png"} {
		if withPNG[name] == nil {
			t.Errorf("with PNG: %s is missing", name)
		}
	}
	pngs := 0
	for name, data := range withPNG {
		if strings.HasSuffix(name, ".png") {
			pngs++
			if svgOnly[name] != nil {
				t.Errorf("%s written without PNG", name)
			}
			if svgOnly[strings.TrimSuffix(name, ".png")+".svg"] == nil {
				t.Errorf("%s has no SVG beside it", name)
			}
			continue
		}
		if name != "report.md" && !bytes.Equal(data, svgOnly[name]) {
			t.Errorf("%s differs with PNG", name)
		}
	}
	if len(svgOnly)+pngs != len(withPNG) {
		t.Errorf("%d files without PNG and %d PNGs, %d files with", len(svgOnly), pngs, len(withPNG))
	}
	md := string(svgOnly["report.md"])
	for _, want := range []string{"## Verdict", "| =1 | eight |", "A short M/M/c/K sweep.", "Command: `capsim sweep mmck`",
		"<summary>Method and settings</summary>", "## Contents", "- [Journeys](#journeys)", "## Designs",
		"<summary>Design four</summary>", "<summary>Design eight</summary>", "success vs four", "## At the first failure",
		"<summary>design four at ", " signals over time</summary>", "](charts/success_customer.svg)\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, ".png") {
		t.Error("report.md without PNG names a .png")
	}
	if !strings.Contains(string(withPNG["report.md"]), "](charts/success_customer.png)\n") {
		t.Error("report.md with PNG does not show charts/success_customer.png")
	}
}

// The tables: the constants once, a table per design, then the first
// failures.
func TestWriteTables(t *testing.T) {
	res, journeys := smallSweep(t)
	var b strings.Builder
	WriteTables(&b, res, journeys, 0, "")
	out := b.String()
	for _, want := range []string{"scenario: mmck   designs: four, eight   multipliers: 0.5–1 (2 points)   replications: 2   seed: 1",
		"\ndesign four\n", "\ndesign eight\n", "success vs four", "first failure: smallest multiplier", "customer success_rate >= 0.9"} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
}

func TestCellFormats(t *testing.T) {
	nan := math.NaN()
	cases := []struct{ got, want string }{
		{fmtRateCI(sweep.Summary{N: 3, Mean: 0.875, Lo: 0.7389, Hi: 0.9454}), "87.5% [73.9–94.5]"},
		{fmtRateCI(sweep.Summary{N: 3, Mean: 0.0009, Lo: 0.0004, Hi: 0.0021}), "0.09% [0.04–0.21]"},
		{fmtRateCI(sweep.Summary{N: 1, Mean: 0.5, Lo: nan, Hi: nan}), "50.0% ± ∞"},
		{fmtRateCI(sweep.Summary{Mean: nan, Lo: nan, Hi: nan}), "-"},
		{fmtCountCI(sweep.Summary{N: 2, Mean: 250, Lo: 225, Hi: 275}), "250 ± 10%"},
		{fmtCountCI(sweep.Summary{N: 2, Mean: 12.5, Lo: 12.5, Hi: 12.5}), "12.5 ± 0%"},
		{fmtCountCI(sweep.Summary{N: 2, Mean: 0, Lo: -0.5, Hi: 0.5}), "0.0 ± 0.5"},
		{fmtSecCI(sweep.Summary{N: 2, Mean: 0.25, Lo: 0.24, Hi: 0.26}), "250.0ms ± 4.0%"},
		{fmtDiff(sweep.Summary{N: 2, Mean: 0.1, Lo: -0.1, Hi: 0.3}), "~"},
		{fmtDiff(sweep.Summary{N: 2, Mean: 0.1, Lo: 0.05, Hi: 0.15}), "+10.0pp [+5.0, +15.0]"},
		{fmtDiff(sweep.Summary{N: 2, Mean: -0.0125, Lo: -0.02, Hi: -0.005}), "-1.25pp [-2.00, -0.50]"},
		{fmtDiff(sweep.Summary{N: 2, Mean: 0.14, Lo: 0.0289, Hi: 0.2511}), "+14.0pp [+2.9, +25.1]"},
		{fmtBound(1.7734375), "1.773"},
		{fmtBound(nan), "?"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestFirstFailureLine(t *testing.T) {
	grid := []float64{1, 2, 3}
	cases := []struct {
		ff   sweep.FirstFailure
		want string
	}{
		{sweep.FirstFailure{}, "no SLO broken up to 3x"},
		{sweep.FirstFailure{Found: true, Multiplier: 1.5, Lo: 1.25, Hi: 1.75, SLO: "a success_rate >= 0.9", Stage: "pay", Component: "db"},
			"1.5x (CI 1.25–1.75): a success_rate >= 0.9; failure_stage pay at db"},
		{sweep.FirstFailure{Found: true, BelowRange: true, Multiplier: 1, Lo: math.NaN(), Hi: 1, SLO: "a p95 <= 2s", Component: "db"},
			"already fails at 1x, the lowest multiplier tried (CI ?–1): a p95 <= 2s; failure_stage - at db"},
	}
	for _, c := range cases {
		if got := firstFailureLine(c.ff, grid); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// Scenario names become plain, unique chart file names.
func TestFigureNames(t *testing.T) {
	n := newFigureNames()
	got := []string{n.get("success_trip creation"), n.get("success_trip/creation"), n.get("p95_a.b")}
	want := []string{"success_trip_creation", "success_trip_creation_2", "p95_a.b"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// A chart with nothing finite to draw leaves no figure; a saturated point
// A chart with nothing to draw is left out as nothing measured; one
// saturated point (a run a guard stopped) is something.
func TestEmptyChartsAreLeftOut(t *testing.T) {
	empty := plots.LineChart{Series: []plots.Series{{Points: []plots.Point{{X: 1, Y: math.NaN()}}}}}
	saturated := plots.LineChart{Series: []plots.Series{{Points: []plots.Point{{X: 1, Y: math.Inf(1), Saturated: true}}}}}
	l := newLeftOut()
	figs := l.keep(nil, plots.Figure{Name: "empty"}, empty, "e")
	figs = l.keep(figs, plots.Figure{Name: "saturated"}, saturated, "s")
	figs = l.keep(figs, plots.Figure{Name: "no_signal"}, plots.TimeSeriesChart{Series: []plots.Signal{{Values: []float64{math.NaN()}}}}, "n")
	if len(figs) != 1 || figs[0].Name != "saturated" || strings.Join(l.empty, ",") != "e,n" {
		t.Fatalf("figures %+v, nothing measured %q", figs, l.empty)
	}
}

// The page answers first: the verdict, ranked, comes before any method
// text and before the first chart; the contents follow it; the method is
// folded; and every chart drawn has data while those left out are named.
func TestReportLayout(t *testing.T) {
	res, journeys := smallSweep(t)
	files, err := Build(res, Options{Description: "A short M/M/c/K sweep.", Journeys: journeys,
		CommandLine: []string{"capsim", "sweep", "mmck"}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var page string
	svgs := 0
	for _, f := range files {
		switch {
		case f.Name == "report.html":
			page = string(f.Data)
		case strings.HasSuffix(f.Name, ".svg"):
			svgs++
		}
	}
	at := func(s string) int {
		t.Helper()
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("report.html lacks %q", s)
		}
		return i
	}
	verdict, best := at(`<section id="verdict">`), at(`<tr><td>=1</td><td class="prose">eight</td>`)
	contents, method := at(`<nav id="contents">`), at(`<details id="method-and-settings">`)
	methodText, firstFigure := at("The first-failure multiplier is the smallest"), at("<figure")
	if !(verdict < best && best < contents && contents < method && method < methodText && methodText < firstFigure) {
		t.Errorf("order: verdict %d, best row %d, contents %d, method %d (text %d), first figure %d",
			verdict, best, contents, method, methodText, firstFigure)
	}
	if strings.Count(page[:verdict], "<p>") > 0 {
		t.Error("prose before the verdict")
	}
	if n := strings.Count(page, "<figure"); n != svgs {
		t.Errorf("%d figures on the page, %d SVG charts", n, svgs)
	}
	if !strings.Contains(page, "figure svg{width:100%") {
		t.Error("charts are not scaled to the page")
	}
	// One replication per design makes the M/M/4/6 queue's peak the
	// same everywhere it is measured, or not: either way the chart is
	// drawn (a panel of the component's row) or named as left out, never
	// both.
	drawn := strings.Contains(page, `>server: peak queue</text>`)
	left := strings.Contains(page, "server peak queue (")
	if drawn == left {
		t.Errorf("queue chart drawn %v, listed as left out %v", drawn, left)
	}
}

// Designs that fail alike share a row; one that held comes first, then
// the latest failure; the why names SLO, value, stage and component.
func TestVerdictRanksAndGroups(t *testing.T) {
	res, _ := smallSweep(t)
	outs := rankOutcomes(res)
	if len(outs) != 2 || res.Designs[outs[0].designs[0]] != "eight" {
		t.Fatalf("ranking %+v", outs)
	}
	w := why(res, outs[1])
	for _, want := range []string{"customer success fell to", "(SLO ≥ 90%)"} {
		if !strings.Contains(w, want) {
			t.Errorf("why %q lacks %q", w, want)
		}
	}
	nan := math.NaN()
	fake := &sweep.Result{Designs: []string{"a", "b", "c", "d"}, Multipliers: []float64{1, 2, 3},
		FirstFailures: []sweep.FirstFailure{
			{Design: "a", Found: true, Multiplier: 2, Lo: 1.5, Hi: 2.5, SLO: "s"},
			{Design: "b", Found: true, Multiplier: 3, Lo: 2.5, Hi: 2.75, SLO: "s"},
			{Design: "c", Found: true, Multiplier: 2, Lo: 1.5, Hi: 2.5, SLO: "s"},
			{Design: "d", Multiplier: nan, Lo: nan, Hi: nan},
		}}
	var got []string
	for _, o := range rankOutcomes(fake) {
		got = append(got, o.names(fake))
	}
	if want := []string{"d", "b", "a, c"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ranked %q, want %q", got, want)
	}
	tab := verdictTable(fake, rankOutcomes(fake))
	if len(tab.Strong) != 1 || tab.Strong[0] != 0 || tab.Rows[0][0] != "1 best" || tab.Rows[0][2] != "held up to 3x" ||
		tab.Rows[1][0] != "=2" || tab.Rows[2][0] != "=2" {
		t.Errorf("verdict rows %q strong %v", tab.Rows, tab.Strong)
	}
	// An interval open above reaches over the held design's: the two
	// share the first place, and neither is called best.
	fake.FirstFailures[1].Hi = nan
	tab = verdictTable(fake, rankOutcomes(fake))
	if len(tab.Strong) != 0 || tab.Rows[0][0] != "=1" || tab.Rows[1][0] != "=1" || tab.Rows[1][2] != "3x (2.5–?)" {
		t.Errorf("verdict rows %q strong %v", tab.Rows, tab.Strong)
	}
}

// A chart whose every series is empty or constant is left out and named,
// with its value when all series sit at one; one that moves is kept, and
// a chart with the same data as one kept, whatever its title, is not
// drawn again.
func TestLeftOutFlatAndRepeatedCharts(t *testing.T) {
	flat := plots.LineChart{Series: []plots.Series{{Points: []plots.Point{{X: 1, Y: 0, Lo: 0, Hi: 0.2}, {X: 2, Y: 0}}}}}
	twoLevels := plots.LineChart{Percent: true, Series: []plots.Series{{Points: []plots.Point{{X: 1, Y: 0.5}, {X: 2, Y: 0.5}}},
		{Points: []plots.Point{{X: 1, Y: 1}, {X: 2, Y: math.NaN()}}}, {}}}
	moving := plots.LineChart{Title: "r", Series: []plots.Series{{Points: []plots.Point{{X: 1, Y: 0}, {X: 2, Y: 1}}}}}
	again := moving
	again.Title = "r again"
	l := newLeftOut()
	figs := l.keep(nil, plots.Figure{Name: "flat"}, flat, "q peak queue")
	figs = l.keep(figs, plots.Figure{Name: "two"}, twoLevels, "u utilisation")
	figs = l.keep(figs, plots.Figure{Name: "moving"}, moving, "r")
	figs = l.keep(figs, plots.Figure{Name: "again"}, again, "r again")
	if len(figs) != 1 || figs[0].Name != "moving" {
		t.Errorf("kept %v", figs)
	}
	sec, ok := l.section()
	for _, want := range []string{"- flat at every load: q peak queue (0), u utilisation\n", "- drawn once: r again (the same as r)\n"} {
		if !ok || !strings.Contains(sec.Text, want) {
			t.Errorf("section %q lacks %q", sec.Text, want)
		}
	}
}

// Interval ends round outwards: never narrower than the interval, never
// inside its own estimate.
func TestIntervalEndsRoundOutwards(t *testing.T) {
	nan := math.NaN()
	cases := map[string]string{
		fmtInterval(nan, 1.8125):     "?–1.813",
		fmtInterval(1.8125, 3.5625):  "1.812–3.563",
		fmtInterval(3, 3.25):         "3–3.25",
		fmtInterval(1.003125, 1.034): "1.003–1.034",
		fmtInterval(0.5, nan):        "0.5–?",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// The hindcast's line is on the report's first screen, above the ranks.
func TestReportCarriesTheHindcastLine(t *testing.T) {
	res, journeys := smallSweep(t)
	files, err := Build(res, Options{Journeys: journeys, Workers: 1,
		Hindcast: "Hindcast, 10 replications per observation: the model agrees with 1 of 2 observations (disagree: x)."})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name != "report.md" {
			continue
		}
		md := string(f.Data)
		line, table := strings.Index(md, "the model agrees with 1 of 2 observations (disagree: x)"), strings.Index(md, "| rank |")
		if line < 0 || table < 0 || line > table {
			t.Errorf("hindcast line at %d, verdict table at %d:\n%s", line, table, md[:min(len(md), 1500)])
		}
	}
}
