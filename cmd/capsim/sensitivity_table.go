package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"capsim/model"
	"capsim/model/sensitivity"
	"capsim/model/sweep"
	"capsim/plots/texttab"
)

// The tables capsim sensitivity prints: --list's parameters and the
// ranked first failures. model/sensitivity hands over the plain result;
// its layout, units and rounding are decided here.

// sensitivityListColumns are --list's columns: on a narrow terminal the
// note is cut, then left out, then the kind, the perturbed values and the
// label.
var sensitivityListColumns = []texttab.Column{
	{Name: "parameter", Min: 16, KeepEnd: true},
	{Name: "kind", Drop: 3},
	{Name: "label", Drop: 1},
	{Name: "value"},
	{Name: "perturbed", Drop: 2},
	{Name: "note", Drop: 4, Min: 10, CutFirst: true},
}

// sensitivityNoteWidth is the most of a note --list shows even with room
// for more: the note is there to recognise a parameter by, the scenario
// holds all.
const sensitivityNoteWidth = 60

// writeSensitivityList writes the parameters of a design as --list prints
// them, within width columns (0: no limit), the footnote saying how to
// see the columns left out with howToSee.
func writeSensitivityList(w io.Writer, design string, params []model.Param, delta float64, width int, howToSee string) {
	texttab.WriteLines(w, texttab.Hang("", fmt.Sprintf("%s: %d parameters, perturbed by ±%s (counts by whole steps)", design, len(params), fmtPercent(delta)), "  ", width))
	t := texttab.Table{Cols: sensitivityListColumns}
	for _, p := range params {
		var sides []string
		for _, pt := range sensitivity.Plan([]model.Param{p}, delta) {
			sides = append(sides, pt.To)
		}
		value := p.Value
		if p.Kind == model.ParamDistribution {
			value = "mean " + meanSeconds(p.Mean)
		}
		t.Row(p.Name, string(p.Kind), orDash(p.Label), shorten(value, 12), strings.Join(sides, " "), shorten(p.Note, sensitivityNoteWidth))
	}
	t.Write(w, width, howToSee)
}

// meanSeconds writes a mean time with a unit a reader takes in at a glance.
func meanSeconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "?"
	case s < 1:
		return strconv.FormatFloat(s*1000, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(s, 'g', 3, 64) + "s"
}

// sensitivityRankColumns are the ranked table's: each side is the new
// value, the first failure there and its change against the base; then
// the elasticity and the noise verdict, which ranks with the changes, and
// how many replications each side's search ran (the first to go, but
// with --until-sure after the label). On
// a narrow terminal the label goes first, then the changes (the first
// failures say as much), then the elasticity; the new values, the first
// failures and the verdict stay, the parameters' names cut from the start.
var sensitivityRankColumns = []texttab.Column{
	{Name: "parameter", Min: 11, Max: 28, KeepEnd: true},
	{Name: "label", Drop: 4, Sep: " "},
	{Name: "lowered", Sep: " │ "},
	{Name: "", Align: texttab.Right, Sep: " "},
	{Name: "", Align: texttab.Right, Sep: " ", Drop: 3, Note: "change lowered"},
	{Name: "raised", Sep: " │ "},
	{Name: "", Align: texttab.Right, Sep: " "},
	{Name: "", Align: texttab.Right, Sep: " ", Drop: 2, Note: "change raised"},
	{Name: "elasticity", Align: texttab.Right, Sep: " │ ", Drop: 1},
	{Name: "noise", Sep: " │ "},
	{Name: "runs", Align: texttab.Right, Sep: " │ ", Drop: 5},
}

