package model_test

import "testing"

// A windowed SLO holds "in every window": with no whole window measured
// it would hold of none and read as met, so a window longer than what the
// run measures is refused, and one that fits runs.
func TestSLOWindowLongerThanTheRunIsRefused(t *testing.T) {
	src := func(window string) string {
		return "name: w\nduration: 10s\nwarmup: 2s\ncomponents:\n  a: {kind: pool, servers: 2}\n" +
			"journeys:\n  j:\n    rate: 1/s\n    steps: [{use: a, work: 10ms}]\n" +
			"slos:\n  - {journey: j, p95: \"<= 1s\", window: " + window + "}\n"
	}
	_, err := compileSrc(src("9s"))
	want := "r.yaml:11:40: slos[0].window: window (9s) is longer than the run measures (8s from the warm-up to the end of the arrivals)"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if _, err := compileSrc(src("8s")); err != nil {
		t.Errorf("a window the run measures once: %v", err)
	}
}
