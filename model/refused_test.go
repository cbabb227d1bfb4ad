package model_test

import (
	"testing"
	"testing/fstest"

	"capsim/model"
)

// Scenarios that the vocabulary's tables (SLO measures, step verbs,
// component kinds, distribution forms) let through the schema but that
// make no sense where they are written: each is refused when compiling,
// with the message given.

func TestAnSLOMeasureOnTheWrongSubject(t *testing.T) {
	src := scenarioSrc("s", "1s", "", "  app: {kind: pool, servers: 1}\n", `  j: {rate: 1/s, steps: [{use: app, work: 1s}]}
slos:
  - {component: app, p95: "<= 1s"}
`)
	want := `s.yaml:8:27: slos[0].p95: p95 does not apply to a component SLO (it takes rejection_rate, utilisation)`
	if got := compileErrorText("s.yaml", src); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAChoiceOfZeroWeightsIsRefused(t *testing.T) {
	src := `name: z
duration: 1s
journeys:
  j:
    rate: 1/s
    attributes: {share: 0}
    steps:
      - choose:
          - {weight: share, steps: [{delay: 1s}]}
          - {weight: 0, steps: [{delay: 2s}]}
`
	want := `z.yaml:4:3: journeys.j: a step chooses among branches whose weights are all 0 for journey j: nothing to choose`
	if got := compileErrorText("z.yaml", src); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A component behind a balancer used where no pick of it encloses the
// step is refused when compiling, naming the step, not found at run time.
func TestABehindComponentUsedOutsideAPick(t *testing.T) {
	src := scenarioSrc("b", "1s", "", `  lb: {kind: balancer, replicas: 2}
  db: {kind: pool, servers: 1, behind: lb}
`, `  j:
    rate: 1/s
    steps:
      - use: lb
        steps: [{call: q}]
      - call: q
routes:
  q:
    steps: [{use: db, work: 1s}]
`)
	want := `b.yaml:15:13: routes.q.steps[0]: uses db, which is behind balancer lb, outside any use or hold of lb: no replica is picked there`
	if got := compileErrorText("b.yaml", src); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A value in an empirical file past the clock's reach is refused like a
// duration written in the scenario, naming the file's line.
func TestAnEmpiricalValuePastTheClockIsRefused(t *testing.T) {
	fsys := fstest.MapFS{"times.csv": {Data: []byte("1.5\n4e12\n")}}
	src := `name: e
duration: 1s
journeys:
  j: {rate: 1/s, steps: [{delay: "empirical(file=times.csv)"}]}
`
	l, err := model.LoadBytes(fsys, "e.yaml", []byte(src), model.LoadOptions{})
	if err == nil {
		_, err = l.Compile()
	}
	want := "e.yaml:4:26: journeys.j.steps[0].delay: empirical: times.csv:2: 4e12 seconds is more than 100 years, the longest time capsim simulates"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// An SLO is refused unless each bound it writes is one the measure can
// meet, in the measure's unit, and it writes at least one.
func TestSLOBoundsThatCheckNothing(t *testing.T) {
	for _, tc := range []struct{ slo, want string }{
		{`{journey: j}`, `s.yaml:8:5: slos[0]: an SLO needs a bound, such as p95: "<= 2s" (a journey SLO takes success_rate, failure_rate, http_failure_rate, mean, p50, p95, p99)`},
		{`{journey: j, mean: "<= 10"}`, `s.yaml:8:24: slos[0].mean: mean bound "<= 10" needs a unit (ms, s, m or h), e.g. "<= 10s"`},
		{`{journey: j, success_rate: ">= 1s"}`, `s.yaml:8:32: slos[0].success_rate: success_rate bounds a fraction, such as ">= 0.99" or ">= 99%", not a time, got ">= 1s"`},
		{`{journey: j, mean: "< 0s"}`, `s.yaml:8:24: slos[0].mean: mean "< 0s" can never hold: no value is below 0s`},
		{`{journey: j, success_rate: "> 1"}`, `s.yaml:8:32: slos[0].success_rate: success_rate "> 1" can never hold: no value is above 1`},
		{`{component: app, utilisation: "> 100%"}`, `s.yaml:8:35: slos[0].utilisation: utilisation "> 100%" can never hold: no value is above 100%`},
	} {
		src := scenarioSrc("s", "1s", "", "  app: {kind: pool, servers: 1}\n",
			"  j: {rate: 1/s, steps: [{use: app, work: 1s}]}\nslos:\n  - "+tc.slo+"\n")
		if got := compileErrorText("s.yaml", src); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.slo, got, tc.want)
		}
	}
}

// Journey keys that could change nothing where they are written are
// refused, saying what to write instead.
func TestJourneyKeysThatDoNothing(t *testing.T) {
	for _, tc := range []struct{ journey, want string }{
		{"rate: 1/s\n    think: 5s", `t.yaml:8:12: journeys.j.think: think applies to a closed workload (clients:); an open one (rate:) starts its journeys at its rate whatever the one before did`},
		{"rate: 1/s\n    start: 2h", `t.yaml:8:12: journeys.j.start: start must be before the duration (1h0m0s), when arrivals end, got 2h0m0s`},
		{"rate: 1/s\n    start: 1h", `t.yaml:8:12: journeys.j.start: start must be before the duration (1h0m0s), when arrivals end, got 1h0m0s`},
		{"rate: 1/s\n    stages: []", `t.yaml:8:13: journeys.j.stages: stages: [] means nothing; remove stages:, or give at least one, such as {target: 10/s, duration: 1m}`},
	} {
		checkJourneyRefused(t, "t", tc.journey, tc.want)
	}
	src := scenarioSrc("s", "1s", "", "  app: {kind: pool, servers: 1, schedule: []}\n  sem: {kind: semaphore, permits: 1, schedule: []}\n",
		"  j: {rate: 1/s, steps: [{use: app, work: 1s}, {use: sem, work: 1s}]}\n")
	want := "s.yaml:4:43: components.app.schedule: schedule: [] means nothing; remove schedule:, or give at least one step, such as {at: 1h, servers: 4}\n" +
		"s.yaml:5:48: components.sem.schedule: schedule: [] means nothing; remove schedule:, or give at least one step, such as {at: 1h, permits: 4}"
	if got := compileErrorText("s.yaml", src); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A duration or a rate that would be read as something other than what
// was written is refused.
func TestValuesReadOtherwiseThanWritten(t *testing.T) {
	for _, tc := range []struct{ duration, rate, want string }{
		{"0.1ns", "1/s", `v.yaml:2:11: duration: duration 0.1ns is shorter than a nanosecond, the clock's resolution`},
		{"100s100s", "1/s", `v.yaml:2:11: duration: duration "100s100s" gives the unit s twice; write each unit once, as in 1h30m`},
		// The micro sign and the Greek mu are both read as microseconds.
		{"100us100µs", "1/s", `v.yaml:2:11: duration: duration "100us100µs" gives the unit µs twice; write each unit once, as in 1h30m`},
		{"100μs100μs", "1/s", `v.yaml:2:11: duration: duration "100μs100μs" gives the unit μs twice; write each unit once, as in 1h30m`},
		{"1h1m1s1ms1us1ns", "1/s", ``},
		{"1h30m", "1_000/s", `v.yaml:6:13: journeys.j.rate: expected a rate such as 4/h or 3.6/s, got "1_000/s"`},
		{"1h30m", "1/s", ``},
	} {
		src := scenarioSrc("v", tc.duration, "", "  app: {kind: pool, servers: 1}\n",
			"  j: {rate: "+tc.rate+", steps: [{use: app, work: 1s}]}\n")
		if got := compileErrorText("v.yaml", src); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
