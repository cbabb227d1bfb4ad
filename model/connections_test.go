package model_test

import (
	"fmt"
	"math"
	"testing"

	"capsim/model"
	"capsim/sim/theory"
)

// spike is a view spike of 50 clients, one every 100 ms from 0 to 4.9 s,
// each making three short requests 1.01 s apart over a keep-alive
// connection table, and one client idle until 20 s so that the run, and
// its time series, go on while the connections close. Every time is
// constant and no two events of different kinds coincide, so the figures
// follow by hand.
//
// Client a (a = 0, 0.1, …, 4.9 s) opens a connection at a (connect 50 ms,
// then 230 ms of work) and releases it at a+0.28; reuses it on
// [a+1.29, a+1.52) and [a+2.53, a+2.76); it closes 10 s after the last
// release, at a+12.76. So each client keeps a connection open 12.76 s
// and active 0.74 s: 50 opened, 100 reused, 638 connection-seconds open
// and 37 active in the 20 s run (means 31.9 and 1.85). All 50 are open on
// [4.9, 12.76). Active at most 8: at t with t mod 0.1 in [0, 0.02), 3
// clients are in their first request (a in (t-0.28, t]), 3 in their
// second, 2 in their third.
var spike = scenarioSrc("spike", "5s", "arrivals: even\n",
	"  conns: {kind: connections, max: %d, idle_timeout: 10s, connect: 50ms}\n", `  view:
    rate: 10/s
    steps:
      - {use: conns, work: 230ms}
      - delay: 1010ms
      - {use: conns, work: 230ms}
      - delay: 1010ms
      - {use: conns, work: 230ms}
  watch:
    rate: 1/h
    steps:
      - delay: 20s
`)

func runSpike(t *testing.T, max int, opts model.RunOptions) *model.Result {
	t.Helper()
	c := mustCompileNamed(t, "spike.yaml", fmt.Sprintf(spike, max), model.LoadOptions{})
	res := mustRun(t, c, opts)
	return res
}

