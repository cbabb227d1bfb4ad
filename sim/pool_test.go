package sim

import (
	"slices"
	"testing"
)

// grantLog records who was granted what, and when, through a primitive's
// grant callback.
type grantLog struct {
	now func() Time
	ids []int32
	at  []Time
}

func (g *grantLog) grant(id int32) {
	g.ids = append(g.ids, id)
	g.at = append(g.at, g.now())
}

// A pool of 2 servers with room for 1 waiter, driven by hand (the pool is
// passive, so no Sim is needed: the test is the clock).
//
//	0s  1, 2 acquire: granted                    busy 2
//	1s  3 acquires: queued                       queue 1
//	2s  4 acquires: rejected (queue full)
//	3s  release: 3 granted after 2 s             queue 0
//	4s  5 acquires: queued                       queue 1
//	5s  5 abandons                               queue 0
//	6s  6 acquires: queued                       queue 1
//	7s  7 acquires: rejected
//	8s  release: 6 granted after 2 s             queue 0
//	9s  release                                  busy 1
//	10s release                                  busy 0
//
// Busy is 2 for 9 s and 1 for 1 s: mean 19/10. The queue holds 1 for
// 2+1+2 = 5 s of 10: mean 0.5. Waits are 0, 0, 2, 2.
func TestPoolTimeline(t *testing.T) {
	var now Time
	g := &grantLog{now: func() Time { return now }}
	p := NewPool(2, 1, g.grant)
	step := func(at Time, want Outcome, id int32) {
		t.Helper()
		now = at
		if got := p.Acquire(now, id); got != want {
			t.Fatalf("at %v, Acquire(%d) = %v, want %v", now, id, got, want)
		}
	}
	step(0, Granted, 1)
	step(0, Granted, 2)
	step(1*Second, Queued, 3)
	step(2*Second, Rejected, 4)
	now = 3 * Second
	p.Release(now)
	if p.InUse() != 2 || p.Waiting() != 0 {
		t.Fatalf("after handing over at 3s: %d in use, %d waiting; want 2, 0", p.InUse(), p.Waiting())
	}
	step(4*Second, Queued, 5)
	now = 5 * Second
	if !p.Abandon(now, 5) {
		t.Fatal("Abandon of a waiter returned false")
	}
	if p.Abandon(now, 5) || p.Abandon(now, 1) {
		t.Fatal("Abandon of an id not waiting returned true")
	}
	step(6*Second, Queued, 6)
	step(7*Second, Rejected, 7)
	for _, at := range []Time{8 * Second, 9 * Second, 10 * Second} {
		now = at
		p.Release(now)
	}
	if !slices.Equal(g.ids, []int32{3, 6}) || g.at[0] != 3*Second || g.at[1] != 8*Second {
		t.Fatalf("granted %v at %v, want [3 6] at [3s 8s]", g.ids, g.at)
	}
	if p.InUse() != 0 || p.Waiting() != 0 {
		t.Fatalf("%d in use, %d waiting at the end", p.InUse(), p.Waiting())
	}
	if got := p.Busy.Mean(now); got != 1.9 {
		t.Errorf("Busy mean %v, want 1.9", got)
	}
	if got := p.Busy.Max(); got != 2 {
		t.Errorf("Busy max %v, want 2", got)
	}
	if got := p.QueueLen.Mean(now); got != 0.5 {
		t.Errorf("QueueLen mean %v, want 0.5", got)
	}
	if got := p.QueueLen.Max(); got != 1 {
		t.Errorf("QueueLen max %v, want 1", got)
	}
	if p.Wait.N() != 4 || p.Wait.Sum() != 4 || p.Wait.Max() != 2 || p.Wait.Min() != 0 {
		t.Errorf("Wait n=%d sum=%v min=%v max=%v, want 4, 4, 0, 2", p.Wait.N(), p.Wait.Sum(), p.Wait.Min(), p.Wait.Max())
	}
	if p.Granted != 4 || p.Delayed != 2 || p.Rejected != 2 || p.Abandoned != 1 {
		t.Errorf("granted %d delayed %d rejected %d abandoned %d, want 4, 2, 2, 1",
			p.Granted, p.Delayed, p.Rejected, p.Abandoned)
	}
	// Everyone offered is accounted for: 4 + 2 + 1 + 0 waiting = 7.
	if p.Granted+p.Rejected+p.Abandoned+int64(p.Waiting()) != 7 {
		t.Error("counters do not add up to the 7 requests offered")
	}
}

