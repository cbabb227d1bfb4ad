package scenarios_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"capsim/model"
	"capsim/scenarios"
	"capsim/sim"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// These tests hold the trip scenario to the seed-000 load-test report. Each
// figure is compared over replications (seeds 1..n): the 95% confidence
// interval of the mean, t-based, must lie inside the band the report's
// figure allows. Rows in comments are those of FIGURES.md.

type tripRun struct {
	res    *model.Result
	events []model.TraceEvent
}

// runTrip runs design of the embedded trip scenario reps times at mult,
// with seeds 1..reps, keeping the trace when traced is set.
func runTrip(t *testing.T, design string, mult float64, reps int, traced bool, sets ...string) []tripRun {
	t.Helper()
	return runTripSeries(t, design, mult, reps, traced, 0, sets...)
}

// runTripSeries is runTrip sampling every component's signals each step
// (0: none).
func runTripSeries(t *testing.T, design string, mult float64, reps int, traced bool, step sim.Time, sets ...string) []tripRun {
	t.Helper()
	l, err := model.Load(scenarios.FS(), scenarios.File("trip"), model.LoadOptions{Design: design, Sets: sets})
	if err != nil {
		t.Fatalf("load trip --design %s: %v", design, err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatalf("compile trip --design %s: %v", design, err)
	}
	runs := make([]tripRun, reps)
	for i := range runs {
		opts := model.RunOptions{Multiplier: mult, Seed: uint64(i + 1), SeriesStep: step}
		if traced {
			tr := &runs[i]
			opts.Trace = func(e *model.TraceEvent) { tr.events = append(tr.events, *e) }
		}
		res, err := c.Run(opts)
		if err != nil {
			t.Fatalf("run trip --design %s -m %g --seed %d: %v", design, mult, i+1, err)
		}
		if res.Broken != nil {
			t.Fatalf("run trip --design %s -m %g --seed %d: %v", design, mult, i+1, res.Broken)
		}
		runs[i].res = res
	}
	return runs
}

type interval struct {
	mean, lo, hi float64
	n            int
}

func (c interval) String() string {
	return fmt.Sprintf("mean %.4g, 95%% CI [%.4g, %.4g] over %d runs", c.mean, c.lo, c.hi, c.n)
}

func meanCI(xs []float64) interval {
	m, sd := stat.MeanStdDev(xs, nil)
	n := len(xs)
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975) * sd / math.Sqrt(float64(n))
	if n < 2 || math.IsNaN(h) {
		h = 0
	}
	return interval{mean: m, lo: m - h, hi: m + h, n: n}
}

// within requires the whole confidence interval of the mean of xs inside
// [lo, hi].
func within(t *testing.T, what string, xs []float64, lo, hi float64, report string) {
	t.Helper()
	c := meanCI(xs)
	if c.lo < lo || c.hi > hi {
		t.Errorf("%s: %s; report: %s, so [%.4g, %.4g]", what, c, report, lo, hi)
	} else {
		t.Logf("%s: %s (report: %s)", what, c, report)
	}
}

// near is within for a figure f with a relative tolerance tol.
func near(t *testing.T, what string, xs []float64, f, tol float64, report string) {
	t.Helper()
	within(t, what, xs, f*(1-tol), f*(1+tol), report)
}

func each(runs []tripRun, f func(tripRun) float64) []float64 {
	xs := make([]float64, len(runs))
	for i, r := range runs {
		xs[i] = f(r)
	}
	return xs
}

// peakWindow is the highest mean of the sampled signal over any window of
// the run, as a dashboard's per-minute maximum reads it.
func peakWindow(t *testing.T, res *model.Result, signal string, window float64) float64 {
	t.Helper()
	for _, sg := range res.Series.Signals {
		if sg.Name != signal {
			continue
		}
		n := int(window / res.Series.Step)
		best, sum := 0.0, 0.0
		for i, v := range sg.Values {
			sum += v
			if i >= n {
				sum -= sg.Values[i-n]
			}
			if i >= n-1 {
				best = max(best, sum/float64(n))
			}
		}
		return best
	}
	t.Fatalf("no signal %s in the series", signal)
	return 0
}

func failureShare(t *testing.T, res *model.Result) float64 {
	j := journey(t, res, "trip_creation")
	return float64(j.Failed) / float64(j.Started)
}

// requireStages fails unless every failed trip failed at stage, refused by
// comp ("" for any component).
func requireStages(t *testing.T, runs []tripRun, stage, comp string) {
	t.Helper()
	for i, r := range runs {
		for _, s := range journey(t, r.res, "trip_creation").Stages {
			if s.Stage != stage || comp != "" && s.Component != comp {
				t.Errorf("seed %d: %d trips failed at %s (%s), want every failure at %s (%s)", i+1, s.Count, s.Stage, s.Component, stage, comp)
			}
		}
	}
}

