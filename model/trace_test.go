package model_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/cmd/golden"
	"capsim/model"
	"capsim/sim"
)

// A log: event may not take a name of capsim's own: a reader tells the
// system's events from capsim's by the prefix alone.
func TestLogEventMayNotTakeCapsimsPrefix(t *testing.T) {
	src := "name: p\nduration: 10s\njourneys:\n  j:\n    rate: 1/s\n    steps: [{log: capsim.request_end}]\n"
	_, err := compileNamed("p.yaml", src, model.LoadOptions{})
	want := `p.yaml:6:19: journeys.j.steps[0].log: log: event "capsim.request_end" starts with "capsim.", which names capsim's own trace events`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// since: needs a log: on its step and must name one of the scenario's.
func TestSinceNamesALogEvent(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{"{delay: 1s, since: a}", `p.yaml:6:42: journeys.j.steps[1].since: since: names the event a log: step is timed from; this step has no log:`},
		{"{log: b, since: c}", `p.yaml:6:39: journeys.j.steps[1].since: since: "c" is no log: event of the scenario (log events: a, b)`},
	} {
		src := "name: p\nduration: 10s\njourneys:\n  j:\n    rate: 1/s\n    steps: [{log: a}, " + c.step + "]\n"
		_, err := compileNamed("p.yaml", src, model.LoadOptions{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got  %v\nwant %s", c.step, err, c.want)
		}
	}
}

var gaugeSrc = scenarioSrc("gauges", "10s", "arrivals: even\n", `  desk: {kind: pool, servers: 1}
  w: {kind: worker, instances: 1, cold_start: 5s, idle_stop: 1h}
`, `  j:
    rate: 2/s
    count: 3
    attributes: {items: 4}
    steps:
      - call: r
routes:
  r:
    steps:
      - use: desk
        steps:
          - work: 1s
          - log: served
      - job: bg
  bg:
    steps:
      - use: w
        steps:
          - log: picked
          - work: 1s
          - log: done
      - {log: mailed, since: served}
`)

// Queue and in-flight gauges, the time since the event before, and a
// worker job's cold or warm start, on three journeys arriving 0.5 s apart
// at a one-server desk and a one-instance worker with a 5 s cold start.
func TestLogEventsCarryGaugesAndTimes(t *testing.T) {
	_, events := runYAML(t, gaugeSrc, model.RunOptions{Seed: 1})
	var got []string
	for _, e := range events {
		switch e.Event {
		case "served", "picked", "done", "mailed":
			got = append(got, fmt.Sprintf("%g %s j%d since %s %g queue %d in_flight %d %s", e.T, e.Event, e.JourneyID, e.Since, e.SinceS, e.Queue, e.InFlight, e.Start))
		case model.EvEnqueue:
			got = append(got, fmt.Sprintf("%g enqueue %s j%d queue %d", e.T, e.Component, e.JourneyID, e.Queue))
		case model.EvColdStart, model.EvColdReady:
			got = append(got, fmt.Sprintf("%g %s %s %d", e.T, e.Event, e.Component, e.Instance))
		}
	}
	want := []string{
		"0.5 enqueue desk j2 queue 1",
		"1 served j1 since capsim.request_start 1 queue 1 in_flight 1 ",
		"1 capsim.cold_start w 1",
		"1 enqueue w j1 queue 1",
		// j3 arrives at 1 s after j1's work ended there: j2 holds the desk.
		"1 enqueue desk j3 queue 1",
		"2 served j2 since capsim.request_start 1.5 queue 1 in_flight 1 ",
		"2 enqueue w j2 queue 2",
		"3 served j3 since capsim.request_start 2 queue 0 in_flight 1 ",
		"3 enqueue w j3 queue 3",
		"6 capsim.cold_ready w 1",
		"6 picked j1 since capsim.job_start 5 queue 2 in_flight 1 cold",
		"7 done j1 since picked 1 queue 2 in_flight 1 cold",
		// since: served, in the journey's request, 6 s before.
		"7 mailed j1 since served 6 queue 0 in_flight 0 ",
		"7 picked j2 since capsim.job_start 5 queue 1 in_flight 1 warm",
		"8 done j2 since picked 1 queue 1 in_flight 1 warm",
		"8 mailed j2 since served 6 queue 0 in_flight 0 ",
		"8 picked j3 since capsim.job_start 5 queue 0 in_flight 1 warm",
		"9 done j3 since picked 1 queue 0 in_flight 1 warm",
		"9 mailed j3 since served 6 queue 0 in_flight 0 ",
	}
	golden.CheckLines(t, "got\n%s\nwant\n%s", got, want)
}

// Request ids are 32 hex digits, distinct within a run and between seeds,
// as nginx's $request_id; the journey's attributes ride on its start and end.
func TestTraceIDsLookLikeTheSystems(t *testing.T) {
	hex := regexp.MustCompile(`^[0-9a-f]{32}$`)
	ids := func(seed uint64) map[string]bool {
		_, events := runYAML(t, gaugeSrc, model.RunOptions{Seed: seed})
		seen := map[string]bool{}
		for _, e := range events {
			if e.Event == model.EvRequestStart {
				if !hex.MatchString(e.Request) || seen[e.Request] {
					t.Fatalf("request id %q: not 32 hex digits, or seen before", e.Request)
				}
				seen[e.Request] = true
			}
			if (e.Event == model.EvJourneyStart || e.Event == model.EvJourneyEnd) && e.Attributes != `{"items":4}` {
				t.Errorf("%s attributes %q, want {\"items\":4}", e.Event, e.Attributes)
			}
		}
		return seen
	}
	a, b := ids(1), ids(2)
	if len(a) != 3 {
		t.Fatalf("%d requests, want 3", len(a))
	}
	for id := range a {
		if b[id] {
			t.Errorf("request id %s in the runs of seeds 1 and 2", id)
		}
	}
}

// Replayed arrivals start the journeys at the times given, whatever the
// rate and the multiplier say, and leave the other journeys' alone.
func TestArrivalsReplayed(t *testing.T) {
	src := "name: r\nduration: 10s\narrivals: even\njourneys:\n  a: {rate: 1/s, steps: [{delay: 1s}]}\n  b: {rate: 1/s, start: 5s, steps: [{delay: 1s}]}\n"
	times := []sim.Time{sim.Seconds(0.25), sim.Seconds(0.25), sim.Seconds(7.5), sim.Seconds(12)}
	_, events := runYAML(t, src, model.RunOptions{Multiplier: 3, Arrivals: map[string][]sim.Time{"a": times}})
	var got []string
	for _, e := range events {
		if e.Event == model.EvJourneyStart {
			got = append(got, fmt.Sprintf("%s@%g", e.Journey, e.T))
		}
	}
	// b: even at 3/s from 5 s, until 10 s; a: the times before the end.
	want := "a@0.25 a@0.25 b@5 b@5.333333333 b@5.666666666 b@5.999999999 b@6.333333332 b@6.666666665 b@6.999999998 b@7.333333331 a@7.5 b@7.666666664 b@7.999999997 b@8.33333333 b@8.666666663 b@8.999999996 b@9.333333329 b@9.666666662 b@9.999999995"
	if strings.Join(got, " ") != want {
		t.Errorf("starts %s\nwant   %s", strings.Join(got, " "), want)
	}
	l, _ := model.LoadBytes(fstest.MapFS{}, "r.yaml", []byte(src), model.LoadOptions{})
	c, _ := l.Compile()
	if _, err := c.Run(model.RunOptions{Arrivals: map[string][]sim.Time{"c": nil}}); err == nil || err.Error() != `arrivals given for journey "c", which the scenario does not have` {
		t.Errorf("unknown journey: %v", err)
	}
}
