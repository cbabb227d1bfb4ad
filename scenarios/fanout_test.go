package scenarios_test

import (
	"sort"
	"testing"

	"capsim/model"
	"capsim/sim"
)

// Seed 003, within ±25% of the seed's figures (FIGURES 003-12/13/22/24/36/38/39).
// 003-12/13, 003-11, 003-22/24 and 003-36 are fitted (see the YAML); their
// assertions hold the fit, they do not show the model predicts them.

func TestPlacesBlockingVsNonBlocking(t *testing.T) {
	t.Parallel()
	blocking := runOnce(t, "places-fanout", "test-003-03+threadpool", 1, nil)
	coroutines := runOnce(t, "places-fanout", "test-003-03+coroutines", 1, nil)
	withinRel(t, "threadpool p95 (s)", float64(route(t, blocking, "group_search").Latency.P95), 9.76, 0.25)
	withinRel(t, "coroutines p95 (s)", float64(route(t, coroutines, "group_search").Latency.P95), 5.95, 0.25)
	if u := float64(component(t, blocking, "threads").Utilisation); u < 0.99 {
		t.Errorf("the 100-thread pool is %.2f busy; the seed's requests queued behind a full pool", u)
	}
}

// Twice the threads match non-blocking calls at 100 users, whatever the
// switch cost, and break again at twice the users: at 0.15 ms of CPU per
// call the cpu is never busy enough for threads to contend on it.
func TestPlacesMoreThreads(t *testing.T) {
	t.Parallel()
	p95 := func(design string, mult float64, sets ...string) float64 {
		t.Helper()
		r := runScenario(t, "places-fanout", design, model.RunOptions{Seed: 1, Multiplier: mult}, sets...)
		return float64(route(t, r, "group_search").Latency.P95)
	}
	const threads200 = "components.threads.servers=200"
	co := p95("test-003-03+coroutines", 1)
	for _, sigma := range []string{"0", "0.05", "0.2"} {
		withinRel(t, "200 threads p95 / coroutines p95, switch_cost "+sigma,
			p95("test-003-03+threadpool", 1, threads200, "components.service_cpu.switch_cost="+sigma)/co, 1, 0.02)
	}
	if got, co2 := p95("test-003-03+threadpool", 2, threads200), p95("test-003-03+coroutines", 2); got < 1.5*co2 {
		t.Errorf("200 users: 200 threads p95 %.2fs, coroutines %.2fs; the pool should be full again", got, co2)
	} else {
		t.Logf("200 users: 200 threads p95 %.2fs, coroutines %.2fs", got, co2)
	}
	// With 2 ms of CPU per call the cpu is 44% busy, and 200 threads
	// runnable at once thrash when switching costs 20% per extra thread,
	// while the coroutines' two dispatcher threads do not switch at all.
	heavy := "distributions.call_cpu=exponential(mean=2ms)"
	coHeavy := p95("test-003-03+coroutines", 1, heavy, "components.service_cpu.switch_cost=0.2")
	withinRel(t, "coroutines p95 at 2 ms per call (s)", coHeavy, 5.95, 0.1)
	got := p95("test-003-03+threadpool", 1, threads200, heavy, "components.service_cpu.switch_cost=0.2")
	if got < 5*coHeavy {
		t.Errorf("200 threads, 2 ms per call, switch_cost 0.2: p95 %.1fs, coroutines %.1fs; threads should thrash", got, coHeavy)
	} else {
		t.Logf("200 threads, 2 ms per call, switch_cost 0.2: p95 %.1fs (coroutines %.1fs)", got, coHeavy)
	}
	// There, more threads lower throughput: 100 threads are not runnable
	// in numbers enough to thrash, and beat 200.
	if got100 := p95("test-003-03+threadpool", 1, heavy, "components.service_cpu.switch_cost=0.2"); got100 > got/5 {
		t.Errorf("2 ms per call, switch_cost 0.2: 100 threads p95 %.1fs, 200 threads %.1fs; 100 should be far faster", got100, got)
	} else {
		t.Logf("2 ms per call, switch_cost 0.2: 100 threads p95 %.1fs, 200 threads %.1fs", got100, got)
	}
	withinRel(t, "200 threads p95 / coroutines, 2 ms per call, switch_cost 0",
		p95("test-003-03+threadpool", 1, threads200, heavy, "components.service_cpu.switch_cost=0")/coHeavy, 1, 0.05)
}

