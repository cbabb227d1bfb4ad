package model_test

import (
	"fmt"
	"math"
	"testing"

	"capsim/model"
)

// A repeating capacity schedule against its timeline: one server, none
// from 4 s to 6 s of every 10 s period. Each one-second job below finds
// the desk empty or waits on the one before it, so its latency is the wait
// the schedule makes plus its work.
func TestARepeatingScheduleRepeatsItsSteps(t *testing.T) {
	src := scenarioSrc("shifts", "50s", "arrivals: even\n",
		"  desk: {kind: pool, servers: 1, schedule: [{at: 4s, servers: 0}, {at: 6s, servers: 1}], schedule_period: 10s}\n",
		"")
	// start (s) → latency (s).
	jobs := []struct{ start, latency float64 }{
		{2.5, 1},    // first period, before the cut
		{4.5, 2.5},  // first period, granted at 6 s
		{24.5, 2.5}, // third period, granted at 26 s
		{27, 1},     // third period, after the return
		{33.5, 1},   // fourth period: runs through the cut at 34 s
		{34.5, 2.5}, // the server is free but cut: granted at its return at 36 s
		{43.8, 1},   // fifth period, through the cut again
		{44.2, 2.8}, // granted at 46 s
		{44.5, 3.5}, // waits on the cut, then on the job before it
	}
	for i, j := range jobs {
		src += fmt.Sprintf("  j%d: {rate: 1/s, start: %gs, count: 1, steps: [{use: desk, work: 1s}]}\n", i, j.start)
	}
	res, _ := runYAML(t, src, model.RunOptions{})
	for i, j := range jobs {
		if got := float64(res.Journeys[i].Latency.Max); math.Abs(got-j.latency) > 1e-9 {
			t.Errorf("job starting at %gs: latency %gs, want %gs", j.start, got, j.latency)
		}
	}
	// The run ends with the last job at 48 s: one server for 4 s, then 8 s
	// in each of the next four periods, and 2 s from 46 s.
	desk, _ := res.Component("desk")
	if want := 38.0 / 48; math.Abs(desk.Capacity-want) > 1e-12 {
		t.Errorf("mean capacity %g, want 38/48", desk.Capacity)
	}
}

// Capacity alternating under constant work: 2 servers (or permits) for
// the first 3 minutes of every 10, 4 for the other 7, over six whole
// periods. The mean capacity is the average over a period, (2×3 + 4×7)/10
// = 3.4, and the work a one-second job at 1/s brings is served whatever
// the capacity (it never falls to the load): a mean of λ·S = 1 busy, within
// four standard deviations of the Poisson arrivals' count (√3600/3600).
func TestARepeatingScheduleAveragesOverItsPeriods(t *testing.T) {
	for _, kind := range []string{"pool, servers", "semaphore, permits"} {
		word := kind[len(kind)-7:]
		src := fmt.Sprintf(`name: alternating
duration: 1h
drain: 0s
components:
  desk: {kind: %s: 2, schedule: [{at: 0s, %s: 2}, {at: 3m, %s: 4}], schedule_period: 10m}
journeys:
  j: {rate: 1/s, steps: [{use: desk, work: 1s}]}
`, kind, word, word)
		res, _ := runYAML(t, src, model.RunOptions{Seed: 3})
		desk, _ := res.Component("desk")
		if math.Abs(desk.Capacity-3.4) > 1e-9 {
			t.Errorf("%s: mean capacity %.12g, want 3.4", kind, desk.Capacity)
		}
		busy := float64(desk.MeanBusy)
		if math.Abs(busy-1) > 4*math.Sqrt(3600)/3600 {
			t.Errorf("%s: mean busy %g, want 1 ± %g", kind, busy, 4*math.Sqrt(3600)/3600)
		}
		if u := float64(desk.Utilisation); math.Abs(u-busy/3.4) > 1e-9 {
			t.Errorf("%s: utilisation %g, want mean busy / 3.4 = %g", kind, u, busy/3.4)
		}
	}
}

// A period is checked where it is written.
func TestSchedulePeriodErrors(t *testing.T) {
	for _, tc := range []struct{ comp, want string }{
		{"{kind: pool, servers: 1, schedule_period: 10s}",
			"s.yaml:4:51: components.desk.schedule_period: schedule_period needs a schedule (the steps it repeats)"},
		{"{kind: pool, servers: 1, schedule: [{at: 4s, servers: 0}], schedule_period: 0s}",
			"s.yaml:4:85: components.desk.schedule_period: schedule_period must be > 0s, got 0s"},
		{"{kind: pool, servers: 1, schedule: [{at: 4s, servers: 0}, {at: 10s, servers: 1}], schedule_period: 10s}",
			"s.yaml:4:108: components.desk.schedule_period: schedule_period (10s) must be longer than the last step's at (10s): the steps repeat every period"},
		{"{kind: semaphore, permits: 1, schedule: [{at: 1m, permits: 0}], schedule_period: 30s}",
			"s.yaml:4:90: components.desk.schedule_period: schedule_period (30s) must be longer than the last step's at (1m0s): the steps repeat every period"},
		{"{kind: pool, servers: 1, schedule: [{at: 4s, servers: 0}], schedule_period: 1000000h}",
			"s.yaml:4:85: components.desk.schedule_period: duration 1000000h is more than 100 years, the longest time capsim simulates"},
		{"{kind: pool, servers: 1, schedule: [{at: 4s, servers: 0}], schedule_period: -1s}",
			"s.yaml:4:85: components.desk.schedule_period: duration must not be negative, got -1s"},
	} {
		src := "name: s\nduration: 1s\ncomponents:\n  desk: " + tc.comp + "\njourneys:\n  j: {rate: 1/s, steps: [{use: desk, work: 1ms}]}\n"
		if err := compileError(src); err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.comp, err, tc.want)
		}
	}
}
