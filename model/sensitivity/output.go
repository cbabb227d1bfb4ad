package sensitivity

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots/texttab"
)

// Numbers in the CSV have 10 significant digits, as the sweep's tables:
// enough to compare, few enough that an architecture's last-bit
// differences do not show. Nothing measured is an empty cell.
func fmtValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

func status(ff sweep.FirstFailure) string {
	switch {
	case !ff.Found:
		return "held"
	case ff.BelowRange:
		return "below_range"
	}
	return "failed"
}

// csvHeader is sensitivity.csv's first line: one row per design,
// parameter and side, the base's first failure repeated on each so a
// row stands alone.
var csvHeader = []string{"scenario", "design", "parameter", "path", "kind", "label", "value", "side", "new_value",
	"parameter_change", "override", "base_status", "base_first_failure", "base_ci_low", "base_ci_high",
	"status", "first_failure_multiplier", "ci_low", "ci_high", "first_failure_change", "elasticity",
	"parameter_elasticity", "slo", "component", "failure_stage"}

// WriteCSV writes sensitivity.csv.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, o := range r.Designs {
		// Both sides of a parameter carry its elasticity as the table
		// ranks it, from the two sides together.
		combined := map[string]float64{}
		for _, k := range o.Rank() {
			combined[k.Param.Path] = k.Elasticity
		}
		for _, row := range o.Rows {
			p := row.Param
			side := "-"
			if row.Side > 0 {
				side = "+"
			}
			override := "--scale " + row.Scale
			if row.Set != "" {
				override = "--set " + row.Set
			}
			ff := row.FirstFailure
			mult := ""
			if ff.Found {
				mult = sweep.FormatMultiplier(ff.Multiplier)
			}
			base := ""
			if o.Base.Found {
				base = sweep.FormatMultiplier(o.Base.Multiplier)
			}
			cw.Write([]string{r.Scenario, o.Design, p.Name, p.Path, string(p.Kind), p.Label, p.Value, side, row.To,
				fmtValue(row.Change), override, status(o.Base), base, fmtValue(o.Base.Lo), fmtValue(o.Base.Hi),
				status(ff), mult, fmtValue(ff.Lo), fmtValue(ff.Hi), fmtValue(row.Effect), fmtValue(row.Elasticity),
				fmtValue(combined[p.Path]), ff.SLO, ff.Component, ff.Stage})
		}
	}
	cw.Flush()
	return cw.Error()
}

// listColumns are --list's columns: on a narrow terminal the note is cut,
// then left out, then the kind, the perturbed values and the label.
var listColumns = []texttab.Column{
	{Name: "parameter", Min: 16, KeepEnd: true},
	{Name: "kind", Drop: 3},
	{Name: "label", Drop: 1},
	{Name: "value"},
	{Name: "perturbed", Drop: 2},
	{Name: "note", Drop: 4, Min: 10, CutFirst: true},
}

// noteWidth is the most of a note --list shows even with room for more:
// the note is there to recognise a parameter by, the scenario holds all.
const noteWidth = 60

// WriteList writes the parameters of a design as --list prints them,
// within width columns (0: no limit), the footnote saying how to see
// the columns left out with howToSee.
func WriteList(w io.Writer, design string, params []model.Param, delta float64, width int, howToSee string) {
	texttab.WriteLines(w, texttab.Hang("", fmt.Sprintf("%s: %d parameters, perturbed by ±%s (counts by whole steps)", design, len(params), percent(delta)), "  ", width))
	t := texttab.Table{Cols: listColumns}
	for _, p := range params {
		var sides []string
		for _, pt := range Plan([]model.Param{p}, delta) {
			sides = append(sides, pt.To)
		}
		value := p.Value
		if p.Kind == model.ParamDistribution {
			value = "mean " + seconds(p.Mean)
		}
		t.Row(p.Name, string(p.Kind), orDash(p.Label), shorten(value, 12), strings.Join(sides, " "), shorten(p.Note, noteWidth))
	}
	t.Write(w, width, howToSee)
}

// seconds writes a mean time with a unit a reader takes in at a glance.
func seconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "?"
	case s < 1:
		return strconv.FormatFloat(s*1000, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(s, 'g', 3, 64) + "s"
}

