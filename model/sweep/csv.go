package sweep

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"

	"capsim/model"
)

// Number format of every table. Values are written with 10 significant
// digits ('g' format): enough for any count a run reaches and for means
// to be compared, and few enough that the last-bit differences an
// architecture's fused multiply-add may leave in a simulated value do not
// show. NaN and infinities (nothing measured) are empty cells, which
// pandas and R read as missing.
func fmtValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	if v == 0 {
		return "0" // never "-0"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

// csvField quotes a field as RFC 4180 requires; names in capsim rarely
// need it, but a scenario's name is free text.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") && strings.TrimSpace(s) == s {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func writeRow(w io.Writer, fields ...string) {
	for i, f := range fields {
		if i > 0 {
			io.WriteString(w, ",")
		}
		io.WriteString(w, csvField(f))
	}
	io.WriteString(w, "\n")
}

const runsHeader = "scenario,design,multiplier,replication,seed,metric,value\n"

func writeRunRows(w io.Writer, scenario, design string, mult float64, rep int, seed uint64, ms []model.Metric) {
	prefix := csvField(scenario) + "," + csvField(design) + "," + FormatMultiplier(mult) + "," +
		strconv.Itoa(rep) + "," + strconv.FormatUint(seed, 10) + ","
	for _, m := range ms {
		io.WriteString(w, prefix)
		io.WriteString(w, csvField(m.Name))
		io.WriteString(w, ",")
		io.WriteString(w, fmtValue(m.Value))
		io.WriteString(w, "\n")
	}
}

// WriteSummaryCSV writes summary.csv: one row per design, grid multiplier
// and metric, with the number of replications that measured it, their mean
// and its 95 % confidence interval (empty below two values).
func (r *Result) WriteSummaryCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeRow(bw, "scenario", "design", "multiplier", "metric", "n", "mean", "ci_low", "ci_high")
	for _, c := range r.Cells {
		for _, m := range c.Metrics {
			writeRow(bw, r.Scenario, c.Design, FormatMultiplier(c.Multiplier), m.Metric, strconv.Itoa(m.N),
				fmtValue(m.Mean), fmtValue(m.Lo), fmtValue(m.Hi))
		}
	}
	return bw.Flush()
}

// WriteCompareCSV writes the paired differences of every design with the
// first one: mean_diff is the mean over replications of (design −
// baseline) in the same replication, with its 95 % confidence interval.
func (r *Result) WriteCompareCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeRow(bw, "scenario", "design", "baseline", "multiplier", "metric", "n", "mean_diff", "ci_low", "ci_high")
	for _, c := range r.Compare {
		for _, m := range c.Diffs {
			writeRow(bw, r.Scenario, c.Design, c.Baseline, FormatMultiplier(c.Multiplier), m.Metric, strconv.Itoa(m.N),
				fmtValue(m.Mean), fmtValue(m.Lo), fmtValue(m.Hi))
		}
	}
	return bw.Flush()
}

// WriteFirstFailureCSV writes first_failure.csv: one row per design, with
// empty cells when the design broke no SLO in the range.
func (r *Result) WriteFirstFailureCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeRow(bw, "scenario", "design", "first_failure_multiplier", "ci_low", "ci_high", "slo", "component", "failure_stage")
	for _, ff := range r.FirstFailures {
		if !ff.Found {
			writeRow(bw, r.Scenario, ff.Design, "", "", "", "", "", "")
			continue
		}
		writeRow(bw, r.Scenario, ff.Design, FormatMultiplier(ff.Multiplier), fmtValue(ff.Lo), fmtValue(ff.Hi), ff.SLO, ff.Component, ff.Stage)
	}
	return bw.Flush()
}
