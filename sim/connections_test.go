package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func newSlots(s *Sim, cfg KeyedSlotsConfig, keys map[int32]int64, grants *[]string) *KeyedSlots {
	return NewKeyedSlots(s, cfg, rand.New(rand.NewPCG(1, 2)),
		func(id int32) int64 { return keys[id] },
		func(id, slot int32, open Time) {
			*grants = append(*grants, s.Now().String()+": "+string(rune('A'+id))+" slot "+string(rune('0'+slot))+" open "+open.String())
		})
}

// acquireAt runs the table's events up to at, then asks for a slot and
// checks what the request got.
func acquireAt(t *testing.T, s *Sim, k *KeyedSlots, at float64, key int64, want Outcome, wantSlot int32, wantOpen Time) {
	t.Helper()
	s.RunUntil(Seconds(at))
	out, slot, open := k.Acquire(s.Now(), key, int32(key))
	if out != want || slot != wantSlot || open != wantOpen {
		t.Fatalf("at %gs key %d got (%d, slot %d, open %s), want (%d, slot %d, open %s)", at, key, out, slot, open, want, wantSlot, wantOpen)
	}
}

func releaseAt(s *Sim, k *KeyedSlots, at float64, slot int32) {
	s.RunUntil(Seconds(at))
	k.Release(s.Now(), slot)
}

func openAt(t *testing.T, s *Sim, k *KeyedSlots, at Time, want int) {
	t.Helper()
	s.RunUntil(at)
	if k.OpenNow() != want {
		t.Fatalf("at %s: %d open, want %d", at, k.OpenNow(), want)
	}
}

// Two clients, A (key 0) and B (key 1), a table of 2, keep-alive 10 s,
// opening 1 s. Open: 1 on [0, 0.5), 2 on [0.5, 14.5) (B's closes 10 s
// after its release at 4.5), 1 on [14.5, 15), 2 on [15, 16) (C opens B's
// freed slot; A's closes 10 s after its release at 6), 1 on [16, 27), 0
// after: 42 slot-seconds in 30 s. Held: 1 on [0, 0.5), 2 on [0.5, 2),
// 1 on [2, 3), 2 on [3, 4), 1 on [4, 4.5), 1 on [5, 6), 1 on [15, 17):
// 10 slot-seconds.
func TestKeyedSlotsKeepAliveTimeline(t *testing.T) {
	s := New()
	const A, B, C = 0, 1, 2
	var grants []string
	k := newSlots(s, KeyedSlotsConfig{Max: 2, Open: Constant(1), IdleClose: 10 * Second}, nil, &grants)

	acquireAt(t, s, k, 0, A, Granted, 0, Second)   // opens slot 0, paying 1 s
	acquireAt(t, s, k, 0.5, B, Granted, 1, Second) // opens slot 1
	acquireAt(t, s, k, 1, C, Rejected, -1, 0)      // both open: C is refused
	releaseAt(s, k, 2, 0)                          // A's slot idles until 12 s
	acquireAt(t, s, k, 3, A, Granted, 0, 0)        // A reuses it at no cost
	releaseAt(s, k, 4, 0)                          // idle until 14 s
	releaseAt(s, k, 4.5, 1)                        // B's idles until 14.5 s
	acquireAt(t, s, k, 5, A, Granted, 0, 0)        // reused again
	acquireAt(t, s, k, 5, A, Rejected, -1, 0)      // A's only slot is held, B's idle one is not A's
	releaseAt(s, k, 6, 0)                          // idle until 16 s
	openAt(t, s, k, 14*Second, 2)                  // the timers of 12 s and 14 s were cancelled by reuse
	openAt(t, s, k, 14*Second+Second/2-1, 2)       // B's slot is still open a nanosecond before
	openAt(t, s, k, 14*Second+Second/2, 1)         // and closed 10 s after its release
	acquireAt(t, s, k, 15, C, Granted, 1, Second)  // C opens the freed slot
	openAt(t, s, k, 16*Second-1, 2)                // A's slot is still open
	openAt(t, s, k, 16*Second, 1)                  // closed 10 s after 6 s
	releaseAt(s, k, 17, 1)                         // C's idles until 27 s
	openAt(t, s, k, 27*Second-1, 1)
	openAt(t, s, k, 27*Second, 0)
	openAt(t, s, k, 30*Second, 0)

	end := s.Now()
	if got := k.Open.Mean(end); got != 42.0/30 {
		t.Errorf("mean open %g, want 1.4", got)
	}
	if got := k.Held.Mean(end); got != 10.0/30 {
		t.Errorf("mean held %g, want 1/3", got)
	}
	if k.Open.Max() != 2 || k.Held.Max() != 2 {
		t.Errorf("peak open %g, peak held %g; want 2 and 2", k.Open.Max(), k.Held.Max())
	}
	if k.Opened != 3 || k.Reused != 2 || k.Rejected != 2 || k.Granted != 5 || k.Delayed != 0 {
		t.Errorf("opened %d, reused %d, rejected %d, granted %d, delayed %d; want 3, 2, 2, 5, 0",
			k.Opened, k.Reused, k.Rejected, k.Granted, k.Delayed)
	}
	if len(grants) != 0 {
		t.Errorf("nobody waits, yet grants %v", grants)
	}
}

