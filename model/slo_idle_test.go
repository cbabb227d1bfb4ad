package model_test

import (
	"fmt"
	"testing"

	"capsim/model"
)

// An SLO whose journey, route or component saw no traffic in a run bounds
// no values: it is idle and holds, as a bound on no values does, where it
// read as broken before (a p95 of nothing is not above 1s). A journey that
// started and never ended is not idle: its SLO on times stays broken.
func TestSLOOfNoTrafficIsIdle(t *testing.T) {
	c := compileSource(t, `name: idle
duration: 10s
drain: 0s
components:
  a: {kind: pool, servers: 1}
  b: {kind: pool, servers: 1}
journeys:
  rare: {rate: 1/h, steps: [{call: r}]}
  stuck: {rate: 1/s, steps: [{use: b, work: 1000s}]}
routes:
  r: {steps: [{use: a, work: 1ms}]}
slos:
  - {journey: rare, p95: "<= 1s"}
  - {route: r, failure_rate: "<= 1%"}
  - {component: a, rejection_rate: "<= 1%"}
  - {component: a, utilisation: "<= 50%"}
  - {journey: stuck, p95: "<= 1s"}
`)
	res := mustRun(t, c, model.RunOptions{Seed: 1})
	var got []string
	for i := range res.SLOs {
		s := &res.SLOs[i]
		got = append(got, fmt.Sprintf("%s: met %v idle %v %q", s.SLO, s.Met, s.Idle, s.Nothing()))
	}
	want := []string{
		`rare p95 <= 1s: met true idle true "no rare journey started in the run"`,
		`r failure_rate <= 1%: met true idle true "no call of route r was made in the run"`,
		`a rejection_rate <= 1%: met true idle true "nothing was offered to a in the run"`,
		`a utilisation <= 50%: met true idle false ""`, // 0 busy is measured
		`stuck p95 <= 1s: met false idle false ""`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
