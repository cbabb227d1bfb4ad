package model_test

import (
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
const stormSrc = `name: storm
duration: 600s
components:
  app: {kind: pool, servers: 10, queue: 1000}
journeys:
  client:
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
`

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
