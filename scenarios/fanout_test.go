package scenarios_test

import (
	"sort"
	"testing"

	"capsim/model"
)

// Seed 003, within ±25% of the seed's figures (FIGURES 003-12/13/22/24/36/38/39).

func TestPlacesBlockingVsNonBlocking(t *testing.T) {
	blocking := runOnce(t, "places-fanout", "threadpool", 1, nil)
	coroutines := runOnce(t, "places-fanout", "coroutines", 1, nil)
	withinRel(t, "threadpool p95 (s)", float64(journey(t, blocking, "users").Latency.P95), 9.76, 0.25)
	withinRel(t, "coroutines p95 (s)", float64(journey(t, coroutines, "users").Latency.P95), 5.95, 0.25)
	if u := float64(component(t, blocking, "threads").Utilisation); u < 0.99 {
		t.Errorf("the 100-thread pool is %.2f busy; the seed's requests queued behind a full pool", u)
	}
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
		case "request_start":
			es = append(es, ev{e.T, 1})
		case "request_end":
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
	var ue, le []model.TraceEvent
	unlimited := runOnce(t, "places-fanout", "unlimited", 1, sysCollect(&ue))
	limited := runOnce(t, "places-fanout", "limited", 1, sysCollect(&le))
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
	var evs []model.TraceEvent
	res := runOnce(t, "places-fanout", "", 1, sysCollect(&evs))
	// External calls per second in each phase.
	calls := func(from, to float64) float64 {
		n := 0
		for _, e := range evs {
			if e.Event == "request_start" && e.Route == "places" && e.T >= from && e.T < to {
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
	over80 := journey(t, res, "overload")
	if over80.RequestFailures != 0 || over80.Requests != 4800 {
		t.Errorf("HTTP failures %d of %d requests, seed 0%% (003-39)", over80.RequestFailures, over80.Requests)
	}
	for _, s := range route(t, res, "places").Statuses {
		if s.Status == 429 {
			t.Errorf("%d calls drew 429; the seed saw none (003-39)", s.Count)
		}
	}
	if b := component(t, res, "tokens"); b.RateSteps != 2 || float64(b.FinalRate) != 5 {
		t.Errorf("refill stepped %d times to %v/s, seed 15 -> 8 -> 5 (003-34)", b.RateSteps, b.FinalRate)
	}
	withinRel(t, "overload p95 (s)", float64(over80.Latency.P95), 1.18, 0.25)
	light := runOnce(t, "places-fanout", "", 1, nil, "duration=60s", "journeys.overload.rate=8/s")
	withinRel(t, "p95 with no token waits (s)", float64(journey(t, light, "overload").Latency.P95), 0.9, 0.25)
}
