package model_test

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"testing"

	"capsim/cmd/golden"
	"capsim/model"
	"capsim/sim"
)

// Load profiles against their arithmetic: even arrivals land where the
// cumulative rate crosses each whole number; Poisson arrivals count what
// the rate integrates to.

func starts(events []model.TraceEvent) []float64 {
	var ts []float64
	for _, e := range events {
		if e.Event == "capsim.journey_start" {
			ts = append(ts, e.T)
		}
	}
	return ts
}

// checkArrivals fails the test unless the journeys started at the times
// got are as many as want, each within a microsecond of its own: even
// arrivals computed from a square root or a quotient land there only to
// rounding.
func checkArrivals(t *testing.T, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d arrivals, want %d: %v", len(got), len(want), got)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Errorf("arrival %d at %.9fs, want %.9fs", i+1, got[i], want[i])
		}
	}
}

// A ramp from 0 to 2/s over 10 s has Λ(t) = t²/10, so the k-th even
// arrival is at √(10k) s: nine of them before the window ends at 10 s.
func TestEvenArrivalsFollowARamp(t *testing.T) {
	src := scenarioSrc("ramp", "10s", "arrivals: even\n",
		"  app: {kind: pool, servers: 100}\n", `  j:
    stages: [{target: 2/s, duration: 10s}]
    steps: [{use: app, work: 1ms}]
`)
	_, events := runYAML(t, src, model.RunOptions{Seed: 1})
	var want []float64
	for k := 1; k <= 9; k++ {
		want = append(want, math.Sqrt(10*float64(k)))
	}
	checkArrivals(t, starts(events), want)
}

// 10/s for 100 s, a step to 100/s for 100 s, a ramp down to 0 over 20 s
// (1,000 more) and nothing after: 12,000 Poisson arrivals expected; the
// count is within 4 standard deviations (√12000 ≈ 110), window by window.
func TestPoissonArrivalsFollowStages(t *testing.T) {
	src := scenarioSrc("stages", "400s", "", "  app: {kind: pool, servers: 1000}\n", `  j:
    rate: 10/s
    stages:
      - {target: 10/s, duration: 100s}
      - {target: 100/s, duration: 0s}
      - {target: 100/s, duration: 100s}
      - {target: 0/s, duration: 20s}
    steps: [{use: app, work: 1ms}]
`)
	for _, mult := range []float64{1, 2} {
		_, events := runYAML(t, src, model.RunOptions{Seed: 7, Multiplier: mult})
		var n [4]float64
		for _, ts := range starts(events) {
			switch {
			case ts < 100:
				n[0]++
			case ts < 200:
				n[1]++
			case ts < 220:
				n[2]++
			default:
				n[3]++
			}
		}
		want := [4]float64{1000 * mult, 10000 * mult, 1000 * mult, 0}
		for i := range n {
			if math.Abs(n[i]-want[i]) > 4*math.Sqrt(want[i]) {
				t.Errorf("multiplier %g, window %d: %g arrivals, want %g ± %.0f", mult, i, n[i], want[i], 4*math.Sqrt(want[i]))
			}
		}
	}
}

// Capacity over time, as a server schedule: one server, none from 10 s to
// 20 s. A job started at 5 s runs its 8 s through the cut (no
// preemption); one arriving at 12 s waits for the server's return at 20 s.
func TestAScheduleWithAZeroCapacityWindow(t *testing.T) {
	src := scenarioSrc("shift", "15s", "arrivals: even\n",
		"  desk: {kind: pool, servers: 1, schedule: [{at: 10s, servers: 0}, {at: 20s, servers: 1}]}\n",
		`  early:
    rate: 1/s
    start: 5s
    count: 1
    steps: [{use: desk, work: 8s}]
  late:
    rate: 1/s
    start: 12s
    count: 1
    steps: [{use: desk, work: 1s}]
`)
	res, _ := runYAML(t, src, model.RunOptions{})
	early, late := res.Journeys[0], res.Journeys[1]
	desk, _ := res.Component("desk")
	// Capacity: 1 for 10 s, 0 for 10 s, 1 for the last 1 s of a 21 s run.
	if float64(early.Latency.Max) != 8 || float64(late.Latency.Max) != 9 || desk.Capacity != 11.0/21 {
		t.Errorf("early %v, late %v, mean capacity %g; want 8s, 9s (8 waiting), 11/21", early.Latency.Max, late.Latency.Max, desk.Capacity)
	}
}