// jobTimes returns, per job id in order of submission, the wait for the
// Worker (job_start to worker_ready) and the execution (worker_ready to
// ai_worker_execution), as the report reads them from its logs.
func jobTimes(events []model.TraceEvent) (waits, execs []float64) {
	start, ready := map[int64]float64{}, map[int64]float64{}
	var order []int64
	for _, e := range events {
		switch e.Event {
		case "capsim.job_start":
			start[e.JobID] = e.T
			order = append(order, e.JobID)
		case "worker_ready":
			ready[e.JobID] = e.T
		case "ai_worker_execution":
			execs = append(execs, e.T-ready[e.JobID])
		}
	}
	for _, id := range order {
		if r, ok := ready[id]; ok {
			waits = append(waits, r-start[id])
		}
	}
	return waits, execs
}

// One 150-photo trip alone with the executor of the time (000-20): batch
// 40 s (000-27), AI 168 s (000-26), trip about 14 min (000-24), each within
// 15%; the last upload is held for its batch plus the Worker's cold start
// (000-37: 36-40 s) and the AI.
func TestTripAlone(t *testing.T) {
	t.Parallel()
	runs := runTrip(t, "v1-original+single-trip", 1, 10, true)
	for i, r := range runs {
		if j := journey(t, r.res, "trip_creation"); j.Started != 1 || j.Succeeded != 1 {
			t.Fatalf("seed %d: %d trips started, %d succeeded; want the one trip to succeed (000-22)", i+1, j.Started, j.Succeeded)
		}
	}
	batch := each(runs, func(r tripRun) float64 { return float64(route(t, r.res, "upload_batch").Latency.Mean) })
	near(t, "intermediate batch (s)", batch, 40, 0.15, "40 s average, 000-27")
	ai := each(runs, func(r tripRun) float64 {
		_, execs := jobTimes(r.events)
		if len(execs) != 1 {
			t.Fatalf("%d AI executions in one trip, want 1", len(execs))
		}
		return execs[0]
	})
	near(t, "AI execution (s)", ai, 168, 0.15, "about 168 s, 000-26")
	trip := each(runs, func(r tripRun) float64 { return float64(journey(t, r.res, "trip_creation").Latency.Mean) })
	near(t, "trip (s)", trip, 14*60, 0.15, "about 14 minutes, 000-24")
	held := each(runs, func(r tripRun) float64 {
		return float64(route(t, r.res, "upload_last").Latency.Mean) - float64(route(t, r.res, "upload_batch").Latency.Mean)
	})
	near(t, "last upload held beyond a batch (s)", held, 38+168, 0.15, "cold start 36-40 s (000-37) + AI 168 s (000-26)")
}

// The report's App CPU figures are read per process, 100% being one core
// (trip.yaml, app_cpu): 78% is 0.78 busy cores, whatever the App's cores.
// appCores is app_cpu's cores in trip.yaml (an assumption: the report never
// gives them) and conversionCPUShare the share of a photo's conversion time
// on the CPU (fitted to 000-110).
const (
	appCores           = 4
	conversionCPUShare = 0.68
)

// Two trips started together at 1x (000-101): their intermediate batches
// take 76 s against 40 s alone, 1.9x (000-108). The ratio is taken seed by
// seed against the lone trip of the same seed. Meanwhile the App's CPU
// peaks at about 78% (000-110): the conversion's CPU share is fitted to
// that, so the check only guards the fit (the busiest minute of one busy
// conversion thread is 0.78 of a core), it reproduces nothing.
func TestTripTwoTripsOverlapping(t *testing.T) {
	t.Parallel()
	alone := runTrip(t, "v1-original+single-trip", 1, 10, false)
	paired := runTripSeries(t, "v1-original+paired-trips", 1, 10, false, sim.Seconds(1))
	peak := each(paired, func(r tripRun) float64 { return peakWindow(t, r.res, "app_cpu.busy", 60) })
	near(t, "App CPU, highest minute, in cores (fitted)", peak, 0.78, 0.05, "about 78% of a core, 000-110")
	ratio := make([]float64, len(alone))
	for i := range alone {
		if j := journey(t, paired[i].res, "trip_creation"); j.Succeeded != 2 {
			t.Fatalf("seed %d: %d of 2 overlapping trips succeeded, want both (000-42)", i+1, j.Succeeded)
		}
		ratio[i] = float64(route(t, paired[i].res, "upload_batch").Latency.Mean) / float64(route(t, alone[i].res, "upload_batch").Latency.Mean)
	}
	within(t, "overlapping / alone batch", ratio, 1.6, 2.2, "76 s / 40 s = 1.9x, 000-108")
}

