package sweepreport

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"

	"golang.org/x/sync/errgroup"
)

// Options is what a report says besides the sweep's result.
type Options struct {
	Description string   // the scenario's description, shown under the title
	Journeys    []string // the scenario's journeys, in its order
	CommandLine []string // how the sweep was run, shown as given
	// Workers is how many charts are drawn at once; the bytes do not
	// depend on it.
	Workers int
	// Hinges, when set, adds the section "What the answer hinges on"
	// after the verdict (see ReadSensitivityCSV).
	Hinges []Hinge
	// Hindcast, when set, is the one-line agreement with the scenario's
	// observations, shown under the verdict.
	Hindcast string
	// Graphs, by design name, draw the failing design as diagram.svg
	// beside the verdict.
	Graphs map[string]model.Graph
	// PNG also draws every chart as a PNG, which report.md then shows
	// (see [plots.Report.PNG]).
	PNG bool
}

// Build lays out report.md, report.html and their charts. The answer
// comes first, on the first screen: the designs ranked by where they
// first break an SLO, alike ones on one row, each with why; then the
// contents, the method and settings folded away, and the evidence. It
// returns the files as [plots.Report.Build] does, for the caller to write.
func Build(res *sweep.Result, opts Options) ([]plots.File, error) {
	r, pic, drawn := layout(res, opts)
	prerender(r, opts.Workers)
	files, err := r.Build()
	if err == nil && drawn {
		files = append(files, pic)
	}
	return files, err
}

