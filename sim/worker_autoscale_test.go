package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type scaleEvent struct {
	at       Time
	from, to int
}

// newAutoscaled builds an autoscaled worker pool whose job id runs for
// service(id), recording its grants and scaling decisions.
func newAutoscaled(s *Sim, cfg WorkerConfig, service func(id int32) Time) (*WorkerPool, *[]workerGrant, *[]scaleEvent) {
	var got []workerGrant
	var scales []scaleEvent
	var w *WorkerPool
	release := s.Handle(func(inst int64) { w.Release(s.Now(), int32(inst)) })
	w = NewWorkerPool(s, cfg, rand.New(rand.NewPCG(1, 2)), func(id, inst int32) {
		got = append(got, workerGrant{id, inst, s.Now()})
		s.After(service(id), release, int64(inst))
	})
	w.OnScale = func(now Time, from, to int) { scales = append(scales, scaleEvent{now, from, to}) }
	return w, &got, &scales
}

func submitAt(s *Sim, w *WorkerPool, at Time, ids ...int32) {
	k := s.Handle(func(id int64) { w.Submit(s.Now(), int32(id)) })
	for _, id := range ids {
		s.At(at, k, int64(id))
	}
}

// A step in load from 1 to 8 busy jobs under utilisation target 0.5,
// tolerance 0.1, period 15 s, scale-up window 0 s (HPA's defaults but the
// target); 2 to 20 instances, cold start 10 s, warm start 0. Job 1 runs
// from 0, jobs 2-8 arrive at 20 s; none ends before 120 s. Each sync
// averages busy / running over the 15 s before it, counting instances
// still cold-starting as running and idle:
//
//	15s  busy 1, running 2: 0.5, ratio 1: stays 2
//	20s  job 2 takes instance 1; 3-8 wait
//	30s  busy 1 for 5 s, 2 for 10 s: 25/30 = 0.833, ratio 1.667: ceil(2 × 1.667) = 4; 2, 3 start
//	40s  2, 3 ready: jobs 3, 4 start after waiting 20 s
//	45s  busy (2·10 + 4·5)/15 over running 4: 0.667, ratio 1.333: ceil(5.33) = 6; 4, 5 start
//	55s  jobs 5, 6 start (waited 35 s)
//	60s  busy (4·10 + 6·5)/15 over 6: 0.778, ratio 1.556: ceil(9.33) = 10; 6-9 start
//	70s  jobs 7, 8 start (waited 50 s); 8 and 9 stay idle
//	75s  busy (6·10 + 8·5)/15 over 10: 0.667, ratio 1.333: ceil(13.3) = 14; 10-13 start
//	90s  busy 8 over 14: 0.571, ratio 1.143 (outside the tolerance): 14 × 1.143 = 16; 14, 15 start
//	105s busy 8 over 16: 0.5: stays 16, and so at 120 s
//
// The 8 jobs wait 0+0+20+20+35+35+50+50 = 210 s. Running: 2 for 30 s, 4
// and 6 for 15 s each, 10 and 14 for 15 s each, 16 for 30 s: 1050
// instance-seconds over 120 s, a mean of 8.75.
func TestAutoscaleStepInLoad(t *testing.T) {
	s := New()
	w, got, scales := newAutoscaled(s, WorkerConfig{Max: 20, Min: 2, ColdStart: Constant(10), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: Utilisation, Target: 0.5, Period: 15 * Second,
			DownWindow: 300 * Second, Tolerance: 0.1}}, func(int32) Time { return Hour })
	submitAt(s, w, 0, 1)
	submitAt(s, w, 20*Second, 2, 3, 4, 5, 6, 7, 8)
	s.RunUntil(120 * Second)
	wantScales := []scaleEvent{{30 * Second, 2, 4}, {45 * Second, 4, 6}, {60 * Second, 6, 10}, {75 * Second, 10, 14}, {90 * Second, 14, 16}}
	if !slices.Equal(*scales, wantScales) {
		t.Errorf("scaled %v, want %v", *scales, wantScales)
	}
	wantGrants := []workerGrant{{1, 0, 0}, {2, 1, 20 * Second}, {3, 2, 40 * Second}, {4, 3, 40 * Second},
		{5, 4, 55 * Second}, {6, 5, 55 * Second}, {7, 6, 70 * Second}, {8, 7, 70 * Second}}
	if !slices.Equal(*got, wantGrants) {
		t.Errorf("grants %v, want %v", *got, wantGrants)
	}
	if w.Wait.Sum() != 210 {
		t.Errorf("waited %v s in all, want 210", w.Wait.Sum())
	}
	if m := w.Running.Mean(s.Now()); m != 8.75 || w.Running.Max() != 16 || w.Desired() != 16 {
		t.Errorf("running mean %v, peak %v, desired %d; want 8.75, 16, 16", m, w.Running.Max(), w.Desired())
	}
	if w.ScaleUps != 5 || w.ScaleDowns != 0 || w.ColdStarts != 14 {
		t.Errorf("%d scale-ups, %d scale-downs, %d cold starts; want 5, 0, 14", w.ScaleUps, w.ScaleDowns, w.ColdStarts)
	}
}