// A windowed SLO holds in every window, not over the run: a 10 s burst at
// twice the rate a one-server desk can take leaves the run's p95
// within 1 s but not the p95 of the windows after it. Its measured value
// is the worst window's, here checked against the trace.
func TestAWindowedSLOReportsTheWorstWindow(t *testing.T) {
	src := scenarioSrc("windows", "1000s", "arrivals: even\n",
		"  desk: {kind: pool, servers: 1}\n", `  j:
    rate: 1/s
    stages:
      - {target: 1/s, duration: 100s}
      - {target: 2/s, duration: 0s}
      - {target: 2/s, duration: 10s}
      - {target: 1/s, duration: 0s}
    steps: [{use: desk, work: 700ms}]
slos:
  - {journey: j, p95: "<= 1s"}
  - {journey: j, p95: "<= 1s", window: 10s}
  - {journey: j, success_rate: ">= 0.99", window: 10s}
`)
	res, events := runYAML(t, src, model.RunOptions{})
	var byWindow [101][]float64
	for _, e := range events {
		if e.Event == model.EvJourneyEnd {
			byWindow[int(e.T/10)] = append(byWindow[int(e.T/10)], e.Duration)
		}
	}
	worst := 0.0
	for _, ds := range byWindow {
		if len(ds) > 0 {
			sort.Float64s(ds)
			worst = max(worst, ds[int(math.Ceil(0.95*float64(len(ds))))-1])
		}
	}
	whole, windowed, success := res.SLOs[0], res.SLOs[1], res.SLOs[2]
	if !whole.Met || windowed.Met || math.Abs(float64(windowed.Value)-worst) > 0.01*worst || !success.Met || windowed.SLO != "j p95 <= 1s in every 10s window" {
		t.Errorf("whole run %+v, windowed %+v (worst window p95 from the trace %.3fs), success %+v", whole, windowed, worst, success)
	}
}

// Percentiles of all journeys, as a load tester reads p95, count failures
// too: a journey refused at once (0 s) pulls the p95 of all journeys down
// where the p95 of the succeeded ones does not move.
func TestPercentilesOfAllJourneys(t *testing.T) {
	src := scenarioSrc("all", "100s", "arrivals: even\n",
		"  desk: {kind: pool, servers: 1, queue: 0}\n", `  j:
    rate: 1/s
    steps: [{use: desk, work: 1500ms}]
slos:
  - {journey: j, p50: "<= 1s"}
  - {journey: j, p50: "<= 1s", of: all}
`)
	res, _ := runYAML(t, src, model.RunOptions{})
	// Every other journey finds the desk busy and is refused at once.
	succeeded, all := res.SLOs[0], res.SLOs[1]
	if float64(succeeded.Value) != 1.5 || succeeded.Met || float64(all.Value) != 0 || !all.Met || all.SLO != "j p50 of all <= 1s" {
		t.Errorf("succeeded %+v, all %+v; want p50 1.5s (broken) and 0s (met)", succeeded, all)
	}
}

