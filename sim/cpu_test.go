package sim

import (
	"math"
	"testing"
)

// Two jobs of 1 s and 3 s started together on one core share it: the short
// one ends at 2 s (half speed), the long one at 4 s (then alone).
func TestProcessorSharingSharesTheCore(t *testing.T) {
	s := New()
	ends := map[int32]Time{}
	c := NewProcessorSharing(s, 1, func(id int32) { ends[id] = s.Now() })
	c.Start(0, 1, 1)
	c.Start(0, 2, 3)
	s.RunUntil(Never)
	if ends[1] != 2*Second || ends[2] != 4*Second {
		t.Fatalf("ends = %v, want 1 at 2s and 2 at 4s", ends)
	}
	if got := c.Busy.Mean(4 * Second); math.Abs(got-1) > 1e-12 {
		t.Fatalf("busy = %v, want 1 (the core never idled)", got)
	}
}

// With two cores, two jobs run at full speed; a third slows all three to
// 2/3 until one leaves.
func TestProcessorSharingWithCores(t *testing.T) {
	s := New()
	ends := map[int32]Time{}
	c := NewProcessorSharing(s, 2, func(id int32) { ends[id] = s.Now() })
	c.Start(0, 1, 1)
	c.Start(0, 2, 1)
	s.RunUntil(Never)
	if ends[1] != Second || ends[2] != Second {
		t.Fatalf("two jobs on two cores ended at %v, want 1s each", ends)
	}
	s2 := New()
	ends = map[int32]Time{}
	c = NewProcessorSharing(s2, 2, func(id int32) { ends[id] = s2.Now() })
	for id := int32(1); id <= 3; id++ {
		c.Start(0, id, 2)
	}
	s2.RunUntil(Never)
	// Each gets 2/3 of a core: 2 s of work takes 3 s.
	for id := int32(1); id <= 3; id++ {
		if ends[id] != 3*Second {
			t.Fatalf("job %d ended at %v, want 3s", id, ends[id])
		}
	}
}

// A job abandoned halfway leaves its share to the others.
func TestProcessorSharingAbandon(t *testing.T) {
	s := New()
	ends := map[int32]Time{}
	c := NewProcessorSharing(s, 1, func(id int32) { ends[id] = s.Now() })
	c.Start(0, 1, 2)
	c.Start(0, 2, 2)
	k := s.Handle(func(int64) { c.Abandon(s.Now(), 2) })
	s.At(2*Second, k, 0) // each has had 1 s of work
	s.RunUntil(Never)
	if _, ok := ends[2]; ok || ends[1] != 3*Second {
		t.Fatalf("ends = %v, want only job 1, at 3s", ends)
	}
}

// One core; A needs 3 s of work and B 1 s from 0 s, C 1 s from 3 s.
//
//	0–2s  A and B at half speed: B has its 1 s at 2 s     A has 1 s
//	2–3s  A alone at full speed                           A has 2 s
//	3–5s  A and C at half speed, 1 s left each: both end at 5 s, A first
//	      (it started first)
//
// Jobs in the system: 2, 1, 2 over those spans, 9 over 5 s.
func TestProcessorSharingTimeline(t *testing.T) {
	s := New()
	var order []int32
	var ends []Time
	c := NewProcessorSharing(s, 1, func(id int32) { order = append(order, id); ends = append(ends, s.Now()) })
	start := s.Handle(func(int64) { c.Start(s.Now(), 3, 1) })
	c.Start(0, 1, 3)
	c.Start(0, 2, 1)
	s.At(3*Second, start, 0)
	s.RunUntil(Never)
	if !equalInts32(order, []int32{2, 1, 3}) || ends[0] != 2*Second || ends[1] != 5*Second || ends[2] != 5*Second {
		t.Fatalf("finished %v at %v, want [2 1 3] at [2s 5s 5s]", order, ends)
	}
	if got := c.InSystem.Mean(5 * Second); got != 9.0/5 {
		t.Fatalf("mean jobs in the system %v, want 1.8", got)
	}
	if got := c.Busy.Mean(5 * Second); got != 1 || c.Served != 3 {
		t.Fatalf("busy %v, served %d; want 1, 3", got, c.Served)
	}
	if c.Abandon(s.Now(), 1) {
		t.Fatal("Abandon of a finished job returned true")
	}
}

// Four jobs of 1 s each run at min(1, cores/4): on 2 cores at half speed,
// ending together at 2 s; on 4 or 8 at full speed, at 1 s; on half a core
// at 1/8 speed, at 8 s. Busy is min(4, cores) throughout.
func TestProcessorSharingRateIsCoresOverJobs(t *testing.T) {
	for _, tc := range []struct {
		cores float64
		end   Time
	}{{2, 2 * Second}, {4, Second}, {8, Second}, {0.5, 8 * Second}} {
		s := New()
		var ends []Time
		c := NewProcessorSharing(s, tc.cores, func(int32) { ends = append(ends, s.Now()) })
		for id := int32(0); id < 4; id++ {
			c.Start(0, id, 1)
		}
		s.RunUntil(Never)
		if len(ends) != 4 || ends[0] != tc.end || ends[3] != tc.end {
			t.Fatalf("%v cores: ends %v, want all at %v", tc.cores, ends, tc.end)
		}
		if got, want := c.Busy.Mean(tc.end), min(4, tc.cores); got != want {
			t.Fatalf("%v cores: busy %v, want %v", tc.cores, got, want)
		}
	}
}
