package model_test

import (
	"math"
	"slices"
	"testing"

	"capsim/model"
)

// A repeating shape (repeat_every) against the arithmetic of its
// cumulative rate, which now runs on across periods.

// From 5 s, a 20 s period: a ramp from 0 to 2/s over 10 s (Λ = t²/10,
// 10 arrivals) then 2/s held to the period's end (20 more). The k-th even
// arrival of each period is at √(10k) s into it for k <= 10, and at
// 10 + (k−10)/2 s after that.
func TestEvenArrivalsRepeatWithTheirPeriod(t *testing.T) {
	src := scenarioSrc("daily", "65s", "arrivals: even\n",
		"  app: {kind: pool, servers: 100}\n", `  j:
    start: 5s
    repeat_every: 20s
    stages: [{target: 2/s, duration: 10s}]
    steps: [{use: app, work: 1ms}]
`)
	_, events := runYAML(t, src, model.RunOptions{Seed: 1})
	var want []float64
	for period := 0; period < 3; period++ {
		for k := 1; k <= 30; k++ {
			in := 10 + float64(k-10)/2
			if k <= 10 {
				in = math.Sqrt(10 * float64(k))
			}
			want = append(want, 5+20*float64(period)+in)
		}
	}
	want = want[:len(want)-1] // the last lands on 65 s, the end of arrivals
	checkArrivals(t, starts(events), want)
}

// A period of 10 s whose rate is 0 but for 0.35/s in its last second:
// 0.35 arrivals a period, so even arrivals skip whole periods, and the
// k-th is where 0.35·(whole periods) plus 0.35/s into the last second
// reaches k.
func TestEvenArrivalsAcrossQuietPeriods(t *testing.T) {
	src := scenarioSrc("quiet", "195s", "arrivals: even\n",
		"  app: {kind: pool, servers: 100}\n", `  j:
    repeat_every: 10s
    stages: [{target: 0/s, duration: 9s}, {target: 0.35/s, duration: 0s}]
    steps: [{use: app, work: 1ms}]
`)
	_, events := runYAML(t, src, model.RunOptions{Seed: 1})
	var want []float64
	for k := 1.0; k <= 6; k++ {
		full := math.Floor(k / 0.35)
		want = append(want, 10*full+9+(k-0.35*full)/0.35)
	}
	checkArrivals(t, starts(events), want)
}

// A daily shape in miniature, 100 s long: from 1/s a ramp to 10/s over
// 25 s (137.5 arrivals expected), 10/s for 25 s (250), a ramp back to 1/s
// (137.5) and 1/s to the period's end (25). Over 20 periods each quarter
// of each period holds a Poisson count within 4 standard deviations of
// its mass, at multipliers 1 and 3.
func TestPoissonArrivalsRepeatWithTheirPeriod(t *testing.T) {
	src := scenarioSrc("daily", "2000s", "", "  app: {kind: pool, servers: 1000}\n", `  j:
    rate: 1/s
    repeat_every: 100s
    stages:
      - {target: 10/s, duration: 25s}
      - {target: 10/s, duration: 25s}
      - {target: 1/s, duration: 25s}
    steps: [{use: app, work: 1ms}]
`)
	mass := [4]float64{137.5, 250, 137.5, 25}
	for _, mult := range []float64{1, 3} {
		_, events := runYAML(t, src, model.RunOptions{Seed: 3, Multiplier: mult})
		var n [20][4]float64
		for _, ts := range starts(events) {
			n[int(ts/100)][int(math.Mod(ts, 100)/25)]++
		}
		for p := range n {
			for q, m := range mass {
				want := m * mult
				if math.Abs(n[p][q]-want) > 4*math.Sqrt(want) {
					t.Errorf("multiplier %g, period %d, quarter %d: %g arrivals, want %g ± %.0f", mult, p, q, n[p][q], want, 4*math.Sqrt(want))
				}
			}
		}
	}
}

func TestRepeatEveryNeedsStagesThatFit(t *testing.T) {
	for _, c := range []struct{ journey, want string }{
		{"rate: 1/s\n    repeat_every: 1h",
			`r.yaml:8:19: journeys.j.repeat_every: repeat_every repeats the journey's stages, and it has none`},
		{"repeat_every: 1h\n    stages: [{target: 2/s, duration: 50m}, {target: 0/s, duration: 20m}]",
			`r.yaml:7:19: journeys.j.repeat_every: the stages last 1h10m0s, longer than repeat_every (1h0m0s), so they cannot repeat within it`},
		{"repeat_every: 0s\n    stages: [{target: 2/s, duration: 50m}]",
			`r.yaml:7:19: journeys.j.repeat_every: repeat_every must be > 0s, got 0s`},
	} {
		checkJourneyRefused(t, "r", c.journey, c.want)
	}
}

// A closed workload's ramp repeats too: 0 → 2 clients over 2 s every
// 10.3 s (work 1 s, think 0.5 s). At each period's start the count is back
// to 0: both clients finish the journey they are in and stop, and the
// ramp starts them again at 1 s and 2 s into the period.
func TestClosedClientsRepeatTheirStages(t *testing.T) {
	src := scenarioSrc("vus", "20s", "", "  app: {kind: pool, servers: 100}\n", `  j:
    clients: 0
    think: 500ms
    repeat_every: 10.3s
    stages: [{target: 2, duration: 2s}]
    steps: [{use: app, work: 1s}]
`)
	_, events := runYAML(t, src, model.RunOptions{Seed: 1})
	var want []float64
	for _, first := range []float64{1, 2, 11.3, 12.3} {
		end := 10.3
		if first > 10 {
			end = 20
		}
		for s := first; s < end; s += 1.5 {
			want = append(want, s)
		}
	}
	slices.Sort(want)
	if got := starts(events); !equalFloats(got, want) {
		t.Errorf("journeys started at\n%v\nwant\n%v", got, want)
	}
}