// layout is the report's sections with their charts, not yet drawn, and
// the diagram when there is one to draw.
func layout(res *sweep.Result, opts Options) (plots.Report, plots.File, bool) {
	names := newFigureNames()
	r := plots.Report{Title: "capsim sweep: " + res.Scenario, ContentsAfter: 1, PNG: opts.PNG}
	outs := rankOutcomes(res)
	pic, picText, drawn := diagramFile(res, outs, opts.Graphs)

	r.Sections = append(r.Sections, plots.Section{
		Heading: "Verdict",
		Text: fmt.Sprintf("Where each design first breaks an SLO as the load multiplier scales the traffic, best first; "+
			"designs with the same result share a row. A design ranks behind another only when the other's 95 %% interval lies wholly above its own; "+
			"=2 is a place shared by designs whose intervals overlap. %d replications per multiplier.", res.Replications) + shortText(res) +
			untilSureText(res) + overloadText(res) + hindcastText(opts.Hindcast) + picText,
		Table: verdictTable(res, outs),
	})
	if len(opts.Hinges) > 0 {
		r.Sections = append(r.Sections, hingesSection(res, opts.Hinges))
	}
	r.Sections = append(r.Sections, methodSection(res, opts))

	left := newLeftOut()
	var jfigs []plots.Figure
	zero, one := 0.0, 1.0
	for _, j := range entities(res, model.JourneySuccessRate) {
		successKey := model.JourneySuccessRate.Of(j)
		success := plots.LineChart{Title: j + ": journey success", XLabel: "load multiplier", YLabel: "journeys that succeeded",
			YMin: &zero, YMax: &one, Percent: true}
		groups := groupSeries(res, []model.MetricKey{successKey})
		for _, g := range groups {
			success.Series = append(success.Series, g.named(res))
		}
		caption := "Journey success rate of " + j + " against the load multiplier: mean and 95 % interval over replications." +
			withSLO(res, successKey, &success)
		if len(success.Bounds) > 0 {
			caption += " A dotted line in a design's colour marks where it first fails."
			for i, g := range groups {
				ff := res.FirstFailures[g.designs[0]]
				if st, ok := ff.FirstBroken(); ok && st.Key == successKey {
					success.Marks = append(success.Marks, plots.Mark{X: ff.Multiplier, Series: i, Label: "first failure"})
				}
			}
		}
		caption += alikeNote(res, groups)
		// The answer's chart takes the page's width.
		jfigs = left.keep(jfigs, plots.Figure{Name: names.get("success_" + j), Caption: caption, Wide: true}, success, j+" journey success")

		// One panel per design (alike ones together): two lines a panel
		// read at a glance where sixteen in one chart do not.
		fails := plots.SmallMultiples{Title: j + ": journeys vs HTTP requests that failed", Cols: 3, SharedY: true, Legend: true}
		fgroups := groupSeries(res, []model.MetricKey{model.JourneyFailureRate.Of(j), model.HTTPFailureRate.Of(j)})
		for _, g := range fgroups {
			if !anyFinite(g.series[0]) && !anyFinite(g.series[1]) {
				continue // a design that does not run this journey
			}
			jr, hr := g.series[0], g.series[1]
			jr.Name, jr.Look = "journeys that failed", 1
			hr.Name, hr.Look, hr.Dashed = "HTTP requests that failed", 2, true
			fails.Panels = append(fails.Panels, plots.LineChart{Title: g.label(res), XLabel: "load multiplier", YLabel: "failure rate",
				Series: []plots.Series{jr, hr}, YMin: &zero, Percent: true})
		}
		if len(fails.Panels) == 0 {
			continue
		}
		if left.shows(fails, j+" journey vs HTTP failure rate") {
			jfigs = append(jfigs, stacked(names, "failures_"+j,
				"What users saw (journeys that failed) beside what an HTTP dashboard saw (requests that failed), for "+j+", per design; every panel of a figure has the same scale."+alikeNote(res, fgroups),
				fails, 5.2)...)
		}
	}
	journeys := plots.Section{Heading: "Journeys", Figures: jfigs}
	if len(jfigs) == 0 {
		// A heading over nothing reads as a page that failed to draw.
		journeys.Text = "Every journey chart is left out, for the reason [Charts left out](#charts-left-out) " +
			"gives; the designs' tables below hold the figures."
	}
	r.Sections = append(r.Sections, journeys)

	// The designs' tables are the numbers behind the charts above, one
	// closed under each design's name: eight open tables were a tenth
	// of the page.
	r.Sections = append(r.Sections, plots.Section{Heading: "Designs",
		Text: "Each design's table, a row per load multiplier and journey: journeys started per run, journey success, " +
			"the HTTP failure rate and the journey's p95 duration, each the mean with its 95 % interval, and the verdict" +
			designsCompared(res) + ". Open a design to read its table."})
	for d, design := range res.Designs {
		t := sweepTable(res, d, opts.Journeys)
		text := strings.TrimSpace(overloadLine(res, d, true) + " " + idleLine(res, d, true))
		r.Sections = append(r.Sections, plots.Section{
			Heading: "Design " + design,
			Text:    text,
			Folded:  true,
			// A verdict may carry a guard's note, a sentence.
			Table: &plots.Table{Header: t.Header, Rows: t.Rows, Prose: []int{slices.Index(t.Header, "verdict")}},
		})
	}

	var rfigs []plots.Figure
	for _, rt := range entities(res, model.RouteP95) {
		series, note := alikeSeries(res, model.RouteP95.Of(rt))
		chart := plots.LineChart{Title: "route " + rt + ": p95 latency", XLabel: "load multiplier", YLabel: "p95 (s)",
			Series: series, YMin: &zero}
		caption := "Server-side p95 latency of route " + rt + ", per design." + withSLO(res, model.RouteP95.Of(rt), &chart) + note
		rfigs = left.keep(rfigs, plots.Figure{Name: names.get("p95_" + rt), Caption: caption}, chart, "route "+rt+" p95")
	}
	// A route's failures, after every route's p95: most routes of a
	// scenario never fail, and their flat charts are only listed.
	for _, rt := range entities(res, model.RouteFailureRate) {
		series, note := alikeSeries(res, model.RouteFailureRate.Of(rt))
		chart := plots.LineChart{Title: "route " + rt + ": failure rate", XLabel: "load multiplier", YLabel: "calls that failed",
			Series: series, YMin: &zero, Percent: true}
		caption := "Share of the calls to route " + rt + " that failed, as the server logs them, per design." +
			withSLO(res, model.RouteFailureRate.Of(rt), &chart) + note
		rfigs = left.keep(rfigs, plots.Figure{Name: names.get("route_failures_" + rt), Caption: caption}, chart, "route "+rt+" failure rate")
	}
	if len(rfigs) > 0 {
		r.Sections = append(r.Sections, plots.Section{Heading: "Routes", Figures: rfigs})
	}

	var cfigs []plots.Figure
	for _, c := range entities(res, model.PeakQueue) {
		if fig, ok := componentFigure(res, c, names, left); ok {
			cfigs = append(cfigs, fig)
		}
	}
	if len(cfigs) > 0 {
		r.Sections = append(r.Sections, plots.Section{Heading: "Components", Figures: cfigs})
	}

	var sfigs []plots.Figure
	for d, design := range res.Designs {
		chart, ok := stageChart(res, d, len(opts.Journeys) > 1)
		if ok {
			sfigs = left.keep(sfigs, plots.Figure{Name: names.get("stages_" + design),
				Caption: "Failed journeys per run by failure_stage, design " + design + " (mean over replications)."}, chart, "failure stages of "+design)
		}
	}
	if len(sfigs) > 0 {
		r.Sections = append(r.Sections, plots.Section{Heading: "Failure stages", Figures: sfigs})
	}

	var tfigs []plots.Figure
	for _, sr := range res.Series {
		if sr.Series == nil {
			continue
		}
		what := fmt.Sprintf("design %s at %sx, seed %d", sr.Design, sweep.FormatMultiplier(sr.Multiplier), sr.Seed)
		sm, flat := seriesPanels(res, sr, opts.Graphs[sr.Design])
		if len(flat) > 0 {
			left.overRun = append(left.overRun, what+": "+strings.Join(flat, ", ")+" (constant over the run)")
		}
		if len(sm.Panels) == 0 {
			continue
		}
		sm.Title = "Over time: " + what
		figs := stacked(names, "series_"+sr.Design,
			"Journeys in flight, queue lengths and resources held over simulated time, one run of "+what+
				"; each panel has its own scale, and a dashed line is the component's capacity.",
			sm, 4.5)
		// A design's run over time is detail for the reader asking why
		// it failed: closed, every design's is on one screen.
		for i := range figs {
			n := figs[i].Chart.(plots.SmallMultiples).Panels
			figs[i].Summary = fmt.Sprintf("%s: %d signals over time", what, len(n))
			if len(figs) > 1 {
				figs[i].Summary += fmt.Sprintf(" (part %d of %d)", i+1, len(figs))
			}
		}
		tfigs = append(tfigs, figs...)
	}
	if len(tfigs) > 0 {
		r.Sections = append(r.Sections, plots.Section{Heading: "At the first failure", Figures: tfigs})
	}
	if sec, ok := left.section(); ok {
		r.Sections = append(r.Sections, sec)
	}
	return r, pic, drawn
}