// The original executor (000-33) passes the peak hour (000-09, 000-22) and
// refuses at 2x: the upload ends in a 500 at derivative_create
// (000-112..000-114).
func TestTripOriginalExecutor(t *testing.T) {
	t.Parallel()
	for i, r := range runTrip(t, "v1-original", 1, 10, false) {
		if j := journey(t, r.res, "trip_creation"); j.Failed != 0 || j.Succeeded != 4 {
			t.Errorf("seed %d at 1x: %d of %d trips failed (%v), want 4 of 4 to succeed", i+1, j.Failed, j.Started, j.Stages)
		}
	}
	runs := runTrip(t, "v1-original", 2, 10, false)
	share := each(runs, func(r tripRun) float64 { return failureShare(t, r.res) })
	if c := meanCI(share); c.lo <= 0 {
		t.Errorf("trip failure at 2x: %s; want failures (the report lost trip 197, 000-112)", c)
	}
	requireStages(t, runs, "derivative_create", "derivative_executor")
	for i, r := range runs {
		failed := journey(t, r.res, "trip_creation").Failed
		var five00 int64
		for _, name := range []string{"upload_batch", "upload_last"} {
			for _, s := range route(t, r.res, name).Statuses {
				if s.Status == 500 {
					five00 += s.Count
				}
			}
		}
		if five00 != failed {
			t.Errorf("seed %d at 2x: %d uploads ended 500 for %d failed trips; want one 500 per lost trip (000-114)", i+1, five00, failed)
		}
	}
}

// fisher is the two-sided p-value of Fisher's exact test that k1 of n1 and
// k2 of n2 come from one proportion: the probability, with the margins
// fixed, of a table no more likely than the one seen.
func fisher(k1, n1, k2, n2 int) float64 {
	lf := func(n int) float64 { v, _ := math.Lgamma(float64(n + 1)); return v }
	k, n := k1+k2, n1+n2
	p := func(x int) float64 {
		return math.Exp(lf(k) - lf(x) - lf(k-x) + lf(n-k) - lf(n1-x) - lf(n-k-n1+x) - lf(n) + lf(n1) + lf(n-n1))
	}
	seen, sum := p(k1), 0.0
	for x := max(0, k-n2); x <= min(k, n1); x++ {
		if px := p(x); px <= seen*(1+1e-9) {
			sum += px
		}
	}
	return min(1, sum)
}

// agreeCount requires the report's k of n to be compatible with the
// model's pooled k of n: Fisher's exact test does not reject at 5%.
func agreeCount(t *testing.T, what string, kModel, nModel, kReport, nReport int, report string) {
	t.Helper()
	if p := fisher(kModel, nModel, kReport, nReport); p < 0.05 {
		t.Errorf("%s: model %d of %d (%.1f%%), report %d of %d (%s): Fisher p = %.3g < 0.05", what, kModel, nModel,
			100*float64(kModel)/float64(nModel), kReport, nReport, report, p)
	} else {
		t.Logf("%s: model %d of %d (%.1f%%), report %d of %d (%s): Fisher p = %.3g", what, kModel, nModel,
			100*float64(kModel)/float64(nModel), kReport, nReport, report, p)
	}
}

