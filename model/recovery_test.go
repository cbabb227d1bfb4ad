package model_test

import (
	"strings"
	"testing"
)

func TestRecoverySettingsAreChecked(t *testing.T) {
	const head = "name: r\nduration: 10m\ncomponents:\n  app: {kind: pool, servers: 1}\njourneys:\n  j:\n    "
	const steps = "\n    steps: [{use: app, work: 100ms}]\n"
	for _, c := range []struct{ journey, recovery, want string }{
		{"rate: 1/s", "{margin: 10%}",
			`r.yaml:9:11: recovery: recovery needs from and after (when the spike starts and ends): no journey has stages to find them in`},
		{"stages: [{target: 5/s, duration: 0s}, {target: 5/s, duration: 1m}, {target: 1/s, duration: 0s}]", "{margin: 10%}",
			`r.yaml: recovery.from: the spike must start after the warm-up (0s), to measure the level before it; got 0s`},
		{"rate: 1/s", "{from: 1m, after: 9m55s}",
			`r.yaml:9:11: recovery: no whole window of 10s fits between the spike's end (9m55s) and the end of the arrivals (10m0s)`},
		{"rate: 1/s", "{from: 1m, after: 2m, window: 1ms}",
			`r.yaml:9:41: recovery.window: a window of 1ms makes 480000 windows between the spike's end (2m0s) and the end of the arrivals (10m0s); at most 100000 are measured, so give a longer window`},
		{"rate: 1/s", "{from: 1m, after: 2m, baseline: 0s}",
			`r.yaml:9:43: recovery.baseline: baseline must be > 0s, got 0s`},
		{"rate: 1/s", "{from: 1m, after: 2m, baseline: 2m}",
			`r.yaml:9:43: recovery.baseline: baseline (2m0s) is longer than the time before the spike it is measured over (1m0s, from the warm-up at 0s to from at 1m0s); give at most 1m0s, or leave baseline out to measure all of it`},
		{"rate: 1/s", "{from: 1m, after: 2m, baseline: 1m}", ""},
		{"rate: 1/s", "{from: 1m, after: 2m, margin: lots}",
			`r.yaml:9:41: recovery.margin: expected a share >= 0 such as 10% or 0.1, got "lots"`},
		{"rate: 1/s\n    stages: [{target: 1/s, duration: 1m}, {target: 5/s, duration: 0s}, {target: 5/s, duration: 1m}, {target: 1/s, duration: 0s}]",
			"{margin: 20%, window: 30s}", ""},
	} {
		if got := compileErrorText("r.yaml", head+c.journey+steps+"recovery: "+c.recovery+"\n"); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// Arrivals that end by count before a window after the spike leave nothing
// to judge: the verdict says so rather than blaming a measure.
func TestRecoveryOfARunEndedEarly(t *testing.T) {
	src := scenarioSrc("early", "300s", "", "  app: {kind: pool, servers: 2}\n", `  j:
    rate: 1/s
    count: 50
    stages: [{target: 1/s, duration: 20s}, {target: 3/s, duration: 0s}, {target: 3/s, duration: 10s}, {target: 1/s, duration: 0s}]
    steps: [{use: app, work: 100ms}]
recovery: {}
`)
	v := runYAMLNoTrace(t, src).Recovery
	if want := "did not recover after the spike ended at 30s: the run ended before a window after it was measured"; v == nil || v.String() != want {
		t.Errorf("verdict %v, want %q", v, want)
	}
}

// A journey whose arrivals are over before the spike ends has no p95
// after it, and is not stuck for that: only a journey with some in flight
// and none ending is. Here the early cohort's 60 journeys end by 1m, the
// spike cohort runs from 1m to 2m and the late one from 2m on. A journey
// stuck in flight (its pool closed at 1m, with five waiting) is named as
// such.
func TestRecoveryLeavesJourneysWhoseLoadIsOver(t *testing.T) {
	src := scenarioSrc("cohorts", "5m", "arrivals: even\n",
		"  app: {kind: pool, servers: 4}\n",
		`  early: {rate: 1/s, count: 60, steps: [{use: app, work: 10ms}]}
  spike: {rate: 10/s, start: 1m, count: 600, steps: [{use: app, work: 10ms}]}
  late: {rate: 1/s, start: 2m, steps: [{use: app, work: 10ms}]}
recovery: {from: 1m, after: 2m, window: 10s}
`)
	v := runYAMLNoTrace(t, src).Recovery
	if want := "back within 10% of the pre-spike level from 2m0s, 0s after the spike ended at 2m0s"; v == nil || v.String() != want {
		t.Errorf("verdict %v, want %q", v, want)
	}
	stuck := scenarioSrc("stuck", "5m", "arrivals: even\n", `  app: {kind: pool, servers: 4}
  gate: {kind: pool, servers: 1, schedule: [{at: 1m, servers: 0}]}
`, `  early: {rate: 1/s, steps: [{use: app, work: 10ms}]}
  waiter: {rate: 1/s, stop: 65s, steps: [{use: gate, work: 10ms}]}
recovery: {from: 1m, after: 2m, window: 10s}
`)
	v = runYAMLNoTrace(t, stuck).Recovery
	if v == nil || v.Recovered {
		t.Fatalf("verdict %v, want not recovered", v)
	}
	if want := "did not recover after the spike ended at 2m0s: no waiter journey ended in the last window, though some were in flight (pre-spike p95 10ms)"; v.String() != want {
		t.Errorf("verdict %q, want %q", v, want)
	}
}

// Connections a spike opened stay open, idle, for their keep-alive after
// it: recovery waits for them. A view a second, each from its own client
// and over in 10 ms, keeps 15 connections open at a 15 s keep-alive; ten a
// second for 30 s keep 150, and those close 15 s after the spike's last,
// in the window starting then. With a 45 s keep-alive, 45 s after.
func TestRecoveryWaitsForConnectionsToClose(t *testing.T) {
	src := scenarioSrc("conns", "5m", "arrivals: even\n",
		"  conns: {kind: connections, max: 1000, idle_timeout: KEEP}\n", `  j:
    rate: 1/s
    stages: [{target: 1/s, duration: 1m}, {target: 10/s, duration: 0s}, {target: 10/s, duration: 30s}, {target: 1/s, duration: 0s}]
    steps: [{use: conns, steps: [{delay: 10ms}]}]
recovery: {window: 5s, baseline: 30s}
`)
	for _, c := range []struct {
		keep string
		back float64
	}{{"15s", 15}, {"45s", 45}} {
		v := runYAMLNoTrace(t, strings.Replace(src, "KEEP", c.keep, 1)).Recovery
		if v == nil || !v.Recovered || float64(v.Seconds) != c.back {
			t.Errorf("keep-alive %s: recovery %v, want back %g s after the spike", c.keep, v, c.back)
		}
	}
	// Measured from the warm-up on, the level before the spike includes
	// the first 15 s, when the connections were still opening (13.62 on
	// average against 15.5 after, sampled between arrivals): the level
	// after is then above the margin, and the verdict names them.
	v := runYAMLNoTrace(t, strings.Replace(strings.Replace(src, "KEEP", "15s", 1), ", baseline: 30s", "", 1)).Recovery
	if want := "did not recover after the spike ended at 1m30s: conns's open connections stay at 15.5 (pre-spike 13.62, margin 10%)"; v == nil || v.String() != want {
		t.Errorf("without a baseline: %v, want %q", v, want)
	}
}
