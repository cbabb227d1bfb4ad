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

// appCores is app_cpu's cores in trip.yaml, fitted to 000-110.
const appCores = 1.28

// Two trips started together at 1x (000-101): their intermediate batches
// take 76 s against 40 s alone, 1.9x (000-108). The ratio is taken seed by
// seed against the lone trip of the same seed. Meanwhile the App's CPU
// peaks at about 78% (000-110): app_cpu's cores are fitted to that, so the
// check only guards the fit (one busy conversion thread = 1/1.28 of the
// App), it reproduces nothing.
func TestTripTwoTripsOverlapping(t *testing.T) {
	alone := runTrip(t, "v1-original+single-trip", 1, 10, false)
	paired := runTripSeries(t, "v1-original+paired-trips", 1, 10, false, sim.Seconds(1))
	peak := each(paired, func(r tripRun) float64 { return peakWindow(t, r.res, "app_cpu.busy", 60) / appCores })
	near(t, "App CPU, highest minute (fitted)", peak, 0.78, 0.05, "about 78%, 000-110")
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

// After the redeploy (000-122), with the report's spacing (000-D8): 3x is a
// trip every 5 min, 6 trips; 4x every 3 min 45 s, 8 trips. The report
// passed 3x (6/6, 000-116) and lost 4 of 8 at 4x (000-120).
//
// The 3x pass does not come out of the mechanism. Conversion runs on the
// App's cores, fitted so that one busy conversion thread is 78% of them
// (000-110); a 150-photo trip is 585 core-seconds of conversion, so 3x
// (12 trips/h) asks for 1.95 cores of 1.28 whatever the number of threads.
// The HEIC photos wait on the CPU, fill their intake of 10 and are refused,
// and trips are lost at derivative_create already at 3x (about 70%). The
// 4x share, fitted to 50% before the cpu was modelled, becomes about 80%.
// The test pins both disagreements, and what it would take for the
// report's 3x: with twice the cores (or conversion at half the CPU per
// photo, which the redeploy may have brought, 000-102) 3x passes.
func TestTripImprovedScheduler(t *testing.T) {
	for _, m := range []struct {
		mult   float64
		trips  int64
		sets   []string
		lo, hi float64
		report string
	}{
		{3, 6, nil, 0.10, 1, "6/6 succeeded, 000-116: not reproduced, the App's CPU is saturated"},
		{4, 8, nil, 0.5, 1, "4 of 8 failed, 000-120: fitted without the cpu, not reproduced with it"},
		{3, 6, []string{"components.app_cpu.cores=2.56"}, 0, 0.10, "6/6 succeeded, 000-116, with twice the App's cores"},
	} {
		runs := runTrip(t, "v1-improved", m.mult, 20, false, append([]string{"duration=30m"}, m.sets...)...)
		for i, r := range runs {
			if j := journey(t, r.res, "trip_creation"); j.Started != m.trips {
				t.Fatalf("seed %d at %gx: %d trips started, want %d", i+1, m.mult, j.Started, m.trips)
			}
		}
		what := fmt.Sprintf("trip failure share at %gx %v", m.mult, m.sets)
		within(t, what, each(runs, func(r tripRun) float64 { return failureShare(t, r.res) }), m.lo, m.hi, m.report)
		requireStages(t, runs, "derivative_create", "")
		if m.sets == nil {
			cpu := each(runs, func(r tripRun) float64 { return float64(component(t, r.res, "app_cpu").Utilisation) })
			within(t, fmt.Sprintf("App CPU at %gx", m.mult), cpu, 0.75, 1, "the CPU demand, 1.95 cores at 3x, exceeds the 1.28 cores")
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

// Extra conversion threads are bounded by the App's CPU. One trip alone with
// 20 threads per kind and intakes that never refuse: a batch's 10 photos,
// 39 core-seconds of conversion (000-31), cannot finish faster than the
// 1.28 cores run them, 30.5 s, however many threads share the cores; free
// threads would take one photo's time, about 6 s. And at 3x, 20 threads per
// kind still lose trips: they change how the cores are shared between HEIC
// and light photos (about 12 points fewer lost), not how much they do.
func TestTripThreadsBoundedByCPU(t *testing.T) {
	wide := []string{"components.heic_converter.servers=20", "components.light_converter.servers=20"}
	open := append([]string{"components.heic_intake.permits=200", "components.light_intake.permits=200"}, wide...)
	runs := runTrip(t, "v1-improved+single-trip", 1, 10, false, open...)
	batch := each(runs, func(r tripRun) float64 { return float64(route(t, r.res, "derivative_create").Latency.Mean) })
	near(t, "post-save segment with 20 threads per kind (s)", batch, 39/appCores, 0.15, "39 s of conversion (000-31) on 1.28 cores")
	two := runTrip(t, "v1-improved", 3, 20, false, "duration=30m")
	twenty := runTrip(t, "v1-improved", 3, 20, false, append([]string{"duration=30m"}, wide...)...)
	diff := make([]float64, len(two))
	for i := range two {
		diff[i] = failureShare(t, twenty[i].res) - failureShare(t, two[i].res)
	}
	within(t, "trips lost at 3x, 20 threads per kind minus 2", diff, -0.25, 0.1, "threads do not add CPU")
	within(t, "trips lost at 3x with 20 threads per kind", each(twenty, func(r tripRun) float64 { return failureShare(t, r.res) }), 0.10, 1, "6/6 passed, 000-116; free threads passed it")
}

// Test 2 (000-40, 000-41): views and uploads share the App's CPU, so views
// slow while the conversion thread is busy. The report saw the Backend p95
// of views go from about 3 ms after the uploads to 7-9 ms while they ran
// (000-45, 000-46), and judged it no impact (000-47). The model's views
// slow by a factor of 1/(1.28/2) = 1.56 while one conversion thread runs,
// short of the report's 2.3-3x: the direction comes out, the size does not
// (the model keeps the nginx and TLS work of a view off the App's cores).
func TestTripViewsSlowWhileUploading(t *testing.T) {
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
	within(t, "view p95 with uploads / without", ratio, 1.3, 3, "3 ms -> 7-9 ms, 000-45, 000-46: slower, by 2.3-3x")
}

// Test 2's trips by size (mixed-sizes): six created (000-42), 540 originals
// saved (000-43) from 3 x 150 + 3 x 30 photos (000-D10), views without a
// failure (000-44). Two 30-photo trips started together take about 66 s a
// batch against 40 s alone (000-50): that comes out. Two 150-photo trips
// started together do not take "about +150 s" (000-49): their batches
// double as 000-108's do, and each trip takes about 10 minutes longer than
// alone; +150 s would take a partial overlap the report does not give.
func TestTripMixedSizes(t *testing.T) {
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
// a trip is 15 uploads and about 120 status checks, and one 500 loses it.
// The claim comes out: the HTTP rate is more than ten times lower than the
// journeys'. The 0.54% does not: the model loses about 80% of the trips,
// most of them early in their uploads, and its HTTP failure rate is about
// 3%.
func TestTripHTTPFailureRateHidesLostTrips(t *testing.T) {
	runs := runTrip(t, "v1-improved", 4, 20, false, "duration=30m")
	http := each(runs, func(r tripRun) float64 { return float64(journey(t, r.res, "trip_creation").HTTPFailureRate) })
	within(t, "trip_creation HTTP failure rate at 4x", http, 0, 0.06, "0.54%, 000-107: not reproduced")
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
	// App CPU 3% -> 27% from 0.4 to 40 RPS (000-138), over an idle floor
	// of about 2.4% (000-134) that the model does not have. The model's
	// views cost their Backend time on the App's cores and nothing else, so
	// their CPU rises in proportion but to about half the report's 24-point
	// rise: the factor of 2 allowed here is that gap, not noise.
	cpu := each(runs, func(r tripRun) float64 { return float64(component(t, r.res, "app_cpu").Utilisation) })
	within(t, "App CPU at 40 RPS of views", cpu, 0.24/2, 0.24*2, "27% - 3% = 24 points over 0.4 RPS, 000-138")
}

// At the expected peak every design meets every SLO (000-09, 000-22): the
// proposals change what happens under load, not the baseline.
func TestTripDesignsMeetSLOsAtPeak(t *testing.T) {
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
		if d == "direct-upload" {
			continue // fails at 1x, TestTripDirectUploadConcentratesConversion
		}
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
// 150 conversions, 585 core-seconds (000-31), reach the App at once and take
// 585 / 1.28 = 7.6 min of its cores; the last call, which waits for them and
// then for the AI (cold start and 168 s, 000-37, 000-26), outlives nginx's
// 600 s timeout (000-15) even at 1x. Free threads hid this: four converters
// did it in 2.4 min. The design needs the AI wait off the last request, or
// conversion spread over the upload phase.
func TestTripDirectUploadConcentratesConversion(t *testing.T) {
	for i, r := range runTrip(t, "direct-upload+single-trip", 1, 5, false) {
		requireStages(t, []tripRun{r}, "trip_finalize", "")
		if j := journey(t, r.res, "trip_creation"); j.Failed != 1 {
			t.Errorf("seed %d: the lone direct-upload trip did not fail (%v)", i+1, j.Stages)
		}
		if m := float64(route(t, r.res, "derivative_create").Latency.Mean); m < 585/appCores/2 {
			t.Errorf("seed %d: conversions take %.0f s on average, want them held back by the CPU (585/1.28 s for the last)", i+1, m)
		}
	}
}

// Test 3, the view spike (000-60..000-66): 2,400 single views in three
// one-minute stages up to 30 requests/s. All succeed (000-61), the Backend
// p95 barely moves (5 ms -> 6 ms, 000-64) and the App's CPU rises to 13.3%
// (000-66), of which about 2.4 points are the idle floor the model does
// not have (000-134): the model's highest minute must be within 15% of the
// other 10.9 points.
func TestTripViewSpike(t *testing.T) {
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
	cpu := each(runs, func(r tripRun) float64 { return peakWindow(t, r.res, "app_cpu.busy", 60) / appCores })
	near(t, "App CPU, highest minute of the spike", cpu, 0.133-0.0244, 0.15, "13.3% (000-66) less the 2.44% floor (000-134)")

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