// A load driver times every request it made, whatever its status, to the
// moment it stopped waiting. Three calls at once to one server, each 1 s of
// work, under a 1.5 s client timeout: the first answers at 1 s; the second
// and third are given up at 1.5 s while the server works on to 2 s and 3 s.
// The driver sees 1, 1.5, 1.5 s (p50 1.5 s, max 1.5 s, mean 4/3 s), the
// server 1, 2, 3 s (p50 2 s, max 3 s, mean 2 s), and the journey, failed,
// took 1.5 s.
func TestPercentilesOfAllRequestsAsTheClientSawThem(t *testing.T) {
	src := scenarioSrc("client", "100s", "arrivals: even\n", `  desk: {kind: pool, servers: 1}
routes:
  api:
    steps: [{use: desk, work: 1s}]
`, `  j:
    rate: 6/m
    steps: [{fanout: 3, steps: [{call: api, timeout: 1500ms}]}]
slos:
  - {route: api, p50: "<= 1.2s", of: all}
  - {route: api, p99: "<= 1.8s", of: all}
  - {route: api, p99: "<= 1.8s"}
  - {journey: j, p99: "<= 1.8s", of: all}
`)
	res, _ := runYAML(t, src, model.RunOptions{})
	r, _ := res.Route("api")
	j, _ := res.Journey("j")
	near := func(got model.Num, want float64) bool {
		return math.Abs(float64(got)-want) <= sim.TallyRelativeError*want
	}
	client, server := r.LatencyAll, r.Latency
	if client.N != 30 || !near(client.P50, 1.5) || client.Max != 1.5 || math.Abs(float64(client.Mean)-4.0/3) > 1e-9 {
		t.Errorf("route as the client saw it %+v; want 30 calls, p50 1.5s, max 1.5s, mean 4/3 s", client)
	}
	if server.N != 30 || !near(server.P50, 2) || server.Max != 3 || math.Abs(float64(server.Mean)-2) > 1e-9 {
		t.Errorf("route as the server timed it %+v; want 30 calls, p50 2s, max 3s, mean 2s", server)
	}
	if j.Failed != 10 || j.Latency.N != 0 || j.LatencyAll.N != 10 || j.LatencyAll.Max != 1.5 || !near(j.LatencyAll.P50, 1.5) {
		t.Errorf("journey %+v; want 10 failed at 1.5s", j)
	}
	var got []string
	for _, s := range res.SLOs {
		got = append(got, fmt.Sprintf("%s: %.3f %v", s.SLO, float64(s.Value), s.Met))
	}
	want := []string{
		"api p50 of all <= 1.2s: 1.500 false",
		"api p99 of all <= 1.8s: 1.500 true",
		"api p99 <= 1.8s: 3.000 false",
		"j p99 of all <= 1.8s: 1.500 true",
	}
	golden.CheckLines(t, "SLOs:\n%s\nwant:\n%s", got, want)
	// run --json holds both, each journey's and route's latency_all
	// beside its latency.
	js, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Journeys []struct {
			LatencyAll struct {
				Max float64 `json:"max_s"`
			} `json:"latency_all"`
		}
		Routes []struct {
			Latency struct {
				Max float64 `json:"max_s"`
			} `json:"latency"`
			LatencyAll struct {
				Max float64 `json:"max_s"`
			} `json:"latency_all"`
		}
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Journeys[0].LatencyAll.Max != 1.5 || doc.Routes[0].LatencyAll.Max != 1.5 || doc.Routes[0].Latency.Max != 3 {
		t.Errorf("run --json: journey latency_all max %g, route latency_all max %g and latency max %g; want 1.5, 1.5, 3",
			doc.Journeys[0].LatencyAll.Max, doc.Routes[0].LatencyAll.Max, doc.Routes[0].Latency.Max)
	}
	for _, m := range res.Metrics() {
		switch m.Name() {
		case "route.api.all_p50_s", "journey.j.all_p50_s":
			if !near(model.Num(m.Value), 1.5) {
				t.Errorf("%s = %g, want 1.5", m.Name(), m.Value)
			}
		case "route.api.p50_s":
			if !near(model.Num(m.Value), 2) {
				t.Errorf("%s = %g, want 2", m.Name(), m.Value)
			}
		}
	}
}