// Scale-down waits for the highest recommendation of the window to pass.
// 1 to 8 instances, utilisation target 0.5, period 10 s, scale-down window
// 60 s, cold start 0. Jobs 1 and 2 arrive at 0 and run 25 s each.
//
//	0s   job 1 on instance 0; 2 waits
//	10s  busy 1 of 1: ratio 2: 2; instance 1 starts and takes job 2
//	20s  busy 2 of 2: ratio 2: 4
//	25s  job 1 ends; 35s job 2 ends
//	30s  busy 1.5 of 4: ratio 0.75: 3, held at 4 by 4 (20 s) in the window
//	40s  busy 0.5 of 4: 1; 50s, 60s, 70s: 0, held at min 1; all held at 4
//	80s  the 4 of 20 s has left the window (20, 80]: highest is 3 (30 s): 3
//	90s  highest in (30, 90] is 1: 1
//	100s nothing moved and every recommendation is 1: the syncs stop
//	200s job 3 arrives; the syncs resume from 200 s: at 210 s busy 1 of 1: 2
func TestAutoscaleScaleDownWaitsForTheWindow(t *testing.T) {
	s := New()
	w, _, scales := newAutoscaled(s, WorkerConfig{Max: 8, Min: 1, ColdStart: Constant(0), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: Utilisation, Target: 0.5, Period: 10 * Second,
			DownWindow: 60 * Second, Tolerance: 0.1}}, func(int32) Time { return 25 * Second })
	submitAt(s, w, 0, 1, 2)
	s.RunUntil(200 * Second)
	want := []scaleEvent{{10 * Second, 1, 2}, {20 * Second, 2, 4}, {80 * Second, 4, 3}, {90 * Second, 3, 1}}
	if !slices.Equal(*scales, want) {
		t.Fatalf("scaled %v, want %v", *scales, want)
	}
	if s.Pending() != 0 {
		t.Fatalf("%d events pending at rest, want none", s.Pending())
	}
	// Running: 1 for 10 s, 2 for 10 s, 4 for 60 s, 3 for 10 s, 1 for 110 s:
	// 410 instance-seconds over 200 s.
	if m := w.Running.Mean(s.Now()); m != 410.0/200 {
		t.Errorf("running mean %v, want 2.05", m)
	}
	submitAt(s, w, s.Now(), 3)
	s.RunUntil(215 * Second)
	want = append(want, scaleEvent{210 * Second, 1, 2})
	if !slices.Equal(*scales, want) || w.ScaleUps != 3 || w.ScaleDowns != 2 {
		t.Fatalf("scaled %v (%d up, %d down), want %v (3, 2)", *scales, w.ScaleUps, w.ScaleDowns, want)
	}
}