// rankColumns are the ranked table's: each side is the new value, the
// first failure there and its change against the base. On a narrow
// terminal the label goes first, then the changes (the first failures
// say as much); the new values, the first failures and the elasticity,
// the ranking, stay, the parameters' names cut from the start.
var rankColumns = []texttab.Column{
	{Name: "parameter", Min: 11, Max: 28, KeepEnd: true},
	{Name: "label", Drop: 3, Sep: " "},
	{Name: "lowered", Sep: " │ "},
	{Name: "", Align: texttab.Right, Sep: " "},
	{Name: "", Align: texttab.Right, Sep: " ", Drop: 2, Note: "change lowered"},
	{Name: "raised", Sep: " │ "},
	{Name: "", Align: texttab.Right, Sep: " "},
	{Name: "", Align: texttab.Right, Sep: " ", Drop: 1, Note: "change raised"},
	{Name: "elasticity", Align: texttab.Right, Sep: " │ "},
}

// WriteTable writes the ranked table of each design, at most top rows
// each (0: all), within width columns (0: no limit), the footnote saying
// how to see the columns left out with howToSee.
func (r *Result) WriteTable(w io.Writer, top, width int, howToSee string) {
	ms := make([]string, len(r.Multipliers))
	for i, m := range r.Multipliers {
		ms[i] = sweep.FormatMultiplier(m)
	}
	texttab.WriteLines(w, texttab.Fill("", "", []string{"seed: " + strconv.FormatUint(r.Seed, 10),
		"replications: " + strconv.Itoa(r.Replications), "delta: ±" + percent(r.Delta), "multipliers: " + strings.Join(ms, ",")}, "   ", width))
	for _, o := range r.Designs {
		fmt.Fprintln(w)
		texttab.WriteLines(w, texttab.Hang("", o.Design+": first failure "+ffText(o.Base), "  ", width))
		t := texttab.Table{Cols: rankColumns}
		ranked := o.Rank()
		more := 0
		for i, k := range ranked {
			if top > 0 && i == top {
				more = len(ranked) - top
				break
			}
			row := []string{k.Param.Name, orDash(k.Param.Label)}
			row = append(row, side(k.Low)...)
			row = append(row, side(k.High)...)
			t.Row(append(row, signed(k.Elasticity))...)
		}
		t.Write(w, width, howToSee)
		if more > 0 {
			fmt.Fprintf(w, "… %d more in sensitivity.csv\n", more)
		}
	}
	fmt.Fprintln(w)
	texttab.WriteLines(w, texttab.Hang("", "elasticity: ln(first failure raised / lowered) / ln(parameter raised / lowered), "+
		"about the % change of the first failure per % change of the parameter; — where undefined", "  ", width))
}

// side is a side's cells: the new value, the first failure there and its
// change against the base.
func side(r *Row) []string {
	if r == nil {
		return []string{"", "", ""}
	}
	ff := r.FirstFailure
	var at string
	switch {
	case !ff.Found:
		at = "held"
	case ff.BelowRange:
		at = "≤" + fmtMult(ff.Multiplier)
	default:
		at = fmtMult(ff.Multiplier)
	}
	eff := ""
	if !math.IsNaN(r.Effect) {
		eff = fmt.Sprintf("%+.1f%%", 100*r.Effect)
		if r.Effect == 0 {
			eff = "0%"
		}
	}
	return []string{shortenLeft(r.To, 5), at, eff}
}

func ffText(ff sweep.FirstFailure) string {
	switch {
	case !ff.Found:
		return "none in the range (no SLO broken)"
	case ff.BelowRange:
		return fmt.Sprintf("at or below %s, the lowest multiplier tried", fmtMult(ff.Multiplier))
	}
	where := ""
	if ff.Component != "" {
		where = " at " + ff.Component
	}
	return fmt.Sprintf("%s (CI %s–%s): %s%s", fmtMult(ff.Multiplier), bound(ff.Lo), bound(ff.Hi), ff.SLO, where)
}

func fmtMult(m float64) string { return strconv.FormatFloat(m, 'g', 5, 64) + "x" }

func bound(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func signed(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	if math.Abs(v) < 0.005 {
		return "0.00"
	}
	return fmt.Sprintf("%+.2f", v)
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'g', 4, 64) + "%" }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// shortenLeft keeps a name's end, where its distinguishing part is.
func shortenLeft(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}