// designsCompared says, for the Designs section, what the last column
// of every design's table but the first compares.
func designsCompared(res *sweep.Result) string {
	if len(res.Designs) < 2 {
		return ""
	}
	return "; after the first, each design's journey success less " + res.Designs[0] + "'s on the same traffic, " +
		"in points with its 95 % interval, ~ when the interval holds zero"
}

// methodSection holds what a reader needs to trust or repeat the sweep,
// folded: the scenario, the command, the settings, and how the first
// failure is found, with every field of each design's first failure.
func methodSection(res *sweep.Result, opts Options) plots.Section {
	var pre strings.Builder
	if d := strings.TrimSpace(opts.Description); d != "" {
		pre.WriteString(mdEscape(d) + "\n\n")
	}
	fmt.Fprintf(&pre, "Command: `%s`\n\n", strings.Join(opts.CommandLine, " "))
	for _, line := range reportSettings(res) {
		fmt.Fprintf(&pre, "- %s\n", mdEscape(line))
	}
	pre.WriteString(`
The first-failure multiplier is the smallest load multiplier at which the mean over the replications
of an SLO's value breaks its bound (or a guard stopped a run), found on the grid and refined in rounds,
each trying evenly spaced multipliers below it and near both ends of its interval.
Its 95 % interval runs from the highest multiplier tried below it where every SLO's interval passed,
to the lowest tried where an SLO's interval failed outright;
"?" marks an end no multiplier tried settles.
The component and failure stage are those most failed journeys ended at, at that multiplier.
`)
	if p := res.Precision; p != nil {
		fmt.Fprintf(&pre, `
Replications until sure: after the refinement, every cell whose verdict was unclear and could still move a first failure
or an end of its interval got more replications, doubling look by look from %d up to %d, until its verdict was clear.
Every verdict of the sweep was judged at %s %% (the 5 %% of one look split over the %d looks a cell could have,
by Bonferroni's inequality), so that stopping at the first clear look keeps each cell's error within 5 %%.
`, res.Replications, p.Until, sweep.FormatLevel(p.Level), p.Looks)
	}
	if drawn(res) {
		fmt.Fprintf(&pre, `
With parameter draws, a second sweep ran each of the %d replications twice more on the same traffic: once with its own draw
of every uncertain value (a fit's standard errors, a declared range), once with the values as written, each refined to find
that replication's own first failure. The differences are what the draws moved the first failure by. The interval with
parameter uncertainty adds their 95 %% prediction interval, mean ± t·sd·√(1 + 1/R), to the interval of the replications'
noise, the two half-widths in quadrature: it covers the first failure of the true parameters, and does not narrow with
more replications when the parameters matter.
`, res.FirstFailures[0].Draws)
	}
	ffTable := &plots.Table{Header: []string{"design", "first failure", "95 % CI", "SLO broken", "component", "failure stage"}}
	if drawn(res) {
		ffTable.Header = slices.Insert(ffTable.Header, 3, "with parameter uncertainty")
	}
	ffTable.Prose = []int{slices.Index(ffTable.Header, "SLO broken")}
	for _, ff := range res.FirstFailures {
		switch {
		case !ff.Found:
			ffTable.Rows = append(ffTable.Rows, []string{ff.Design, "none up to " + sweep.FormatMultiplier(res.Multipliers[len(res.Multipliers)-1]) + "x"})
		default:
			at := sweep.FormatMultiplier(ff.Multiplier) + "x"
			if ff.BelowRange {
				at = "≤ " + at
			}
			row := []string{ff.Design, at, fmtLo(ff.Lo) + " – " + fmtHi(ff.Hi), ff.SLO, ff.Component, ff.Stage}
			if drawn(res) {
				row = slices.Insert(row, 3, fmtLo(ff.PLo)+" – "+fmtHi(ff.PHi))
			}
			ffTable.Rows = append(ffTable.Rows, row)
		}
	}
	return plots.Section{Heading: "Method and settings", Folded: true, Text: pre.String(), Table: ffTable}
}

