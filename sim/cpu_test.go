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