// A scaled-down busy instance finishes its job and stops: it does not take
// the next one. Queue target 1 per instance, windows 0, 1 to 4 instances,
// cold start 0. Jobs 1-4 arrive at 0; 1 runs 50 s, 2 and 3 30 s, 4 10 s.
//
//	0s   job 1 on instance 0; 2-4 wait (no instance starts until a sync)
//	10s  3 waiting per instance: 3; instances 1, 2 take jobs 2, 3
//	20s  1 waiting over 3: ratio 0.33: 1; no instance is idle or starting,
//	     so 2 and 1 are to stop after their jobs
//	40s  2 and 1 finish and stop; job 4 still waits
//	50s  job 1 ends and instance 0 takes job 4
func TestAutoscaleBusyInstancesStopAfterTheirJob(t *testing.T) {
	s := New()
	service := map[int32]Time{1: 50 * Second, 2: 30 * Second, 3: 30 * Second, 4: 10 * Second}
	w, got, scales := newAutoscaled(s, WorkerConfig{Max: 4, Min: 1, ColdStart: Constant(0), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: QueuePerInstance, Target: 1, Period: 10 * Second,
			Tolerance: 0.1}}, func(id int32) Time { return service[id] })
	submitAt(s, w, 0, 1, 2, 3, 4)
	s.RunUntil(70 * Second)
	wantScales := []scaleEvent{{10 * Second, 1, 3}, {20 * Second, 3, 1}}
	wantGrants := []workerGrant{{1, 0, 0}, {2, 1, 10 * Second}, {3, 2, 10 * Second}, {4, 0, 50 * Second}}
	if !slices.Equal(*scales, wantScales) || !slices.Equal(*got, wantGrants) {
		t.Fatalf("scaled %v, grants %v; want %v, %v", *scales, *got, wantScales, wantGrants)
	}
	// Running: 1 for 10 s, 3 for 30 s, 1 for 30 s.
	if m := w.Running.Mean(s.Now()); m != 130.0/70 || w.Running.Value() != 1 {
		t.Errorf("running mean %v, now %v; want 130/70, 1", m, w.Running.Value())
	}
}

// The count stays between Min and Max, and rises by at most MaxStep a
// sync. In-flight target 0.5, windows 0, 1 to 3 instances, max step 1,
// cold start 0. Jobs 1-3 arrive at 0 and run 25 s each.
//
//	10s  3 in flight over 1: ratio 6: 6, held at max 3, step 1: 2 (job 2 starts)
//	20s  3 over 2: ratio 3: 6, held at 3 (job 3 starts)
//	30s  busy 2.5 over 3: ratio 1.67: 5, held at 3 (jobs end at 25, 35, 45 s)
//	40s  busy 1.5 over 3: ratio 1: stays
//	50s  busy 0.5 over 3: ratio 0.33: 1
//	60s  nothing in flight: 0, held at min 1; the syncs stop
func TestAutoscaleKeepsMinMaxAndStep(t *testing.T) {
	s := New()
	w, _, scales := newAutoscaled(s, WorkerConfig{Max: 3, Min: 1, ColdStart: Constant(0), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: InFlightPerInstance, Target: 0.5, Period: 10 * Second,
			Tolerance: 0.1, MaxStep: 1}}, func(int32) Time { return 25 * Second })
	submitAt(s, w, 0, 1, 2, 3)
	s.RunUntil(200 * Second)
	want := []scaleEvent{{10 * Second, 1, 2}, {20 * Second, 2, 3}, {50 * Second, 3, 1}}
	if !slices.Equal(*scales, want) {
		t.Fatalf("scaled %v, want %v", *scales, want)
	}
	if w.Running.Max() != 3 || w.Running.Value() != 1 || s.Pending() != 0 {
		t.Errorf("peak %v, now %v running, %d pending; want 3, 1, 0", w.Running.Max(), w.Running.Value(), s.Pending())
	}
}

// A scale-down stops an instance still cold-starting before any other, and
// its start is void: restarted later, it is ready only after a full cold
// start of its own. Queue target 0.5, windows 0, 1 to 4 instances, cold
// start 45 s. Job 1 runs from 0 on instance 0 for an hour.
//
//	0s   job 2 waits
//	10s  1 waiting over 1: ratio 2: 2; instance 1 starts (ready at 55 s)
//	15s  job 2 gives up
//	20s  0.5 waiting over 2: ratio 0.5: 1; instance 1, still starting, stops
//	25s  job 3 waits
//	30s  0.5 waiting over 1: ratio 1: stays
//	40s  1 over 1: ratio 2: 2; instance 1 starts again, ready at 85 s
//	55s  the first start's end passes unheeded
//	85s  job 3 starts on instance 1
func TestAutoscaleStopsStartingInstancesFirst(t *testing.T) {
	s := New()
	w, got, scales := newAutoscaled(s, WorkerConfig{Max: 4, Min: 1, ColdStart: Constant(45), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: QueuePerInstance, Target: 0.5, Period: 10 * Second,
			Tolerance: 0.1}}, func(int32) Time { return Hour })
	submitAt(s, w, 0, 1, 2)
	abandon := s.Handle(func(id int64) { w.Abandon(s.Now(), int32(id)) })
	s.At(15*Second, abandon, 2)
	submitAt(s, w, 25*Second, 3)
	s.RunUntil(86 * Second)
	wantScales := []scaleEvent{{10 * Second, 1, 2}, {20 * Second, 2, 1}, {40 * Second, 1, 2}}
	wantGrants := []workerGrant{{1, 0, 0}, {3, 1, 85 * Second}}
	if !slices.Equal(*scales, wantScales) || !slices.Equal(*got, wantGrants) {
		t.Fatalf("scaled %v, grants %v; want %v, %v", *scales, *got, wantScales, wantGrants)
	}
	if w.ColdStarts != 2 {
		t.Errorf("%d cold starts, want 2", w.ColdStarts)
	}
}