// Waiters are served in arrival order, one abandoned in the middle is
// skipped, and a release with nobody waiting frees the server.
func TestPoolGrantsInArrivalOrder(t *testing.T) {
	var now Time
	g := &grantLog{now: func() Time { return now }}
	p := NewPool(1, Unbounded, g.grant)
	p.Acquire(0, 10)
	for id := int32(1); id <= 5; id++ {
		if p.Acquire(Time(id)*Second, id) != Queued {
			t.Fatalf("Acquire(%d) not queued on a busy pool", id)
		}
	}
	now = 6 * Second
	p.Abandon(now, 3)
	p.Abandon(now, 1)
	for i := 0; i < 3; i++ {
		now += Second
		p.Release(now)
	}
	// 2, 4, 5 granted at 7, 8, 9 s after waiting 5, 4 and 4 s.
	if !slices.Equal(g.ids, []int32{2, 4, 5}) {
		t.Fatalf("granted %v, want [2 4 5]", g.ids)
	}
	if p.Wait.Sum() != 13 || p.Wait.N() != 4 {
		t.Fatalf("Wait sum %v over %d, want 13 over 4", p.Wait.Sum(), p.Wait.N())
	}
	now += Second
	p.Release(now)
	if p.InUse() != 0 {
		t.Fatalf("%d in use after the last release", p.InUse())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Release of an idle pool did not panic")
		}
	}()
	p.Release(now)
}

// ResetStats keeps who holds and who waits, and forgets the history.
func TestPoolResetStats(t *testing.T) {
	p := NewPool(1, Unbounded, func(int32) {})
	p.Acquire(0, 1)
	p.Acquire(0, 2)
	p.ResetStats(10 * Second)
	if p.InUse() != 1 || p.Waiting() != 1 || p.Granted != 0 || p.Wait.N() != 0 {
		t.Fatalf("after reset: %d in use, %d waiting, %d granted, %d waits", p.InUse(), p.Waiting(), p.Granted, p.Wait.N())
	}
	p.Release(12 * Second) // 2 waited 12 s, from before the reset
	if p.Wait.Sum() != 12 || p.Busy.Mean(12*Second) != 1 || p.QueueLen.Mean(12*Second) != 1 {
		t.Fatalf("wait %v, busy %v, queue %v; want 12, 1, 1", p.Wait.Sum(), p.Busy.Mean(12*Second), p.QueueLen.Mean(12*Second))
	}
}