func TestConnectionsSpikeFillsTheTableWithIdleConnections(t *testing.T) {
	res := runSpike(t, 500, model.RunOptions{Seed: 1, SeriesStep: 1e9})
	if v := res.Journeys[0]; v.Started != 50 || v.Succeeded != 50 {
		t.Fatalf("view: %d started, %d succeeded; want 50 and 50", v.Started, v.Succeeded)
	}
	c := res.Components[0]
	if c.Kind != "connections" || c.Capacity != 500 || c.Offered != 150 || c.Rejected != 0 {
		t.Errorf("%s %s: capacity %g, offered %d, rejected %d; want connections, 500, 150, 0", c.Name, c.Kind, c.Capacity, c.Offered, c.Rejected)
	}
	metrics := map[string]float64{}
	for _, m := range res.Metrics() {
		metrics[m.Name()] = m.Value
	}
	for name, want := range map[string]float64{
		"connects_count":   50,
		"reuses_count":     100,
		"peak_open_count":  50,
		"mean_open_count":  638.0 / 20,
		"peak_busy_count":  8,
		"mean_busy_count":  37.0 / 20,
		"utilisation_rate": 37.0 / 20 / 500,
		"peak_queue_count": 0,
	} {
		if got, ok := metrics["component.conns."+name]; !ok || got != want {
			t.Errorf("component.conns.%s = %g (listed %v), want %g", name, got, ok, want)
		}
	}

	// Sampled each second, before the arrival due at the same instant.
	// Open: the clients arrived in (t-12.76, t); active: those in a
	// request then. The table falls back to empty 12.76 s after the last
	// client came.
	wantSeries := map[string][]float64{
		"conns.open": {0, 10, 20, 30, 40, 50, 50, 50, 50, 50, 50, 50, 50, 47, 37, 27, 17, 7, 0, 0, 0},
		"conns.busy": {0, 2, 5, 7, 7, 7, 5, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	seen := 0
	for _, sig := range res.Series.Signals {
		want, ok := wantSeries[sig.Name]
		if !ok {
			continue
		}
		seen++
		if fmt.Sprint(sig.Values) != fmt.Sprint(want) {
			t.Errorf("%s = %v\nwant %v", sig.Name, sig.Values, want)
		}
	}
	if seen != len(wantSeries) {
		t.Errorf("signals %v lack conns.open or conns.busy", res.Series.Signals)
	}
}

// With room for 20, the first 20 clients (0 to 1.9 s) fill the table, and
// it stays full of their connections, mostly idle, until the first closes
// at 12.76 s: the 30 clients of 2.0 to 4.9 s are refused at their first
// request, while at most 6 requests are in flight (at 1.5 s: 1.3, 1.4 and
// 1.5 in their first request, 0.0, 0.1 and 0.2 in their second; no client
// of the 20 is in its first and its third request at once).
func TestConnectionsFullOfIdleConnectionsRefuses(t *testing.T) {
	res := runSpike(t, 20, model.RunOptions{Seed: 1})
	v, c := res.Journeys[0], res.Components[0]
	if v.Started != 50 || v.Succeeded != 20 || v.Failed != 30 {
		t.Fatalf("view: %d started, %d succeeded, %d failed; want 50, 20, 30", v.Started, v.Succeeded, v.Failed)
	}
	if len(v.Stages) != 1 || v.Stages[0].Component != "conns" || v.Stages[0].Count != 30 {
		t.Errorf("failure stages %+v, want 30 at conns", v.Stages)
	}
	if c.Rejected != 30 || c.Connects != 20 || c.Reuses != 40 || c.PeakOpen != 20 || c.PeakBusy != 6 {
		t.Errorf("rejected %d, connects %d, reuses %d, peak open %g, peak active %g; want 30, 20, 40, 20, 6",
			c.Rejected, c.Connects, c.Reuses, c.PeakOpen, c.PeakBusy)
	}
}

func TestConnectionsSpecErrors(t *testing.T) {
	const head = "name: c\nduration: 1h\n"
	const tail = "journeys:\n  j: {rate: 1/h, steps: [{use: conns, work: 1s}]}\n"
	for _, c := range []struct{ name, comps, want string }{
		{"typo", "components:\n  conns: {kind: connections, max: 10, idle_timout: 5s}\n",
			`c.yaml:4:39: components.conns.idle_timout: unknown key "idle_timout"; did you mean "idle_timeout"?`},
		{"no max", "components:\n  conns: {kind: connections, idle_timeout: 5s}\n",
			`c.yaml:4:10: components.conns.max: connections need max (how many may be open at once, idle ones included)`},
		{"max 0", "components:\n  conns: {kind: connections, max: 0}\n",
			`c.yaml:4:35: components.conns.max: max must be at least 1, got 0`},
		{"another kind's key", "components:\n  conns: {kind: connections, max: 10, servers: 3}\n",
			`c.yaml:4:48: components.conns.servers: servers does not apply to a component of kind connections`},
		{"when_full", "components:\n  conns: {kind: connections, max: 10, when_full: caller_runs}\n",
			`c.yaml:4:50: components.conns.when_full: when_full must be reject or wait, got "caller_runs"`},
		{"wait_timeout without wait", "components:\n  conns: {kind: connections, max: 10, wait_timeout: 1s}\n",
			`c.yaml:4:53: components.conns.wait_timeout: wait_timeout applies with when_full: wait; a full table refuses at once`},
		{"wait", "components:\n  conns: {kind: connections, max: 10, when_full: wait, wait_timeout: 1s, key: user}\n", ""},
		{"a balancer's load", `components:
  lb: {kind: balancer, replicas: 2, policy: least_load, load: conns}
  conns: {kind: connections, max: 10, behind: lb}
journeys:
  j: {rate: 1/h, steps: [{use: lb, steps: [{use: conns, work: 1s}]}]}
`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.comps
			if c.name != "a balancer's load" {
				src += tail
			}
			if got := compileErrorText("c.yaml", src); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// With when_full: wait, a client finding the table full waits for the
// next connection to close, then opens it. Client 0 opens the only
// connection at 0 (100 ms), releases it at 0.6 s and keeps it to 2.6 s;
// client 1, arriving at 1 s, waits until then, opens it and is done at
// 3.2 s: a journey of 2.2 s after a wait of 1.6 s. With wait_timeout 1s it
// gives up at 2 s instead, refused with the table's status.
func TestConnectionsWaitForAConnectionToClose(t *testing.T) {
	src := scenarioSrc("w", "2s", "arrivals: even\n",
		"  conns: {kind: connections, max: 1, idle_timeout: 2s, connect: 100ms, when_full: wait%s}\n",
		`  view:
    rate: 1/s
    steps:
      - {use: conns, work: 500ms}
`)
	for _, c := range []struct {
		timeout                    string
		succeeded, failed, delayed int64
		meanWait, longest          float64
	}{
		{"", 2, 0, 1, 0.8, 2.2},
		{", wait_timeout: 1s", 1, 1, 0, 0, 0.6},
	} {
		cc := mustCompileNamed(t, "w.yaml", fmt.Sprintf(src, c.timeout), model.LoadOptions{})
		res := mustRun(t, cc, model.RunOptions{Seed: 1})
		j, k := res.Journeys[0], res.Components[0]
		if j.Succeeded != c.succeeded || j.Failed != c.failed || k.Delayed != c.delayed || k.TimedOut != c.failed {
			t.Errorf("%q: %d succeeded, %d failed, %d delayed, %d timed out; want %d, %d, %d, %d", c.timeout,
				j.Succeeded, j.Failed, k.Delayed, k.TimedOut, c.succeeded, c.failed, c.delayed, c.failed)
		}
		if float64(k.Wait.Mean) != c.meanWait || float64(j.Latency.Max) != c.longest || k.PeakQueue != 1 {
			t.Errorf("%q: mean wait %v, longest journey %v, peak queue %g; want %g, %g, 1", c.timeout,
				k.Wait.Mean, j.Latency.Max, k.PeakQueue, c.meanWait, c.longest)
		}
	}
}

// A client's keep-alive pool to one host that queues calls when full is
// an M/M/c queue once its connections are open: a released connection
// goes to the oldest waiting call. 8 calls/s holding one of 2 connections
// for an exponential 200 ms (ρ 0.8) wait Wq = C(2, 1.6)/(2μ − λ) =
// 0.3556 s (Erlang C). Before, a released connection went idle and the
// next call to arrive took it, ahead of those waiting, who waited for a
// connection to idle out: hours, at 30 s of keep-alive.
func TestConnectionsKeepAlivePoolIsErlangC(t *testing.T) {
	src := scenarioSrc("c", "6000s", "warmup: 100s\n",
		"  conns: {kind: connections, max: 2, idle_timeout: 30s, connect: 50ms, key: host, when_full: wait}\n",
		`  call:
    rate: 8/s
    attributes: {host: 1}
    steps:
      - {use: conns, work: exponential(mean=200ms)}
`)
	q, err := theory.MMc(8, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	cc := mustCompileNamed(t, "c.yaml", src, model.LoadOptions{})
	var waits []float64
	for seed := uint64(1); seed <= 3; seed++ {
		res := mustRun(t, cc, model.RunOptions{Seed: seed})
		waits = append(waits, float64(res.Components[0].Wait.Mean))
	}
	mean := (waits[0] + waits[1] + waits[2]) / 3
	t.Logf("mean wait %.4fs over seeds 1-3 (%.4f), Erlang C %.4fs", mean, waits, q.Wq)
	if math.Abs(mean-q.Wq)/q.Wq > 0.05 {
		t.Errorf("mean wait %.4fs over seeds 1-3 (%.4f), Erlang C %.4fs", mean, waits, q.Wq)
	}
}
