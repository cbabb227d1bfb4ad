package model_test

import (
	"math"
	"slices"
	"testing"

	"capsim/model"
)

var waveSrc = scenarioSrc("wave", "10000s", "", "  app: {kind: pool, servers: 1000}\n", `  j:
    rate: 5/s
    wave: {amplitude: 0.8, period: 100s, phase: 25s}
    steps: [{delay: 1ms}]
`)

// A wave of 5/s at multiplier 2, amplitude 0.8, period 100 s and phase
// 25 s (the peak at t = 0) over 100 periods. The arrivals falling in each
// of 20 phase bins [a, b) must match the integral of the rate,
//
//	E = 100 × 10/s × [(b − a) − 0.8·P/2π·(cos 2π(b+φ)/P − cos 2π(a+φ)/P)],
//
// from about 8,950 at the peak to 1,050 at the trough: the chi-square
// statistic Σ (n − E)²/E over the 20 bins (20 degrees of freedom, nothing
// fitted) must stay below 45.31, its 99.9th percentile. A constant 10/s
// (5,000 a bin) would score over 10,000.
func TestWaveArrivalsFollowTheSine(t *testing.T) {
	const rate, amp, period, phase, periods, bins = 10.0, 0.8, 100.0, 25.0, 100, 20
	_, events := runYAML(t, waveSrc, model.RunOptions{Seed: 7, Multiplier: 2})
	var n [bins]float64
	for _, ts := range starts(events) {
		n[int(math.Mod(ts, period)/(period/bins))]++
	}
	chi2, total := 0.0, 0.0
	for k := range n {
		a, b := float64(k)*period/bins, float64(k+1)*period/bins
		w := 2 * math.Pi / period
		want := periods * rate * ((b - a) - amp/w*(math.Cos(w*(b+phase))-math.Cos(w*(a+phase))))
		chi2 += (n[k] - want) * (n[k] - want) / want
		total += want
	}
	t.Logf("chi-square %.2f over %d bins; peak bin %g, trough bin %g", chi2, bins, n[0], n[bins/2])
	if chi2 > 45.31 {
		t.Errorf("chi-square %.1f over %d phase bins, above 45.31 (p = 0.001): counts %v", chi2, bins, n)
	}
	if math.Abs(total-100000) > 1e-6 {
		t.Errorf("the rate integrates to %g arrivals, want 100,000", total)
	}
	// The peak bin holds 9 times the trough's: 1 + 0.8 against 1 − 0.8,
	// nearly, over bins 5 s wide.
	if n[0] < 5*n[bins/2] {
		t.Errorf("peak bin %g against trough bin %g: the wave is not there", n[0], n[bins/2])
	}
}

// The same seed gives the same arrivals, to the nanosecond; another seed
// other ones.
func TestWaveArrivalsAreDeterministic(t *testing.T) {
	src := scenarioSrc("wave", "600s", "", "  app: {kind: pool, servers: 1000}\n", `  j:
    rate: 2/s
    wave: {amplitude: 1, period: 1m}
    steps: [{delay: 1ms}]
`)
	_, a := runYAML(t, src, model.RunOptions{Seed: 11})
	_, b := runYAML(t, src, model.RunOptions{Seed: 11})
	_, c := runYAML(t, src, model.RunOptions{Seed: 12})
	ta, tb, tc := starts(a), starts(b), starts(c)
	if len(ta) < 1000 || !slices.Equal(ta, tb) {
		t.Errorf("seed 11 twice: %d and %d arrivals, equal %v", len(ta), len(tb), slices.Equal(ta, tb))
	}
	if slices.Equal(ta, tc) {
		t.Errorf("seeds 11 and 12 gave the same %d arrivals", len(ta))
	}
}

func TestWaveIsRefusedWhereItCannotApply(t *testing.T) {
	for _, c := range []struct{ journey, want string }{
		{"rate: 1/s\n    wave: {amplitude: 1.5, period: 1h}",
			`r.yaml:8:23: journeys.j.wave.amplitude: amplitude must be between 0 and 1, got 1.5`},
		{"rate: 1/s\n    wave: {amplitude: 0.5}",
			`r.yaml:8:11: journeys.j.wave: a wave needs period, e.g. {amplitude: 0.5, period: 1h}`},
		{"stages: [{target: 2/s, duration: 50m}]\n    wave: {amplitude: 0.5, period: 1h}",
			`r.yaml:8:11: journeys.j.wave: give stages or wave, not both: a wave follows a sine around rate, stages ramp it`},
		{"clients: 3\n    wave: {amplitude: 0.5, period: 1h}",
			`r.yaml:8:11: journeys.j.wave: wave shapes an open workload's rate, and this journey is closed (clients); ramp its clients with stages instead`},
	} {
		checkJourneyRefused(t, "r", c.journey, c.want)
	}
}

// Even arrivals of 1/s with amplitude 0.5 and period 10 s come where
// Λ(0, t) = t − 0.5·10/2π·(cos(2πt/10) − 1) crosses each whole number, the
// first at 0 s; Λ(0, 95 s) = 95 + 10/2π ≈ 96.59, so 97 arrive in 95 s, the
// k-th (from 0) at the t where Λ(0, t) = k, to the nanosecond.
func TestEvenWaveArrivalsFollowTheCumulativeRate(t *testing.T) {
	src := scenarioSrc("wave", "95s", "arrivals: even\n",
		"  app: {kind: pool, servers: 10}\n", `  j:
    rate: 1/s
    wave: {amplitude: 0.5, period: 10s}
    steps: [{delay: 1ms}]
`)
	_, events := runYAML(t, src, model.RunOptions{})
	ts := starts(events)
	if len(ts) != 97 {
		t.Fatalf("%d arrivals, want 97", len(ts))
	}
	cum := func(t float64) float64 { return t - 0.5*10/(2*math.Pi)*(math.Cos(2*math.Pi*t/10)-1) }
	for k, at := range ts {
		// Λ' is at least 0.5/s, so 1e-9 of Λ is at most 2 ns of time.
		if got := cum(at); math.Abs(got-float64(k)) > 1e-8 {
			t.Errorf("arrival %d at %.9fs, where Λ = %.9f, want %d", k, at, got, k)
		}
	}
}