// Row locks on keys 1 and 2, driven by hand.
//
//	0s  1 locks key 1, 2 locks key 2: both granted (keys are independent)
//	1s  3 waits for key 1                 waiting 1
//	2s  4 waits for key 1                 waiting 2
//	3s  5 waits for key 1                 waiting 3
//	4s  4 abandons                        waiting 2
//	5s  key 1 released: 3 granted after 4 s      waiting 1
//	6s  key 2 released: nobody waits, key 2 free  held 1
//	7s  key 1 released: 5 granted after 4 s      waiting 0
//	8s  key 1 released: free                     held 0
//
// Held: 2 keys for 6 s, 1 for 2 s: mean 14/8. Waiting: 1, 2, 3, 2, 1, 1 over
// the seconds from 1 s to 7 s: mean 10/8.
func TestKeyedLockTimeline(t *testing.T) {
	var now Time
	g := &grantLog{now: func() Time { return now }}
	l := NewKeyedLock(g.grant)
	acquire := func(at Time, key int64, id int32, want Outcome) {
		t.Helper()
		now = at
		if got := l.Acquire(now, key, id); got != want {
			t.Fatalf("at %v, Acquire(key %d, %d) = %v, want %v", now, key, id, got, want)
		}
	}
	acquire(0, 1, 1, Granted)
	acquire(0, 2, 2, Granted)
	acquire(1*Second, 1, 3, Queued)
	acquire(2*Second, 1, 4, Queued)
	acquire(3*Second, 1, 5, Queued)
	now = 4 * Second
	if l.Abandon(now, 2, 4) || l.Abandon(now, 9, 4) {
		t.Fatal("Abandon on a key the id does not wait for returned true")
	}
	if !l.Abandon(now, 1, 4) {
		t.Fatal("Abandon of a waiter returned false")
	}
	release := func(at Time, key int64) { now = at; l.Release(now, key) }
	release(5*Second, 1)
	release(6*Second, 2)
	release(7*Second, 1)
	release(8*Second, 1)
	if !slices.Equal(g.ids, []int32{3, 5}) || g.at[0] != 5*Second || g.at[1] != 7*Second {
		t.Fatalf("granted %v at %v, want [3 5] at [5s 7s]", g.ids, g.at)
	}
	if got := l.Held.Mean(now); got != 14.0/8 {
		t.Errorf("Held mean %v, want 1.75", got)
	}
	if got := l.Waiting.Mean(now); got != 10.0/8 {
		t.Errorf("Waiting mean %v, want 1.25", got)
	}
	if l.Waiting.Max() != 3 || l.Held.Max() != 2 {
		t.Errorf("Waiting max %v, Held max %v; want 3, 2", l.Waiting.Max(), l.Held.Max())
	}
	if l.Granted != 4 || l.Abandoned != 1 || l.Wait.Sum() != 8 || l.Wait.N() != 4 {
		t.Errorf("granted %d abandoned %d, wait %v over %d; want 4, 1, 8 over 4", l.Granted, l.Abandoned, l.Wait.Sum(), l.Wait.N())
	}
	if l.Held.Value() != 0 || l.Waiting.Value() != 0 {
		t.Errorf("%v held, %v waiting at the end", l.Held.Value(), l.Waiting.Value())
	}

	// The freed keys' state is reused for the next keys locked; their
	// queues must start empty and still find their waiters.
	acquire(9*Second, 7, 6, Granted)
	acquire(9*Second, 8, 7, Granted)
	acquire(9*Second, 7, 8, Queued)
	acquire(9*Second, 8, 9, Queued)
	now = 10 * Second
	if !l.Abandon(now, 8, 9) || l.Abandon(now, 7, 9) {
		t.Fatal("Abandon on a reused key's queue found the wrong waiter")
	}
	release(11*Second, 8)
	release(12*Second, 7)
	if !slices.Equal(g.ids, []int32{3, 5, 8}) {
		t.Fatalf("granted %v, want [3 5 8]", g.ids)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Release of a key not held did not panic")
		}
	}()
	l.Release(now, 8)
}

// Capacity over time: 2 servers cut to 0 at 10 s and raised to 1 at 20 s.
// Jobs of 15 s start at 0 and 1 (both served: the cut does not preempt
// them), a third arriving at 5 waits; at 15 and 16 the servers in service
// end and go; at 20 the one server takes the waiter.
func TestPoolSetServersTimeline(t *testing.T) {
	var grants []int32
	p := NewPool(2, Unbounded, func(id int32) { grants = append(grants, id) })
	p.Acquire(0, 1)
	p.Acquire(1*Second, 2)
	if p.Acquire(5*Second, 3) != Queued {
		t.Fatal("job 3 should wait")
	}
	p.SetServers(10*Second, 0)
	p.Release(15 * Second)
	p.Release(16 * Second)
	if len(grants) != 0 || p.InUse() != 0 {
		t.Fatalf("after the cut: grants %v, in use %d; want none, 0", grants, p.InUse())
	}
	p.SetServers(20*Second, 1)
	if len(grants) != 1 || grants[0] != 3 || p.InUse() != 1 {
		t.Fatalf("after the rise: grants %v, in use %d; want [3], 1", grants, p.InUse())
	}
	if w := p.Wait.Max(); w != 15 {
		t.Errorf("job 3 waited %gs, want 15", w)
	}
}
