package model_test

import (
	"math"
	"testing"

	"capsim/model"
)

// A journey with scaled: false keeps its load whatever the multiplier: a
// health check, a sampler polling on its own clock.
func TestUnscaledJourneyKeepsItsLoad(t *testing.T) {
	src := scenarioSrc("unscaled", "100s", "", "  app: {kind: pool, servers: 1000}\n", `  users:
    rate: 10/s
    steps: [{use: app, work: 10ms}]
  health:
    rate: 1/s
    scaled: false
    steps: [{use: app, work: 1ms}]
  sampler:
    clients: 2
    think: 1s
    scaled: false
    steps: [{use: app, work: 1s}]
`)
	started := func(m float64) (users, health, sampler int64) {
		res, _ := runYAML(t, src, model.RunOptions{Multiplier: m, Seed: 7})
		u, _ := res.Journey("users")
		h, _ := res.Journey("health")
		s, _ := res.Journey("sampler")
		return u.Started, h.Started, s.Started
	}
	u1, h1, s1 := started(1)
	u3, h3, s3 := started(3)
	// Its own stream, drawn the same way: the very same arrivals.
	if h3 != h1 || s3 != s1 {
		t.Errorf("unscaled journeys started %d and %d at x3, %d and %d at x1; want the same", h3, s3, h1, s1)
	}
	// Two clients, each a journey of 1 s then 1 s of thought: 50 each.
	if s1 != 100 {
		t.Errorf("sampler started %d journeys; want 100", s1)
	}
	// The scaled journey: Poisson with mean 3000 at x3, 1000 at x1; 3.29
	// standard deviations is a two-sided 99.9 % interval.
	for _, tc := range []struct {
		n    int64
		mean float64
	}{{u1, 1000}, {u3, 3000}} {
		if math.Abs(float64(tc.n)-tc.mean) > 3.29*math.Sqrt(tc.mean) {
			t.Errorf("users started %d; want %g ± %.0f", tc.n, tc.mean, 3.29*math.Sqrt(tc.mean))
		}
	}
	if h1 < 70 || h1 > 130 {
		t.Errorf("health started %d in 100 s at 1/s; want 100 ± 30", h1)
	}
}
