package sim

import (
	"math/rand/v2"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

func TestEventsFireInTimeThenScheduleOrder(t *testing.T) {
	s := New()
	var got []int64
	k := s.Handle(func(arg int64) { got = append(got, arg) })
	s.At(3*Second, k, 30)
	s.At(1*Second, k, 10)
	s.At(3*Second, k, 31) // same instant as 30, scheduled later: fires after it
	s.At(2*Second, k, 20)
	s.At(0, k, 0)
	for s.Step() {
	}
	want := []int64{0, 10, 20, 30, 31}
	if len(got) != len(want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fired %v, want %v", got, want)
		}
	}
	if s.Now() != 3*Second {
		t.Errorf("now = %v, want 3s", s.Now())
	}
}

// An event scheduled for the current instant from a handler goes after
// events already queued for that instant: the ring of same-instant events
// must not overtake the heap.
func TestSameInstantEventsKeepScheduleOrder(t *testing.T) {
	s := New()
	var got []int64
	var k Kind
	k = s.Handle(func(arg int64) {
		got = append(got, arg)
		if arg == 1 {
			s.After(0, k, 3)
		}
	})
	s.At(Second, k, 1)
	s.At(Second, k, 2)
	for s.Step() {
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("fired %v, want [1 2 3]", got)
	}
}

func TestCancelledTimerNeverFires(t *testing.T) {
	s := New()
	fired := map[int64]bool{}
	k := s.Handle(func(arg int64) { fired[arg] = true })
	a := s.Timer(Second, k, 1)
	b := s.Timer(2*Second, k, 2)
	if !s.Cancel(a) {
		t.Fatal("Cancel of a pending timer returned false")
	}
	if s.Cancel(a) {
		t.Fatal("second Cancel returned true")
	}
	for s.Step() {
	}
	if fired[1] || !fired[2] {
		t.Fatalf("fired %v, want only 2", fired)
	}
	// b fired, its slot is free and reused: the old handle must not cancel
	// the new occupant.
	c := s.Timer(3*Second, k, 3)
	if s.Cancel(b) {
		t.Fatal("Cancel of a fired timer returned true")
	}
	for s.Step() {
	}
	if !fired[3] {
		t.Fatal("timer reusing a slot was cancelled through a stale handle")
	}
	_ = c
}

func TestRunUntilStopsAtTheBoundary(t *testing.T) {
	s := New()
	n := 0
	k := s.Handle(func(int64) { n++ })
	for i := 1; i <= 10; i++ {
		s.At(Time(i)*Second, k, 0)
	}
	s.RunUntil(5 * Second)
	if n != 5 || s.Now() != 5*Second {
		t.Fatalf("fired %d by %v, want 5 by 5s", n, s.Now())
	}
	s.RunUntil(7500 * Millisecond)
	if n != 7 || s.Now() != 7500*Millisecond {
		t.Fatalf("fired %d by %v, want 7 by 7.5s", n, s.Now())
	}
}

func TestMaxEventsStopsTheRun(t *testing.T) {
	s := New()
	s.MaxEvents = 100
	var k Kind
	k = s.Handle(func(int64) { s.After(Second, k, 0) }) // runs forever
	s.At(0, k, 0)
	s.RunUntil(Never)
	if s.Fired() != 100 || !s.Stopped() {
		t.Fatalf("fired %d, stopped %v; want 100, true", s.Fired(), s.Stopped())
	}
}

