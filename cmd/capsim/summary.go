package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"capsim/model"
	"capsim/plots"
)

// fmtNum and fmtSec print as the sweep's report does.
func fmtNum(v float64) string { return plots.Number(v) }

func fmtSec(v model.Num) string { return plots.Seconds(float64(v)) }

func fmtPct(v model.Num) string {
	if math.IsNaN(float64(v)) {
		return "-"
	}
	return strconv.FormatFloat(100*float64(v), 'f', 2, 64) + "%"
}

// writeSummary prints a run's result for a person to read at a glance:
// users first, then requests, then components.
func writeSummary(w io.Writer, r *model.Result) {
	fmt.Fprintf(w, "scenario %s · design %s · multiplier %s · seed %d · %s simulated · %d events\n",
		r.Scenario, r.Design, fmtNum(r.Multiplier), r.Seed, fmtSec(model.Num(r.SimTime)), r.Events)
	if r.Broken != nil {
		fmt.Fprintf(w, "\n!! run %s\n", r.Broken)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\nJourneys (what users saw)")
	fmt.Fprintln(tw, "journey\tstarted\tsucceeded\tfailed\tunfinished\tjourney fail\tHTTP fail\tp50\tp95\tp99\t")
	for _, j := range r.Journeys {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", j.Name, j.Started, j.Succeeded, j.Failed,
			j.Unfinished, fmtPct(j.FailureRate()), fmtPct(j.HTTPFailureRate), fmtSec(j.Latency.P50), fmtSec(j.Latency.P95), fmtSec(j.Latency.P99))
	}
	tw.Flush()
	for _, d := range r.Diagnostics() {
		fmt.Fprintln(w, "  "+d.String())
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
		fmt.Fprintf(w, "  %s failed at: %s\n", j.Name, strings.Join(parts, ", "))
	}

	called := 0
	for _, rt := range r.Routes {
		if rt.Calls > 0 {
			called++
		}
	}
	if called > 0 {
		fmt.Fprintln(w, "\nRoutes (what the servers logged)")
		fmt.Fprintln(tw, "route\tcalls\tfailed\tmean\tp50\tp95\tp99\tstatuses\t")
	}
	for _, rt := range r.Routes {
		if rt.Calls == 0 {
			continue
		}
		var st []string
		for _, s := range rt.Statuses {
			st = append(st, fmt.Sprintf("%d×%d", s.Status, s.Count))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", rt.Name, rt.Calls, rt.Failures, fmtSec(rt.Latency.Mean),
			fmtSec(rt.Latency.P50), fmtSec(rt.Latency.P95), fmtSec(rt.Latency.P99), strings.Join(st, " "))
	}
	tw.Flush()

	fmt.Fprintln(w, "\nComponents")
	fmt.Fprintln(tw, "component\tkind\tutilisation\tmean queue\tpeak queue\tmean wait\tp95 wait\toffered\trejected\ttimed out\t")
	for _, c := range r.Components {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t\n", c.Name, c.Kind, fmtPct(c.Utilisation),
			fmtNum(float64(c.MeanQueue)), fmtNum(c.PeakQueue), fmtSec(c.Wait.Mean), fmtSec(c.Wait.P95), c.Offered, c.Rejected, c.TimedOut)
	}
	tw.Flush()
	for _, c := range r.Components {
		if c.ColdStarts > 0 {
			fmt.Fprintf(w, "  %s: %d cold starts\n", c.Name, c.ColdStarts)
		}
		if c.RateSteps > 0 {
			fmt.Fprintf(w, "  %s: refill rate lowered %d times, ending at %s/s\n", c.Name, c.RateSteps, fmtNum(float64(c.FinalRate)))
		}
	}
	if r.Tolerated > 0 {
		fmt.Fprintf(w, "  %d failures tolerated by optional steps\n", r.Tolerated)
	}
	writeDynamics(w, r)
	if len(r.SLOs) > 0 {
		fmt.Fprintln(w, "\nSLOs")
		for _, s := range r.SLOs {
			mark := "ok  "
			if !s.Met {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "  %s %s (measured %s)\n", mark, s.SLO, fmtNum(float64(s.Value)))
		}
	}
}
