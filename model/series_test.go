package model_test

import (
	"testing"

	"capsim/model"
	"capsim/sim"
)

// A time series follows the state to the run's end, not to the last
// journey: five journeys in the first 5 s each leave a connection open
// for its 30 s keep-alive; with a drain the run goes on while they close,
// one a second from 31 s, and the series shows them closing instead of
// holding five open to the end.
func TestASeriesFollowsTheStateAfterTheLastJourney(t *testing.T) {
	src := scenarioSrc("keepalive", "5s", `drain: 60s
arrivals: even
`, "  conns: {kind: connections, max: 10, idle_timeout: 30s}\n", `  j:
    rate: 1/s
    steps: [{use: conns, work: 500ms}]
`)
	res, _ := runYAML(t, src, model.RunOptions{Seed: 1, SeriesStep: sim.Seconds(1)})
	var open []float64
	for _, s := range res.Series.Signals {
		if s.Name == "conns.open" {
			open = s.Values
		}
	}
	// Journey k (0-4) opens at k s, just after that second's sample, and
	// its connection closes at k + 0.5 + 30 s: at second t, those with
	// k < t < k + 30.5 are open.
	want := func(t int) float64 {
		n := 0.0
		for k := 0; k < 5; k++ {
			if float64(k) < float64(t) && float64(k)+30.5 > float64(t) {
				n++
			}
		}
		return n
	}
	if len(open) != 66 {
		t.Fatalf("conns.open has %d samples, want 66 (0 to 65 s, the drain's end): %v", len(open), open)
	}
	for i, v := range open {
		if v != want(i) {
			t.Fatalf("conns.open at %d s is %g, want %g: %v", i, v, want(i), open)
		}
	}
}

// Each signal says which component it samples and what of it, so nothing
// takes its name apart: a name may hold / and -, a replica's [i].
func TestSignalsCarryTheirParts(t *testing.T) {
	src := scenarioSrc("parts", "5s", "arrivals: even\n",
		"  lb: {kind: balancer, replicas: 2}\n  db/primary-1: {kind: pool, servers: 1, behind: lb}\n", `  j:
    rate: 1/s
    steps: [{use: lb, steps: [{use: db/primary-1, work: 100ms}]}]
`)
	res, _ := runYAML(t, src, model.RunOptions{Seed: 1, SeriesStep: sim.Seconds(1)})
	got := map[string][2]string{}
	for _, s := range res.Series.Signals {
		got[s.Name] = [2]string{s.Component, s.Measure}
	}
	want := map[string][2]string{
		"journeys_in_flight":    {"", "journeys_in_flight"},
		"db/primary-1[1].busy":  {"db/primary-1[1]", "busy"},
		"db/primary-1[1].queue": {"db/primary-1[1]", "queue"},
	}
	for name, parts := range want {
		if got[name] != parts {
			t.Errorf("%s: component and measure %q, want %q", name, got[name], parts)
		}
	}
}
