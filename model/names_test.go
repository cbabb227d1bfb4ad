package model

import "testing"

// Metric and signal names come apart as Metrics and the time series write
// them, dots in the names of journeys and components included.
func TestParseNames(t *testing.T) {
	metrics := []struct {
		name string
		want MetricName
	}{
		{"broken_count", MetricName{Measure: "broken_count"}},
		{"journey.trip.p95_s", MetricName{Kind: "journey", Entity: "trip", Measure: "p95_s"}},
		{"journey.v1.trip.journey_success_rate", MetricName{Kind: "journey", Entity: "v1.trip", Measure: "journey_success_rate"}},
		{"journey.trip.failed_at.upload_count", MetricName{Kind: "journey", Entity: "trip", Measure: "failed_at.upload_count", Stage: "upload"}},
		{"route.GET /a.b.p95_s", MetricName{Kind: "route", Entity: "GET /a.b", Measure: "p95_s"}},
		{"component.lb.replica.0.picks_count", MetricName{Kind: "component", Entity: "lb.replica.0", Measure: "picks_count"}},
	}
	for _, c := range metrics {
		if got := ParseMetricName(c.name); got != c.want {
			t.Errorf("ParseMetricName(%q) = %+v, want %+v", c.name, got, c.want)
		}
	}
	signals := []struct{ name, component, measure string }{
		{"journeys_in_flight", "", "journeys_in_flight"},
		{"api.busy", "api", "busy"},
		{"db.primary.queue", "db.primary", "queue"},
	}
	for _, c := range signals {
		if comp, m := ParseSignalName(c.name); comp != c.component || m != c.measure {
			t.Errorf("ParseSignalName(%q) = %q, %q, want %q, %q", c.name, comp, m, c.component, c.measure)
		}
	}
}
