package model

import "testing"

// Signal names come apart as the time series write them, dots in the
// names of components included.
func TestParseSignalNames(t *testing.T) {
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
