package scenarios_test

import (
	"fmt"
	"math"
	"testing"
	"testing/fstest"

	"capsim/model"
)

// Seed 002's expected trace (FIGURES 002-05..08): a 1 s deadline, 300 ms
// waiting for the only slot, 200 ms opening a connection; the response stage
// then has 500 ms, never a fresh 1 s. With a fresh budget per stage instead,
// the same call runs 3 s.
const deadlineTrace = `
name: deadline-trace
duration: 1s
arrivals: even
components:
  slots: {kind: pool, servers: 1, wait_timeout: %s}
  conns: {kind: worker, instances: 1, cold_start: %s, warm_start: 0s, idle_stop: 1m}
journeys:
  holder: {rate: 1/s, count: 1, steps: [{use: slots, work: %s}]}
  caller: {rate: 1/s, count: 1, steps: [{call: outbound, %s}]}
routes:
  outbound:
    steps:
      - stage: pool_wait
      - hold: slots
      - stage: connect
      - hold: conns
      - stage: response
      - call: api
        %s
  api: {steps: [{work: 2s}]}
`

func traceCall(t *testing.T, yaml string) (apiStart, apiEnd, callerEnd float64, stage string) {
	t.Helper()
	fsys := fstest.MapFS{"d.yaml": {Data: []byte(yaml)}}
	l, err := model.Load(fsys, "d.yaml", model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Run(model.RunOptions{Seed: 1, Trace: func(e *model.TraceEvent) {
		switch {
		case e.Route == "api" && e.Event == "request_start":
			apiStart = e.T
		case e.Route == "api" && e.Event == "request_end":
			apiEnd = e.T
		case e.Event == "caller":
			callerEnd, stage = e.T, e.Stage
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	return
}

func TestPoolDeadlineRemainder(t *testing.T) {
	start, end, done, _ := traceCall(t, fmt.Sprintf(deadlineTrace, "5s", "200ms", "300ms", "deadline: 1s", ""))
	if math.Abs(start-0.5) > 1e-9 || math.Abs(end-1.0) > 1e-9 || math.Abs(done-1.0) > 1e-9 {
		t.Fatalf("response stage ran %.3f-%.3f s and the call ended at %.3f s; want 0.5-1.0 s: 1 s - 300 ms - 200 ms leaves 500 ms", start, end, done)
	}
	// The mistake the seed warns of: each stage with its own 1 s.
	_, _, done, stage := traceCall(t, fmt.Sprintf(deadlineTrace, "1s", "1s", "1s", "stage: call", "timeout: 1s"))
	if done < 3-1e-9 {
		t.Fatalf("with a fresh 1 s per stage the call ended at %.3f s; want >= 3 s (002-08)", done)
	}
	if stage != "response" {
		t.Fatalf("failure stage %q, want response", stage)
	}
}

func poolSummary(t *testing.T, design string) (peakOK, afterOK, p95 float64, dsQueue float64, dsErrors int64, leaked int64) {
	r := runOnce(t, "http-client-pool", design, 1, nil)
	peak, after := journey(t, r, "peak"), journey(t, r, "after")
	ds := component(t, r, "downstream")
	for _, c := range r.Components {
		leaked += c.Leaked
	}
	return float64(peak.SuccessRate), float64(after.SuccessRate), float64(peak.Latency.P95), float64(ds.MeanQueue), ds.Rejected, leaked
}

func TestPoolDecisionTable(t *testing.T) {
	// Row 1: pool wait large, downstream fast: a bigger pool helps.
	_, _, smallP95, _, _, _ := poolSummary(t, "")
	_, _, bigP95, _, _, _ := poolSummary(t, "bigger-pool")
	t.Logf("fast downstream: peak p95 %.3f s with 2 slots/instance, %.3f s with 8", smallP95, bigP95)
	if bigP95 > 0.5*smallP95 {
		t.Errorf("a bigger pool should cut the p95 of a fast downstream's callers: %.3f -> %.3f s", smallP95, bigP95)
	}
	// Row 2: downstream saturated: the bigger pool does not help, and the
	// downstream's queue and errors grow.
	sOK, sAfter, _, sQueue, sErr, _ := poolSummary(t, "saturated-downstream")
	bOK, bAfter, _, bQueue, bErr, _ := poolSummary(t, "saturated-bigger-pool")
	t.Logf("saturated downstream: success %.3f vs %.3f, downstream queue %.1f vs %.1f, downstream 503s %d vs %d", sOK, bOK, sQueue, bQueue, sErr, bErr)
	if bOK > sOK+0.01 {
		t.Errorf("the bigger pool improved success %.3f -> %.3f against a saturated downstream", sOK, bOK)
	}
	if bQueue < 2*sQueue || sErr != 0 || bErr < 1000 {
		t.Errorf("downstream queue %.1f -> %.1f and errors %d -> %d should grow with the bigger pool", sQueue, bQueue, sErr, bErr)
	}
	// Recovery after the load drops, unless slots leak.
	_, lAfter, _, _, _, leaked := poolSummary(t, "leaked-slots")
	t.Logf("after the peak: success %.3f (no leak) vs %.3f (leaked %d slots)", bAfter, lAfter, leaked)
	if sAfter < 0.999 || bAfter < 0.999 {
		t.Errorf("after the peak, success is %.4f and %.4f; latency should return to normal", sAfter, bAfter)
	}
	if leaked == 0 || lAfter > 0.9 {
		t.Errorf("leaked slots %d should exhaust pools: success after the peak %.3f", leaked, lAfter)
	}
}