// After the redeploy (000-122), with the report's spacing (000-D8): 3x is a
// trip every 5 min, 6 trips; 4x every 3 min 45 s, 8 trips. The report
// passed 3x (6/6, 000-116) with an intermediate batch p95 of 29.43 s
// (000-117) and about 9 minutes a trip (000-118), and lost 4 of 8 at 4x,
// all at derivative_create, none of them reaching the Worker (000-120,
// 000-150), while "resources were still available" (section 5) and the
// HTTP failure rate was 0.54% (000-107, TestTripHTTPFailureRateHidesLostTrips).
//
// The counts are held by Fisher's exact test against the model's trips
// pooled over 20 runs; the times within 20% (the report's "about"; the
// model's AI jobs keep the baseline 168 s where the 3x ones took 3-3.5 min,
// 000-148, which alone makes its trips 0.2-0.7 min shorter). The converter
// threads and the HEIC split were fitted to 000-116 and 000-120, so the
// counts guard the fit; the batch p95, the trip time, the Worker's share
// and the idle cores come out of the mechanism: four conversion threads
// keep at most 4 x 0.68 of the App's cores busy, so the intake, not the
// CPU, refuses the photos of a third overlapping upload.
func TestTripImprovedScheduler(t *testing.T) {
	t.Parallel()
	for _, m := range []struct {
		mult         float64
		trips        int
		lost, report string
		lostReport   int
	}{
		{3, 6, "trips lost at 3x", "6/6 succeeded, 000-116", 0},
		{4, 8, "trips lost at 4x", "4 of 8 failed at derivative_create, 000-120", 4},
	} {
		runs := runTripSeries(t, "v1-improved", m.mult, 20, false, sim.Seconds(1), "duration=30m")
		lost, started := 0, 0
		for i, r := range runs {
			j := journey(t, r.res, "trip_creation")
			if j.Started != int64(m.trips) {
				t.Fatalf("seed %d at %gx: %d trips started, want %d", i+1, m.mult, j.Started, m.trips)
			}
			lost += int(j.Failed)
			started += int(j.Started)
			// Only the trips that passed conversion reach the Worker
			// (000-120: the failed ones never got to the AI; 000-150).
			if w := component(t, r.res, "ai_worker").Offered; w != j.Succeeded {
				t.Errorf("seed %d at %gx: %d jobs reached the Worker for %d trips through conversion", i+1, m.mult, w, j.Succeeded)
			}
		}
		agreeCount(t, m.lost, lost, started, m.lostReport, m.trips, m.report)
		requireStages(t, runs, "derivative_create", "")
		busiest := each(runs, func(r tripRun) float64 { return peakWindow(t, r.res, "app_cpu.busy", 60) / appCores })
		if m.mult == 3 {
			p95 := each(runs, func(r tripRun) float64 { return float64(route(t, r.res, "upload_batch").Latency.P95) })
			near(t, "intermediate batch p95 at 3x (s)", p95, 29.43, 0.2, "29.43 s, 000-117")
			trip := each(runs, func(r tripRun) float64 { return float64(journey(t, r.res, "trip_creation").Latency.Mean) / 60 })
			near(t, "trip at 3x (min)", trip, 9, 0.2, "about 9 min, 000-118")
		} else {
			// "Resources were still available": the App's cores are not
			// what refuses, their busiest minute stays below 90%.
			within(t, "App cores busy at 4x, busiest minute", busiest, 0, 0.9, "resources still available, section 5")
		}
	}
	for _, mult := range []float64{1, 2, 3, 4} {
		for i, r := range runTrip(t, "v1-improved", mult, 5, false, "duration=30m") {
			v := journey(t, r.res, "view_session")
			tv := route(t, r.res, "trip_view")
			if v.Failed != 0 || v.Unfinished != 0 || tv.Failures != 0 {
				t.Errorf("seed %d at %gx: %d view sessions failed, %d view requests failed; want none (000-105)", i+1, mult, v.Failed, tv.Failures)
			}
			if p95 := float64(tv.Latency.P95); p95 > 0.05 {
				t.Errorf("seed %d at %gx: trip_view p95 %.3g s, want it in milliseconds (000-45: 7-9 ms with uploads)", i+1, mult, p95)
			}
		}
	}
}

// Conversion threads are bounded by the App's cores only beyond them. One
// trip alone with 20 threads per kind and intakes that never refuse: a
// batch's 10 photos run at once, and their 39 s (000-31) x 0.68 of CPU
// share 4 cores, so the post-save segment cannot be shorter than
// 39 x 0.68 / 4 = 6.6 s, nor as long as with two threads per kind (five
// HEIC photos queue on two). At 4x, where two threads per kind lose about
// half the trips (000-120), 20 per kind lose none: the report's failure is
// the intake's and the threads', not the CPU's. The report ran neither.
func TestTripConverterThreads(t *testing.T) {
	t.Parallel()
	wide := []string{"components.heic_converter.servers=20", "components.light_converter.servers=20"}
	open := append([]string{"components.heic_intake.permits=200", "components.light_intake.permits=200"}, wide...)
	many := runTrip(t, "v1-improved+single-trip", 1, 10, false, open...)
	two := runTrip(t, "v1-improved+single-trip", 1, 10, false)
	seg := func(r tripRun) float64 { return float64(route(t, r.res, "derivative_create").Latency.Mean) }
	within(t, "post-save segment alone, 20 threads per kind (s)", each(many, seg), 39*conversionCPUShare/appCores, math.Inf(1),
		"39 s of conversion (000-31), 0.68 of it on 4 cores")
	diff := make([]float64, len(many))
	for i := range many {
		diff[i] = seg(two[i]) - seg(many[i])
	}
	within(t, "post-save segment alone, 2 threads per kind minus 20 (s)", diff, 1, math.Inf(1), "threads below the cores add throughput")
	for i, r := range runTrip(t, "v1-improved", 4, 20, false, append([]string{"duration=30m"}, wide...)...) {
		if j := journey(t, r.res, "trip_creation"); j.Failed != 0 {
			t.Errorf("seed %d at 4x, 20 threads per kind: %d of %d trips lost (%v), want none", i+1, j.Failed, j.Started, j.Stages)
		}
	}
}

