package sweepreport

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"
)

// Options is what a report says besides the sweep's result.
type Options struct {
	Description string   // the scenario's description, shown under the title
	Journeys    []string // the scenario's journeys, in its order
	CommandLine []string // how the sweep was run, shown as given
	// Workers is how many charts are drawn at once; the bytes do not
	// depend on it.
	Workers int
}

// Build lays out report.md, report.html and their charts: the answer
// first (where each design breaks), then the evidence. It returns the
// files as [plots.Report.Build] does, for the caller to write.
func Build(res *sweep.Result, opts Options) ([]plots.File, error) {
	names := newFigureNames()
	r := plots.Report{Title: "capsim sweep: " + res.Scenario}

	var pre strings.Builder
	if d := strings.TrimSpace(opts.Description); d != "" {
		pre.WriteString(d + "\n\n")
	}
	fmt.Fprintf(&pre, "Command: `%s`\n\n", strings.Join(opts.CommandLine, " "))
	for _, line := range sweepPreamble(res) {
		fmt.Fprintf(&pre, "- %s\n", mdEscape(line))
	}
	r.Preamble = pre.String()

	ffTable := &plots.Table{Header: []string{"design", "first failure", "95 % CI", "SLO broken", "component", "failure stage"}}
	for _, ff := range res.FirstFailures {
		switch {
		case !ff.Found:
			ffTable.Rows = append(ffTable.Rows, []string{ff.Design, "none up to " + sweep.FormatMultiplier(res.Multipliers[len(res.Multipliers)-1]) + "x"})
		default:
			at := sweep.FormatMultiplier(ff.Multiplier) + "x"
			if ff.BelowRange {
				at = "≤ " + at
			}
			ffTable.Rows = append(ffTable.Rows, []string{ff.Design, at, fmtBound(ff.Lo) + " – " + fmtBound(ff.Hi), ff.SLO, ff.Component, ff.Stage})
		}
	}
	r.Sections = append(r.Sections, plots.Section{
		Heading: "First failure",
		Text: `The first-failure multiplier is the smallest load multiplier at which the mean over the replications
of an SLO's value breaks its bound (or a guard stopped a run), found on the grid and refined by bisection.
Its 95 % interval runs from the highest multiplier tried below it where every SLO's interval passed,
to the lowest tried where an SLO's interval failed outright, each end refined by bisection as well;
"?" marks an end no multiplier tried settles.
The component and failure stage are those most failed journeys ended at, at that multiplier.`,
		Table: ffTable,
	})

	for d, design := range res.Designs {
		t := sweepTable(res, d, opts.Journeys)
		r.Sections = append(r.Sections, plots.Section{
			Heading: "Design " + design,
			Table:   &plots.Table{Header: t.Header, Rows: t.Rows},
		})
	}

	var jfigs []plots.Figure
	zero, one := 0.0, 1.0
	for _, j := range entities(res, "journey", "journey_success_rate") {
		p := "journey." + j + "."
		success := plots.LineChart{Title: j + ": journey success", XLabel: "load multiplier", YLabel: "journeys that succeeded",
			Series: designSeries(res, p+"journey_success_rate", ""), YMin: &zero, YMax: &one, Percent: true}
		jfigs = addFigure(jfigs, names.get("success_"+j), "Journey success rate of "+j+" against the load multiplier, per design: mean and 95 % CI over replications.", success)
		// A design's two rates share its colour; the HTTP one is dashed.
		journeyRates := designSeries(res, p+"journey_failure_rate", ": journey failures")
		httpRates := designSeries(res, p+"http_failure_rate", ": HTTP failures")
		for d := range journeyRates {
			journeyRates[d].Look = d + 1
			httpRates[d].Look, httpRates[d].Dashed = d+1, true
		}
		series := append(journeyRates, httpRates...)
		failures := plots.LineChart{Title: j + ": journey vs HTTP failure rate", XLabel: "load multiplier", YLabel: "failure rate",
			Series: interleave(series, len(res.Designs)), YMin: &zero, Percent: true}
		jfigs = addFigure(jfigs, names.get("failures_"+j), "What users saw (journeys that failed) beside what an HTTP dashboard saw (requests that failed), for "+j+".", failures)
	}
	r.Sections = append(r.Sections, plots.Section{Heading: "Journeys", Figures: jfigs})

	var rfigs []plots.Figure
	for _, rt := range entities(res, "route", "p95_s") {
		chart := plots.LineChart{Title: "route " + rt + ": p95 latency", XLabel: "load multiplier", YLabel: "p95 (s)",
			Series: designSeries(res, "route."+rt+".p95_s", ""), YMin: &zero}
		rfigs = addFigure(rfigs, names.get("p95_"+rt), "Server-side p95 latency of route "+rt+", per design.", chart)
	}
	if len(rfigs) > 0 {
		r.Sections = append(r.Sections, plots.Section{Heading: "Routes", Figures: rfigs})
	}

	var cfigs []plots.Figure
	for _, c := range entities(res, "component", "peak_queue_count") {
		p := "component." + c + "."
		util := plots.LineChart{Title: c + ": utilisation", XLabel: "load multiplier", YLabel: "busy / capacity",
			Series: designSeries(res, p+"utilisation_rate", ""), YMin: &zero, Percent: true}
		cfigs = addFigure(cfigs, names.get("utilisation_"+c), "Time-average utilisation of "+c+", per design.", util)
		queue := plots.LineChart{Title: c + ": peak queue", XLabel: "load multiplier", YLabel: "most waiting at once",
			Series: designSeries(res, p+"peak_queue_count", ""), YMin: &zero}
		cfigs = addFigure(cfigs, names.get("queue_"+c), "Peak number of waiters at "+c+", per design.", queue)
	}
	if len(cfigs) > 0 {
		r.Sections = append(r.Sections, plots.Section{Heading: "Components", Figures: cfigs})
	}

	var sfigs []plots.Figure
	for d, design := range res.Designs {
		chart, ok := stageChart(res, d, len(opts.Journeys) > 1)
		if ok {
			sfigs = addFigure(sfigs, names.get("stages_"+design), "Failed journeys per run by failure_stage, design "+design+" (mean over replications).", chart)
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
		var queues, held []plots.Signal
		for _, sig := range sr.Series.Signals {
			switch _, measure := model.ParseSignalName(sig.Name); measure {
			case "journeys_in_flight", "queue":
				queues = append(queues, plots.Signal{Name: sig.Name, Values: sig.Values})
			case "busy":
				held = append(held, plots.Signal{Name: sig.Name, Values: sig.Values})
			}
		}
		what := fmt.Sprintf("design %s at %sx, seed %d", sr.Design, sweep.FormatMultiplier(sr.Multiplier), sr.Seed)
		tfigs = addFigure(tfigs, names.get("series_"+sr.Design),
			"Journeys in flight and queue lengths over simulated time, one run of "+what+".",
			plots.TimeSeriesChart{Title: "In flight and queues: " + what, YLabel: "count", Step: sr.Series.Step, Series: queues})
		tfigs = addFigure(tfigs, names.get("held_"+sr.Design),
			"Servers, permits, locks and worker instances held over simulated time, one run of "+what+".",
			plots.TimeSeriesChart{Title: "Held: " + what, YLabel: "in use", Step: sr.Series.Step, Series: held})
	}
	if len(tfigs) > 0 {
		r.Sections = append(r.Sections, plots.Section{Heading: "At the first failure", Figures: tfigs})
	}

	prerender(r, opts.Workers)
	return r.Build()
}

// addFigure adds a chart unless it has nothing to draw: a route nobody
// called or a design that never failed leaves no empty frame behind.
func addFigure(figs []plots.Figure, name, caption string, chart plots.Renderer) []plots.Figure {
	if !drawable(chart) {
		return figs
	}
	return append(figs, plots.Figure{Name: name, Caption: caption, Chart: chart})
}

func drawable(chart plots.Renderer) bool {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch c := chart.(type) {
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

// entities lists the journeys, routes or components (kind) that carry a
// measure, in the order the cells list them, across every design.
func entities(res *sweep.Result, kind, measure string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			n := model.ParseMetricName(m.Metric)
			if n.Kind == kind && n.Measure == measure && !seen[n.Entity] {
				seen[n.Entity] = true
				out = append(out, n.Entity)
			}
		}
	}
	return out
}

// designSeries is one metric against the multiplier, a series per design
// that measures it. A cell whose every run a guard stopped is drawn as
// saturated: its mean describes a run that ran away.
func designSeries(res *sweep.Result, metric, suffix string) []plots.Series {
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
		metric := first.Metric
		n := model.ParseMetricName(metric)
		if n.Stage == "" {
			continue
		}
		name := n.Stage
		if withJourney {
			name = n.Entity + ": " + name
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

// rendered is a chart drawn ahead of the report, in both formats.
type rendered struct {
	svg, png []byte
	err      error
}

func (r *rendered) Render(format string, w, h float64) ([]byte, error) {
	switch {
	case r.err != nil:
		return nil, r.err
	case w != chartW || h != chartH:
		return nil, fmt.Errorf("chart drawn at %gx%g cm, asked for %gx%g", chartW, chartH, w, h)
	case format == plots.SVG:
		return r.svg, nil
	case format == plots.PNG:
		return r.png, nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// prerender draws every chart of the report on the sweep's workers:
// drawing dozens of charts, each as SVG and PNG, takes longer than the
// runs of a small sweep. Each chart is drawn by itself, so the bytes do
// not depend on the order they are drawn in.
func prerender(r plots.Report, workers int) {
	var figs []*plots.Figure
	for i := range r.Sections {
		for j := range r.Sections[i].Figures {
			f := &r.Sections[i].Figures[j]
			f.WidthCm, f.HeightCm = chartW, chartH
			figs = append(figs, f)
		}
	}
	out := make([]*rendered, len(figs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, len(figs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rd := &rendered{}
				rd.svg, rd.err = figs[i].Chart.Render(plots.SVG, chartW, chartH)
				if rd.err == nil {
					rd.png, rd.err = figs[i].Chart.Render(plots.PNG, chartW, chartH)
				}
				out[i] = rd
			}
		}()
	}
	for i := range figs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, f := range figs {
		f.Chart = out[i]
	}
}
