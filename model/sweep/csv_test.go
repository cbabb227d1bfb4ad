package sweep

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"capsim/model"
)

// A metric's name is written whole beside its key's parts, so a notebook
// filters on kind, name, measure and stage rather than splitting strings.
func TestMetricFields(t *testing.T) {
	picks, _ := model.MeasureNamed(model.SubjectReplica, "picks_count")
	cases := map[model.MetricKey]string{
		model.BrokenCount.OfRun():                           "broken_count|run||broken_count|",
		model.JourneyP95.Of("trip"):                         "journey.trip.p95_s|journey|trip|p95_s|",
		model.FailedAt.OfStage("trip", "derivative_create"): "journey.trip.failed_at.derivative_create_count|journey|trip|failed_at_count|derivative_create",
		picks.OfReplica("lb", 0):                            "component.lb.replica.0.picks_count|component|lb.replica.0|picks_count|",
	}
	for key, want := range cases {
		if got := strings.Join(appendMetricFields(nil, key), "|"); got != want {
			t.Errorf("%s: got %q, want %q", key, got, want)
		}
	}
}

// Rows read back with encoding/csv to the fields written, whatever a
// scenario's free-text name holds.
func TestRunRowsReadBack(t *testing.T) {
	var b strings.Builder
	b.WriteString(runsHeader)
	writeRunRows(&b, `shop, "v2"`, "base", 1.5, 0, 7, []model.Metric{{Key: model.JourneyP95.Of("pay"), Value: 0.25}, {Key: model.RouteMean.Of("a"), Value: math.NaN()}}, nil)
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"scenario", "design", "multiplier", "replication", "seed", "metric", "kind", "name", "measure", "stage", "value"},
		{`shop, "v2"`, "base", "1.5", "0", "7", "journey.pay.p95_s", "journey", "pay", "p95_s", "", "0.25"},
		{`shop, "v2"`, "base", "1.5", "0", "7", "route.a.mean_s", "route", "a", "mean_s", "", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %q", rows)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i, rows[i], want[i])
		}
	}
}