// A recommendation that is a whole number up to floating-point rounding
// adds no instance. In-flight target 0.7 on 3 instances with 7 jobs in
// flight: 3 × (7/3)/0.7 is 10 (10.000000000000002 in float64), not 11.
func TestAutoscaleWholeRecommendation(t *testing.T) {
	s := New()
	w, _, scales := newAutoscaled(s, WorkerConfig{Max: 20, Min: 3, ColdStart: Constant(60), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: InFlightPerInstance, Target: 0.7, Period: 10 * Second,
			Tolerance: 0.1}}, func(int32) Time { return Hour })
	submitAt(s, w, 0, 1, 2, 3, 4, 5, 6, 7)
	s.RunUntil(10 * Second)
	if want := []scaleEvent{{10 * Second, 3, 10}}; !slices.Equal(*scales, want) {
		t.Fatalf("scaled %v, want %v", *scales, want)
	}
}

// An autoscaler that sleeps at rest and replays the syncs it missed on
// waking decides exactly as one that never sleeps: bursts of jobs with
// quiet spells longer than the windows between them, every metric.
func TestAutoscaleSleepIsInvisible(t *testing.T) {
	run := func(metric AutoscaleMetric, sleep bool) ([]scaleEvent, []workerGrant, float64) {
		neverSleep = !sleep
		defer func() { neverSleep = false }()
		s := New()
		rng := rand.New(rand.NewPCG(7, uint64(metric)))
		service, _ := Exponential(20)
		cold, _ := Exponential(8)
		services := map[int32]Time{}
		w, got, scales := newAutoscaled(s, WorkerConfig{Max: 12, Min: 1, ColdStart: cold, WarmStart: Constant(0.5),
			QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: metric, Target: 0.6, Period: 15 * Second,
				UpWindow: 30 * Second, DownWindow: 120 * Second, Tolerance: 0.1, MaxStep: 3}},
			func(id int32) Time { return services[id] })
		at, id := Time(0), int32(0)
		for burst := 0; burst < 6; burst++ {
			for range 40 {
				at += Seconds(rng.ExpFloat64() * 1.5)
				id++
				services[id] = Seconds(service.Sample(rng))
				submitAt(s, w, at, id)
			}
			at += Seconds(600 + rng.Float64()*900) // quiet: the syncs fall asleep
		}
		s.RunUntil(at)
		return *scales, *got, w.Running.Mean(s.Now())
	}
	for _, m := range []AutoscaleMetric{Utilisation, QueuePerInstance, InFlightPerInstance} {
		scales, grants, mean := run(m, true)
		wantScales, wantGrants, wantMean := run(m, false)
		if len(wantScales) < 12 {
			t.Fatalf("metric %d: only %d scaling decisions; the workload does not exercise the rule", m, len(wantScales))
		}
		if !slices.Equal(scales, wantScales) || !slices.Equal(grants, wantGrants) || mean != wantMean {
			t.Errorf("metric %d: sleeping autoscaler scaled %v, mean running %v;\nnever sleeping %v, %v", m, scales, mean, wantScales, wantMean)
		}
	}
}