func opSign(op string) string {
	return map[string]string{">=": "≥", "<=": "≤", ">": ">", "<": "<"}[op]
}

// withSLO draws the bound of the scenario's SLO on metric, when it has
// one, as the line every chart of that metric is read against, and says
// so for the caption. Every chart of one metric calls it, so no chart of
// a bounded measure goes without its line.
func withSLO(res *sweep.Result, metric model.MetricKey, chart *plots.LineChart) string {
	b, ok := sloBound(res, metric)
	if !ok {
		return ""
	}
	v := plots.Number(b.Value)
	switch {
	case chart.Percent:
		v = plots.Percent(b.Value)
	case metric.Measure.Unit() == model.UnitSeconds:
		v += " s"
	}
	chart.Bounds = append(chart.Bounds, plots.Bound{Y: b.Value, Label: "SLO " + opSign(b.Op) + " " + v})
	return " The dashed grey line is the SLO."
}

// componentPanel is one chart of a component's row: its metric, title,
// axis label, caption phrase and how the report names it when left out.
type componentPanel struct {
	metric           model.Measure
	title, y, phrase string
	what             string
	percent          bool
}

// componentPanels are a component's charts, in the order its row draws
// them.
var componentPanels = []componentPanel{
	{metric: model.Utilisation, title: "utilisation", y: "busy / capacity", phrase: "time-average utilisation", what: "utilisation", percent: true},
	{metric: model.PeakQueue, title: "peak queue", y: "most waiting at once", phrase: "peak number of waiters", what: "peak queue"},
}