// Property: over random schedules and cancellations, time never goes
// backwards, ties fire in schedule order, and cancelled timers never fire.
func TestRandomSchedulesKeepOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		s := New()
		type rec struct{ at, seq int64 }
		var fired []rec
		cancelled := map[int64]bool{}
		k := s.Handle(func(arg int64) {
			if cancelled[arg] {
				t.Fatalf("cancelled event %d fired", arg)
			}
			fired = append(fired, rec{int64(s.Now()), arg})
		})
		var timers []Timer
		for i := int64(0); i < 300; i++ {
			at := Time(r.IntN(50)) * Millisecond
			if r.IntN(3) == 0 {
				timers = append(timers, s.Timer(at, k, i))
				if r.IntN(2) == 0 {
					s.Cancel(timers[len(timers)-1])
					cancelled[i] = true
				}
			} else {
				s.At(at, k, i)
			}
		}
		for s.Step() {
		}
		for i := 1; i < len(fired); i++ {
			a, b := fired[i-1], fired[i]
			if b.at < a.at || (b.at == a.at && b.seq < a.seq) {
				t.Fatalf("trial %d: %v fired before %v", trial, a, b)
			}
		}
		if len(fired)+len(cancelled) != 300 {
			t.Fatalf("trial %d: %d fired + %d cancelled != 300", trial, len(fired), len(cancelled))
		}
	}
}

func TestStreamsAreIndependentOfOtherNames(t *testing.T) {
	a := NewStreams(7)
	x := a.Get("arrivals/customer").Float64()
	b := NewStreams(7)
	b.Get("service/new-component").Float64() // another stream drawn first
	if y := b.Get("arrivals/customer").Float64(); y != x {
		t.Fatalf("stream shifted by another stream: %v vs %v", x, y)
	}
	if z := NewStreams(8).Get("arrivals/customer").Float64(); z == x {
		t.Fatal("different master seeds gave the same draw")
	}
}

// The schedule/pop path allocates nothing once the queue has grown.
func TestSchedulingDoesNotAllocate(t *testing.T) {
	s := New()
	var k Kind
	r := rand.New(rand.NewPCG(1, 1))
	k = s.Handle(func(int64) { s.After(Time(r.IntN(1000)), k, 0) })
	for i := 0; i < 1000; i++ {
		s.At(Time(i), k, 0)
	}
	for i := 0; i < 10000; i++ {
		s.Step()
	}
	allocs := testing.AllocsPerRun(1000, func() { s.Step() })
	if allocs != 0 {
		t.Fatalf("Step allocated %v times per event", allocs)
	}
	tk := s.Handle(func(int64) {})
	allocs = testing.AllocsPerRun(1000, func() {
		tm := s.Timer(s.Now()+Second, tk, 0)
		s.Cancel(tm)
		s.Step()
	})
	if allocs != 0 {
		t.Fatalf("Timer/Cancel allocated %v times per event", allocs)
	}
}

// BenchmarkScheduleStep measures the kernel alone: one event fired and one
// scheduled per operation, with 1,000 events pending.
func BenchmarkScheduleStep(b *testing.B) {
	s := New()
	var k Kind
	r := rand.New(rand.NewPCG(1, 1))
	k = s.Handle(func(int64) { s.After(Time(r.ExpFloat64()*1e9), k, 0) })
	for i := 0; i < 1000; i++ {
		s.At(Time(r.ExpFloat64()*1e9), k, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Step()
	}
}

// Interrupted is polled while the run goes on, and stops it.
func TestInterruptedStopsTheRun(t *testing.T) {
	s := New()
	var k Kind
	k = s.Handle(func(int64) { s.After(Second, k, 0) })
	s.At(0, k, 0)
	asked := 0
	s.Interrupted = func() bool { asked++; return asked == 3 }
	s.RunUntil(Never)
	if !s.Stopped() || s.Fired() != 3<<16 {
		t.Fatalf("stopped %v after %d events, want after %d", s.Stopped(), s.Fired(), 3<<16)
	}
}

// RunUntil(Never) returns once nothing is left to fire, cancelled timers
// included, instead of spinning on an empty queue.
func TestRunUntilNeverReturnsWhenEmpty(t *testing.T) {
	s := New()
	k := s.Handle(func(int64) {})
	tm := s.Timer(Second, k, 0)
	s.Cancel(tm)
	s.At(2*Second, k, 0)
	s.RunUntil(Never)
	if s.Fired() != 1 || s.Pending() != 0 {
		t.Fatalf("fired %d, %d pending", s.Fired(), s.Pending())
	}
}
