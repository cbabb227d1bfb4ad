package sweep

import (
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"capsim/model"
)

// A metric's name is written whole and taken apart, so a notebook
// filters on kind, name, measure and stage rather than splitting strings.
func TestMetricFields(t *testing.T) {
	cases := map[string]string{
		"broken_count":       "broken_count|run||broken_count|",
		"journey.trip.p95_s": "journey.trip.p95_s|journey|trip|p95_s|",
		"journey.trip.failed_at.derivative_create_count": "journey.trip.failed_at.derivative_create_count|journey|trip|failed_at_count|derivative_create",
		"component.lb.replica.0.picks_count":             "component.lb.replica.0.picks_count|component|lb.replica.0|picks_count|",
	}
	for name, want := range cases {
		if got := strings.Join(metricFields(name), "|"); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}

// Rows read back with encoding/csv to the fields written, whatever a
// scenario's free-text name holds.
func TestRunRowsReadBack(t *testing.T) {
	var b strings.Builder
	b.WriteString(runsHeader)
	writeRunRows(&b, `shop, "v2"`, "base", 1.5, 0, 7, []model.Metric{{Name: "journey.pay.p95_s", Value: 0.25}, {Name: "route.a.mean_s", Value: math.NaN()}})
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
		{SLO: "pay success_rate >= 0.99", Bound: model.Threshold{Op: ">=", Value: 0.99, Text: ">= 0.99"}},
		{SLO: "pay p95 <= 2s", Bound: bound, Broken: true}}}
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
	want := `scenario,design,status,first_failure_multiplier,ci_low,ci_high,slo,slo_subject,slo_measure,slo_op,slo_bound,component,failure_stage
shop,a,failed,1.5,1.25,1.75,pay p95 <= 2s,pay,p95,<=,2,db,pay
shop,b,below_range,1,,1,runaway,,,,,,
shop,c,held,,,,,,,,,,
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
