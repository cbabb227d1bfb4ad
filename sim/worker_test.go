package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type workerGrant struct {
	id, inst int32
	at       Time
}

// newTimedWorkers builds a worker pool whose jobs each run for service,
// released by an event of the test's own.
func newTimedWorkers(s *Sim, cfg WorkerConfig, service Time) (*WorkerPool, *[]workerGrant) {
	var got []workerGrant
	var w *WorkerPool
	release := s.Handle(func(inst int64) { w.Release(s.Now(), int32(inst)) })
	w = NewWorkerPool(s, cfg, rand.New(rand.NewPCG(1, 2)), func(id, inst int32) {
		got = append(got, workerGrant{id, inst, s.Now()})
		s.After(service, release, int64(inst))
	})
	return w, &got
}

// Two instances, none kept warm, a cold start of 3 s, a warm start of 1 s,
// an idle stop after 10 s and room for 2 queued jobs; each job runs 2 s.
//
//	0s   1, 2 queued; instances 0 and 1 start cold; 3 rejected (queue full)
//	3s   both ready: 1 on 0, 2 on 1, after waiting 3 s
//	5s   both done and idle; their stops are due at 15 s
//	6s   4 takes idle 0 (its stop cancelled), warm start
//	7s   4 runs on 0, after waiting 1 s
//	9s   done; 0 idle, stop due at 19 s
//	15s  1 stops
//	16s  5 takes idle 0 warm (stop cancelled): runs at 17 s, done at 19 s
//	29s  0 stops
//	30s  6 queued; 0 starts cold
//	33s  6 runs on 0, after waiting 3 s; done at 35 s; 0 stops at 45 s
//
// Running: 2 for 15 s, 1 for 14 s, 0 for 1 s, 1 for 15 s, 0 for 5 s: 59 over
// 50 s. Busy (preparing or running): 2 for 2 s, then 1 for 3, 3 and 2 s: 12
// over 50 s. Queue: 2 for 3 s, 1 for 3 s: 9 over 50 s.
func TestWorkerPoolTimeline(t *testing.T) {
	s := New()
	w, got := newTimedWorkers(s, WorkerConfig{Max: 2, Min: 0, ColdStart: Constant(3), WarmStart: Constant(1),
		IdleStop: 10 * Second, QueueCap: 2}, 2*Second)
	submit := s.Handle(func(id int64) {
		want := Queued
		if id == 3 {
			want = Rejected
		}
		if out := w.Submit(s.Now(), int32(id)); out != want {
			t.Fatalf("at %v, Submit(%d) = %v, want %v", s.Now(), id, out, want)
		}
	})
	for _, job := range []struct {
		at Time
		id int64
	}{{0, 1}, {0, 2}, {0, 3}, {6 * Second, 4}, {16 * Second, 5}, {30 * Second, 6}} {
		s.At(job.at, submit, job.id)
	}
	s.RunUntil(50 * Second)
	want := []workerGrant{{1, 0, 3 * Second}, {2, 1, 3 * Second}, {4, 0, 7 * Second}, {5, 0, 17 * Second}, {6, 0, 33 * Second}}
	if len(*got) != len(want) {
		t.Fatalf("grants %v, want %v", *got, want)
	}
	for i := range want {
		if (*got)[i] != want[i] {
			t.Fatalf("grants %v, want %v", *got, want)
		}
	}
	now := s.Now()
	if m := w.Running.Mean(now); m != 59.0/50 {
		t.Errorf("Running mean %v, want 1.18", m)
	}
	if m := w.Busy.Mean(now); m != 12.0/50 {
		t.Errorf("Busy mean %v, want 0.24", m)
	}
	if m := w.QueueLen.Mean(now); m != 9.0/50 {
		t.Errorf("QueueLen mean %v, want 0.18", m)
	}
	if w.ColdStarts != 3 || w.Granted != 5 || w.Rejected != 1 {
		t.Errorf("cold starts %d, granted %d, rejected %d; want 3, 5, 1", w.ColdStarts, w.Granted, w.Rejected)
	}
	if w.Wait.Sum() != 11 || w.Wait.N() != 5 {
		t.Errorf("wait %v over %d, want 11 over 5", w.Wait.Sum(), w.Wait.N())
	}
	if w.Running.Value() != 0 || w.Busy.Value() != 0 || w.Waiting() != 0 {
		t.Errorf("running %v, busy %v, waiting %d at the end", w.Running.Value(), w.Busy.Value(), w.Waiting())
	}
}