// Test 2 (000-40, 000-41): views while two uploads run. The report's views
// never failed (000-44) and stayed far below the 1 s criterion (000-47):
// that comes out. Their Backend p95 went from about 3 ms after
// the uploads to 7-9 ms while they ran (000-45, 000-46), 2.3-3x: that does
// not. In the model a view slows only by sharing a core, and one
// conversion thread on 4 cores leaves the views cores of their own, so
// their p95 barely moves (about 1.0x). The report's rise is a few
// milliseconds a view: something the model leaves out (the converting
// JVM's garbage collection, memory bandwidth, nginx and TLS on the same
// host), or a smaller App than 4 cores; on 1.28 cores, where one thread
// fills 78% of the App, core sharing alone gave 1.55x. The ratio is logged,
// not held.
func TestTripViewsUnaffectedByUploads(t *testing.T) {
	t.Parallel()
	mixed := runTrip(t, "v1-original+mixed-load", 1, 10, false)
	alone := runTrip(t, "v1-original+mixed-load+views-only", 1, 10, false)
	ratio := make([]float64, len(mixed))
	for i := range mixed {
		for _, r := range []tripRun{mixed[i], alone[i]} {
			if f := route(t, r.res, "trip_view").Failures; f != 0 {
				t.Errorf("seed %d: %d view requests failed, want none (000-44)", i+1, f)
			}
		}
		if j := journey(t, mixed[i].res, "trip_creation"); j.Succeeded != 2 {
			t.Errorf("seed %d: %d of 2 trips created, want both (000-42)", i+1, j.Succeeded)
		}
		ratio[i] = float64(route(t, mixed[i].res, "trip_view").Latency.P95) / float64(route(t, alone[i].res, "trip_view").Latency.P95)
	}
	p95 := each(mixed, func(r tripRun) float64 { return float64(route(t, r.res, "trip_view").Latency.P95) })
	// The model's trip_view mixes list, map and place-folder reads with the
	// detail view (000-137: 12-15 ms p95), so its p95 is about 10 ms with
	// or without uploads; held here only to milliseconds, far below 1 s.
	within(t, "view p95 with uploads (s)", p95, 0, 0.05, "7-9 ms, far below the 1 s criterion, 000-45, 000-47")
	t.Logf("not reproduced: view p95 with uploads / without: %s; report 3 ms -> 7-9 ms, 2.3-3x (000-45, 000-46)", meanCI(ratio))
}

// Test 2's trips by size (mixed-sizes): six created (000-42), 540 originals
// saved (000-43) from 3 x 150 + 3 x 30 photos (000-D10), views without a
// failure (000-44). Two 30-photo trips started together take about 66 s a
// batch against 40 s alone (000-50): that comes out. Two 150-photo trips
// started together do not take "about +150 s" (000-49): their batches
// double as 000-108's do, and each trip takes about 10 minutes longer than
// alone; +150 s would take a partial overlap the report does not give.
func TestTripMixedSizes(t *testing.T) {
	t.Parallel()
	runs := runTrip(t, "v1-original+mixed-sizes", 1, 10, true)
	alone := runTrip(t, "v1-original+single-trip", 1, 10, false)
	small := make([]float64, len(runs))
	added := make([]float64, len(runs))
	for i, r := range runs {
		big, thirty := journey(t, r.res, "trip_creation"), journey(t, r.res, "small_trip")
		if big.Succeeded != 3 || thirty.Succeeded != 3 || big.Started != 3 || thirty.Started != 3 {
			t.Errorf("seed %d: %d/%d 150-photo and %d/%d 30-photo trips created, want 3/3 of each (000-42, 000-D10)",
				i+1, big.Succeeded, big.Started, thirty.Succeeded, thirty.Started)
		}
		if f := route(t, r.res, "trip_view").Failures; f != 0 {
			t.Errorf("seed %d: %d view requests failed, want none (000-44)", i+1, f)
		}
		var saved, n, sum float64
		var pair []float64
		for _, e := range r.events {
			switch {
			case e.Event == "photo_originals_saved":
				saved += 10 // a batch of 10 (000-03)
			case e.Event == model.EvRequestEnd && e.Route == "upload_batch" && e.Journey == "small_trip" && e.T < 600:
				n++
				sum += e.Duration
			case e.Event == model.EvJourneyEnd && e.Journey == "trip_creation" && e.T-e.Duration < 1200:
				pair = append(pair, e.Duration)
			}
		}
		if saved != 540 {
			t.Errorf("seed %d: %g originals saved, want 540 (000-43)", i+1, saved)
		}
		small[i] = sum / n
		if len(pair) != 2 {
			t.Fatalf("seed %d: %d 150-photo trips of the pair ended, want 2", i+1, len(pair))
		}
		added[i] = (pair[0]+pair[1])/2 - float64(journey(t, alone[i].res, "trip_creation").Latency.Mean)
	}
	near(t, "batch of two 30-photo trips together (s)", small, 66, 0.15, "about 66 s, 000-50")
	// What 000-108 predicts instead: 14 batches each 76 - 40 s longer, and
	// one trip of the two waits for the other's AI job (168 s, 000-26).
	near(t, "time a 150-photo trip of a pair adds (s)", added, 14*(76-40)+168.0/2, 0.15,
		"not the +150 s of 000-49, but 14 x (76 - 40) s (000-108) + 168 s / 2 (000-26)")
}