// A key with two idle slots reuses the one released last, and the other
// closes on its own timer.
func TestKeyedSlotsReuseTheLastReleased(t *testing.T) {
	s := New()
	var grants []string
	k := newSlots(s, KeyedSlotsConfig{Max: 3, Open: Constant(0), IdleClose: 10 * Second}, nil, &grants)
	acquireAt(t, s, k, 0, 7, Granted, 0, 0)
	acquireAt(t, s, k, 0, 7, Granted, 1, 0) // the key's only slot is held: it opens another
	releaseAt(s, k, 1, 0)
	releaseAt(s, k, 2, 1)
	acquireAt(t, s, k, 3, 7, Granted, 1, 0)
	openAt(t, s, k, 11*Second-1, 2)
	openAt(t, s, k, 11*Second, 1) // slot 0, idle since 1 s
	releaseAt(s, k, 12, 1)
	acquireAt(t, s, k, 13, 7, Granted, 1, 0)
	if k.Opened != 2 || k.Reused != 2 {
		t.Errorf("opened %d, reused %d; want 2 and 2", k.Opened, k.Reused)
	}
}

// With Wait, a requester finding the table full waits for the next slot
// that closes, and pays for opening it. Slot 0, A's, idles from 2 s and
// closes at 12 s: B, queued at 3 s, opens it (wait 9 s); C gave up at 5 s;
// B's release at 14 s keeps it idle for B until 24 s, when D, queued at
// 6 s, opens it (wait 18 s).
func TestKeyedSlotsWaitForASlotToClose(t *testing.T) {
	s := New()
	const A, B, C, D = 0, 1, 2, 3
	var grants []string
	keys := map[int32]int64{A: A, B: B, C: C, D: D}
	k := newSlots(s, KeyedSlotsConfig{Max: 1, Open: Constant(1), IdleClose: 10 * Second, Wait: true}, keys, &grants)
	acquireAt(t, s, k, 0, A, Granted, 0, Second)
	releaseAt(s, k, 2, 0)
	acquireAt(t, s, k, 3, B, Queued, -1, 0)
	acquireAt(t, s, k, 4, C, Queued, -1, 0)
	s.RunUntil(5 * Second)
	if !k.Abandon(s.Now(), C) || k.Abandon(s.Now(), C) {
		t.Fatal("C should leave the queue once")
	}
	acquireAt(t, s, k, 6, D, Queued, -1, 0)
	if k.Waiting() != 2 {
		t.Fatalf("%d waiting, want 2", k.Waiting())
	}
	s.RunUntil(13 * Second)
	releaseAt(s, k, 14, 0)
	s.RunUntil(30 * Second)
	want := []string{"12s: B slot 0 open 1s", "24s: D slot 0 open 1s"}
	if len(grants) != len(want) || grants[0] != want[0] || grants[1] != want[1] {
		t.Fatalf("grants %q, want %q", grants, want)
	}
	if k.Wait.N() != 3 || k.Wait.Mean() != 9 || k.Delayed != 2 || k.Abandoned != 1 || k.Opened != 3 {
		t.Errorf("%d waits of mean %gs, %d delayed, %d abandoned, %d opened; want 3 of 9s, 2, 1, 3",
			k.Wait.N(), k.Wait.Mean(), k.Delayed, k.Abandoned, k.Opened)
	}
	if k.QueueLen.Max() != 2 || k.OpenNow() != 1 || k.InUse() != 1 {
		t.Errorf("peak queue %g, %d open, %d held; want 2, 1, 1", k.QueueLen.Max(), k.OpenNow(), k.InUse())
	}
}

