package model_test

import (
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
)

// The step language's semantics, each on a small scenario with constant
// times, so the expected timings are exact.

// endsOf returns the times of the trace events named event for route.
func endsOf(events []model.TraceEvent, event, route string) (ts []float64, statuses []int32) {
	for _, e := range events {
		if e.Event == event && e.Route == route {
			ts = append(ts, e.T)
			statuses = append(statuses, e.Status)
		}
	}
	return ts, statuses
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

const oneJourney = `name: lang
duration: 1s
arrivals: even
journeys:
  j:
    rate: 1/s
    count: 1
    steps:
`

func TestRetryBacksOffAndCountsEveryTry(t *testing.T) {
	res, ev := runYAML(t, oneJourney+`      - call: flaky
        retry: {attempts: 3, backoff: 1s, multiplier: 2}
routes:
  flaky:
    steps: [{fail: {p: 1, status: 503}}]
`, model.RunOptions{Seed: 1})
	starts, _ := endsOf(ev, "capsim.request_start", "flaky")
	if !equalFloats(starts, []float64{0, 1, 3}) {
		t.Errorf("tries at %v, want 0, 1, 3 (backoff 1 s, then 2 s)", starts)
	}
	j := res.Journeys[0]
	if j.Failed != 1 || j.Requests != 3 || j.RequestFailures != 3 || j.Stages[0].Stage != "flaky" {
		t.Errorf("journey %+v: want failed at flaky after 3 failed requests", j)
	}
}

// A call timeout is the client giving up: the client sees 504 after the
// timeout while the server finishes its work; a deadline is passed down,
// so the server stops at it too.
func TestTimeoutAndDeadline(t *testing.T) {
	res, ev := runYAML(t, oneJourney+`      - call: slow
        timeout: 1s
        optional: true
      - call: slow
        deadline: 1500ms
        optional: true
routes:
  slow:
    steps: [{work: 2s}]
`, model.RunOptions{Seed: 1})
	if gaveUp, _ := endsOf(ev, "capsim.request_timeout", "slow"); !equalFloats(gaveUp, []float64{1}) {
		t.Errorf("client timeouts traced at %v, want [1]", gaveUp)
	}
	ends, statuses := endsOf(ev, "capsim.request_end", "slow")
	// The first call's server side ends at 2 s with 200; the second call,
	// started when the client gave up at 1 s, is cut at 1 + 1.5 s.
	if !equalFloats(ends, []float64{2, 2.5}) || statuses[0] != 200 || statuses[1] != 504 {
		t.Errorf("server ends %v with %v, want [2 2.5] with [200 504]", ends, statuses)
	}
	j := res.Journeys[0]
	if j.Succeeded != 1 || float64(j.Latency.Mean) != 2.5 || j.RequestFailures != 2 || res.Tolerated != 2 {
		t.Errorf("journey %+v, tolerated %d: want success at 2.5 s with 2 failed requests tolerated", j, res.Tolerated)
	}
}

func TestFanoutRunsAtMostLimitAtOnce(t *testing.T) {
	res, _ := runYAML(t, oneJourney+`      - fanout: 10
        limit: 3
        steps: [{use: api, work: 1s}]
components:
  api: {kind: pool, servers: 100}
`, model.RunOptions{Seed: 1})
	j := res.Journeys[0]
	// ceil(10/3) = 4 waves of 1 s.
	if float64(j.Latency.Mean) != 4 {
		t.Errorf("fan-out took %v s, want 4", float64(j.Latency.Mean))
	}
	if api, _ := res.Component("api"); api.Offered != 10 || float64(api.MeanBusy)*4 != 10 {
		t.Errorf("api offered %d, mean busy %v over 4 s; want 10 and 2.5", api.Offered, float64(api.MeanBusy))
	}
}

// A poll attached to a call runs every T while the call is open.
func TestPollWhileTheCallIsOpen(t *testing.T) {
	res, ev := runYAML(t, oneJourney+`      - call: long
        poll: {call: status, every: 2s}
routes:
  long:
    steps: [{work: 9s}]
  status:
    steps: [{work: 10ms}]
`, model.RunOptions{Seed: 1})
	starts, _ := endsOf(ev, "capsim.request_start", "status")
	if !equalFloats(starts, []float64{2, 4.01, 6.02, 8.03}) {
		t.Errorf("polls at %v, want every 2 s after the previous answer while the 9 s call is open", starts)
	}
	if j := res.Journeys[0]; j.Requests != 5 || float64(j.Latency.Mean) != 9 {
		t.Errorf("journey %+v: want 9 s and 5 requests (the call and 4 polls)", j)
	}
}

// caller_runs: when the pool and its queue are full the caller does the
// work itself instead of being refused.
func TestCallerRunsWhenFull(t *testing.T) {
	res, _ := runYAML(t, `name: cr
duration: 1s
arrivals: even
components:
  exec: {kind: pool, servers: 1, queue: 0, when_full: caller_runs}
journeys:
  j:
    rate: 2/s
    count: 2
    steps: [{use: exec, work: 2s}]
`, model.RunOptions{Seed: 1})
	j := res.Journeys[0]
	e, _ := res.Component("exec")
	if j.Succeeded != 2 || e.Rejected != 1 || float64(j.Latency.Max) != 2 {
		t.Errorf("journeys %+v, exec rejected %d: want both done in 2 s, one by its caller", j, e.Rejected)
	}
}

// A keyed lock makes the same user's journeys wait for each other and
// lets different users' run side by side; a wait past the timeout fails
// at the lock with its status.
func TestKeyedLockByUser(t *testing.T) {
	src := scenarioSrc("lk", "1s", "arrivals: even\n",
		"  row: {kind: lock, wait_timeout: 3s}\n", `  j:
    rate: 3/s
    count: 3
    USERS
    steps:
      - use: row
        work: 2s
        stage: persist
`)
	same, _ := runYAML(t, replace(src, "USERS", "users: 1"), model.RunOptions{Seed: 1})
	j := same.Journeys[0]
	// Arrivals at 0, 1/3, 2/3 s: the second waits until 2 s, the third
	// would wait until 4 s, past its 3 s timeout at 3.67 s.
	if j.Succeeded != 2 || j.Failed != 1 || j.Stages[0] != (model.StageResult{Stage: "persist", Component: "row", Count: 1}) {
		t.Errorf("same user: %+v", j)
	}
	apart, _ := runYAML(t, replace(src, "USERS", ""), model.RunOptions{Seed: 1})
	if j := apart.Journeys[0]; j.Succeeded != 3 || float64(j.Latency.Max) != 2 {
		t.Errorf("different users: %+v", j)
	}
}

func replace(s, old, new string) string {
	out := ""
	for {
		i := indexOf(s, old)
		if i < 0 {
			return out + s
		}
		out += s[:i] + new
		s = s[i+len(old):]
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// choose picks branches in proportion to their weights, attribute weights
// included.
func TestChooseFollowsWeights(t *testing.T) {
	res, _ := runYAML(t, `name: ch
duration: 10000s
components:
  a: {kind: pool, servers: 1000}
  b: {kind: pool, servers: 1000}
journeys:
  j:
    rate: 1/s
    attributes: {share: 0.3}
    steps:
      - choose:
          - {weight: share, steps: [{use: a, work: 1ms}]}
          - {weight: 0.7, steps: [{use: b, work: 1ms}]}
`, model.RunOptions{Seed: 1})
	a, _ := res.Component("a")
	b, _ := res.Component("b")
	n := float64(a.Offered + b.Offered)
	share := float64(a.Offered) / n
	// Binomial standard error at n ≈ 10,000: 0.0046; allow four of them.
	if math.Abs(share-0.3) > 4*math.Sqrt(0.3*0.7/n) {
		t.Errorf("branch a taken %.4f of %v times, want 0.3", share, n)
	}
}

// A job the client does not wait for can outlive its journey; it keeps
// its own journey's identity (the record is not reused under it).
func TestOrphanJobKeepsItsJourney(t *testing.T) {
	_, ev := runYAML(t, `name: orphan
duration: 3s
drain: 20s
arrivals: even
journeys:
  j:
    rate: 1/s
    steps:
      - job: long
        async: true
routes:
  long:
    steps: [{work: 10s}]
`, model.RunOptions{Seed: 1})
	ends := map[int64]int64{}
	for _, e := range ev {
		if e.Event == "capsim.job_end" {
			ends[e.JobID] = e.JourneyID
		}
	}
	if len(ends) != 3 || ends[1] != 1 || ends[2] != 2 || ends[3] != 3 {
		t.Errorf("job -> journey at job end: %v, want 1->1, 2->2, 3->3", ends)
	}
}

// A journey's arrivals stop at stop, whatever the multiplier: a load that
// drops at a set time, where count would end it earlier at a higher rate.
func TestJourneyStop(t *testing.T) {
	src := `name: stop
duration: 5s
arrivals: even
journeys:
  j: {rate: 10/s, start: 1s, stop: 2s, steps: [{delay: 1ms}]}
`
	for _, m := range []float64{1, 2} {
		res, events := runYAML(t, src, model.RunOptions{Multiplier: m})
		j, _ := res.Journey("j")
		last := 0.0
		for _, e := range events {
			if e.Event == model.EvJourneyEnd {
				last = max(last, e.T-e.Duration)
			}
		}
		if j.Started != int64(10*m) || last >= 2 {
			t.Errorf("x%g: %d journeys, the last starting at %gs; want %d in [1s, 2s)", m, j.Started, last, int64(10*m))
		}
	}
	_, err := model.LoadBytes(fstest.MapFS{}, "t.yaml", []byte(strings.Replace(src, "stop: 2s", "stop: 1s", 1)), model.LoadOptions{})
	if err == nil {
		if l, _ := model.LoadBytes(fstest.MapFS{}, "t.yaml", []byte(strings.Replace(src, "stop: 2s", "stop: 1s", 1)), model.LoadOptions{}); l != nil {
			_, err = l.Compile()
		}
	}
	if err == nil || !strings.Contains(err.Error(), "stop must be after start") {
		t.Errorf("stop at start: got %v, want an error saying stop must be after start", err)
	}
}
