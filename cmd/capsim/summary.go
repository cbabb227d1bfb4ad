package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"capsim/model"
	"capsim/plots"
	"capsim/plots/texttab"
)

// fmtNum and fmtSec print as the sweep's report does.
func fmtNum(v float64) string { return plots.Number(v) }

func fmtSec(v model.Num) string { return plots.Seconds(float64(v)) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func fmtPct(v model.Num) string {
	if math.IsNaN(float64(v)) {
		return "-"
	}
	return strconv.FormatFloat(100*float64(v), 'f', 2, 64) + "%"
}

// fmtSLOValue writes what an SLO measured with its unit: a time as a
// duration, a rate as a percentage to 4 significant digits, enough to
// tell 99.85% from a bound of 0.999.
func fmtSLOValue(s *model.SLOResult) string {
	v := float64(s.Value)
	switch {
	case math.IsNaN(v):
		return "-"
	case s.Seconds():
		return plots.Seconds(v)
	}
	return strconv.FormatFloat(100*v, 'g', 4, 64) + "%"
}

// The run summary's tables, their columns in the order they are left out
// on a narrow terminal (Drop: highest first): counts that others imply
// and the tails of distributions go before a journey's failure rate and
// p95, which the SLOs are mostly about.
var (
	journeyCols = []texttab.Column{
		{Name: "journey", Min: 10},
		numberCol("started", 2), numberCol("succeeded", 4), numberCol("failed", 1), numberCol("unfinished", 7),
		numberCol("journey fail", 0), numberCol("HTTP fail", 3),
		numberCol("p50", 5), numberCol("p95", 0), numberCol("p99", 6),
		// Every journey that ended, timed to when it did: a load
		// tester's figures.
		numberCol("all p50", 10), numberCol("all p95", 8), numberCol("all p99", 9),
	}
	routeCols = []texttab.Column{
		{Name: "route", Min: 10},
		numberCol("calls", 0), numberCol("failed", 1), numberCol("mean", 5),
		numberCol("p50", 4), numberCol("p95", 0), numberCol("p99", 3),
		// Every call as its caller saw it: cut at a timeout.
		numberCol("all p50", 9), numberCol("all p95", 7), numberCol("all p99", 8),
		{Name: "statuses", Drop: 6},
	}
	componentCols = []texttab.Column{
		{Name: "component", Min: 10},
		{Name: "kind", Drop: 8},
		numberCol("utilisation", 0), numberCol("mean queue", 6), numberCol("peak queue", 3),
		numberCol("mean wait", 4), numberCol("p95 wait", 0),
		numberCol("offered", 7), numberCol("rejected", 1), numberCol("timed out", 2),
	}
)

// numberCol is a column of numbers, aligned right, the drop-th left out on a
// narrow terminal (0: never).
func numberCol(name string, drop int) texttab.Column {
	return texttab.Column{Name: name, Align: texttab.Right, Drop: drop}
}

// writeSummary prints a run's result for a person to read at a glance,
// within width columns (0: no limit): users first, then requests, then
// components.
func writeSummary(w io.Writer, r *model.Result, width int) {
	note := func(first, text string) { texttab.WriteLines(w, texttab.Hang(first, text, first+"  ", width)) }
	note("", fmt.Sprintf("scenario %s · design %s · multiplier %s · seed %d · %s simulated · %d events",
		r.Scenario, r.Design, fmtNum(r.Multiplier), r.Seed, fmtSec(model.Num(r.SimTime)), r.Events))
	if r.Broken != nil {
		fmt.Fprintln(w)
		note("!! ", fmt.Sprintf("run %s", r.Broken))
	}
	fmt.Fprintln(w, "\nJourneys (what users saw)")
	t := texttab.Table{Indent: "  ", Cols: journeyCols}
	for _, j := range r.Journeys {
		t.Row(j.Name, itoa(j.Started), itoa(j.Succeeded), itoa(j.Failed),
			itoa(j.Unfinished), fmtPct(j.FailureRate()), fmtPct(j.HTTPFailureRate), fmtSec(j.Latency.P50), fmtSec(j.Latency.P95), fmtSec(j.Latency.P99),
			fmtSec(j.LatencyAll.P50), fmtSec(j.LatencyAll.P95), fmtSec(j.LatencyAll.P99))
	}
	sameSeen := true
	for _, j := range r.Journeys {
		sameSeen = sameSeen && sameLatency(j.LatencyAll, j.Latency)
	}
	if sameSeen {
		leaveOut(&t, allCols)
	}
	t.Write(w, width, seeAll)
	for _, d := range r.Diagnostics() {
		note("  ", d.String())
	}
	for _, j := range r.Journeys {
		if len(j.Stages) == 0 {
			continue
		}
		var parts []string
		for _, s := range j.Stages {
			where := s.Stage
			if s.Component != "" {
				where += " (" + s.Component + ")"
			}
			parts = append(parts, fmt.Sprintf("%s ×%d", where, s.Count))
		}
		note("  ", j.Name+" failed at: "+strings.Join(parts, ", "))
	}

	t = texttab.Table{Indent: "  ", Cols: routeCols}
	sameSeen = true
	for _, rt := range r.Routes {
		if rt.Calls == 0 {
			continue
		}
		sameSeen = sameSeen && sameLatency(rt.LatencyAll, rt.Latency)
		var st []string
		for _, s := range rt.Statuses {
			st = append(st, fmt.Sprintf("%d×%d", s.Status, s.Count))
		}
		t.Row(rt.Name, itoa(rt.Calls), itoa(rt.Failures), fmtSec(rt.Latency.Mean),
			fmtSec(rt.Latency.P50), fmtSec(rt.Latency.P95), fmtSec(rt.Latency.P99),
			fmtSec(rt.LatencyAll.P50), fmtSec(rt.LatencyAll.P95), fmtSec(rt.LatencyAll.P99), strings.Join(st, " "))
	}
	if sameSeen {
		leaveOut(&t, allCols)
	}
	if len(t.Rows) > 0 {
		fmt.Fprintln(w, "\nRoutes (what the servers logged)")
		t.Write(w, width, seeAll)
	}

	t = texttab.Table{Indent: "  ", Cols: componentCols}
	for _, c := range r.Components {
		t.Row(c.Name, c.Kind, fmtPct(c.Utilisation), fmtNum(float64(c.MeanQueue)), fmtNum(c.PeakQueue),
			fmtSec(c.Wait.Mean), fmtSec(c.Wait.P95), itoa(c.Offered), itoa(c.Rejected), itoa(c.TimedOut))
	}
	if len(t.Rows) > 0 { // a scenario of routes and delays alone has none
		fmt.Fprintln(w, "\nComponents")
		t.Write(w, width, seeAll)
	}
	for _, c := range r.Components {
		if c.ColdStarts > 0 {
			note("  ", fmt.Sprintf("%s: %d cold starts", c.Name, c.ColdStarts))
		}
		if c.RateSteps > 0 {
			note("  ", fmt.Sprintf("%s: refill rate lowered %d times, ending at %s/s", c.Name, c.RateSteps, fmtNum(float64(c.FinalRate))))
		}
	}
	if r.Tolerated > 0 {
		note("  ", fmt.Sprintf("%d failures tolerated by optional steps", r.Tolerated))
	}
	writeDynamics(w, r)
	if len(r.SLOs) > 0 {
		fmt.Fprintln(w, "\nSLOs")
		for i := range r.SLOs {
			s := &r.SLOs[i]
			mark, text := "ok  ", fmt.Sprintf("%s (measured %s)", s.SLO, fmtSLOValue(s))
			switch {
			case !s.Met:
				mark = "FAIL"
			case s.Idle:
				mark, text = "n/a ", fmt.Sprintf("%s (nothing to measure: %s)", s.SLO, s.Nothing())
			}
			texttab.WriteLines(w, texttab.Hang("  "+mark+" ", text, "         ", width))
		}
	}
}

// allCols are the tables' columns of every journey or call as its client
// timed it. Where every journey succeeded and no caller gave up on a call
// they repeat the columns before them, and the table leaves them out.
var allCols = []string{"all p50", "all p95", "all p99"}

// sameLatency says two summaries print alike: NaN, of none, equals NaN.
func sameLatency(a, b model.Latency) bool {
	same := func(x, y model.Num) bool { return x == y || math.IsNaN(float64(x)) && math.IsNaN(float64(y)) }
	return a.N == b.N && same(a.Mean, b.Mean) && same(a.P50, b.P50) && same(a.P95, b.P95) && same(a.P99, b.P99) && same(a.Max, b.Max)
}

// leaveOut removes the columns named from t and their cells from its rows.
func leaveOut(t *texttab.Table, names []string) {
	keep := make([]bool, len(t.Cols))
	var cols []texttab.Column
	for i, c := range t.Cols {
		keep[i] = !slices.Contains(names, c.Name)
		if keep[i] {
			cols = append(cols, c)
		}
	}
	t.Cols = cols
	for r, row := range t.Rows {
		var cells []string
		for i, cell := range row {
			if i >= len(keep) || keep[i] {
				cells = append(cells, cell)
			}
		}
		t.Rows[r] = cells
	}
}