// first_failure.csv says each design's status and takes its SLO apart.
func TestFirstFailureCSV(t *testing.T) {
	bound := model.Threshold{Op: "<=", Value: 2, Text: "<= 2s"}
	cell := &Cell{Multiplier: 1.5, SLOs: []SLOStat{
		{SLO: "pay success_rate >= 0.99", Bound: model.Threshold{Op: ">=", Value: 0.99, Text: ">= 0.99"}, Key: model.JourneySuccessRate.Of("pay")},
		{SLO: "pay p95 <= 2s", Bound: bound, Broken: true, Key: model.JourneyP95.Of("pay")}}}
	nan := math.NaN()
	r := &Result{Scenario: "shop", FirstFailures: []FirstFailure{
		{Design: "a", Found: true, Multiplier: 1.5, Lo: 1.25, Hi: 1.75, SLO: "pay p95 <= 2s", Component: "db", Stage: "pay", Tried: []*Cell{cell}},
		{Design: "b", Found: true, BelowRange: true, Multiplier: 1, Lo: nan, Hi: 1, SLO: "runaway"},
		{Design: "c", Multiplier: nan, Lo: nan, Hi: nan},
	}}
	var b strings.Builder
	if err := r.WriteFirstFailureCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := `scenario,design,status,first_failure_multiplier,ci_low,ci_high,slo,slo_subject,slo_measure,slo_op,slo_bound,component,failure_stage,ci_low_known,ci_high_known,slo_metric,rank,rank_shared,slo_value,slo_ci_low,slo_ci_high,slo_n,slo_trials,verdict_level,multipliers_tried
shop,a,failed,1.5,1.25,1.75,pay p95 <= 2s,pay,p95_s,<=,2,db,pay,true,true,journey.pay.p95_s,2,false,0,0,0,0,,0.95,1.5
shop,b,below_range,1,0,1,runaway,,,,,,,false,true,,3,false,,,,,,0.95,
shop,c,held,,,,,,,,,,,,,,1,false,,,,,,0.95,
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A journey's stage counts in runs.csv have a row for every stage it can
// fail at, a zero where the run counted none, in the order of the stages:
// a stage counted in the run keeps its value, one no static walk found
// stays.
func TestRunRowsHaveEveryStage(t *testing.T) {
	ms := []model.Metric{
		{Key: model.BrokenCount.OfRun()},
		{Key: model.JourneyP99.Of("a"), Value: 1},
		{Key: model.FailedAt.OfStage("a", "pay"), Value: 3, Sparse: true},
		{Key: model.FailedAt.OfStage("a", "zz"), Value: 1, Sparse: true},
		{Key: model.JourneyP99.Of("b"), Value: 2},
		{Key: model.RouteCalls.Of("r"), Value: 4},
	}
	stages := map[string][]string{"a": {"cart", "journey", "pay"}, "b": {"journey"}}
	var names []string
	for _, m := range withZeroStages(ms, stages) {
		names = append(names, m.Name()+"="+fmtValue(m.Value))
	}
	want := "broken_count=0 journey.a.p99_s=1 journey.a.failed_at.cart_count=0 journey.a.failed_at.journey_count=0 " +
		"journey.a.failed_at.pay_count=3 journey.a.failed_at.zz_count=1 journey.b.p99_s=2 journey.b.failed_at.journey_count=0 route.r.calls_count=4"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// With a zero in every run, a plain mean of a stage's rows in runs.csv
// is the mean summary.csv gives, which counts a stage as 0 in a run where
// nothing failed there.
func TestRunsCSVStageMeanIsSummaryMean(t *testing.T) {
	c := compile(t, "trip")
	_, out := sweepBytes(t, Config{Scenario: "trip", Designs: []Design{{Name: "base", Compiled: c}},
		Multipliers: []float64{1, 4}, Replications: 3, Seed: 1, Workers: 2})
	read := func(name string) [][]string {
		rows, err := csv.NewReader(strings.NewReader(string(out[name]))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	sum, n := map[string]float64{}, map[string]int{}
	for _, r := range read("runs.csv")[1:] {
		if r[8] == "failed_at_count" {
			key := r[2] + " " + r[5]
			v, _ := strconv.ParseFloat(r[10], 64)
			sum[key] += v
			n[key]++
		}
	}
	summary := read("summary.csv")
	col := map[string]int{}
	for i, h := range summary[0] {
		col[h] = i
	}
	checked := 0
	for _, r := range summary[1:] {
		if r[col["measure"]] != "failed_at_count" {
			continue
		}
		key := r[col["multiplier"]] + " " + r[col["metric"]]
		want, _ := strconv.ParseFloat(r[col["mean"]], 64)
		if n[key] != 3 || !near(sum[key]/3, want, 1e-9) {
			t.Errorf("%s: runs.csv has %d rows, mean %g; summary.csv mean %g", key, n[key], sum[key]/float64(max(n[key], 1)), want)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("the sweep counted no stage: nothing compared")
	}
}

// first_failure.csv takes the SLO apart by what the run named, not by its
// text: a windowed SLO's text ends in its window, not its bound.
func TestFirstFailureCSVWindowedSLO(t *testing.T) {
	c := compile(t, "mmck", "slos.0.window=100s")
	_, out := sweepBytes(t, Config{Scenario: "mmck", Designs: []Design{{Name: "base", Compiled: c}},
		Multipliers: []float64{1, 2}, Replications: 2, Seed: 1, Workers: 2})
	rows, err := csv.NewReader(strings.NewReader(string(out["first_failure.csv"]))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rows[1][6:11], "|")
	if want := "customer success_rate >= 0.9 in every 1m40s window|customer|journey_success_rate|>=|0.9"; got != want {
		t.Errorf("slo columns %q, want %q", got, want)
	}
}