// writeSensitivityTable writes the ranked table of each design of r, at most top
// rows each (0: all), within width columns (0: no limit), the footnote saying
// how to see the columns left out with howToSee.
func writeSensitivityTable(w io.Writer, r *sensitivity.Result, top, width int, howToSee string) {
	ms := make([]string, len(r.Multipliers))
	for i, m := range r.Multipliers {
		ms[i] = sweep.FormatMultiplier(m)
	}
	reps := "replications: " + strconv.Itoa(r.Replications)
	if r.Until > 0 {
		reps += fmt.Sprintf(" until sure, at most %d (every verdict at %s %%)", r.Until, sweep.FormatLevel(r.VerdictLevel))
	}
	texttab.WriteLines(w, texttab.Fill("", "", []string{"seed: " + strconv.FormatUint(r.Seed, 10),
		reps, "delta: ±" + fmtPercent(r.Delta), "multipliers: " + strings.Join(ms, ",")}, "   ", width))
	for _, o := range r.Designs {
		fmt.Fprintln(w)
		texttab.WriteLines(w, texttab.Hang("", o.Design+": first failure "+firstFailureText(o.Base)+
			"; "+settlingText(o.BaseSettling), "  ", width))
		t := texttab.Table{Cols: sensitivityRankColumns}
		if r.Until > 0 {
			// The runs are what --until-sure was asked for: on a narrow
			// terminal they outlast the label.
			t.Cols = slices.Clone(sensitivityRankColumns)
			for i := range t.Cols {
				switch t.Cols[i].Name {
				case "label":
					t.Cols[i].Drop = 5
				case "runs":
					t.Cols[i].Drop = 4
				}
			}
		}
		ranked := o.Rank()
		more := 0
		for i, k := range ranked {
			if top > 0 && i == top {
				more = len(ranked) - top
				break
			}
			row := []string{k.Param.Name, orDash(k.Param.Label)}
			row = append(row, sensitivitySide(k.Low)...)
			row = append(row, sensitivitySide(k.High)...)
			t.Row(append(row, fmtSigned(k.Elasticity), string(k.Noise), sidesRuns(k))...)
		}
		t.Write(w, width, howToSee)
		if more > 0 {
			fmt.Fprintf(w, "… %d more in sensitivity.csv\n", more)
		}
	}
	fmt.Fprintln(w)
	texttab.WriteLines(w, texttab.Hang("", "elasticity: ln(first failure raised / lowered) / ln(parameter raised / lowered), "+
		"about the % change of the first failure per % change of the parameter; — where undefined", "  ", width))
	texttab.WriteLines(w, texttab.Hang("", noiseRule, "  ", width))
	texttab.WriteLines(w, texttab.Hang("", runsRule, "  ", width))
}

// runsRule is the runs column's footnote.
const runsRule = "runs: the most replications given to a multiplier that could still move the side's " +
	"first failure, lowered/raised; ? where one of those verdicts is still unclear (at --max-replications " +
	"with --until-sure, which adds replications until none is)"

// sidesRuns is a parameter's runs cell: each side's replications, ? when
// a verdict that could move its first failure is unclear.
func sidesRuns(k sensitivity.Ranked) string {
	var sides []string
	for _, r := range []*sensitivity.Row{k.Low, k.High} {
		if r == nil {
			sides = append(sides, "")
			continue
		}
		n := strconv.Itoa(r.Settling.Replications)
		if r.Settling.Stop != sensitivity.Sure {
			n += "?"
		}
		sides = append(sides, n)
	}
	return strings.Join(sides, "/")
}

// settlingText says how far the base's search went, in words.
func settlingText(s sensitivity.Settling) string {
	switch s.Stop {
	case sensitivity.Sure:
		return fmt.Sprintf("%d runs, sure", s.Replications)
	case sensitivity.Capped:
		return fmt.Sprintf("%d runs, not sure at --max-replications", s.Replications)
	}
	return fmt.Sprintf("%d runs, not sure", s.Replications)
}

// noiseRule is how a row's noise verdict is decided, as the table's
// footnote and the command's help say it.
const noiseRule = "noise: beyond where a side's first failure moved out of the base's interval and by more " +
	"than that interval is wide (same seeds, so what is left is the search's resolution and the " +
	"replications' spread; an open end, ?, counts as the first failure itself), else within; " +
	"ranked beyond first, then by the larger |change|"

// sensitivitySide is a side's cells: the new value, the first failure
// there and its change against the base.
func sensitivitySide(r *sensitivity.Row) []string {
	if r == nil {
		return []string{"", "", ""}
	}
	ff := r.FirstFailure
	var at string
	switch {
	case !ff.Found:
		at = "held"
	case ff.BelowRange:
		at = "≤" + fmtMultiplier(ff.Multiplier)
	default:
		at = fmtMultiplier(ff.Multiplier)
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

func firstFailureText(ff sweep.FirstFailure) string {
	switch {
	case !ff.Found:
		return "none in the range (no SLO broken)"
	case ff.BelowRange:
		return fmt.Sprintf("at or below %s, the lowest multiplier tried", fmtMultiplier(ff.Multiplier))
	}
	where := ""
	if ff.Component != "" {
		where = " at " + ff.Component
	}
	return fmt.Sprintf("%s (CI %s–%s): %s%s", fmtMultiplier(ff.Multiplier), fmtBound(ff.Lo), fmtBound(ff.Hi), ff.SLO, where)
}

func fmtMultiplier(m float64) string { return strconv.FormatFloat(m, 'g', 5, 64) + "x" }

func fmtBound(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func fmtSigned(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	if math.Abs(v) < 0.005 {
		return "0.00"
	}
	return fmt.Sprintf("%+.2f", v)
}

func fmtPercent(f float64) string { return strconv.FormatFloat(100*f, 'g', 4, 64) + "%" }

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