// Size of a component's row: its charts side by side across the page,
// drawn near the size they are shown at (the page is 64rem, 27 cm at
// 96 dpi) so that their axes read at the text's size, and short enough
// that a row of two takes less height than the two-to-a-row grid did.
const componentW, componentH = 24.0, 6.6

// componentFigure is component c's row: one figure with its charts that
// show something side by side, sharing one legend, the designs alike on
// all of them drawn once; false when none does (each is then named in the
// charts left out).
func componentFigure(res *sweep.Result, c string, names figureNames, left *leftOut) (plots.Figure, bool) {
	zero := 0.0
	panel := func(p componentPanel, series []plots.Series) plots.LineChart {
		chart := plots.LineChart{Title: c + ": " + p.title, XLabel: "load multiplier", YLabel: p.y, Series: series,
			YMin: &zero, Percent: p.percent}
		withSLO(res, p.metric.Of(c), &chart)
		return chart
	}
	// Which charts are drawn is decided on each metric's own chart, the
	// designs alike on it drawn once, as every other chart of the report.
	var shown []componentPanel
	for _, p := range componentPanels {
		series, _ := alikeSeries(res, p.metric.Of(c))
		if left.shows(panel(p, series), c+" "+p.what) {
			shown = append(shown, p)
		}
	}
	if len(shown) == 0 {
		return plots.Figure{}, false
	}
	metrics := make([]model.MetricKey, len(shown))
	for i, p := range shown {
		metrics[i] = p.metric.Of(c)
	}
	var kept []seriesGroup
	for _, g := range groupSeries(res, metrics) {
		if slices.ContainsFunc(g.series, anyFinite) {
			kept = append(kept, g)
		}
	}
	sm := plots.SmallMultiples{Cols: 2, Legend: true}
	var phrases []string
	slo := ""
	for i, p := range shown {
		var series []plots.Series
		for _, g := range kept {
			s := g.series[i]
			s.Name, s.Look = g.label(res), g.designs[0]+1
			series = append(series, s)
		}
		chart := panel(p, series)
		if len(chart.Bounds) > 0 {
			slo = " The dashed grey line is the SLO."
		}
		sm.Panels = append(sm.Panels, chart)
		phrases = append(phrases, p.phrase)
	}
	what := phrases[0]
	if len(phrases) == 2 {
		what += " (left) and " + phrases[1] + " (right)"
	}
	caption := strings.ToUpper(what[:1]) + what[1:] + " of " + c + ", per design." + slo + alikeNote(res, kept)
	return plots.Figure{Name: names.get("component_" + c), Caption: caption, Chart: sm,
		WidthCm: componentW, HeightCm: componentH, Wide: true}, true
}

// seriesGroup is designs whose series of some metrics are identical
// point for point: drawn once, named for all of them.
type seriesGroup struct {
	designs []int
	series  []plots.Series // one per metric
}

// named is the group's first series, named for the group, in the colour
// of its first design so a design looks the same in every chart.
func (g seriesGroup) named(res *sweep.Result) plots.Series {
	s := g.series[0]
	s.Name, s.Look = g.label(res), g.designs[0]+1
	return s
}

// alikeSeries is one metric per design, identical designs drawn once and
// designs that do not measure it left out of the legend, with the note
// naming the alike ones for the caption.
func alikeSeries(res *sweep.Result, metric model.MetricKey) ([]plots.Series, string) {
	var out []plots.Series
	var kept []seriesGroup
	for _, g := range groupSeries(res, []model.MetricKey{metric}) {
		if len(g.series[0].Points) > 0 {
			out = append(out, g.named(res))
			kept = append(kept, g)
		}
	}
	return out, alikeNote(res, kept)
}

func (g seriesGroup) label(res *sweep.Result) string {
	if len(g.designs) == 1 {
		return res.Designs[g.designs[0]]
	}
	return fmt.Sprintf("%s and %d alike", res.Designs[g.designs[0]], len(g.designs)-1)
}