// At 4x the HTTP failure rate is 0.54% while half the trips fail (000-107):
// a trip is 15 uploads and about 120 status checks, and one 500 loses it
// (000-114). Four lost trips, one 500 each, are 0.54% of about 741
// requests (0.535-0.545%: 734-748), which is what four completed trips'
// 4 x (15 + 119) (000-142), the lost trips' uploads and 4x's views come to.
// The model's failures over all requests, trips' and views', pooled over
// 20 runs, must be compatible with 4 of 741 by Fisher's exact test, and
// the journeys' failure rate more than ten times the HTTP one.
func TestTripHTTPFailureRateHidesLostTrips(t *testing.T) {
	t.Parallel()
	runs := runTrip(t, "v1-improved", 4, 20, false, "duration=30m")
	failed, requests := 0, 0
	for _, r := range runs {
		for _, name := range []string{"trip_creation", "view_session"} {
			j := journey(t, r.res, name)
			failed += int(j.RequestFailures)
			requests += int(j.Requests)
		}
	}
	agreeCount(t, "HTTP failures at 4x, all requests", failed, requests, 4, 741, "0.54%, 000-107")
	ratio := each(runs, func(r tripRun) float64 {
		return failureShare(t, r.res) / float64(journey(t, r.res, "trip_creation").HTTPFailureRate)
	})
	within(t, "journey / HTTP failure rate at 4x", ratio, 10, math.Inf(1), "50% / 0.54% = 93, 000-107")
}

// Three 30-photo trips from one account about 10 s apart, Worker off
// (000-80): the Worker runs the jobs one at a time, so their waits shrink
// job after job (36.3 / 23.2 / 5.9 s, 000-83); all three jobs complete
// (000-81) but one trip is lost at result_persist on the user_stats lock
// wait timeout (000-82, 000-86). More Workers do not help; taking the S3
// queries out of the lock does (section 4).
func TestTripSameAccountBurst(t *testing.T) {
	t.Parallel()
	runs := runTrip(t, "v1-original+same-account-burst", 1, 40, true)
	var first, drop12, drop23 []float64
	for i, r := range runs {
		waits, execs := jobTimes(r.events)
		if len(waits) != 3 || len(execs) != 3 {
			t.Fatalf("seed %d: %d jobs started on the Worker, %d executed; want 3 and 3 (000-81)", i+1, len(waits), len(execs))
		}
		callbacks := 0
		for _, e := range r.events {
			if e.Event == "ai_callback" {
				callbacks++
			}
		}
		if callbacks != 3 {
			t.Errorf("seed %d: %d results delivered, want 3 (000-81)", i+1, callbacks)
		}
		first = append(first, waits[0])
		drop12 = append(drop12, waits[0]-waits[1])
		drop23 = append(drop23, waits[1]-waits[2])
		j := journey(t, r.res, "trip_creation")
		if j.Succeeded != 2 || len(j.Stages) != 1 || j.Stages[0] != (model.StageResult{Stage: "result_persist", Component: "user_stats", Count: 1}) {
			t.Errorf("seed %d: %d of 3 trips created, failures %v; want 2 of 3, one lost at result_persist on user_stats (000-82, 000-86)", i+1, j.Succeeded, j.Stages)
		}
		if to := component(t, r.res, "user_stats").TimedOut; to != 1 {
			t.Errorf("seed %d: %d lock wait timeouts, want 1 (000-86)", i+1, to)
		}
	}
	near(t, "first job's wait (s)", first, 36.3, 0.15, "36.3 s, the Worker's cold start, 000-83")
	within(t, "wait of job 1 - job 2 (s)", drop12, 0, math.Inf(1), "36.3 - 23.2 = 13.1 s, 000-83")
	within(t, "wait of job 2 - job 3 (s)", drop23, 0, math.Inf(1), "23.2 - 5.9 = 17.3 s, 000-83")

	for i, r := range runTrip(t, "v1-original+same-account-burst+two-workers", 1, 10, false) {
		j := journey(t, r.res, "trip_creation")
		if j.Failed == 0 {
			t.Errorf("seed %d: two Workers created all 3 trips; the report expects the lock to lose one still", i+1)
		}
		requireStages(t, []tripRun{r}, "result_persist", "user_stats")
	}
	for i, r := range runTrip(t, "v1-original+same-account-burst+lock-fix", 1, 10, false) {
		if j := journey(t, r.res, "trip_creation"); j.Succeeded != 3 {
			t.Errorf("seed %d: with the S3 queries outside the lock %d of 3 trips created (%v), want 3", i+1, j.Succeeded, j.Stages)
		}
	}
}

