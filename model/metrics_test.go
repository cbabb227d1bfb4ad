package model_test

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
)

var metricsScenario = scenarioSrc("m", "10m", "", `  app: {kind: pool, servers: 1, queue: 1}
  db: {kind: lock, wait_timeout: 1s}
  ext: {kind: bucket, rate: 2/s, max_wait: 100ms}
  ai: {kind: worker, instances: 1, cold_start: 1s, idle_stop: 10s}
`, `  visit:
    rate: 2/s
    steps:
      - call: page
        stage: browse
routes:
  page:
    steps:
      - use: app
        work: exponential(mean=1s)
      - use: db
        work: 10ms
      - use: ext
      - use: ai
        work: 10ms
`)

// Metric names carry their unit and follow the scenario's order: this list
// is the reference the README shows.
func TestMetricNames(t *testing.T) {
	c := compileIn(t, fstest.MapFS{"m.yaml": {Data: []byte(metricsScenario)}}, "m.yaml", model.LoadOptions{})
	res := mustRun(t, c, model.RunOptions{Seed: 1})
	var fixed, sparse []string
	values := map[string]float64{}
	unit := regexp.MustCompile(`_(s|rate|count|per_s|ratio)$`)
	for _, m := range res.Metrics() {
		if !unit.MatchString(m.Name()) {
			t.Errorf("%s: name does not end in a unit", m.Name())
		}
		values[m.Name()] = m.Value
		if m.Sparse {
			sparse = append(sparse, m.Name())
		} else {
			fixed = append(fixed, m.Name())
		}
	}
	want := `broken_count slos_broken_count
journey.visit.started_count journey.visit.succeeded_count journey.visit.failed_count journey.visit.unfinished_count
journey.visit.journey_success_rate journey.visit.journey_failure_rate
journey.visit.http_requests_count journey.visit.http_failures_count journey.visit.http_failure_rate
journey.visit.mean_s journey.visit.p50_s journey.visit.p95_s journey.visit.p99_s
journey.visit.all_mean_s journey.visit.all_p50_s journey.visit.all_p95_s journey.visit.all_p99_s
route.page.calls_count route.page.failures_count route.page.failure_rate
route.page.mean_s route.page.p50_s route.page.p95_s route.page.p99_s
route.page.all_mean_s route.page.all_p50_s route.page.all_p95_s route.page.all_p99_s`
	for _, c := range []string{"app", "db", "ext", "ai"} {
		want += "\n" + strings.ReplaceAll(`component.C.capacity_count component.C.utilisation_rate component.C.mean_busy_count component.C.peak_busy_count
component.C.mean_queue_count component.C.peak_queue_count
component.C.offered_count component.C.rejected_count component.C.timed_out_count component.C.rejection_rate
component.C.mean_wait_s component.C.p95_wait_s`, "C", c)
		switch c {
		case "ext":
			want += " component.ext.rate_steps_count component.ext.final_refill_per_s"
		case "ai":
			want += " component.ai.cold_starts_count"
		}
	}
	if got := strings.Join(fixed, " "); got != strings.Join(strings.Fields(want), " ") {
		t.Errorf("metrics:\n%s\nwant:\n%s", got, strings.Join(strings.Fields(want), " "))
	}
	// One server with one waiting place at 2 arrivals per second: most
	// visits are refused at the pool, inside route page, which is the
	// innermost label of the failure (the journey's "browse" is outside it).
	j := res.Journeys[0]
	if j.Failed == 0 || strings.Join(sparse, " ") != "journey.visit.failed_at.page_count" {
		t.Fatalf("failed %d, sparse metrics %v", j.Failed, sparse)
	}
	if got := values["journey.visit.failed_at.page_count"]; got != float64(j.Failed+j.Unfinished) {
		t.Errorf("failed_at.page_count %g, want %d", got, j.Failed+j.Unfinished)
	}
	if got := values["journey.visit.journey_success_rate"] + values["journey.visit.journey_failure_rate"]; got != 1 {
		t.Errorf("success + failure rates = %g", got)
	}
	if got := values["component.app.capacity_count"]; got != 1 {
		t.Errorf("component.app.capacity_count = %g; the pool has 1 server", got)
	}
	for _, name := range []string{"component.db.utilisation_rate", "component.db.capacity_count", "component.ext.peak_queue_count", "component.ext.mean_busy_count"} {
		if !math.IsNaN(values[name]) {
			t.Errorf("%s = %g; a lock has no capacity and a bucket no queue: want NaN", name, values[name])
		}
	}
}
