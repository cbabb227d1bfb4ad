package model_test

import (
	"math"
	"strings"
	"testing"

	"capsim/model"
)

// A retry storm. A pool of 10 servers at 100 ms a request (100 requests/s)
// serves 80 requests/s with room to spare; for 30 s the rate doubles. A
// caller gives up after 1 s, but the request it gave up on stays queued and
// is served for nobody (giving up is not cancelling), so every timeout adds
// a retry on top of work that is still there. With immediate retries the
// backlog feeds itself and the system never comes back after the spike
// (a metastable failure); with jittered exponential backoff and a retry
// budget it drains and recovers.
var stormSrc = scenarioSrc("storm", "600s", "",
	"  app: {kind: pool, servers: 10, queue: 1000}\n", `  client:
    rate: 80/s
    stages:
      - {target: 80/s, duration: 100s}
      - {target: 160/s, duration: 0s}
      - {target: 160/s, duration: 30s}
      - {target: 80/s, duration: 0s}
    steps:
      - call: work
        timeout: 1s
        retry: RETRY
routes:
  work:
    steps: [{use: app, work: exponential(mean=100ms)}]
`)

// successBetween is the share of journeys that succeeded among those
// ending in [from, to).
func successBetween(events []model.TraceEvent, from, to float64) float64 {
	var ok, n float64
	for _, e := range events {
		if e.Event == model.EvJourneyEnd && e.Journey == "client" && e.T >= from && e.T < to {
			n++
			if e.Status < 400 {
				ok++
			}
		}
	}
	return ok / n
}

func TestRetryStormIsMetastableUnlessRetriesBackOff(t *testing.T) {
	immediate := "{attempts: 4, backoff: 1ms, multiplier: 1, on: [504]}"
	calm := "{attempts: 4, backoff: 1s, multiplier: 2, jitter: full, on: [504], throttle: {max_tokens: 100, token_ratio: 0.1}}"
	_, storm := runYAML(t, strings.Replace(stormSrc, "RETRY", immediate, 1), model.RunOptions{Seed: 1})
	_, backoff := runYAML(t, strings.Replace(stormSrc, "RETRY", calm, 1), model.RunOptions{Seed: 1})
	for _, c := range []struct {
		name     string
		events   []model.TraceEvent
		from, to float64
		lo, hi   float64
	}{
		{"immediate retries before the spike", storm, 0, 100, 0.99, 1},
		{"immediate retries long after the spike", storm, 300, 600, 0, 0.01},
		{"backed-off retries before the spike", backoff, 0, 100, 0.99, 1},
		{"backed-off retries long after the spike", backoff, 300, 600, 0.99, 1},
	} {
		if s := successBetween(c.events, c.from, c.to); s < c.lo || s > c.hi {
			t.Errorf("%s: success %.4f in [%gs, %gs), want within [%g, %g]", c.name, s, c.from, c.to, c.lo, c.hi)
		}
	}
}

// The recovery verdict on the same storm: from the end of the spike at
// 130 s, immediate retries never bring the pool's queue back near its
// pre-spike level (it stays full, at about its 1,000 places), while
// backed-off retries drain it and are back within 10% from the window
// starting at 190 s.
func TestRecoveryVerdictOnTheRetryStorm(t *testing.T) {
	immediate := "{attempts: 4, backoff: 1ms, multiplier: 1, on: [504]}"
	calm := "{attempts: 4, backoff: 1s, multiplier: 2, jitter: full, on: [504], throttle: {max_tokens: 100, token_ratio: 0.1}}"
	withVerdict := func(retry string) string {
		return strings.Replace(stormSrc, "RETRY", retry, 1) + "recovery: {margin: 10%, window: 10s}\n"
	}
	storm := runYAMLNoTrace(t, withVerdict(immediate)).Recovery
	if storm == nil || storm.Recovered || len(storm.Above) == 0 || storm.Above[0].Component != "app" || storm.Above[0].Value < 990 {
		t.Errorf("immediate retries: %+v, want not recovered with app's queue near 1000 first", storm)
	} else if got, want := storm.String(), "did not recover after the spike ended at 2m10s: app's queue stays at "; !strings.HasPrefix(got, want) {
		t.Errorf("immediate retries: %q, want it to start %q", got, want)
	}
	calmed := runYAMLNoTrace(t, withVerdict(calm)).Recovery
	if calmed == nil || !calmed.Recovered || calmed.At != 190 || calmed.Seconds != 60 || calmed.From != 100 || calmed.After != 130 {
		t.Errorf("backed-off retries: %+v, want the spike from 100 s to 130 s, recovered at 190 s (60 s after)", calmed)
	} else if got, want := calmed.String(), "back within 10% of the pre-spike level from 3m10s, 1m0s after the spike ended at 2m10s"; got != want {
		t.Errorf("backed-off retries: %q, want %q", got, want)
	}
}

// The verdict is also two metrics, so a sweep can find the load past
// which the storm no longer recovers.
func TestRecoveryMetrics(t *testing.T) {
	calm := "{attempts: 4, backoff: 1s, multiplier: 2, jitter: full, on: [504], throttle: {max_tokens: 100, token_ratio: 0.1}}"
	immediate := "{attempts: 4, backoff: 1ms, multiplier: 1, on: [504]}"
	for _, c := range []struct {
		retry               string
		recovered, recovery float64 // NaN: none
	}{{calm, 1, 60}, {immediate, 0, math.NaN()}} {
		res := runYAMLNoTrace(t, strings.Replace(stormSrc, "RETRY", c.retry, 1)+"recovery: {margin: 10%}\n")
		got := map[string]float64{}
		for _, m := range res.Metrics() {
			got[m.Name()] = m.Value
		}
		if got["recovered_rate"] != c.recovered || !(got["recovery_s"] == c.recovery || math.IsNaN(c.recovery) && math.IsNaN(got["recovery_s"])) {
			t.Errorf("retry %s: recovered_rate %g, recovery_s %g; want %g, %g", c.retry, got["recovered_rate"], got["recovery_s"], c.recovered, c.recovery)
		}
	}
}