// The read path alone at its highest step, 600 sessions/min = 40 API
// requests/s (000-135, 000-140): no failure and a flat p95, far below the
// 1 s criterion (000-13, 000-137: 12-15 ms).
func TestTripReadPath(t *testing.T) {
	t.Parallel()
	runs := runTrip(t, "v1-improved+read-path", 1, 3, false)
	rps := each(runs, func(r tripRun) float64 { return float64(route(t, r.res, "trip_view").Calls) / 180 })
	near(t, "view requests per second", rps, 40, 0.05, "40 API RPS, 000-135")
	p95 := each(runs, func(r tripRun) float64 { return float64(route(t, r.res, "trip_view").Latency.P95) })
	within(t, "trip_view p95 (s)", p95, 0, 0.1, "flat at 12-15 ms against a 1 s criterion, 000-13, 000-137")
	for i, r := range runs {
		if f := route(t, r.res, "trip_view").Failures; f != 0 {
			t.Errorf("seed %d: %d view requests failed, want none (000-133)", i+1, f)
		}
	}
	// App CPU 3% -> 27% from 0.4 to 40 RPS (000-138), of one core (the
	// per-process reading, app_cpu), over an idle floor of about 2.4%
	// (000-134) that the model does not have: 24 points, 6.1 ms of CPU a
	// view. The spike's 13.3% at 30 requests/s (000-66) less the floor is
	// 3.6 ms a view. A model view costs its Backend time (000-46, 000-64,
	// 000-137) on the CPU, the same at either load, so it can match at
	// most one of the two; neither comes out within 20% (16.8 points here
	// against 24, 13.7% at the spike against 10.9%, TestTripViewSpike).
	// What is held is that the model's cost of a view lies between the two
	// the report implies: at 40 RPS, between 40 x 3.6 ms and 40 x 6.1 ms.
	cpu := each(runs, func(r tripRun) float64 { return float64(component(t, r.res, "app_cpu").MeanBusy) })
	within(t, "App CPU at 40 RPS of views, cores", cpu, 40*(0.133-0.0244)/30, 0.27-0.03,
		"between the spike's 3.6 ms a view (000-66) and the read path's 6.1 ms (000-138)")
}