// Instances below Min never stop; those above stop when idle.
//
//	0s  1 takes warm instance 0 (warm start 1 s); 2 queues, 1 starts cold (3 s)
//	1s  1 runs on 0, done at 3 s; 0 idles for good
//	3s  2 runs on 1, done at 5 s; 1 idles, stops at 10 s
//	20s 3 takes warm 0 at once
func TestWorkerPoolKeepsMinWarm(t *testing.T) {
	s := New()
	w, got := newTimedWorkers(s, WorkerConfig{Max: 2, Min: 1, ColdStart: Constant(3), WarmStart: Constant(1),
		IdleStop: 5 * Second, QueueCap: Unbounded}, 2*Second)
	w.Submit(0, 1)
	w.Submit(0, 2)
	s.RunUntil(20 * Second)
	w.Submit(s.Now(), 3)
	s.RunUntil(30 * Second)
	want := []workerGrant{{1, 0, 1 * Second}, {2, 1, 3 * Second}, {3, 0, 21 * Second}}
	for i := range want {
		if i >= len(*got) || (*got)[i] != want[i] {
			t.Fatalf("grants %v, want %v", *got, want)
		}
	}
	// Running: 2 from 0 to 10 s, then 1: 40 over 30 s.
	if m := w.Running.Mean(s.Now()); m != 40.0/30 || w.Running.Value() != 1 {
		t.Fatalf("Running mean %v now %v, want 4/3 and 1", m, w.Running.Value())
	}
	if w.ColdStarts != 1 {
		t.Fatalf("%d cold starts, want 1", w.ColdStarts)
	}
}

// An abandoned job never reaches its grant: queued, it leaves the queue;
// being prepared on an instance, the instance serves the next job instead.
func TestWorkerAbandon(t *testing.T) {
	s := New()
	var granted []int32
	w := NewWorkerPool(s, WorkerConfig{Max: 1, Min: 1, ColdStart: Constant(0), WarmStart: Constant(1), QueueCap: Unbounded},
		rand.New(rand.NewPCG(1, 2)), func(id, _ int32) { granted = append(granted, id) })
	w.Submit(0, 1) // prepares on the idle instance for 1 s
	w.Submit(0, 2) // queued
	w.Submit(0, 3) // queued
	if !w.Abandon(0, 1) || !w.Abandon(0, 2) {
		t.Fatal("abandon of a waiting job reported false")
	}
	if w.Abandon(0, 9) || w.Abandon(0, 1) {
		t.Fatal("abandon of a job not waiting reported true")
	}
	s.RunUntil(10 * Second)
	// 1's warm start ends at 1 s with nobody to serve; 3 is taken next and
	// prepared for 1 s more.
	if !slices.Equal(granted, []int32{3}) || w.Wait.Sum() != 2 {
		t.Fatalf("granted %v after waiting %v s, want [3] after 2 s", granted, w.Wait.Sum())
	}
	if w.Waiting() != 0 || w.Busy.Value() != 1 {
		t.Fatalf("%d waiting, busy %v; want 0 and 1 (3 still running)", w.Waiting(), w.Busy.Value())
	}
}

// A discarded instance stops: the job waiting for it pays a cold start.
// One instance, cold start 2 s: job 1 starts at 2; at 3 it is discarded
// while job 2 waits, so job 2 starts at 3 + 2 = 5.
func TestWorkerDiscardStopsTheInstance(t *testing.T) {
	s := New()
	var starts []Time
	var w *WorkerPool
	w = NewWorkerPool(s, WorkerConfig{Max: 1, Min: 0, ColdStart: Constant(2), WarmStart: Constant(0), IdleStop: Hour, QueueCap: Unbounded},
		nil, func(id, inst int32) { starts = append(starts, s.Now()) })
	w.Submit(0, 1)
	s.RunUntil(Second)
	w.Submit(s.Now(), 2)
	s.RunUntil(3 * Second)
	w.Discard(s.Now(), 0)
	s.RunUntil(10 * Second)
	if len(starts) != 2 || starts[0] != 2*Second || starts[1] != 5*Second || w.ColdStarts != 2 {
		t.Errorf("starts %v, cold starts %d; want [2s 5s], 2", starts, w.ColdStarts)
	}
}