// Without keep-alive a released slot closes at once and a waiter opens it
// in the same instant; a slot released while still opening (its holder
// gave up) closes even with keep-alive.
func TestKeyedSlotsCloseAtRelease(t *testing.T) {
	s := New()
	var grants []string
	k := newSlots(s, KeyedSlotsConfig{Max: 1, Open: Constant(1), Wait: true}, map[int32]int64{1: 1}, &grants)
	acquireAt(t, s, k, 0, 0, Granted, 0, Second)
	acquireAt(t, s, k, 0.5, 1, Queued, -1, 0)
	releaseAt(s, k, 2, 0)
	if len(grants) != 1 || grants[0] != "2s: B slot 0 open 1s" || k.OpenNow() != 1 {
		t.Fatalf("grants %q with %d open; want B granted slot 0 at 2s", grants, k.OpenNow())
	}

	s = New()
	k = newSlots(s, KeyedSlotsConfig{Max: 1, Open: Constant(1), IdleClose: 10 * Second}, nil, &grants)
	acquireAt(t, s, k, 0, 0, Granted, 0, Second)
	releaseAt(s, k, 0.5, 0)
	if k.OpenNow() != 0 {
		t.Fatalf("%d open after a release during the opening, want 0", k.OpenNow())
	}
	acquireAt(t, s, k, 0.6, 0, Granted, 0, Second) // nothing idle to reuse: it opens anew
}

// Reusing a slot, and opening one for a new key and letting it close,
// allocate nothing once the table has warmed up.
func TestKeyedSlotsAllocateNothingPerRequest(t *testing.T) {
	s := New()
	k := NewKeyedSlots(s, KeyedSlotsConfig{Max: 64, Open: Constant(0.01), IdleClose: Second}, rand.New(rand.NewPCG(1, 2)),
		func(int32) int64 { return 0 }, func(int32, int32, Time) {})
	key := int64(0)
	cycle := func() {
		key++
		_, i, _ := k.Acquire(s.Now(), key, 0)
		s.RunUntil(s.Now() + Second/10)
		k.Release(s.Now(), i)
		_, i, _ = k.Acquire(s.Now(), key, 0)
		k.Release(s.Now(), i)
		s.RunUntil(s.Now() + Second/10)
	}
	for range 1000 {
		cycle()
	}
	if n := testing.AllocsPerRun(1000, cycle); n != 0 {
		t.Fatalf("%g allocations per request cycle, want 0", n)
	}
}