// At the expected peak every design meets every SLO (000-09, 000-22): the
// proposals change what happens under load, not the baseline.
func TestTripDesignsMeetSLOsAtPeak(t *testing.T) {
	t.Parallel()
	data, _ := scenarios.Get("trip")
	l, err := model.LoadBytes(scenarios.FS(), scenarios.File("trip"), data, model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	designs := strings.Split(l.Scenario.Sweep.Designs, ",")
	if len(designs) != 8 {
		t.Fatalf("sweep designs %q, want the 8 designs of the issue", l.Scenario.Sweep.Designs)
	}
	for _, d := range designs {
		for i, r := range runTrip(t, d, 1, 3, false) {
			for _, s := range r.res.SLOs {
				if !s.Met {
					t.Errorf("%s seed %d at 1x: SLO %s broken (value %.4g)", d, i+1, s.SLO, float64(s.Value))
				}
			}
		}
	}
}

// Direct upload sends all 15 batches to S3 in about a minute, so a trip's
// 150 conversions reach the converters at once and wait there, 75 HEIC
// photos on two threads: about 75 x 5.85 s / 2 = 3.7 min for the last. The
// last call waits for them, then for the AI (cold start and 168 s, 000-37,
// 000-26), and ends within nginx's 600 s (000-15) for a lone trip; under
// load, trips' conversions queue behind each other's and the last calls
// outlive the 600 s first (4.25x, TRIP.md). The report did not run it.
func TestTripDirectUpload(t *testing.T) {
	t.Parallel()
	for i, r := range runTrip(t, "direct-upload+single-trip", 1, 5, false) {
		if j := journey(t, r.res, "trip_creation"); j.Succeeded != 1 {
			t.Errorf("seed %d: the lone direct-upload trip failed (%v)", i+1, j.Stages)
		}
		if m := float64(route(t, r.res, "finalize_trip").Latency.Mean); m < 36+168+75*5.85/2/2 || m > 600 {
			t.Errorf("seed %d: the last call took %.0f s, want the trip's queued conversions, the cold start and the AI, under 600 s", i+1, m)
		}
	}
	runs := runTrip(t, "direct-upload", 5, 5, false)
	requireStages(t, runs, "trip_finalize", "")
	if c := meanCI(each(runs, func(r tripRun) float64 { return failureShare(t, r.res) })); c.lo <= 0 {
		t.Errorf("direct upload at 5x: trips lost %s, want some, at trip_finalize", c)
	}
}

// Test 3, the view spike (000-60..000-66): 2,400 single views in three
// one-minute stages up to 30 requests/s. All succeed (000-61), the Backend
// p95 barely moves (5 ms -> 6 ms, 000-64) and the App's CPU rises to 13.3%
// of a core (000-66), of which about 2.4 points are the idle floor the
// model does not have (000-134). The other 10.9 points are not reproduced
// within 15%: the model's busiest minute is about 13.7% (+26%), its views
// costing their Backend time on the CPU. What is held is the model's cost
// of a view between the 3.6 ms the spike implies and the 6.1 ms of the
// read path (000-138, TestTripReadPath): at 30 requests/s, between 10.9%
// and 18% of a core.
func TestTripViewSpike(t *testing.T) {
	t.Parallel()
	// Sampled every 7 ms: a step that divides the even arrivals' 33 ms
	// would catch a view in flight at every sample.
	runs := runTripSeries(t, "view-spike", 1, 5, false, sim.Seconds(0.007))
	for i, r := range runs {
		tv := route(t, r.res, "trip_view")
		if tv.Calls != 2400+240 || tv.Failures != 0 {
			t.Errorf("seed %d: %d views, %d failed; want the spike's 2,400 (000-61) and the recovery's 240, none failed", i+1, tv.Calls, tv.Failures)
		}
		// The p95 stays flat (000-64) and nothing queues, so what recovery
		// waits for is the open connections: back at the pre-spike 30 once
		// the top stage's have idled out their 15 s keep-alive, in the
		// second 10 s window after the spike, where 000-67/000-68 took
		// about 2 minutes (not reproduced; see below).
		if v := r.res.Recovery; v == nil || !v.Recovered || float64(v.Seconds) != 20 {
			t.Errorf("seed %d: recovery %v, want back 20 s after the spike", i+1, v)
		}
	}
	flat := each(runs, func(r tripRun) float64 {
		return float64(journey(t, r.res, "spike_top").Latency.P95) / float64(journey(t, r.res, "spike_base").Latency.P95)
	})
	within(t, "view p95 at 15x / at the base", flat, 0.8, 1.4, "5 ms -> 6 ms, 000-64")
	cpu := each(runs, func(r tripRun) float64 { return peakWindow(t, r.res, "app_cpu.busy", 60) })
	within(t, "App CPU, highest minute of the spike, cores", cpu, 0.133-0.0244, 30*(0.27-0.03)/40,
		"between 13.3% (000-66) less the 2.44% floor (000-134) and 30/s at the read path's 6.1 ms a view (000-138)")

	// Connections: every view leaves its client's connection open for the
	// 15 s keep-alive fitted to the 30 before the spike, so the open count
	// follows the view rate: the peak is 30/s x 15 s, not 000-65's 193
	// (the load tester's clients reused connections the model does not
	// know of), and the count is back at the pre-spike level 1 and 2
	// minutes after the spike (000-67: 41 and 29, back in about 2 minutes,
	// 000-68), sooner than measured.
	open := func(r tripRun, at float64) float64 { return signalAt(t, r.res, "nginx_conns.open", at) }
	near(t, "connections before the spike", each(runs, func(r tripRun) float64 { return open(r, 50) }), 30, 0.05, "about 30 (000-65)")
	near(t, "connections at the spike's peak", each(runs, func(r tripRun) float64 { return float64(component(t, r.res, "nginx_conns").PeakOpen) }), 451, 0.05, "193 (000-65): not reproduced")
	within(t, "connections 1 minute after the spike", each(runs, func(r tripRun) float64 { return open(r, 240) }), 28.5, 31.5, "41 (000-67)")
	within(t, "connections 2 minutes after the spike", each(runs, func(r tripRun) float64 { return open(r, 299) }), 28.5, 31.5, "29 (000-67)")
}

// signalAt is the sampled value of signal at time at (seconds).
func signalAt(t *testing.T, res *model.Result, signal string, at float64) float64 {
	t.Helper()
	for _, sg := range res.Series.Signals {
		if sg.Name == signal {
			return sg.Values[min(len(sg.Values)-1, int(at/res.Series.Step))]
		}
	}
	t.Fatalf("no signal %s in the series", signal)
	return 0
}
