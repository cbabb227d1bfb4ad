package sim

import (
	"math/rand/v2"
	"slices"
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

// An event due past the Horizon is not fired: the run stops at the last
// event before it and says why, and the clock stays where that event was.
// Events up to the Horizon itself fire, and a run whose end comes first
// never reaches the Horizon.
func TestRunUntilStopsShortOfTheHorizon(t *testing.T) {
	s := New()
	s.Horizon = 5 * Second
	var fired []Time
	k := s.Handle(func(int64) { fired = append(fired, s.Now()) })
	for _, at := range []Time{Second, 5 * Second, 6 * Second, Never} {
		s.At(at, k, 0)
	}
	if !s.RunUntil(3*Second) || s.PastHorizon() {
		t.Fatalf("RunUntil(3s): stopped %v, past the horizon %v; want neither", s.Stopped(), s.PastHorizon())
	}
	if s.RunUntil(Never) || !s.PastHorizon() || !s.Stopped() {
		t.Fatalf("RunUntil(Never) went on: past the horizon %v, stopped %v", s.PastHorizon(), s.Stopped())
	}
	if !slices.Equal(fired, []Time{Second, 5 * Second}) || s.Now() != 5*Second || s.Pending() != 2 {
		t.Errorf("fired at %v, clock at %v, %d pending; want 1s and 5s, 5s, 2", fired, s.Now(), s.Pending())
	}
}

// Add saturates where + would wrap round, at both ends of the clock.
func TestTimeAddSaturates(t *testing.T) {
	for _, tc := range []struct{ t, d, want Time }{
		{Second, Second, 2 * Second},
		{Second, Never, Never},
		{Never - Second, 2 * Second, Never},
		{Never, 0, Never},
		{-Never, -2 * Second, -Never - 1},
		{5 * Second, -2 * Second, 3 * Second},
	} {
		if got := tc.t.Add(tc.d); got != tc.want {
			t.Errorf("%d.Add(%d) = %d, want %d", tc.t, tc.d, got, tc.want)
		}
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

// Cancelled timers leave the queue: a burst of far-off timers, all
// cancelled, leaves nothing pending, and repeating the burst reuses the
// same storage instead of piling up dead events (a call timeout of half an
// hour cancelled after milliseconds must not hold memory for half an hour).
func TestCancelledTimersLeaveTheQueue(t *testing.T) {
	s := New()
	k := s.Handle(func(int64) {})
	const n = 10000
	timers := make([]Timer, n)
	var heapCap, slots int
	for round := 0; round < 5; round++ {
		for i := range timers {
			timers[i] = s.Timer(s.Now()+30*Minute+Time(i), k, int64(i))
		}
		if got := s.Pending(); got != n {
			t.Fatalf("round %d: %d pending after scheduling %d", round, got, n)
		}
		for _, tm := range timers {
			if !s.Cancel(tm) {
				t.Fatalf("round %d: Cancel of a pending timer returned false", round)
			}
		}
		if got := s.Pending(); got != 0 || len(s.heap) != 0 {
			t.Fatalf("round %d: %d pending, heap length %d after cancelling all", round, got, len(s.heap))
		}
		if round == 0 {
			heapCap, slots = cap(s.heap), len(s.timers)
		} else if cap(s.heap) != heapCap || len(s.timers) != slots {
			t.Fatalf("round %d: heap capacity %d, %d timer slots; round 0 left %d, %d",
				round, cap(s.heap), len(s.timers), heapCap, slots)
		}
		s.At(s.Now()+Second, k, 0)
		s.RunUntil(Never)
	}
	if s.Fired() != 5 {
		t.Fatalf("fired %d, want the 5 plain events only", s.Fired())
	}
}

// In steady state, with one timer armed and cancelled per request, the
// queue holds what is in flight, not what was ever armed.
func TestPendingFollowsWhatIsInFlight(t *testing.T) {
	s := New()
	var done, arrive Kind
	timeout := s.Handle(func(int64) { t.Fatal("a cancelled timeout fired") })
	inFlight := map[int64]Timer{}
	next := int64(0)
	peak := 0
	done = s.Handle(func(id int64) {
		s.Cancel(inFlight[id])
		delete(inFlight, id)
	})
	arrive = s.Handle(func(int64) {
		next++
		inFlight[next] = s.Timer(s.Now()+30*Minute, timeout, next)
		s.After(10*Millisecond, done, next)
		s.After(Millisecond, arrive, 0)
		peak = max(peak, s.Pending())
	})
	s.At(0, arrive, 0)
	s.RunUntil(100 * Second)
	// About 10 requests in flight, each with its completion and its
	// timeout, plus the next arrival.
	if peak > 25 {
		t.Fatalf("peak pending %d with about 10 requests in flight", peak)
	}
}

// Removing a timer from the middle of the heap keeps every other event in
// (time, schedule) order, including timers moved by the removal.
func TestCancelFromTheMiddleKeepsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		s := New()
		var fired []int64
		var at []Time
		k := s.Handle(func(arg int64) { fired = append(fired, arg); at = append(at, s.Now()) })
		var timers []Timer
		var ids []int64
		for i := int64(0); i < 200; i++ {
			timers = append(timers, s.Timer(Time(1+r.IntN(20))*Second, k, i))
			ids = append(ids, i)
		}
		cancelled := map[int64]bool{}
		for _, j := range r.Perm(len(timers))[:100] {
			s.Cancel(timers[j])
			cancelled[ids[j]] = true
		}
		s.RunUntil(Never)
		if len(fired) != 100 {
			t.Fatalf("trial %d: %d fired, want 100", trial, len(fired))
		}
		for i, id := range fired {
			if cancelled[id] {
				t.Fatalf("trial %d: cancelled timer %d fired", trial, id)
			}
			if i > 0 && (at[i] < at[i-1] || at[i] == at[i-1] && id < fired[i-1]) {
				t.Fatalf("trial %d: %d at %v fired after %d at %v", trial, id, at[i], fired[i-1], at[i-1])
			}
		}
	}
}

// A timer due at the current instant sits in the ring of same-instant
// events; cancelled there, it stops counting as pending at once and is
// skipped, not fired.
func TestCancelAtTheCurrentInstant(t *testing.T) {
	s := New()
	var fired []int64
	k := s.Handle(func(arg int64) { fired = append(fired, arg) })
	a := s.Timer(0, k, 1)
	s.At(0, k, 2)
	b := s.Timer(0, k, 3)
	if !s.Cancel(a) || s.Pending() != 2 {
		t.Fatalf("after cancelling one of three same-instant events, %d pending, want 2", s.Pending())
	}
	if s.Cancel(a) {
		t.Fatal("second Cancel of a same-instant timer returned true")
	}
	s.RunUntil(Never)
	if !slices.Equal(fired, []int64{2, 3}) || s.Pending() != 0 || s.Fired() != 2 {
		t.Fatalf("fired %v (%d), %d pending; want [2 3], none pending", fired, s.Fired(), s.Pending())
	}
	if s.Cancel(b) {
		t.Fatal("Cancel of a fired timer returned true")
	}
}

// RunUntil fires nothing after its end, even when the earliest queued event
// is a cancelled timer due before it: skipping that timer must not let the
// next live event, due later, fire in its place.
func TestRunUntilSkipsCancelledTimersWithoutOvershooting(t *testing.T) {
	s := New()
	var fired []Time
	k := s.Handle(func(int64) { fired = append(fired, s.Now()) })
	var tm Timer
	arm := s.Handle(func(int64) {
		tm = s.Timer(s.Now(), k, 0) // due now: in the ring of same-instant events
		s.Cancel(tm)
	})
	s.At(Second, arm, 0)
	s.At(5*Second, k, 0)
	s.RunUntil(2 * Second)
	if len(fired) != 0 || s.Now() != 2*Second {
		t.Fatalf("RunUntil(2s) fired at %v and left the clock at %v", fired, s.Now())
	}
	far := s.Timer(3*Second, k, 0) // on the heap
	s.Cancel(far)
	s.RunUntil(4 * Second)
	if len(fired) != 0 || s.Now() != 4*Second {
		t.Fatalf("RunUntil(4s) fired at %v and left the clock at %v", fired, s.Now())
	}
	s.RunUntil(Never)
	if len(fired) != 1 || fired[0] != 5*Second {
		t.Fatalf("fired at %v, want once at 5s", fired)
	}
}
