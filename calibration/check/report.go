package check

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Label names a timing line in tables: "route trip_view (nginx)".
func (l TimingLine) Label() string {
	if l.Kind == "route" {
		return "route " + l.Name + " (" + l.Source + ")"
	}
	return l.Kind + " " + l.Name
}

// Slug names a timing line's files: "route-trip_view".
func (l TimingLine) Slug() string {
	var b strings.Builder
	for _, r := range l.Kind + "-" + l.Name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// RulesText states the rules the verdicts follow.
func (r *Report) RulesText() []string {
	return []string{
		fmt.Sprintf("A time (route or stage) fails when the two-sample Kolmogorov–Smirnov test, on times rounded to %s, tells the samples apart at α %g and the mean or the p95 differs by more than %s of the recorded one; with fewer than %d values on a side it reads \"few\" and does not fail.",
			secs(r.Rules.Resolution), r.Rules.Alpha, pct(r.Rules.Tolerance), r.Rules.MinValues),
		fmt.Sprintf("A rate (success, failure at a stage, HTTP failures) fails when a two-proportion z test tells the rates apart at α %g and they differ by more than %s.",
			r.Rules.Alpha, points(r.Rules.RateTolerance)),
		"A line with data on one side only fails.",
	}
}

// Verdict says in one sentence whether the model matches.
func (r *Report) Verdict() string {
	if n := r.Failed(); n > 0 {
		return fmt.Sprintf("The model does not match the recording: %d of %d lines failed.", n, len(r.Timings)+len(r.Rates))
	}
	return "The model matches the recording: no line failed."
}

// Seconds writes a time for a person: three significant digits in µs, ms
// or s; "-" when there is none.
func Seconds(v float64) string { return secs(v) }

// Percent writes a share as a percentage to one decimal; "-" when there
// is none.
func Percent(v float64) string { return pct(v) }

func interval(e Estimate, f func(float64) string) string {
	return fmt.Sprintf("%s [%s, %s]", f(e.Value), f(e.Low), f(e.High))
}

// Markdown writes the report as markdown; charts maps a timing line's
// slug to its QQ plot's path, relative to the report.
func (r *Report) Markdown(title string, settings []string, charts map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", title)
	failed := r.Failed()
	if failed == 0 {
		fmt.Fprintf(&b, "**The model matches the recording**: none of %d lines failed.\n\n", len(r.Timings)+len(r.Rates))
	} else {
		fmt.Fprintf(&b, "**The model does not match the recording**: %d of %d lines failed.\n\n", failed, len(r.Timings)+len(r.Rates))
		for _, l := range r.Timings {
			if l.Verdict == Fail {
				fmt.Fprintf(&b, "- %s: %s\n", l.Label(), l.Why)
			}
		}
		for _, l := range r.Rates {
			if l.Verdict == Fail {
				fmt.Fprintf(&b, "- %s %s %s: %s\n", l.Kind, l.Name, l.Measure, l.Why)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("## Settings\n\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	b.WriteString("\n## Rules\n\n")
	for _, t := range r.RulesText() {
		fmt.Fprintf(&b, "- %s\n", t)
	}
	b.WriteString("\n## Times\n\nMeans and p95 with 95 % intervals, recorded then simulated.\n\n")
	b.WriteString("| verdict | line | n rec | n sim | mean rec | mean sim | p95 rec | p95 sim | KS | why |\n")
	b.WriteString("| --- | --- | ---: | ---: | --- | --- | --- | --- | ---: | --- |\n")
	for _, l := range r.Timings {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s | %.3f | %s |\n", l.Verdict, l.Label(), l.NRecorded, l.NSimulated,
			interval(l.Mean[0], secs), interval(l.Mean[1], secs), interval(l.P95[0], secs), interval(l.P95[1], secs), l.KS, l.Why)
	}
	b.WriteString("\n## Rates\n\nWith 95 % Wilson intervals.\n\n")
	b.WriteString("| verdict | journey or route | measure | n rec | n sim | recorded | simulated | z | why |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | --- | --- | ---: | --- |\n")
	for _, l := range r.Rates {
		fmt.Fprintf(&b, "| %s | %s %s | %s | %d | %d | %s | %s | %.2f | %s |\n", l.Verdict, l.Kind, l.Name, l.Measure, l.NRecorded, l.NSimulated,
			interval(l.Rate[0], pct), interval(l.Rate[1], pct), l.Z, l.Why)
	}
	if len(charts) > 0 {
		b.WriteString("\n## Quantile–quantile plots\n\nRecorded quantiles against simulated ones: on the diagonal, the model matches.\n\n")
		for _, l := range r.Timings {
			if path, ok := charts[l.Slug()]; ok {
				fmt.Fprintf(&b, "### %s (%s)\n\n![%s](%s)\n\n", l.Label(), l.Verdict, l.Label(), path)
			}
		}
	}
	return b.Bytes()
}

// CSV writes one row per line and measure.
func (r *Report) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"kind", "name", "source", "measure", "n_recorded", "n_simulated", "recorded", "recorded_low", "recorded_high",
		"simulated", "simulated_low", "simulated_high", "statistic", "critical", "verdict", "why"})
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, l := range r.Timings {
		for _, m := range []struct {
			name string
			e    [2]Estimate
		}{{"mean_s", l.Mean}, {"p95_s", l.P95}} {
			w.Write([]string{l.Kind, l.Name, l.Source, m.name, strconv.Itoa(l.NRecorded), strconv.Itoa(l.NSimulated),
				num(m.e[0].Value), num(m.e[0].Low), num(m.e[0].High), num(m.e[1].Value), num(m.e[1].Low), num(m.e[1].High),
				num(l.KS), num(l.KSCritical), l.Verdict, l.Why})
		}
	}
	for _, l := range r.Rates {
		w.Write([]string{l.Kind, l.Name, "", l.Measure, strconv.Itoa(l.NRecorded), strconv.Itoa(l.NSimulated),
			num(l.Rate[0].Value), num(l.Rate[0].Low), num(l.Rate[0].High), num(l.Rate[1].Value), num(l.Rate[1].Low), num(l.Rate[1].High),
			num(l.Z), "", l.Verdict, l.Why})
	}
	w.Flush()
	return b.Bytes()
}

// secs writes a time for a person: three significant digits in µs, ms or
// s; "-" when there is none.
func secs(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "-"
	case v == 0:
		return "0s"
	case a < 1e-3:
		return strconv.FormatFloat(v*1e6, 'g', 3, 64) + "µs"
	case a < 1:
		return strconv.FormatFloat(v*1e3, 'g', 3, 64) + "ms"
	case a < 100:
		return strconv.FormatFloat(v, 'g', 3, 64) + "s"
	default:
		return strconv.FormatFloat(v, 'f', 0, 64) + "s"
	}
}

// pct writes a share as a percentage to one decimal; "-" when there is none.
func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// points writes a difference of rates in percentage points.
func points(v float64) string {
	p := strconv.FormatFloat(100*v, 'g', 3, 64)
	if p == "1" {
		return "1 percentage point"
	}
	return p + " percentage points"
}