// alikeNote names the designs behind each "and N alike" label.
func alikeNote(res *sweep.Result, groups []seriesGroup) string {
	var notes []string
	for _, g := range groups {
		if len(g.designs) > 1 {
			var ns []string
			for _, d := range g.designs {
				ns = append(ns, res.Designs[d])
			}
			notes = append(notes, g.label(res)+": "+strings.Join(ns, ", "))
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return " Identical results are drawn once (" + strings.Join(notes, "; ") + ")."
}

func groupSeries(res *sweep.Result, metrics []model.MetricKey) []seriesGroup {
	per := make([][]plots.Series, len(metrics))
	for i, m := range metrics {
		per[i] = designSeries(res, m, "")
	}
	var out []seriesGroup
	for d := range res.Designs {
		mine := make([]plots.Series, len(metrics))
		for i := range metrics {
			mine[i] = per[i][d]
		}
		i := slices.IndexFunc(out, func(g seriesGroup) bool {
			for k := range metrics {
				if !samePoints(g.series[k].Points, mine[k].Points) {
					return false
				}
			}
			return true
		})
		if i < 0 {
			out = append(out, seriesGroup{series: mine})
			i = len(out) - 1
		}
		out[i].designs = append(out[i].designs, d)
	}
	return out
}

func samePoints(a, b []plots.Point) bool {
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return slices.EqualFunc(a, b, func(p, q plots.Point) bool {
		return eq(p.X, q.X) && eq(p.Y, q.Y) && eq(p.Lo, q.Lo) && eq(p.Hi, q.Hi) && p.Saturated == q.Saturated
	})
}

// seriesPanels gives each signal of a run that moves its own panel, with
// the component's capacity where its results give one, and names the signals left out for staying constant.
func seriesPanels(res *sweep.Result, sr sweep.SeriesRun, g model.Graph) (plots.SmallMultiples, []string) {
	sm := plots.SmallMultiples{Cols: 2}
	var cell *sweep.Cell
	if d := slices.Index(res.Designs, sr.Design); d >= 0 {
		cell = measuredCell(res, d, sr.Multiplier)
	}
	var flat []string
	for _, sig := range sr.Series.Signals {
		comp, measure := sig.Component, sig.Measure
		if measure != "journeys_in_flight" && measure != "queue" && measure != "busy" {
			continue
		}
		if constant(sig.Values) {
			flat = append(flat, sig.Name)
			continue
		}
		// Minutes keep the tick labels of a narrow panel apart.
		tc := plots.TimeSeriesChart{Title: sig.Name, YLabel: "count", XLabel: "time (min)", Step: sr.Series.Step / 60,
			Series: []plots.Signal{{Name: sig.Name, Values: sig.Values}}}
		if measure == "busy" && cell != nil {
			if k, ok := capacity(cell, comp); ok {
				label := "capacity " + plots.Number(k)
				if u := capacityUnit(g, comp, k); u != "" {
					label = plots.Number(k) + " " + u
				}
				tc.Title += " (" + label + ")"
				// A capacity the signal never comes near would only
				// squash it flat against the axis.
				if slices.Max(sig.Values) >= k/2 {
					tc.Bounds = []plots.Bound{{Y: k, Label: label}}
				}
			}
		}
		sm.Panels = append(sm.Panels, tc)
	}
	return sm, flat
}

// capacity is a component's servers, permits, instances or cores as its
// results give them (1.28 cores stays 1.28), when it has a number.
func capacity(c *sweep.Cell, comp string) (float64, bool) {
	k, ok := c.Stat(model.Capacity.Of(comp))
	if !ok || !(k.Mean > 0) {
		return 0, false
	}
	return k.Mean, true
}

// capacityUnit is what the component's capacity counts, from its kind in
// the design's graph; empty when the report was not given the graph.
func capacityUnit(g model.Graph, comp string, n float64) string {
	for _, c := range g.Components {
		if c.Name == comp {
			return model.CapacityUnit(c.Kind, n)
		}
	}
	return ""
}

func constant(vs []float64) bool {
	for _, v := range vs {
		if v != vs[0] && !(math.IsNaN(v) && math.IsNaN(vs[0])) {
			return false
		}
	}
	return true
}

// stacked places small multiples of rowCm a row in as many full-width
// figures as it takes to keep each within the tallest chart plots draws:
// a scenario with 38 backends has more panels than one page holds.
func stacked(names figureNames, name, caption string, sm plots.SmallMultiples, rowCm float64) []plots.Figure {
	const titleCm = 1.2
	cols := sm.Cols
	if cols <= 0 {
		cols = 2 // SmallMultiples' default
	}
	perFig := max(1, int((plots.MaxHeightCm-titleCm)/rowCm)) * cols
	parts := (len(sm.Panels) + perFig - 1) / perFig
	var figs []plots.Figure
	for i := 0; i < parts; i++ {
		part := sm
		part.Panels = sm.Panels[i*perFig : min(len(sm.Panels), (i+1)*perFig)]
		fig := plots.Figure{Name: names.get(name), Caption: caption, Chart: part,
			WidthCm: chartW, HeightCm: titleCm + rowCm*float64(part.Rows()), Wide: true}
		if parts > 1 {
			part.Title = fmt.Sprintf("%s (%d of %d)", sm.Title, i+1, parts)
			fig.Chart = part
			fig.Caption = fmt.Sprintf("%s Part %d of %d.", caption, i+1, parts)
		}
		figs = append(figs, fig)
	}
	return figs
}

// drawable reports whether a chart has anything to draw: a route nobody
// called leaves no empty frame behind.
func drawable(chart plots.Renderer) bool {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch c := chart.(type) {
	case plots.SmallMultiples:
		return slices.ContainsFunc(c.Panels, func(p plots.Panel) bool { return drawable(p) })
	case plots.LineChart:
		for _, s := range c.Series {
			for _, p := range s.Points {
				if p.Saturated || finite(p.Y) {
					return true
				}
			}
		}
	case plots.BarChart:
		for _, s := range c.Groups {
			for _, p := range s.Points {
				if p.Saturated || finite(p.Y) {
					return true
				}
			}
		}
	case plots.TimeSeriesChart:
		for _, s := range c.Series {
			for _, v := range s.Values {
				if finite(v) {
					return true
				}
			}
		}
	}
	return false
}

// entities lists the journeys, routes or components that carry a
// measure, in the order the cells list them, across every design.
func entities(res *sweep.Result, measure model.Measure) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			if m.Key.Measure == measure && !seen[m.Key.Entity] {
				seen[m.Key.Entity] = true
				out = append(out, m.Key.Entity)
			}
		}
	}
	return out
}

