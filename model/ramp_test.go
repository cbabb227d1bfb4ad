package model_test

import (
	"slices"
	"testing"

	"capsim/model"
)

// Closed workloads over time, as a load tester's ramping virtual users:
// with constant work and think every client starts a journey every 2 s,
// so the start times say exactly when each client came and went.

// 0 → 4 clients over 4 s: the line crosses 1, 2, 3 and 4 at 1, 2, 3 and
// 4 s, and a client starts at each. They hold until 14.5 s, then ramp to
// 0 over 4 s, one fewer at 15.5, 16.5, 17.5 and 18.5 s; each surplus
// client is thinking then (work 1 s from its start at an odd or even
// second, think 1 s), so it starts no other journey. A step to 2 at
// 20.5 s starts two clients afresh.
func TestClosedClientsFollowTheirStages(t *testing.T) {
	src := scenarioSrc("vus", "25s", "", "  app: {kind: pool, servers: 100}\n", `  j:
    clients: 0
    think: 1s
    stages:
      - {target: 4, duration: 4s}
      - {target: 4, duration: 10.5s}
      - {target: 0, duration: 4s}
      - {target: 0, duration: 2s}
      - {target: 2, duration: 0s}
    steps: [{use: app, work: 1s}]
`)
	_, events := runYAML(t, src, model.RunOptions{Seed: 1})
	var want []float64
	for c, last := range []float64{17, 16, 15, 14} {
		for s := float64(c + 1); s <= last; s += 2 {
			want = append(want, s)
		}
		if c < 2 {
			want = append(want, 20.5, 22.5, 24.5)
		}
	}
	slices.Sort(want)
	if got := starts(events); !equalFloats(got, want) {
		t.Errorf("journeys started at\n%v\nwant\n%v", got, want)
	}
}

// A step from 3 clients to 1 while all three are in a journey (work 2 s,
// no think): two of them finish the journey they are in, successfully, and
// stop; one goes on. The multiplier scales every target, as it scales
// clients.
func TestSurplusClientsFinishTheirJourneyAndStop(t *testing.T) {
	src := scenarioSrc("vus", "10s", "", "  app: {kind: pool, servers: 100}\n", `  j:
    clients: 3
    stages:
      - {target: 3, duration: 5s}
      - {target: 1, duration: 0s}
    steps: [{use: app, work: 2s}]
`)
	for _, c := range []struct {
		mult float64
		want []float64
	}{
		{1, []float64{0, 0, 0, 2, 2, 2, 4, 4, 4, 6, 8}},
		{2, []float64{0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 6, 6, 8, 8}},
	} {
		res, events := runYAML(t, src, model.RunOptions{Seed: 1, Multiplier: c.mult})
		if got := starts(events); !equalFloats(got, c.want) {
			t.Errorf("multiplier %g: journeys started at %v, want %v", c.mult, got, c.want)
		}
		if j := res.Journeys[0]; j.Succeeded != int64(len(c.want)) || j.Failed != 0 {
			t.Errorf("multiplier %g: %d succeeded, %d failed; want all %d to succeed", c.mult, j.Succeeded, j.Failed, len(c.want))
		}
	}
}

func TestBadStagesAreRefused(t *testing.T) {
	for _, c := range []struct{ name, journey, want string }{
		{"a rate for clients", "clients: 2\n    stages: [{target: 10/s, duration: 1m}]",
			`s.yaml:8:23: journeys.j.stages[0].target: a closed workload's stage target is a number of clients, such as 50, got 10/s (a rate needs rate: on the journey instead of clients:)`},
		{"clients for a rate", "rate: 2/s\n    stages: [{target: 10, duration: 1m}]",
			`s.yaml:8:23: journeys.j.stages[0].target: an open workload's stage target is a rate, such as 80/s, got 10 (a number of clients needs clients: on the journey, a closed workload)`},
		{"not a number", "clients: 2\n    stages: [{target: ten, duration: 1m}]",
			`s.yaml:8:23: journeys.j.stages[0].target: expected a rate such as 80/s (an open workload) or a whole number of clients from 0 to 1000000 such as 50 (a closed workload), got "ten"`},
		{"a fraction of a client", "clients: 2\n    stages: [{target: 2.5, duration: 1m}]",
			`s.yaml:8:23: journeys.j.stages[0].target: expected a rate such as 80/s (an open workload) or a whole number of clients from 0 to 1000000 such as 50 (a closed workload), got "2.5"`},
		{"no target", "clients: 2\n    stages: [{duration: 1m}]",
			`s.yaml:8:14: journeys.j.stages[0]: a stage needs target (a number of clients >= 0) and duration (>= 0s), e.g. {target: 50, duration: 1m}`},
		{"no clients to start from", "clients: 0",
			`s.yaml:7:14: journeys.j.clients: clients must be >= 1, got 0 (or give stages: to ramp the clients from it)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkJourneyRefused(t, "s", c.journey, c.want)
		})
	}
}