// Jobs through an autoscaled pool, its syncs and its scaling allocate
// nothing once it has warmed up.
func TestAutoscaleAllocatesNothing(t *testing.T) {
	s := New()
	w, _ := newTimedWorkers(s, WorkerConfig{Max: 8, Min: 1, ColdStart: Constant(2), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: InFlightPerInstance, Target: 0.5, Period: 5 * Second,
			DownWindow: 20 * Second, Tolerance: 0.1}}, 3*Second)
	id := int32(0)
	cycle := func() {
		for range 4 {
			id++
			w.Submit(s.Now(), id)
		}
		s.RunUntil(s.Now() + 40*Second)
	}
	for range 100 {
		cycle()
	}
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Errorf("%v allocations per cycle, want 0", n)
	}
	if w.ScaleUps == 0 || w.ScaleDowns == 0 {
		t.Fatalf("%d scale-ups, %d scale-downs: the cycle does not scale", w.ScaleUps, w.ScaleDowns)
	}
}

// A scale-up first keeps an instance that was to stop after its job: it
// has not stopped, so it costs no cold start. Queue target 1, windows 0,
// 1 to 4 instances, cold start 5 s, every job 100 s.
//
//	0s   job 1 on instance 0; 2-4 wait
//	10s  3 waiting over 1: 3; instances 1, 2 start, and take jobs 2, 3 at 15 s
//	20s  waiting 3 for 5 s, 1 for 5 s: 2 over 3, ratio 0.67: 2; busy instance
//	     2 is to stop after its job
//	21s  jobs 5-7 wait
//	30s  waiting (1 + 4·9)/10 = 3.7 over 3, ratio 1.23: ceil(2 × 1.23) = 3;
//	     instance 2 stays, no instance starts
//	40s  4 over 3, ratio 1.33: 4; instance 3 starts (the third cold start)
//	50s  waiting 4 for 5 s, 3 for 5 s: 3.5 over 4, ratio 0.875: ceil(3.5) = 4
func TestAutoscaleScaleUpKeepsAStoppingInstance(t *testing.T) {
	s := New()
	w, _, scales := newAutoscaled(s, WorkerConfig{Max: 4, Min: 1, ColdStart: Constant(5), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: QueuePerInstance, Target: 1, Period: 10 * Second,
			Tolerance: 0.1}}, func(int32) Time { return 100 * Second })
	submitAt(s, w, 0, 1, 2, 3, 4)
	submitAt(s, w, 21*Second, 5, 6, 7)
	s.RunUntil(50 * Second)
	want := []scaleEvent{{10 * Second, 1, 3}, {20 * Second, 3, 2}, {30 * Second, 2, 3}, {40 * Second, 3, 4}}
	if !slices.Equal(*scales, want) {
		t.Fatalf("scaled %v, want %v", *scales, want)
	}
	// Running: 1 for 10 s, 3 for 30 s, 4 for 10 s.
	if w.ColdStarts != 3 || w.Running.Value() != 4 || w.Running.Mean(s.Now()) != 140.0/50 {
		t.Errorf("%d cold starts, %v running, mean %v; want 3, 4, 2.8", w.ColdStarts, w.Running.Value(), w.Running.Mean(s.Now()))
	}
}

// Scale-up waits for the lowest recommendation of its window to rise.
// Utilisation target 0.5, period 10 s, scale-up window 20 s, 2 to 8
// instances, cold start 0, long jobs: job 1 from 0, jobs 2 and 3 at 12 s.
//
//	10s  busy 1 of 2: on target: 2
//	20s  busy (1·2 + 2·8)/10 = 1.8 of 2, ratio 1.8: 4, but 2 (10 s) is in
//	     the window (0, 20]: stays 2
//	30s  busy 2 of 2, ratio 2: 4; the window (10, 30] holds 4 and 4: 4
func TestAutoscaleScaleUpWaitsForTheWindow(t *testing.T) {
	s := New()
	w, _, scales := newAutoscaled(s, WorkerConfig{Max: 8, Min: 2, ColdStart: Constant(0), WarmStart: Constant(0),
		QueueCap: Unbounded, Autoscale: &AutoscaleConfig{Metric: Utilisation, Target: 0.5, Period: 10 * Second,
			UpWindow: 20 * Second, DownWindow: 300 * Second, Tolerance: 0.1}}, func(int32) Time { return Hour })
	submitAt(s, w, 0, 1)
	submitAt(s, w, 12*Second, 2, 3)
	s.RunUntil(30 * Second)
	if want := []scaleEvent{{30 * Second, 2, 4}}; !slices.Equal(*scales, want) {
		t.Fatalf("scaled %v, want %v", *scales, want)
	}
}