// designSeries is one metric against the multiplier, a series per design
// that measures it. A cell whose every run a guard stopped is drawn as
// saturated: its mean describes a run that ran away.
func designSeries(res *sweep.Result, metric model.MetricKey, suffix string) []plots.Series {
	nm := len(res.Multipliers)
	var out []plots.Series
	for d, design := range res.Designs {
		s := plots.Series{Name: design + suffix}
		for m := 0; m < nm; m++ {
			c := res.Cells[d*nm+m]
			st, ok := c.Stat(metric)
			if !ok {
				continue
			}
			pt := plots.Point{X: c.Multiplier, Y: st.Mean, Lo: st.Lo, Hi: st.Hi}
			if c.Runs > 0 && c.Broken == c.Runs {
				pt.Saturated = true
			}
			s.Points = append(s.Points, pt)
		}
		out = append(out, s)
	}
	return out
}

// interleave orders two blocks of per-design series (a0 a1 … b0 b1 …) as
// a0 b0 a1 b1 …, so each design's pair sits together in the legend.
func interleave(series []plots.Series, designs int) []plots.Series {
	if len(series) != 2*designs {
		return series
	}
	out := make([]plots.Series, 0, len(series))
	for d := 0; d < designs; d++ {
		out = append(out, series[d], series[designs+d])
	}
	return out
}

