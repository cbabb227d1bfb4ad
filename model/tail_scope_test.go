package model_test

import (
	"fmt"
	"strings"
	"testing"

	"capsim/cmd/golden"
	"capsim/model"
)

// A use: step that is the last step of its frame runs in that frame's
// place (see exec). Here the b step is the last of the frame its stage
// label opens, itself the last of a's, and fails: its hold of b is given
// back before a's, the failure is the inner stage's, and the optional a
// step swallows it as if each step had its own frame. Timeline (constant
// times, arrivals at 0 s and 1 s): the first journey holds a over [0, 2]
// and b over [1, 2], fails at 2 and ends at 3; the second waits for a
// until 2, holds it over [2, 4] and b over [3, 4], and ends at 5. The
// strict journey (from 6 s) fails in stage inner after 2 s, giving back b
// and then a. The last journey's optional b step, its last, swallows
// its failure although the journey's frame is not optional: it holds b
// over [11, 12] and succeeds in 2 s.
func TestTailScopeUnwindsAsItsOwnFrame(t *testing.T) {
	steps := `
      - optional: %s
        use: a
        steps:
          - {delay: 1s}
          - use: b
            stage: inner
            steps:
              - {delay: 1s}
              - {fail: {p: 1, status: 503}}
      - {delay: 1s}
`
	src := scenarioSrc("tails", "20s", "arrivals: even\n", `  a: {kind: pool, servers: 1}
  b: {kind: pool, servers: 1}
`, `  tolerant:
    rate: 1/s
    count: 2
    steps:`+fmt.Sprintf(steps, "true")+`
  strict:
    rate: 1/s
    start: 6s
    count: 1
    steps:`+fmt.Sprintf(steps, "false")+`
  last:
    rate: 1/s
    start: 10s
    count: 1
    steps:
      - {delay: 1s}
      - {optional: true, use: b, steps: [{delay: 1s}, {fail: {p: 1, status: 503}}]}
`)
	res, events := runYAML(t, src, model.RunOptions{Seed: 1})
	tolerant, strict := res.Journeys[0], res.Journeys[1]
	if tolerant.Succeeded != 2 || tolerant.Failed != 0 {
		t.Errorf("tolerant: %d succeeded, %d failed; want 2 and 0", tolerant.Succeeded, tolerant.Failed)
	}
	if float64(tolerant.Latency.Mean) != 3.5 || float64(tolerant.Latency.Max) != 4 {
		t.Errorf("tolerant latencies: mean %v, max %v; want 3.5 s and 4 s", tolerant.Latency.Mean, tolerant.Latency.Max)
	}
	if strict.Succeeded != 0 || strict.Failed != 1 || len(strict.Stages) != 1 || strict.Stages[0].Stage != "inner" {
		t.Errorf("strict: %d succeeded, %d failed, stages %+v; want one failure in stage inner", strict.Succeeded, strict.Failed, strict.Stages)
	}
	if float64(strict.LatencyAll.Max) != 2 {
		t.Errorf("strict journey took %v, want 2 s", strict.LatencyAll.Max)
	}
	if last := res.Journeys[2]; last.Succeeded != 1 || float64(last.Latency.Max) != 2 {
		t.Errorf("last: %d succeeded in %v s; want 1 in 2 s", last.Succeeded, last.Latency.Max)
	}
	if res.Tolerated != 3 {
		t.Errorf("%d failures tolerated, want 3", res.Tolerated)
	}
	var got []string
	for _, e := range events {
		if e.Event == model.EvStart || e.Event == model.EvEnd {
			got = append(got, fmt.Sprintf("%g %s %s %d", e.T, strings.TrimPrefix(e.Event, model.TracePrefix), e.Component, e.JourneyID))
		}
	}
	want := []string{
		"0 start a 1", "1 start b 1", "2 end b 1", "2 end a 1", "2 start a 2",
		"3 start b 2", "4 end b 2", "4 end a 2",
		"6 start a 3", "7 start b 3", "8 end b 3", "8 end a 3",
		"11 start b 4", "12 end b 4",
	}
	golden.CheckLines(t, "holds:\n%s\nwant:\n%s", got, want)
}