// runSeries runs a design with its signals sampled every 2 ms.
func runSeries(t *testing.T, design string, trace func(*model.TraceEvent), sets ...string) *model.Result {
	t.Helper()
	return runScenario(t, "places-fanout", design, model.RunOptions{Seed: 1, SeriesStep: 2 * sim.Millisecond, Trace: trace}, sets...)
}

// cpuPerWindow is the cpu's busy share averaged over each 10 s, as a
// dashboard draws it, from the samples after the warm-up.
func cpuPerWindow(t *testing.T, r *model.Result, cores float64, from float64) []float64 {
	t.Helper()
	for _, s := range r.Series.Signals {
		if s.Name != "service_cpu.busy" {
			continue
		}
		per := int(10/r.Series.Step + 0.5)
		var out []float64
		for i := int(from/10) * per; i+per <= len(s.Values); i += per {
			sum := 0.0
			for _, v := range s.Values[i : i+per] {
				sum += v
			}
			out = append(out, sum/float64(per)/cores)
		}
		return out
	}
	t.Fatal("no service_cpu.busy signal")
	return nil
}

// 003-10/11: the seed saw the blocking design's CPU rise to about 25% and
// 10% against below 5% for coroutines. In the model a blocked thread costs
// no CPU, and the blocking design does half the calls per second, so its
// CPU is lower, not higher: 003-10 is not reproduced, a labelled exception
// of the scenario's observations, logged here and not held (a model that
// came to reproduce it must not fail this test).
func TestPlacesCPU(t *testing.T) {
	t.Parallel()
	peak := func(xs []float64) (m float64) {
		for _, x := range xs {
			m = max(m, x)
		}
		return m
	}
	co := cpuPerWindow(t, runSeries(t, "test-003-03+coroutines", nil), 2, 60)
	th := cpuPerWindow(t, runSeries(t, "test-003-03+threadpool", nil), 2, 60)
	t.Logf("peak CPU over 10 s: coroutines %.1f%%, 100 threads %.1f%% (seed <5%% and ~25%%/10%%)", 100*peak(co), 100*peak(th))
	if p := peak(co); p >= 0.05 {
		t.Errorf("coroutines' CPU peaked at %.1f%%, seed below 5%% (003-11)", 100*p)
	}
	if p := peak(th); p < 0.10 {
		t.Logf("threads' CPU peaked at %.1f%%, not the seed's ~25%%/10%% (003-10, an exception): a blocked thread costs no CPU in the model", 100*p)
	}
}