// stageChart stacks one design's failed journeys per run by failure stage
// over the multipliers.
func stageChart(res *sweep.Result, d int, withJourney bool) (plots.BarChart, bool) {
	nm := len(res.Multipliers)
	chart := plots.BarChart{Title: "Failure stages: " + res.Designs[d], XLabel: "load multiplier", YLabel: "failed journeys per run", Stacked: true}
	for m := 0; m < nm; m++ {
		chart.Categories = append(chart.Categories, sweep.FormatMultiplier(res.Multipliers[m])+"x")
	}
	failed := false
	for _, first := range res.Cells[d*nm].Metrics {
		metric := first.Key
		if metric.Measure != model.FailedAt {
			continue
		}
		name := metric.Stage
		if withJourney {
			name = metric.Entity + ": " + name
		}
		g := plots.Series{Name: name}
		for m := 0; m < nm; m++ {
			st := stat(res.Cells[d*nm+m], metric)
			g.Points = append(g.Points, plots.Point{Y: st.Mean})
			failed = failed || st.Mean > 0
		}
		chart.Groups = append(chart.Groups, g)
	}
	return chart, failed
}

// figureNames turns scenario names into unique, plain chart file names.
type figureNames map[string]bool

func newFigureNames() figureNames { return figureNames{} }

var notFileChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func (n figureNames) get(base string) string {
	name := notFileChar.ReplaceAllString(base, "_")
	for i := 2; n[name]; i++ {
		name = fmt.Sprintf("%s_%d", notFileChar.ReplaceAllString(base, "_"), i)
	}
	n[name] = true
	return name
}

var mdSpecial = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", `\<`)

func mdEscape(s string) string { return mdSpecial.Replace(s) }

// Chart size in the report, in centimetres.
const chartW, chartH = 16.0, 10.0

// rendered is a chart drawn ahead of the report, as SVG and, when the
// report has PNGs, as PNG, at the size of its figure.
type rendered struct {
	w, h     float64
	svg, png []byte
	err      error
}

func (r *rendered) Render(format string, w, h float64) ([]byte, error) {
	switch {
	case r.err != nil:
		return nil, r.err
	case w != r.w || h != r.h:
		return nil, fmt.Errorf("chart drawn at %gx%g cm, asked for %gx%g", r.w, r.h, w, h)
	case format == plots.SVG:
		return r.svg, nil
	case format == plots.PNG && r.png != nil:
		return r.png, nil
	case format == plots.PNG:
		return nil, fmt.Errorf("chart not drawn as PNG: the report has none")
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// prerender draws every chart of the report on the sweep's workers, in
// the formats the report has: drawing dozens of charts takes longer than
// the runs of a small sweep. Each chart is drawn by itself, so the bytes
// do not depend on the order they are drawn in.
func prerender(r plots.Report, workers int) {
	var figs []*plots.Figure
	for i := range r.Sections {
		for j := range r.Sections[i].Figures {
			f := &r.Sections[i].Figures[j]
			if f.WidthCm == 0 {
				f.WidthCm, f.HeightCm = chartW, chartH
			}
			figs = append(figs, f)
		}
	}
	out := make([]*rendered, len(figs))
	// The costliest charts first, so that no long one is left to draw
	// alone at the end while the other workers idle.
	order := make([]int, len(figs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(drawCost(figs[b].Chart), drawCost(figs[a].Chart)) })
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for _, i := range order {
		g.Go(func() error {
			f := figs[i]
			rd := &rendered{w: f.WidthCm, h: f.HeightCm}
			rd.svg, rd.err = f.Chart.Render(plots.SVG, rd.w, rd.h)
			if rd.err == nil && r.PNG {
				rd.png, rd.err = f.Chart.Render(plots.PNG, rd.w, rd.h)
			}
			out[i] = rd
			return nil
		})
	}
	g.Wait()
	for i, f := range figs {
		f.Chart = out[i]
	}
}

// drawCost is how long a chart takes to draw, roughly, in panels: a grid
// of small multiples costs one chart per panel.
func drawCost(c plots.Renderer) int {
	if sm, ok := c.(plots.SmallMultiples); ok {
		return len(sm.Panels)
	}
	return 1
}

// anyFinite says whether a series has a point to draw.
func anyFinite(s plots.Series) bool {
	for _, p := range s.Points {
		if !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0) {
			return true
		}
	}
	return false
}
