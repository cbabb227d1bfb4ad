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
	"slo", "component", "failure_stage"}

// WriteCSV writes sensitivity.csv.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, o := range r.Designs {
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
				ff.SLO, ff.Component, ff.Stage})
		}
	}
	cw.Flush()
	return cw.Error()
}

// listWidth is the width --list keeps to, notes cut to fit: wider
// than the ranked table, since a note is what the listing is for.
const listWidth = 120

// WriteList writes the parameters of a design as --list prints them.
func WriteList(w io.Writer, design string, params []model.Param, delta float64) {
	fmt.Fprintf(w, "%s: %d parameters, perturbed by ±%s (counts by whole steps)\n", design, len(params), percent(delta))
	nw := len("parameter")
	for _, p := range params {
		nw = max(nw, utf8.RuneCountInString(p.Name))
	}
	row := func(name, kind, label, value, sides, note string) {
		line := fmt.Sprintf("%-*s  %-12s  %-10s  %-12s  %-11s", nw, name, kind, label, value, sides)
		if room := listWidth - utf8.RuneCountInString(line) - 2; note != "" && room >= 10 {
			line += "  " + shorten(note, room)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	row("parameter", "kind", "label", "value", "perturbed", "note")
	for _, p := range params {
		var sides []string
		for _, pt := range Plan([]model.Param{p}, delta) {
			sides = append(sides, pt.To)
		}
		value := p.Value
		if p.Kind == model.ParamDistribution {
			value = "mean " + seconds(p.Mean)
		}
		row(p.Name, string(p.Kind), orDash(p.Label), shorten(value, 12), strings.Join(sides, " "), p.Note)
	}
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

// WriteTable writes the ranked table of each design, at most top rows
// each (0: all), within 100 columns: each side is the new value, the
// first failure there and its change against the base.
func (r *Result) WriteTable(w io.Writer, top int) {
	ms := make([]string, len(r.Multipliers))
	for i, m := range r.Multipliers {
		ms[i] = sweep.FormatMultiplier(m)
	}
	fmt.Fprintf(w, "seed: %d   replications: %d   delta: ±%s   multipliers: %s\n", r.Seed, r.Replications, percent(r.Delta), strings.Join(ms, ","))
	for _, o := range r.Designs {
		fmt.Fprintf(w, "\n%s: first failure %s\n", o.Design, ffText(o.Base))
		fmt.Fprintf(w, "%-28s %-10s │ %-21s │ %-21s │ %s\n", "parameter", "label", "lowered", "raised", "elasticity")
		ranked := o.Rank()
		for i, k := range ranked {
			if top > 0 && i == top {
				fmt.Fprintf(w, "… %d more in sensitivity.csv\n", len(ranked)-top)
				break
			}
			fmt.Fprintf(w, "%-28s %-10s │ %s │ %s │ %s\n", shortenLeft(k.Param.Name, 28), orDash(k.Param.Label),
				side(k.Low), side(k.High), signed(k.Elasticity))
		}
	}
	fmt.Fprintf(w, "\nelasticity: ln(first failure raised / lowered) / ln(parameter raised / lowered),\n")
	fmt.Fprintf(w, "about the %% change of the first failure per %% change of the parameter; — where undefined\n")
}

func side(r *Row) string {
	if r == nil {
		return fmt.Sprintf("%-21s", "")
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
	return fmt.Sprintf("%-5s %7s %7s", shortenLeft(r.To, 5), at, eff)
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
		return "      —"
	}
	if math.Abs(v) < 0.005 {
		return "   0.00"
	}
	return fmt.Sprintf("%+7.2f", v)
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
