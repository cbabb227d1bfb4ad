package sweepreport

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"
	"capsim/plots/texttab"
)

// WriteTables prints what a sweep found, in the manner of benchstat:
// constants once above the tables, then per design one row per multiplier
// and journey (journeys names them, in the scenario's order), each cell
// the mean ± the half-width of its 95 % interval, and last where each
// design first broke an SLO; all within width columns (0: no limit),
// howToSee telling in a footnote how to see the columns left out.
func WriteTables(w io.Writer, res *sweep.Result, journeys []string, width int, howToSee string) {
	for i, line := range sweepPreamble(res) {
		if i == 0 {
			// name: value pairs: a line breaks between pairs.
			texttab.WriteLines(w, texttab.Fill("", "", strings.Split(line, "   "), "   ", width))
			continue
		}
		texttab.WriteLines(w, texttab.Hang("", line, "  ", width))
	}
	// Every design's table shows the same columns, lined up: a column
	// one design's cells crowd out is left out of all.
	tables := make([]*texttab.Table, len(res.Designs))
	for d := range res.Designs {
		t := sweepTable(res, d, journeys)
		tables[d] = &texttab.Table{Cols: sweepColumns(t.Header), Rows: t.Rows}
	}
	texttab.Alike(tables, width)
	for d, design := range res.Designs {
		fmt.Fprintf(w, "\ndesign %s\n", design)
		tables[d].Write(w, width, howToSee)
		for _, line := range []string{overloadLine(res, d, false), idleLine(res, d, false)} {
			if line != "" {
				texttab.WriteLines(w, texttab.Hang("", line, "  ", width))
			}
		}
	}
	fmt.Fprintln(w)
	texttab.WriteLines(w, texttab.Hang("", "first failure: smallest multiplier whose replication mean breaks an SLO (95 % CI)", "  ", width))
	if drawn(res) {
		texttab.WriteLines(w, texttab.Hang("  ", fmt.Sprintf("CI: the replications' noise, every value as written; with parameters: that and the first failure's spread over %d replications each drawing its uncertain values, paired with the same replication as written (95 %%)",
			res.FirstFailures[0].Draws), "    ", width))
	}
	dw := 0
	for _, ff := range res.FirstFailures {
		dw = max(dw, texttab.Len(ff.Design))
	}
	for _, ff := range res.FirstFailures {
		first := "  " + ff.Design + strings.Repeat(" ", dw-texttab.Len(ff.Design)) + "  "
		texttab.WriteLines(w, texttab.Hang(first, firstFailureLine(ff, res.Multipliers), strings.Repeat(" ", texttab.Len(first)), width))
	}
	for _, note := range shortNotes(res) {
		texttab.WriteLines(w, texttab.Hang("  ", note, "    ", width))
	}
	if note := untilSureNote(res); note != "" {
		texttab.WriteLines(w, texttab.Hang("  ", note, "    ", width))
	}
}

// sweepColumns gives the design table's columns the order they are left
// out in on a narrow terminal: the journeys per run first, then the HTTP
// failure rate, the p95 and the comparison with the first design; the
// journey success rate and the verdict never.
func sweepColumns(header []string) []texttab.Column {
	drop := map[string]int{"journeys per run": 4, "HTTP failure rate": 3, "p95": 2}
	if len(header) > 7 {
		drop[header[7]] = 1 // success vs the first design
	}
	// The journey's name and the verdict may be cut, the verdict no
	// shorter than FAIL~: a guard's note after it goes first.
	cut := map[string]int{"journey": 10, "verdict": 5}
	cols := make([]texttab.Column, len(header))
	for i, h := range header {
		cols[i] = texttab.Column{Name: h, Drop: drop[h], Min: cut[h]}
	}
	return cols
}

