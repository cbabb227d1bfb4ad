package calibration

import (
	"strings"
	"testing"
)

// A driver's latencies in each form it may write them, and the errors.
func TestClientLatency(t *testing.T) {
	for _, c := range []struct {
		in   string
		unit Unit
		want float64
		err  string
	}{
		{"812.4", 1e-3, 812.4 * 1e-3, ""},
		{"812.4ms", 0, 812.4 * 1e-3, ""},
		{"812.4 ms", 1, 812.4 * 1e-3, ""}, // its own unit over the field's
		{"0.8s", 0, 0.8, ""},
		{"1.5e3ms", 0, 1.5, ""},
		{"2 min", 0, 120, ""},
		{"1m30s", 0, 90, ""},
		{"812", 0, 0, "812 is a number without a unit: give unit: under fields: (ms, s, ...)"},
		{"812xs", 1e-3, 0, `"812xs" has an unknown unit "xs" (want ns, us, ms, s, m or h)`},
		{"fast", 1e-3, 0, `"fast" is not a number or a duration such as 812ms`},
		{"-3ms", 0, 0, `"-3ms" is negative`},
	} {
		got, err := clientLatency(c.in, c.unit)
		if msg := errText(err); got != c.want || msg != c.err {
			t.Errorf("clientLatency(%q, %g) = %g, %q; want %g, %q", c.in, c.unit, got, msg, c.want, c.err)
		}
	}
}

// A route field holding a path is matched by the route's pattern, a name
// by the pattern as k6's name tag is.
func TestClientRouteMatcher(t *testing.T) {
	match, err := RouteMatcher("/api/trips/*")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"/api/trips/7": true, "https://h/api/trips/7?x=1": true, "/api/trips/7/photos": false, "trips": false} {
		if match(name) != want {
			t.Errorf("%q: match %v, want %v", name, !want, want)
		}
	}
}

// Requests come out with their failure: a status of 400 or more, or a flag
// set on a request without a status.
func TestReadClientLog(t *testing.T) {
	log := `{"t":"2026-01-01T00:00:00.5Z","r":"a","s":200,"ms":10}
# a comment
{"t":1767225601,"r":"a","s":503,"ms":"20ms"}
{"t":"1767225602000","r":"b","ms":30000,"timeout":true}
`
	reqs, err := ReadClientLog("d.jsonl", strings.NewReader(log), ClientFields{Time: "t", Route: "r", Status: "s", Latency: "ms", Unit: 1e-3, Timeout: "timeout"})
	if err != nil {
		t.Fatal(err)
	}
	want := []ClientRequest{{1767225600.5, "a", 200, 0.01, false}, {1767225601, "a", 503, 0.02, true}, {1767225602, "b", 0, 30, true}}
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i := range want {
		if reqs[i] != want[i] {
			t.Errorf("request %d: %+v, want %+v", i, reqs[i], want[i])
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
