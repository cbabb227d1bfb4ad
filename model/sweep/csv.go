package sweep

import (
	"bufio"
	"encoding/csv"
	"io"
	"math"
	"slices"
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

// FormatValue writes v in the number format of every table of a sweep,
// for the tables built on a sweep's.
func FormatValue(v float64) string { return fmtValue(v) }

// metricColumns are a metric's name and its key's parts, so that a
// notebook filters on a column instead of splitting strings: kind
// (journey, route, component, or run for the run's own), name (the
// journey's, route's or component's; <balancer>.replica.<i> for a
// replica's), measure (such as p95_s; failed_at_count for a stage count)
// and stage (the failure stage a stage count counts, else empty).
var metricColumns = []string{"metric", "kind", "name", "measure", "stage"}

// appendMetricFields appends the metricColumns of k to row.
func appendMetricFields(row []string, k model.MetricKey) []string {
	return append(row, k.Name(), k.Subject().Kind(), k.EntityName(), k.Measure.Name(), k.Stage)
}

// runsHeader is the first line of runs.csv, written by the sweep before
// the first run's rows.
var runsHeader = strings.Join(append(append([]string{"scenario", "design", "multiplier", "replication", "seed"},
	metricColumns...), "value"), ",") + "\n"

// writeRunRows writes one run's metrics as rows of runs.csv, with a zero
// for each of a journey's failure stages (stages, by journey) where the
// run counted none: the metrics list a stage only where some journey
// failed, and a mean over runs.csv's rows would otherwise leave out the
// runs where none did. encoding/csv quotes what RFC 4180 requires: names
// in capsim rarely need it, but a scenario's name is free text.
func writeRunRows(w io.Writer, scenario, design string, mult float64, rep int, seed uint64, ms []model.Metric, stages map[string][]string) {
	cw := csv.NewWriter(w)
	// One row reused: a merge writes every run's rows, and building each
	// row afresh was most of the time it spent on runs.csv.
	row := make([]string, 0, 11)
	row = append(row, scenario, design, FormatMultiplier(mult), strconv.Itoa(rep), strconv.FormatUint(seed, 10))
	head := len(row)
	for _, m := range withZeroStages(ms, stages) {
		row = append(appendMetricFields(row[:head], m.Key), fmtValue(m.Value))
		cw.Write(row) // the writer is a buffer: it cannot fail
	}
	cw.Flush()
}

// withZeroStages returns ms with each journey's stage counts completed by
// a zero for every stage in stages that ms lacks, in the sorted order
// Metrics gives them, after the journey's other metrics.
func withZeroStages(ms []model.Metric, stages map[string][]string) []model.Metric {
	if len(stages) == 0 {
		return ms
	}
	out := make([]model.Metric, 0, len(ms)+8*len(stages))
	journey := ""               // the journey whose metrics are being copied
	counted := []model.Metric{} // its stage counts in this run
	flush := func() {
		if journey == "" {
			return
		}
		have := make(map[string]bool, len(counted))
		for _, m := range counted {
			have[m.Key.Stage] = true
		}
		all := slices.Clone(counted)
		for _, st := range stages[journey] {
			if !have[st] {
				all = append(all, model.Metric{Key: model.FailedAt.OfStage(journey, st), Sparse: true})
			}
		}
		slices.SortStableFunc(all, func(a, b model.Metric) int {
			return strings.Compare(a.Key.Stage, b.Key.Stage)
		})
		out = append(out, all...)
		journey, counted = "", counted[:0]
	}
	for _, m := range ms {
		isJourney := m.Key.Subject() == model.SubjectJourney
		if !isJourney || m.Key.Entity != journey {
			flush()
			if isJourney {
				journey = m.Key.Entity
			}
		}
		if m.Key.Measure == model.FailedAt {
			counted = append(counted, m)
			continue
		}
		out = append(out, m)
	}
	flush()
	return out
}

// table writes rows through encoding/csv onto a buffered writer.
type table struct {
	bw *bufio.Writer
	cw *csv.Writer
}

func newTable(w io.Writer, header ...string) *table {
	bw := bufio.NewWriter(w)
	t := &table{bw: bw, cw: csv.NewWriter(bw)}
	t.row(header...)
	return t
}

func (t *table) row(fields ...string) { t.cw.Write(fields) }

func (t *table) close() error {
	t.cw.Flush()
	if err := t.cw.Error(); err != nil {
		return err
	}
	return t.bw.Flush()
}

// header is a table's header with the metric's columns after before.
func header(before []string, after ...string) []string {
	return append(append(append([]string{}, before...), metricColumns...), after...)
}

func withMetric(before []string, key model.MetricKey, after ...string) []string {
	out := appendMetricFields(append([]string{}, before...), key)
	return append(out, after...)
}

func trials(s Summary) string {
	if s.Trials == 0 {
		return ""
	}
	return strconv.FormatInt(s.Trials, 10)
}

// WriteSummaryCSV writes summary.csv: one row per design, grid multiplier
// and metric, with the number of replications that measured it, for a rate
// of counted events the events counted over them (trials), their mean and
// its 95 % confidence interval (empty below two values).
func (r *Result) WriteSummaryCSV(w io.Writer) error {
	t := newTable(w, header([]string{"scenario", "design", "multiplier"}, "n", "trials", "mean", "ci_low", "ci_high")...)
	for _, c := range r.Cells {
		for _, m := range c.Metrics {
			t.row(withMetric([]string{r.Scenario, c.Design, FormatMultiplier(c.Multiplier)}, m.Key,
				strconv.Itoa(m.N), trials(m.Summary), fmtValue(m.Mean), fmtValue(m.Lo), fmtValue(m.Hi))...)
		}
	}
	return t.close()
}

// WriteCompareCSV writes the paired differences of every design with the
// first one: mean_diff is the mean over replications of (design −
// baseline) in the same replication, with its 95 % confidence interval.
func (r *Result) WriteCompareCSV(w io.Writer) error {
	t := newTable(w, header([]string{"scenario", "design", "baseline", "multiplier"}, "n", "mean_diff", "ci_low", "ci_high")...)
	for _, c := range r.Compare {
		for _, m := range c.Diffs {
			t.row(withMetric([]string{r.Scenario, c.Design, c.Baseline, FormatMultiplier(c.Multiplier)}, m.Key,
				strconv.Itoa(m.N), fmtValue(m.Mean), fmtValue(m.Lo), fmtValue(m.Hi))...)
		}
	}
	return t.close()
}

// First-failure statuses: the design broke an SLO inside the range; it
// already broke one at the lowest multiplier tried (the failure point is
// at or below it); it held over the whole range.
const (
	statusFailed     = "failed"
	statusBelowRange = "below_range"
	statusHeld       = "held"
)

// Status is the first failure's status as the tables write it: failed,
// below_range or held.
func (ff FirstFailure) Status() string {
	switch {
	case !ff.Found:
		return statusHeld
	case ff.BelowRange:
		return statusBelowRange
	}
	return statusFailed
}

// WriteFirstFailureCSV writes first_failure.csv: one row per design, its
// status, and where it failed. slo lists every SLO broken at the estimate
// ("; "-separated, or the guard that stopped runs); slo_subject,
// slo_metric, slo_measure, slo_op and slo_bound take the first of them
// apart, slo_metric and slo_measure as summary.csv's metric and measure
// columns name it, the bound in the measure's own unit (seconds for
// times, a fraction for rates). An end of the interval no multiplier
// settles is written 0 (ci_low) or inf (ci_high), with ci_low_known or
// ci_high_known false. Then the rank, the SLO's measured value at the
// estimate with its interval at verdict_level, the replications (slo_n)
// and counted events (slo_trials) behind it, and every multiplier tried
// (multipliers_tried, space-separated). Empty cells where the design
// held, but for rank, verdict_level and multipliers_tried.
func (r *Result) WriteFirstFailureCSV(w io.Writer) error {
	cols := []string{"scenario", "design", "status", "first_failure_multiplier", "ci_low", "ci_high",
		"slo", "slo_subject", "slo_measure", "slo_op", "slo_bound", "component", "failure_stage"}
	cols = append(cols, moreColumns...)
	drawn := len(r.FirstFailures) > 0 && r.FirstFailures[0].Draws > 0
	if drawn {
		cols = append(cols, paramColumns...)
	}
	t := newTable(w, cols...)
	ranks := r.Ranks()
	level := fmtValue(r.VerdictLevel())
	row := func(ff FirstFailure, fields ...string) {
		if drawn {
			fields = append(fields, strconv.Itoa(ff.Draws), fmtValue(ff.PSD), fmtValue(ff.PLo), fmtValue(ff.PHi))
		}
		t.row(fields...)
	}
	for i, ff := range r.FirstFailures {
		var tried []string
		for _, c := range ff.Tried {
			tried = append(tried, FormatMultiplier(c.Multiplier))
		}
		more := func(known [2]string, value ...string) []string {
			// The rank as a number a notebook can sort by, and whether
			// another design shares it (the tables print both as "=2").
			return append(append([]string{known[0], known[1], "", strconv.Itoa(ranks[i].N), strconv.FormatBool(ranks[i].Shared)}, value...),
				level, strings.Join(tried, " "))
		}
		if !ff.Found {
			fields := []string{r.Scenario, ff.Design, statusHeld, "", "", "", "", "", "", "", "", "", ""}
			row(ff, append(fields, more([2]string{"", ""}, "", "", "", "", "")...)...)
			continue
		}
		subject, measure, op, bound, metric := "", "", "", "", ""
		value := []string{"", "", "", "", ""}
		if st, ok := ff.FirstBroken(); ok {
			subject, measure, metric = st.Key.Entity, st.Key.Measure.Name(), st.Key.Name()
			op, bound = st.Bound.Op, fmtValue(st.Bound.Value)
			value = []string{fmtValue(st.Mean), fmtValue(st.Lo), fmtValue(st.Hi), strconv.Itoa(st.N), trials(st.Summary)}
		}
		lo, loKnown := fmtValue(ff.Lo), "true"
		if math.IsNaN(ff.Lo) {
			lo, loKnown = "0", "false"
		}
		hi, hiKnown := fmtValue(ff.Hi), "true"
		if math.IsNaN(ff.Hi) {
			hi, hiKnown = "inf", "false"
		}
		fields := []string{r.Scenario, ff.Design, ff.Status(), FormatMultiplier(ff.Multiplier), lo, hi,
			ff.SLO, subject, measure, op, bound, ff.Component, ff.Stage}
		m := more([2]string{loKnown, hiKnown}, value...)
		m[2] = metric
		row(ff, append(fields, m...)...)
	}
	return t.close()
}

// moreColumns follow failure_stage in first_failure.csv (see
// WriteFirstFailureCSV).
var moreColumns = []string{"ci_low_known", "ci_high_known", "slo_metric", "rank", "rank_shared",
	"slo_value", "slo_ci_low", "slo_ci_high", "slo_n", "slo_trials", "verdict_level", "multipliers_tried"}

// VerdictLevel is the confidence every verdict of the sweep was judged
// at: Level, or with replications until sure less (see precision.go).
func (r *Result) VerdictLevel() float64 {
	if r.Precision != nil {
		return r.Precision.Level
	}
	return Level
}

// paramColumns end first_failure.csv's rows in a sweep with parameter
// draws: how many replications drew their own parameters, the standard
// deviation of the change the draws made to each replication's first
// failure, and the 95 % interval that includes the parameters'
// uncertainty (ci_low and ci_high stay those of the replications' noise,
// every parameter as written).
var paramColumns = []string{"param_draws", "param_sd", "param_ci_low", "param_ci_high"}

// FirstBroken is the first SLO broken at the first failure's multiplier,
// and false when none is (the design held, or a guard stopped its runs).
func (ff FirstFailure) FirstBroken() (SLOStat, bool) {
	for _, c := range ff.Tried {
		if c.Multiplier != ff.Multiplier {
			continue
		}
		for _, st := range c.SLOs {
			if st.Broken {
				return st, true
			}
		}
	}
	return SLOStat{}, false
}