// 003-14/15: with users rising from 50 to 100 at 150 s, the full 100-thread
// pool spreads its fixed call throughput over twice the searches: those in
// progress slow to half speed and the new ones have not finished, so
// completions dip for about one search time (8 s), then come back to the
// same level. Coroutines take the extra users and complete twice as many.
// Over seeds 1-5 the dip is to 59-65% of the level before.
func TestPlacesThroughputDip(t *testing.T) {
	t.Parallel()
	tps := func(design string) (before, dip, after float64) {
		var evs []model.TraceEvent
		runSeries(t, design, sysCollect(&evs), "journeys.more_users.start=150s")
		for _, e := range evs {
			if e.Event != "capsim.request_end" || e.Route != "group_search" {
				continue
			}
			switch {
			case e.T >= 60 && e.T < 150:
				before += 1.0 / 90
			case e.T >= 150 && e.T < 158:
				dip += 1.0 / 8
			case e.T >= 200 && e.T < 300:
				after += 1.0 / 100
			}
		}
		return before, dip, after
	}
	b, d, a := tps("test-003-03+threadpool")
	t.Logf("100 threads: %.1f searches/s before the step, %.1f in the 8 s after it, %.1f from 200 s", b, d, a)
	if d > 0.8*b {
		t.Errorf("100 threads: %.1f searches/s after the step, %.1f before; want a dip below 80%%", d, b)
	}
	withinRel(t, "100 threads: searches/s from 200 s / before the step", a/b, 1, 0.1)
	b, d, a = tps("test-003-03+coroutines")
	t.Logf("coroutines: %.1f searches/s before the step, %.1f in the 8 s after it, %.1f from 200 s", b, d, a)
	if d < b {
		t.Errorf("coroutines: %.1f searches/s after the step, %.1f before; they should not dip", d, b)
	}
	withinRel(t, "coroutines: searches/s from 200 s / before the step", a/b, 2, 0.1)
}

// peakInFlight is the most requests of route open at once in a trace, and
// the level they stay at or below for 99% of the time any is open.
func sysConcurrency(events []model.TraceEvent, route string) (peak, p99 int) {
	type ev struct {
		t float64
		d int
	}
	var es []ev
	for _, e := range events {
		if e.Route != route {
			continue
		}
		switch e.Event {
		case "capsim.request_start":
			es = append(es, ev{e.T, 1})
		case "capsim.request_end":
			es = append(es, ev{e.T, -1})
		}
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].t < es[j].t || (es[i].t == es[j].t && es[i].d < es[j].d) })
	at := map[int]float64{}
	n, last := 0, 0.0
	for _, e := range es {
		at[n] += e.t - last
		last = e.t
		n += e.d
		peak = max(peak, n)
	}
	busy := 0.0
	for k, v := range at {
		if k > 0 {
			busy += v
		}
	}
	acc := 0.0
	for k := 1; k <= peak; k++ {
		acc += at[k]
		if acc >= 0.99*busy {
			return peak, k
		}
	}
	return peak, peak
}

func sysCollect(into *[]model.TraceEvent) func(*model.TraceEvent) {
	return func(e *model.TraceEvent) { *into = append(*into, *e) }
}

func TestPlacesUnlimitedVsLimitedFanout(t *testing.T) {
	t.Parallel()
	var ue, le []model.TraceEvent
	unlimited := runOnce(t, "places-fanout", "test-003-22+unlimited", 1, sysCollect(&ue))
	limited := runOnce(t, "places-fanout", "test-003-22+limited", 1, sysCollect(&le))
	withinRel(t, "unlimited call latency (s)", float64(route(t, unlimited, "fetch").Latency.Mean), 0.613, 0.25)
	withinRel(t, "limited call latency (s)", float64(route(t, limited, "fetch").Latency.Mean), 0.124, 0.25)
	_, p99 := sysConcurrency(ue, "fetch")
	withinRel(t, "unlimited calls in flight, p99 of busy time", float64(p99), 30, 0.25)
	if peak, _ := sysConcurrency(le, "fetch"); peak > 4 {
		t.Errorf("limited fan-out had %d calls in flight; two users with 2 permits make at most 4", peak)
	}
	count429 := func(r *model.Result) int64 {
		for _, s := range route(t, r, "places").Statuses {
			if s.Status == 429 {
				return s.Count
			}
		}
		return 0
	}
	if u, l := count429(unlimited), count429(limited); u < 20*l || u < 1000 {
		t.Errorf("429s: unlimited %d, limited %d; unlimited fan-out should draw far more", u, l)
	}
}

