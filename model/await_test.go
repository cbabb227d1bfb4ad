package model_test

import (
	"strings"
	"testing"

	"capsim/model"
)

// TestEveryAwaitingOpEnds runs every op that waits for children (a call, a
// sync job, a fan-out, a poll loop's status call, a call with a poller)
// under a caller's deadline that expires while it waits, with and without
// a trace. Each must end its journey at the deadline with a 504, never
// panic: a missing row here once crashed every fan-out under a deadline.
func TestEveryAwaitingOpEnds(t *testing.T) {
	src := onceSrc("await", "10s", "  a: {kind: pool, servers: 2}\n", `
      - call: gw
        deadline: 100ms
routes:
  gw:
    steps:
STEPS
  slow:
    steps:
      - hold: a
      - work: 1s
`)
	cases := map[string]string{
		"call":          "      - call: slow\n",
		"job":           "      - job: slow\n",
		"fanout":        "      - fanout: 4\n        steps: [{call: slow}]\n",
		"limited":       "      - fanout: 4\n        limit: 1\n        steps: [{call: slow}]\n",
		"poll-jobs":     "      - job: slow\n        async: true\n      - poll: {call: slow, every: 10ms, until: jobs}\n",
		"call-and-poll": "      - call: slow\n        poll: {call: slow, every: 10ms}\n",
	}
	for name, steps := range cases {
		yaml := strings.Replace(src, "STEPS\n", steps, 1)
		for _, traced := range []bool{false, true} {
			var end model.TraceEvent
			if traced {
				_, events := runYAML(t, yaml, model.RunOptions{Seed: 1})
				end = journeyEnd(t, events)
			} else {
				res := runYAMLNoTrace(t, yaml)
				js, _ := res.Journey("j")
				if js.Failed != 1 {
					t.Errorf("%s: %d journeys failed, want 1", name, js.Failed)
				}
				continue
			}
			if end.Status != 504 || end.Duration != 0.1 {
				t.Errorf("%s: journey ended at %gs with %d; want 0.1s with 504", name, end.Duration, end.Status)
			}
		}
	}
}