// KeyedSlots on a running Sim against plain bookkeeping of every slot: a
// requester reuses its key's idle slot released last if there is one,
// else opens a closed slot while fewer than Max are open, else is refused
// or queued; a slot is held by one holder at a time, for its own key; an
// idle slot closes IdleClose after its release (an action at that very
// instant still finds it open: it was scheduled first), and one released
// while opening closes at once; a slot released open goes to the oldest
// waiter of its key, at no opening cost; else a waiter is granted only a
// slot closing now, oldest first; and once drained, everyone offered was granted,
// refused or abandoned, and nothing is left open.
func TestKeyedSlotsProperties(t *testing.T) {
	type refSlot struct {
		open, held bool
		key        int64
		ready      Time
		released   Time
		order      int // release order, for the last released
	}
	for trial := 0; trial < 300; trial++ {
		r := rand.New(rand.NewPCG(uint64(trial), 11))
		cfg := KeyedSlotsConfig{Max: 1 + r.IntN(4), Open: Constant(1), IdleClose: Time(r.IntN(4)) * Second, Wait: r.IntN(2) == 0}
		s := New()
		ref := make([]refSlot, cfg.Max)
		keys := map[int32]int64{}
		state := map[int32]string{} // waiting, holding, done, refused, abandoned
		holder := map[int32]int32{} // slot → id
		var waiting []int32
		releases := 0
		var k *KeyedSlots
		releasing := int32(-1) // the slot being released, while Release runs
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("trial %d (%+v) at %s: %s", trial, cfg, s.Now(), fmt.Sprintf(format, args...))
		}
		// expire closes, in the bookkeeping, idle slots whose close is
		// due before now.
		expire := func(now Time) {
			for i := range ref {
				if ref[i].open && !ref[i].held && ref[i].released+cfg.IdleClose < now {
					ref[i].open = false
				}
			}
		}
		release := s.Handle(func(arg int64) {
			now, i := s.Now(), int32(arg)
			state[holder[i]] = "done"
			delete(holder, i)
			expire(now)
			releases++
			ref[i].held, ref[i].released, ref[i].order = false, now, releases
			if cfg.IdleClose == 0 || now < ref[i].ready {
				ref[i].open = false
			}
			releasing = i
			k.Release(now, i)
			releasing = -1
			if sl := ref[i]; sl.open && !sl.held && slices.ContainsFunc(waiting, func(w int32) bool { return keys[w] == sl.key }) {
				fail("slot %d went idle for key %d while a call of that key waits: %v", i, sl.key, waiting)
			}
		})
		hold := func(id, slot int32, now Time) {
			ref[slot] = refSlot{open: true, held: true, key: keys[id], ready: now + Second}
			holder[slot] = id
			state[id] = "holding"
			s.After(Time(r.IntN(4))*Second/2, release, int64(slot))
		}
		k = NewKeyedSlots(s, cfg, rand.New(rand.NewPCG(1, 1)), func(id int32) int64 { return keys[id] },
			func(id, slot int32, open Time) {
				now := s.Now()
				if sl := ref[slot]; releasing == slot && sl.open {
					// A slot released open goes to the oldest waiter of
					// its key, kept open.
					j := slices.IndexFunc(waiting, func(w int32) bool { return keys[w] == sl.key })
					if j < 0 || waiting[j] != id || open != 0 {
						fail("released slot %d of key %d handed to %d (open %s), waiting %v", slot, sl.key, id, open, waiting)
					}
					waiting = slices.Delete(waiting, j, j+1)
					ref[slot].held = true
					holder[slot] = id
					state[id] = "holding"
					s.After(Time(r.IntN(4))*Second/2, release, int64(slot))
					return
				}
				if len(waiting) == 0 || waiting[0] != id || state[id] != "waiting" {
					fail("granted %d (%s), waiting %v", id, state[id], waiting)
				}
				waiting = waiting[1:]
				if sl := ref[slot]; sl.held || sl.open && sl.released+cfg.IdleClose != now {
					fail("waiter %d granted slot %d, which is %+v", id, slot, sl)
				}
				if open != Second {
					fail("waiter %d pays %s to open, want 1s", id, open)
				}
				hold(id, slot, now)
			})
		next, refused, abandoned := int32(0), 0, 0
		act := s.Handle(func(int64) {
			now := s.Now()
			expire(now)
			if r.IntN(4) == 0 && next > 0 {
				id := r.Int32N(next)
				ok := k.Abandon(now, id)
				if ok != (state[id] == "waiting") {
					fail("Abandon(%d) = %v while %s", id, ok, state[id])
				}
				if ok {
					state[id] = "abandoned"
					abandoned++
					for j, w := range waiting {
						if w == id {
							waiting = append(waiting[:j:j], waiting[j+1:]...)
							break
						}
					}
				}
				return
			}
			id := next
			next++
			keys[id] = int64(r.IntN(3))
			reuse, opened := int32(-1), 0
			for i := range ref {
				sl := &ref[i]
				if sl.open {
					opened++
				}
				if sl.open && !sl.held && sl.key == keys[id] && (reuse < 0 || sl.order > ref[reuse].order) {
					reuse = int32(i)
				}
			}
			out, slot, open := k.Acquire(now, keys[id], id)
			switch {
			case reuse >= 0:
				if out != Granted || slot != reuse || open != 0 {
					fail("key %d got (%d, %d, %s), want a reuse of slot %d", keys[id], out, slot, open, reuse)
				}
				ref[slot].held = true
				holder[slot] = id
				state[id] = "holding"
				s.After(Time(r.IntN(4))*Second/2, release, int64(slot))
			case opened < cfg.Max:
				if out != Granted || ref[slot].open || open != Second {
					fail("key %d got (%d, %d, %s), want a closed slot opened for 1s", keys[id], out, slot, open)
				}
				hold(id, slot, now)
			case cfg.Wait:
				if out != Queued {
					fail("key %d got %d in a full table, want queued", keys[id], out)
				}
				state[id] = "waiting"
				waiting = append(waiting, id)
			default:
				if out != Rejected {
					fail("key %d got %d in a full table, want refused", keys[id], out)
				}
				state[id] = "refused"
				refused++
			}
			if k.OpenNow() > cfg.Max || k.InUse() != len(holder) || k.Waiting() != len(waiting) {
				fail("%d open, %d held, %d waiting; bookkeeping has %d held, %d waiting", k.OpenNow(), k.InUse(), k.Waiting(), len(holder), len(waiting))
			}
		})
		for range 100 {
			s.At(Time(r.IntN(40))*Second/4, act, 0)
		}
		s.RunUntil(Never)
		if k.Waiting() != 0 || k.InUse() != 0 || k.OpenNow() != 0 {
			fail("drained with %d waiting, %d held, %d open", k.Waiting(), k.InUse(), k.OpenNow())
		}
		if int(k.Granted)+refused+abandoned != int(next) || int(k.Rejected) != refused || k.Opened+k.Reused != k.Granted {
			fail("granted %d (%d opened, %d reused) + refused %d + abandoned %d != offered %d",
				k.Granted, k.Opened, k.Reused, refused, abandoned, next)
		}
	}
}