func sweepPreamble(res *sweep.Result) []string {
	ms := res.Multipliers
	grid := sweep.FormatMultiplier(ms[0])
	if len(ms) > 1 {
		grid += "–" + sweep.FormatMultiplier(ms[len(ms)-1]) + " (" + strconv.Itoa(len(ms)) + " points)"
	}
	lines := []string{
		fmt.Sprintf("scenario: %s   designs: %s   multipliers: %s   replications: %d   seed: %d",
			res.Scenario, strings.Join(res.Designs, ", "), grid, res.Replications, res.Seed),
		"cells: mean over replications with its 95 % confidence interval: rates [low–high], counts and times ± % of the mean",
		"rates: intervals are Wilson intervals of the journeys or requests pooled over the replications, widened to the spread between replications where that is larger",
		"verdict: pass/fail against the scenario's SLOs on the replication mean; ~ when the SLO's interval straddles its bound (the cell's: for a rate, widened as above)",
	}
	if res.Replications < 2 {
		lines = append(lines, "± ∞: one replication gives no confidence interval, and no verdict is settled; use --replications 2 or more")
	}
	return lines
}

type textTable struct {
	Header []string
	Rows   [][]string
}

// sweepTable is one design's table: a row per multiplier and journey.
func sweepTable(res *sweep.Result, d int, journeys []string) textTable {
	nm := len(res.Multipliers)
	compare := d > 0
	t := textTable{Header: []string{"multiplier", "journey", "journeys per run", "journey success", "HTTP failure rate", "p95", "verdict"}}
	if compare {
		t.Header = append(t.Header, "success vs "+res.Designs[0])
	}
	for m := 0; m < nm; m++ {
		c := res.Cells[d*nm+m]
		for ji, j := range journeys {
			row := []string{"", j,
				fmtCountCI(stat(c, model.JourneyStarted.Of(j))),
				fmtRateCI(stat(c, model.JourneySuccessRate.Of(j))),
				fmtRateCI(stat(c, model.HTTPFailureRate.Of(j))),
				fmtSecCI(stat(c, model.JourneyP95.Of(j))),
				""}
			if ji == 0 {
				row[0] = sweep.FormatMultiplier(c.Multiplier) + "x"
				row[6] = verdictText(c)
			}
			if compare {
				row = append(row, fmtDiff(compareStat(res, d, m, model.JourneySuccessRate.Of(j))))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// missing is the summary of a metric a cell does not measure: no
// replication, no value.
var missing = sweep.Summary{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}

func stat(c *sweep.Cell, metric model.MetricKey) sweep.Summary {
	if s, ok := c.Stat(metric); ok {
		return s
	}
	return missing
}

func compareStat(res *sweep.Result, d, m int, metric model.MetricKey) sweep.Summary {
	if s, ok := res.Compare[(d-1)*len(res.Multipliers)+m].Diff(metric); ok {
		return s
	}
	return missing
}

func verdictText(c *sweep.Cell) string {
	v := c.Verdict.String()
	if c.Verdict == sweep.Fail {
		v = "FAIL"
	} else if c.Verdict == sweep.FailUnsure {
		v = "FAIL~"
	}
	if c.Broken > 0 {
		g := c.Guards[0].Guard
		if c.Guards[0].Component != "" {
			g += " at " + c.Guards[0].Component
		}
		v += fmt.Sprintf(" (%d/%d runs stopped: %s)", c.Broken, c.Runs, g)
	}
	return v
}

// half is the half-width of an interval; +Inf when there is none.
func half(s sweep.Summary) float64 {
	if math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		return math.Inf(1)
	}
	// The wider side: an interval kept within its unit (a count's, cut at
	// 0) is no longer symmetric, and ± its mean must not claim less.
	return max(s.Hi-s.Mean, s.Mean-s.Lo)
}

// fmtRateCI writes a rate and its interval as "87.5% [73.9–94.5]": the
// interval of a counted rate is not symmetric about its mean, and a
// "± 0.00pp" would claim a certainty the counts do not have.
func fmtRateCI(s sweep.Summary) string {
	if s.N == 0 {
		return "-"
	}
	// Small rates, such as HTTP failure rates, keep a second decimal.
	digits := 1
	if math.Max(s.Mean, s.Hi) < 0.1 {
		digits = 2
	}
	pct := func(v float64) string { return strconv.FormatFloat(100*v, 'f', digits, 64) }
	out := pct(s.Mean) + "%"
	if math.IsInf(half(s), 1) {
		return out + " ± ∞"
	}
	return out + " [" + pct(s.Lo) + "–" + pct(s.Hi) + "]"
}

func relCI(s sweep.Summary) string {
	h := half(s)
	switch {
	case math.IsInf(h, 1):
		return " ± ∞"
	case h == 0:
		return " ± 0%"
	case s.Mean == 0:
		return " ± " + plots.Number(h)
	}
	r := 100 * h / math.Abs(s.Mean)
	if r >= 9.95 {
		return " ± " + strconv.FormatFloat(r, 'f', 0, 64) + "%"
	}
	return " ± " + strconv.FormatFloat(r, 'f', 1, 64) + "%"
}

func fmtCountCI(s sweep.Summary) string {
	if s.N == 0 {
		return "-"
	}
	v := strconv.FormatFloat(s.Mean, 'f', 1, 64)
	if math.Abs(s.Mean) >= 100 {
		v = strconv.FormatFloat(s.Mean, 'f', 0, 64)
	}
	return v + relCI(s)
}

func fmtSecCI(s sweep.Summary) string {
	if s.N == 0 {
		return "-"
	}
	return plots.Seconds(s.Mean) + relCI(s)
}

// fmtDiff shows a paired difference of rates in points, or "~" when its
// interval includes zero: the replications do not tell the designs apart.
// It keeps the digits of the rates it compares (fmtRateCI): one decimal,
// two when the difference and its interval lie within 10 points.
func fmtDiff(s sweep.Summary) string {
	if s.N == 0 {
		return "-"
	}
	if math.IsNaN(s.Lo) || s.Lo <= 0 && s.Hi >= 0 {
		return "~"
	}
	digits := 1
	if math.Max(math.Abs(s.Lo), math.Abs(s.Hi)) < 0.1 {
		digits = 2
	}
	pp := func(v float64) string { return strconv.FormatFloat(100*v, 'f', digits, 64) }
	sign := func(v float64) string {
		if v >= 0 {
			return "+" + pp(v)
		}
		return pp(v)
	}
	return sign(s.Mean) + "pp [" + sign(s.Lo) + ", " + sign(s.Hi) + "]"
}

// fmtBound prints an end of a first-failure interval to 4 significant
// digits: refined ends such as 1.7734375 say no more than 1.773 does
// (first_failure.csv keeps every digit).
func fmtBound(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fmtLo and fmtHi print an interval's ends to 4 significant digits,
// rounded outwards, so that an interval is never printed narrower than
// it is, nor beside its own estimate: 1.8125 is a high end of 1.813 and
// a low end of 1.812.
func fmtLo(v float64) string { return fmtDirected(v, math.Floor) }
func fmtHi(v float64) string { return fmtDirected(v, math.Ceil) }

func fmtDirected(v float64, round func(float64) float64) string {
	if math.IsNaN(v) || v == 0 || math.IsInf(v, 0) {
		return fmtBound(v)
	}
	scale := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
	x := v * scale
	if r := math.Round(x); math.Abs(x-r) < 1e-6 {
		x = r // already at 4 digits: no rounding to do
	}
	return strconv.FormatFloat(round(x)/scale, 'g', 4, 64)
}

// fmtInterval is "lo–hi", each end rounded outwards.
func fmtInterval(lo, hi float64) string { return fmtLo(lo) + "–" + fmtHi(hi) }

// firstFailureLine says where a design first broke an SLO, or that it held.
func firstFailureLine(ff sweep.FirstFailure, grid []float64) string {
	if !ff.Found {
		held := fmt.Sprintf("no SLO broken up to %sx", sweep.FormatMultiplier(grid[len(grid)-1]))
		if ff.Draws > 0 {
			held += " (with parameters " + paramInterval(ff) + ")"
		}
		return held
	}
	where := ""
	if ff.Stage != "" || ff.Component != "" {
		where = "; failure_stage " + orDash(ff.Stage)
		if ff.Component != "" {
			where += " at " + ff.Component
		}
	}
	params := ""
	if ff.Draws > 0 {
		params = "; with parameters " + paramInterval(ff)
	}
	if ff.BelowRange {
		return fmt.Sprintf("already fails at %sx, the lowest multiplier tried (CI ?–%s%s): %s%s",
			sweep.FormatMultiplier(ff.Multiplier), fmtHi(ff.Hi), params, ff.SLO, where)
	}
	return fmt.Sprintf("%sx (CI %s%s): %s%s", sweep.FormatMultiplier(ff.Multiplier), fmtInterval(ff.Lo, ff.Hi), params, ff.SLO, where)
}

// shortText is shortNotes as sentences after a section's text.
func shortText(res *sweep.Result) string {
	var b strings.Builder
	for _, n := range shortNotes(res) {
		b.WriteString("\n\n" + n + ".")
	}
	return b.String()
}

// shortNotes say, once per SLO, why first failures' intervals have no
// lower end: the rate's counts could not clear its bound.
func shortNotes(res *sweep.Result) []string {
	type span struct {
		lo, hi, need int64
		counted      string
	}
	var order []string
	spans := map[string]*span{}
	for _, ff := range res.FirstFailures {
		sh := ff.Short
		if sh == nil {
			continue
		}
		sp := spans[sh.SLO]
		if sp == nil {
			sp = &span{lo: sh.Trials, hi: sh.Trials, need: sh.Needed, counted: sh.Counted}
			spans[sh.SLO] = sp
			order = append(order, sh.SLO)
		}
		sp.lo, sp.hi = min(sp.lo, sh.Trials), max(sp.hi, sh.Trials)
	}
	var out []string
	for _, slo := range order {
		sp := spans[slo]
		n := strconv.FormatInt(sp.lo, 10)
		if sp.hi > sp.lo {
			n += "–" + strconv.FormatInt(sp.hi, 10)
		}
		raise := "raise -r or the duration, or add --until-sure"
		if res.Precision != nil {
			raise = "raise --max-replications or the duration"
		}
		out = append(out, fmt.Sprintf("CI ?–: nothing below passed surely: %s %s over the replications cannot show %s even if all go its way; about %d can (%s)",
			n, sp.counted, slo, sp.need, raise))
	}
	return out
}

// drawn reports whether the sweep's replications drew their parameters.
func drawn(res *sweep.Result) bool {
	return len(res.FirstFailures) > 0 && res.FirstFailures[0].Draws > 0
}

// paramInterval is the first failure's interval with parameter
// uncertainty, "?" at an end the draws leave open.
func paramInterval(ff sweep.FirstFailure) string {
	return fmtInterval(ff.PLo, ff.PHi)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// reportSettings is sweepPreamble for a page: one setting a line, in
// words, rather than a terminal's row of name: value pairs.
func reportSettings(res *sweep.Result) []string {
	ms := make([]string, len(res.Multipliers))
	for i, m := range res.Multipliers {
		ms[i] = sweep.FormatMultiplier(m) + "x"
	}
	lines := []string{
		"Scenario " + res.Scenario + "; designs " + strings.Join(res.Designs, ", ") + ".",
		"Load multipliers " + strings.Join(ms, ", ") + ", each run " + strconv.Itoa(res.Replications) +
			" times (seeds " + strconv.FormatUint(res.Seed, 10) + " on), every design on the same traffic in each replication.",
		cellsLegend,
		"Verdict: pass or FAIL against the scenario's SLOs on the replication mean; ~ when the SLO's interval straddles its bound: the Student t interval of its per-run values, for a rate widened to the Wilson interval of the pooled counts.",
	}
	if res.Replications < 2 {
		lines = append(lines, "± ∞: one replication gives no confidence interval, and no verdict is settled.")
	}
	return lines
}

// cellsLegend says how to read a table cell, in the report's settings.
const cellsLegend = "Cells: the mean over replications with its 95 % confidence interval: rates as [low–high] in %, " +
	"counts and times ± % of the mean. A rate's interval is the Wilson interval of the journeys or requests pooled over " +
	"the replications (journeys per run × replications), widened to the spread between replications where that is larger."