func TestPlacesTokenBucketUnderOverload(t *testing.T) {
	t.Parallel()
	var evs []model.TraceEvent
	res := runOnce(t, "places-fanout", "", 1, sysCollect(&evs))
	// External calls per second in each phase.
	calls := func(from, to float64) float64 {
		n := 0
		for _, e := range evs {
			if e.Event == "capsim.request_start" && e.Route == "places" && e.T >= from && e.T < to {
				n++
			}
		}
		return float64(n) / (to - from)
	}
	over, rec := calls(0, 60), calls(100, 150)
	t.Logf("external calls: %.1f/s during the 80/s overload, %.1f/s in recovery", over, rec)
	if over < 5 || over > 10 {
		t.Errorf("overload: %.1f external calls/s, seed 5-10/s (003-36)", over)
	}
	withinRel(t, "recovery external calls/s", rec, 5, 0.25)
	// The profile's stages: Poisson arrivals at 80/s for 60 s, none until
	// 100 s, 12/s to 150 s; each phase's count within 4 standard deviations.
	var overload, between, recovery []float64 // durations of the searches started in each phase
	for _, e := range evs {
		if e.Event != model.EvJourneyEnd || e.Journey != "search" {
			continue
		}
		switch start := e.T - e.Duration; {
		case start < 60:
			overload = append(overload, e.Duration)
		case start < 100:
			between = append(between, e.Duration)
		default:
			recovery = append(recovery, e.Duration)
		}
	}
	t.Logf("searches started: %d in the overload phase, %d between the phases, %d in recovery", len(overload), len(between), len(recovery))
	if n := float64(len(overload)); n < 4800-4*69.3 || n > 4800+4*69.3 || len(between) != 0 {
		t.Errorf("%d searches in the overload phase, %d between the phases; want 4800 ± 277 (80/s for 60 s, 003-32) and none", len(overload), len(between))
	}
	if n := float64(len(recovery)); n < 600-4*24.5 || n > 600+4*24.5 {
		t.Errorf("%d searches in the recovery phase, want 600 ± 98 (12/s from 100 s to 150 s, 003-35)", len(recovery))
	}
	all := journey(t, res, "search")
	if all.RequestFailures != 0 || all.Requests != all.Started {
		t.Errorf("HTTP failures %d of %d requests, seed 0%% (003-39)", all.RequestFailures, all.Requests)
	}
	for _, s := range route(t, res, "places").Statuses {
		if s.Status == 429 {
			t.Errorf("%d calls drew 429; the seed saw none (003-39)", s.Count)
		}
	}
	if b := component(t, res, "tokens"); b.RateSteps != 2 || float64(b.FinalRate) != 5 {
		t.Errorf("refill stepped %d times to %v/s, seed 15 -> 8 -> 5 (003-34)", b.RateSteps, b.FinalRate)
	}
	sort.Float64s(overload)
	withinRel(t, "overload p95 (s)", overload[int(0.95*float64(len(overload)))], 1.18, 0.25)
	// What the HTTP SLOs do not see: searches answered without a Places
	// result. Every search without a token is one; the SLO that bounds
	// them is broken while the HTTP ones hold.
	pr := route(t, res, "places_result")
	withinRel(t, "searches without a Places result", float64(pr.FailureRate), float64(component(t, res, "tokens").TimedOut)/float64(pr.Calls), 0.001)
	t.Logf("searches without a Places result: %d of %d (%.1f%%)", pr.Failures, pr.Calls, 100*float64(pr.FailureRate))
	if pr.FailureRate < 0.5 {
		t.Errorf("only %.1f%% of searches lost their Places result; under 80/s against 15/s of tokens most should", 100*float64(pr.FailureRate))
	}
	for _, s := range res.SLOs {
		if want := s.SLO == "places_result failure_rate <= 0.05"; s.Met == want {
			t.Errorf("SLO %s met=%v", s.SLO, s.Met)
		}
	}
	light := runOnce(t, "places-fanout", "", 1, nil, "duration=60s", "journeys.search.rate=8/s", "journeys.search.stages=[{target: 8/s, duration: 60s}]")
	withinRel(t, "p95 with no token waits (s)", float64(journey(t, light, "search").Latency.P95), 0.9, 0.25)
}
