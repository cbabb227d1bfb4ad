package sim

import (
	"math"
	"slices"
	"testing"
)

// timedCPU is a processor-sharing cpu of cores on a new simulation, with
// the time each of its jobs ended, by id.
func timedCPU(cores float64) (*Sim, *ProcessorSharing, map[int32]Time) {
	s := New()
	ends := map[int32]Time{}
	return s, NewProcessorSharing(s, cores, func(id int32) { ends[id] = s.Now() }), ends
}

// Two jobs of 1 s and 3 s started together on one core share it: the short
// one ends at 2 s (half speed), the long one at 4 s (then alone).
func TestProcessorSharingSharesTheCore(t *testing.T) {
	s, c, ends := timedCPU(1)
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
	s, c, ends := timedCPU(2)
	c.Start(0, 1, 1)
	c.Start(0, 2, 1)
	s.RunUntil(Never)
	if ends[1] != Second || ends[2] != Second {
		t.Fatalf("two jobs on two cores ended at %v, want 1s each", ends)
	}
	s2, c, ends := timedCPU(2)
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

// A job abandoned halfway leaves its share to the others, and takes its
// switching with it. Two 2 s jobs on one core: without a switch cost each
// has had 1 s of work at 2 s; at σ = 1 they run at 1/4 each, and have had
// 1 s at 4 s. Job 2 leaves then, and job 1 runs its last second alone.
func TestProcessorSharingAbandon(t *testing.T) {
	for _, tc := range []struct {
		switchCost float64
		leave, end Time
	}{
		{0, 2 * Second, 3 * Second},
		{1, 4 * Second, 5 * Second},
	} {
		s, c, ends := timedCPU(1)
		c.SetSwitchCost(tc.switchCost)
		c.Start(0, 1, 2)
		c.Start(0, 2, 2)
		k := s.Handle(func(int64) { c.Abandon(s.Now(), 2) })
		s.At(tc.leave, k, 0)
		s.RunUntil(Never)
		if _, ok := ends[2]; ok || ends[1] != tc.end {
			t.Fatalf("switch cost %g: ends = %v, want only job 1, at %v", tc.switchCost, ends, tc.end)
		}
	}
}

// With a switch cost of 0.5, two 1 s jobs on one core each run at
// min(1, 1/2)/(1 + 0.5·1) = 1/3: both end at 3 s. The core is busy
// throughout, but only 2/3 of its time is work.
func TestProcessorSharingSwitchCost(t *testing.T) {
	s, c, ends := timedCPU(1)
	c.SetSwitchCost(0.5)
	c.Start(0, 1, 1)
	c.Start(0, 2, 1)
	s.RunUntil(Never)
	if ends[1] != 3*Second || ends[2] != 3*Second {
		t.Fatalf("ends = %v, want both at 3s", ends)
	}
	if got := c.Busy.Mean(3 * Second); math.Abs(got-1) > 1e-12 {
		t.Fatalf("busy = %v, want 1", got)
	}
	if got := c.Useful.Mean(3 * Second); math.Abs(got-2.0/3) > 1e-12 {
		t.Fatalf("useful = %v, want 2/3 (2 s of work in 3 s)", got)
	}
}

// Three jobs of 1, 1 and 3 s on two cores with σ = 0.25: each runs at
// (2/3)/(1 + 0.25·1) = 8/15 until the short ones end at 15/8 s, when the
// long one has had 1 s and runs its last 2 s alone at full speed, with no
// switching: it ends at 3.875 s.
func TestProcessorSharingSwitchCostEndsWithTheExcess(t *testing.T) {
	s, c, ends := timedCPU(2)
	c.SetSwitchCost(0.25)
	c.Start(0, 1, 1)
	c.Start(0, 2, 1)
	c.Start(0, 3, 3)
	s.RunUntil(Never)
	if ends[1] != 1875*Millisecond || ends[2] != 1875*Millisecond || ends[3] != 3875*Millisecond {
		t.Fatalf("ends = %v, want 1 and 2 at 1.875s, 3 at 3.875s", ends)
	}
	// Work done: 5 s of work in 3.875 s.
	if got, want := c.Useful.Mean(3875*Millisecond), 5/3.875; math.Abs(got-want) > 1e-9 {
		t.Fatalf("useful = %v, want %v", got, want)
	}
}

// On half a core a lone job is throttled, not switched: 1 s of work takes
// 2 s whatever σ. A second job is one thread too many: each then runs at
// (0.5/2)/(1 + 1·1) = 1/8, so two 1 s jobs take 8 s.
func TestProcessorSharingSwitchCostOnAFractionalCore(t *testing.T) {
	s, c, ends := timedCPU(0.5)
	c.SetSwitchCost(1)
	c.Start(0, 1, 1)
	s.RunUntil(Never)
	if ends[1] != 2*Second {
		t.Fatalf("lone job ended at %v, want 2s", ends[1])
	}
	k := s.Handle(func(int64) { c.Start(s.Now(), 2, 1); c.Start(s.Now(), 3, 1) })
	s.At(10*Second, k, 0)
	s.RunUntil(Never)
	if ends[2] != 18*Second || ends[3] != 18*Second {
		t.Fatalf("ends = %v, want 2 and 3 at 18s", ends)
	}
}

// Finishing work allocates nothing, with or without a switch cost.
func TestProcessorSharingFinishAllocatesNothing(t *testing.T) {
	s := New()
	var c *ProcessorSharing
	next := int32(0)
	c = NewProcessorSharing(s, 2, func(int32) { next++; c.Start(s.Now(), next, 0.001) })
	c.SetSwitchCost(0.1)
	for next < 8 {
		next++
		c.Start(0, next, 0.001)
	}
	s.RunUntil(Second) // warm the heap and the buffers
	allocs := testing.AllocsPerRun(10, func() { s.RunUntil(s.Now() + Second) })
	if allocs != 0 {
		t.Fatalf("%v allocations per simulated second, want 0", allocs)
	}
}

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
	if !slices.Equal(order, []int32{2, 1, 3}) || ends[0] != 2*Second || ends[1] != 5*Second || ends[2] != 5*Second {
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
