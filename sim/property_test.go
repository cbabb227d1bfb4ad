package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The property tests below drive a primitive with a random sequence of
// requests, releases and abandons, and check it against the simplest
// bookkeeping that could be right: sets of holders and plain slices of
// waiters. Each trial is seeded, so a failure names the trial to replay.

// Pool: in use stays in [0, servers], every grant goes to the oldest live
// waiter, every id granted is released once, and everyone offered is
// granted, rejected, abandoned or still waiting.
func TestPoolProperties(t *testing.T) {
	for trial := 0; trial < 300; trial++ {
		r := rand.New(rand.NewPCG(uint64(trial), 7))
		servers := 1 + r.IntN(4)
		queueCap := Unbounded
		if r.IntN(2) == 0 {
			queueCap = r.IntN(5)
		}
		var holders, waiting []int32
		granted := map[int32]bool{}
		var p *Pool
		p = NewPool(servers, queueCap, func(id int32) {
			if len(waiting) == 0 || waiting[0] != id {
				t.Fatalf("trial %d: granted %d, the oldest waiter is %v", trial, id, waiting)
			}
			waiting = waiting[1:]
			holders = append(holders, id)
		})
		offered, abandoned := 0, 0
		now := Time(0)
		next := int32(0)
		for step := 0; step < 400; step++ {
			now += Time(r.IntN(3)) * Millisecond
			switch op := r.IntN(10); {
			case op < 4:
				id := next
				next++
				offered++
				switch p.Acquire(now, id) {
				case Granted:
					holders = append(holders, id)
				case Queued:
					waiting = append(waiting, id)
				}
			case op < 7 && len(holders) > 0:
				k := r.IntN(len(holders))
				id := holders[k]
				holders = slices.Delete(holders, k, k+1)
				if granted[id] {
					t.Fatalf("trial %d: %d released twice", trial, id)
				}
				granted[id] = true
				p.Release(now)
			case op >= 7:
				// Abandon a waiter, or an id that does not wait.
				id := r.Int32N(next + 1)
				k := slices.Index(waiting, id)
				if got := p.Abandon(now, id); got != (k >= 0) {
					t.Fatalf("trial %d: Abandon(%d) = %v, waiting %v", trial, id, got, waiting)
				}
				if k >= 0 {
					waiting = slices.Delete(waiting, k, k+1)
					abandoned++
				}
			}
			if p.InUse() < 0 || p.InUse() > servers || p.InUse() != len(holders) {
				t.Fatalf("trial %d: %d in use of %d, %d holders", trial, p.InUse(), servers, len(holders))
			}
			if p.Waiting() != len(waiting) || (queueCap != Unbounded && p.Waiting() > queueCap) {
				t.Fatalf("trial %d: %d waiting, want %d (cap %d)", trial, p.Waiting(), len(waiting), queueCap)
			}
			if p.Busy.Value() != float64(p.InUse()) || p.QueueLen.Value() != float64(p.Waiting()) {
				t.Fatalf("trial %d: busy %v, queue %v disagree with %d, %d", trial, p.Busy.Value(), p.QueueLen.Value(), p.InUse(), p.Waiting())
			}
			if int(p.Granted+p.Rejected+p.Abandoned)+p.Waiting() != offered || int(p.Abandoned) != abandoned {
				t.Fatalf("trial %d: granted %d + rejected %d + abandoned %d + waiting %d != offered %d",
					trial, p.Granted, p.Rejected, p.Abandoned, p.Waiting(), offered)
			}
			if len(waiting) > 0 && p.InUse() < servers {
				t.Fatalf("trial %d: %d waiting with a server free", trial, len(waiting))
			}
		}
		for len(holders) > 0 || len(waiting) > 0 {
			id := holders[0]
			holders = holders[1:]
			if granted[id] {
				t.Fatalf("trial %d: %d released twice", trial, id)
			}
			granted[id] = true
			p.Release(now)
		}
		if p.InUse() != 0 || int64(len(granted)) != p.Granted {
			t.Fatalf("trial %d: %d in use after releasing all, %d released of %d granted", trial, p.InUse(), len(granted), p.Granted)
		}
	}
}

// KeyedLock: at most one holder per key, waiters granted in FIFO order per
// key, and everyone offered is granted, abandoned or still waiting.
func TestKeyedLockProperties(t *testing.T) {
	const keys = 4
	for trial := 0; trial < 300; trial++ {
		r := rand.New(rand.NewPCG(uint64(trial), 8))
		holder := map[int64]int32{}
		waiting := make([][]int32, keys)
		var released int
		var grantKey int64
		l := NewKeyedLock(func(id int32) {
			q := waiting[grantKey]
			if len(q) == 0 || q[0] != id {
				t.Fatalf("trial %d: key %d granted to %d, its waiters are %v", trial, grantKey, id, q)
			}
			waiting[grantKey] = q[1:]
			holder[grantKey] = id
		})
		offered, abandoned := 0, 0
		now := Time(0)
		next := int32(0)
		for step := 0; step < 400; step++ {
			now += Time(r.IntN(3)) * Millisecond
			key := int64(r.IntN(keys))
			switch op := r.IntN(10); {
			case op < 4:
				id := next
				next++
				offered++
				_, held := holder[key]
				out := l.Acquire(now, key, id)
				if held != (out == Queued) || out == Rejected {
					t.Fatalf("trial %d: Acquire of key %d (held %v) = %v", trial, key, held, out)
				}
				if out == Granted {
					holder[key] = id
				} else {
					waiting[key] = append(waiting[key], id)
				}
			case op < 7:
				if _, held := holder[key]; !held {
					continue
				}
				delete(holder, key)
				released++
				grantKey = key
				l.Release(now, key)
			default:
				id := r.Int32N(next + 1)
				k := slices.Index(waiting[key], id)
				if got := l.Abandon(now, key, id); got != (k >= 0) {
					t.Fatalf("trial %d: Abandon(key %d, %d) = %v, waiting %v", trial, key, id, got, waiting[key])
				}
				if k >= 0 {
					waiting[key] = slices.Delete(waiting[key], k, k+1)
					abandoned++
				}
			}
			queued := 0
			for k := range waiting {
				queued += len(waiting[k])
				if _, held := holder[int64(k)]; len(waiting[k]) > 0 && !held {
					t.Fatalf("trial %d: key %d free with %d waiting", trial, k, len(waiting[k]))
				}
			}
			if l.Held.Value() != float64(len(holder)) || l.Waiting.Value() != float64(queued) {
				t.Fatalf("trial %d: held %v, waiting %v; want %d, %d", trial, l.Held.Value(), l.Waiting.Value(), len(holder), queued)
			}
			if int(l.Granted+l.Abandoned)+queued != offered || int(l.Abandoned) != abandoned {
				t.Fatalf("trial %d: granted %d + abandoned %d + waiting %d != offered %d", trial, l.Granted, l.Abandoned, queued, offered)
			}
			if int(l.Granted) != released+len(holder) {
				t.Fatalf("trial %d: granted %d, released %d, holding %d", trial, l.Granted, released, len(holder))
			}
		}
	}
}

// WorkerPool on a running Sim: an instance runs one job at a time, a job is
// granted at most once and never after it was abandoned, no more instances
// run than Max, and once everything has drained every job offered was
// granted, rejected or abandoned, with only the Min instances left running.
func TestWorkerPoolProperties(t *testing.T) {
	for trial := 0; trial < 200; trial++ {
		r := rand.New(rand.NewPCG(uint64(trial), 9))
		cfg := WorkerConfig{
			Max:       1 + r.IntN(3),
			ColdStart: Constant(float64(r.IntN(4))),
			WarmStart: Constant(float64(r.IntN(2)) / 2),
			IdleStop:  Time(r.IntN(3)) * Second,
			QueueCap:  Unbounded,
		}
		cfg.Min = r.IntN(cfg.Max + 1)
		if r.IntN(2) == 0 {
			cfg.QueueCap = r.IntN(4)
		}
		s := New()
		running := map[int32]int32{} // instance → job
		state := map[int32]string{}  // job → waiting, running, done, abandoned
		var w *WorkerPool
		release := s.Handle(func(inst int64) {
			i := int32(inst)
			state[running[i]] = "done"
			delete(running, i)
			w.Release(s.Now(), i)
		})
		w = NewWorkerPool(s, cfg, rand.New(rand.NewPCG(1, 1)), func(id, inst int32) {
			if st := state[id]; st != "waiting" {
				t.Fatalf("trial %d: job %d granted while %s", trial, id, st)
			}
			if j, busy := running[inst]; busy {
				t.Fatalf("trial %d: job %d granted instance %d, which runs %d", trial, id, inst, j)
			}
			state[id] = "running"
			running[inst] = id
			s.After(Time(r.IntN(3))*Second, release, int64(inst))
		})
		next := int32(0)
		rejected, abandoned := 0, 0
		act := s.Handle(func(int64) {
			now := s.Now()
			if r.IntN(3) > 0 {
				id := next
				next++
				state[id] = "waiting"
				if w.Submit(now, id) == Rejected {
					state[id] = "rejected"
					rejected++
				}
			} else if next > 0 {
				id := r.Int32N(next)
				ok := w.Abandon(now, id)
				if ok != (state[id] == "waiting") {
					t.Fatalf("trial %d: Abandon(%d) = %v while %s", trial, id, ok, state[id])
				}
				if ok {
					state[id] = "abandoned"
					abandoned++
				}
			}
			if w.Running.Value() > float64(cfg.Max) || w.Busy.Value() > w.Running.Value() || len(running) > cfg.Max {
				t.Fatalf("trial %d: running %v, busy %v, %d jobs on %d instances",
					trial, w.Running.Value(), w.Busy.Value(), len(running), cfg.Max)
			}
			if cfg.QueueCap != Unbounded && w.Waiting() > cfg.QueueCap {
				t.Fatalf("trial %d: %d queued, cap %d", trial, w.Waiting(), cfg.QueueCap)
			}
		})
		for k := 0; k < 100; k++ {
			s.At(Time(r.IntN(60_000))*Millisecond, act, 0)
		}
		s.RunUntil(Never)
		if w.Waiting() != 0 || w.Busy.Value() != 0 || len(running) != 0 {
			t.Fatalf("trial %d: drained with %d waiting, busy %v, %d running", trial, w.Waiting(), w.Busy.Value(), len(running))
		}
		if int(w.Granted)+rejected+abandoned != int(next) || int(w.Rejected) != rejected {
			t.Fatalf("trial %d: granted %d + rejected %d + abandoned %d != offered %d", trial, w.Granted, rejected, abandoned, next)
		}
		// Without an idle stop, an instance once started stays up.
		wantRunning := cfg.Min
		if cfg.IdleStop == 0 {
			wantRunning += int(w.ColdStarts)
		}
		if w.Running.Value() != float64(wantRunning) {
			t.Fatalf("trial %d: %v instances running after draining, want %d", trial, w.Running.Value(), wantRunning)
		}
	}
}

// Sim against a brute-force queue: handlers schedule plain events and
// timers (some at the current instant), and cancel timers still pending,
// at random. Every event fired must be the smallest (time, schedule order)
// of those live, so time never decreases, ties fire in schedule order, a
// cancelled timer never fires, and Pending counts exactly the live ones.
func TestSimMatchesABruteForceQueue(t *testing.T) {
	type ev struct {
		at    Time
		seq   int64
		timer Timer
	}
	for trial := 0; trial < 200; trial++ {
		r := rand.New(rand.NewPCG(uint64(trial), 10))
		s := New()
		live := map[int64]ev{}
		var timers []int64 // seqs of live timers
		seq := int64(0)
		var k Kind
		schedule := func() {
			seq++
			// Few distinct offsets make ties; many make a deep heap.
			at := s.Now() + Time(r.IntN(4))*Millisecond
			if r.IntN(2) == 0 {
				at = s.Now() + Time(r.IntN(1_000_000))*Nanosecond
			}
			e := ev{at: at, seq: seq}
			if r.IntN(2) == 0 {
				e.timer = s.Timer(at, k, seq)
				timers = append(timers, seq)
			} else {
				s.At(at, k, seq)
			}
			live[seq] = e
		}
		cancel := func() {
			if len(timers) == 0 {
				return
			}
			j := r.IntN(len(timers))
			id := timers[j]
			timers = slices.Delete(timers, j, j+1)
			e, ok := live[id]
			if got := s.Cancel(e.timer); got != ok {
				t.Fatalf("trial %d: Cancel of timer %d = %v, live %v", trial, id, got, ok)
			}
			delete(live, id)
		}
		fired := 0
		last := Time(0)
		k = s.Handle(func(id int64) {
			e, ok := live[id]
			if !ok {
				t.Fatalf("trial %d: event %d fired, but it was cancelled or fired before", trial, id)
			}
			for _, o := range live {
				if o.at < e.at || o.at == e.at && o.seq < e.seq {
					t.Fatalf("trial %d: %d (at %v) fired before %d (at %v)", trial, id, e.at, o.seq, o.at)
				}
			}
			if s.Now() != e.at || s.Now() < last {
				t.Fatalf("trial %d: %d fired at %v, due %v, last %v", trial, id, s.Now(), e.at, last)
			}
			last = s.Now()
			delete(live, id)
			fired++
			for n := r.IntN(3); n > 0 && seq < 3000; n-- {
				schedule()
			}
			if r.IntN(3) == 0 {
				cancel()
			}
		})
		for i := 0; i < 300; i++ {
			schedule()
		}
		for i := 0; i < 10; i++ {
			cancel()
		}
		for s.Pending() > 0 {
			if s.Pending() != len(live) {
				t.Fatalf("trial %d: Pending %d, %d live", trial, s.Pending(), len(live))
			}
			if !s.Step() {
				t.Fatalf("trial %d: Step returned false with %d pending", trial, s.Pending())
			}
		}
		if len(live) != 0 || s.Step() || uint64(fired) != s.Fired() {
			t.Fatalf("trial %d: %d live after the run, fired %d, Fired %d", trial, len(live), fired, s.Fired())
		}
	}
}

// Reschedule is Cancel then Timer to the bit: two kernels driven by the
// same random schedule, one moving its timers with Reschedule and the
// other cancelling and scheduling them anew, fire the same events at the
// same instants in the same order, whether the timer is on the heap, due
// now, in the soon ring, already fired or cancelled, and from inside the
// handler of the event being fired.
func TestRescheduleIsCancelThenTimer(t *testing.T) {
	type fired struct {
		id int64
		at Time
	}
	for trial := 0; trial < 200; trial++ {
		run := func(moveInPlace bool) []fired {
			r := rand.New(rand.NewPCG(uint64(trial), 11))
			s := New()
			var timers []Timer
			var out []fired
			var k Kind
			id := int64(0)
			later := func() Time {
				switch r.IntN(4) {
				case 0:
					return s.Now() // due now: the soon ring
				case 1:
					return s.Now() + Time(r.IntN(3))*Millisecond // ties
				}
				return s.Now() + Time(r.IntN(1_000_000))*Nanosecond
			}
			move := func() {
				if len(timers) == 0 {
					return
				}
				j := r.IntN(len(timers))
				id++
				at := later()
				if moveInPlace {
					timers[j] = s.Reschedule(timers[j], at, k, id)
				} else {
					s.Cancel(timers[j])
					timers[j] = s.Timer(at, k, id)
				}
			}
			k = s.Handle(func(got int64) {
				out = append(out, fired{got, s.Now()})
				for n := r.IntN(3); n > 0 && id < 4000; n-- {
					switch r.IntN(4) {
					case 0:
						id++
						timers = append(timers, s.Timer(later(), k, id))
					case 1:
						id++
						s.At(later(), k, id)
					case 2:
						if len(timers) > 0 {
							s.Cancel(timers[r.IntN(len(timers))])
						}
					default:
						move() // fired, cancelled and live timers alike
					}
				}
			})
			for range 200 {
				id++
				timers = append(timers, s.Timer(later(), k, id))
			}
			for range 50 {
				move()
			}
			s.RunUntil(Never)
			return out
		}
		want, got := run(false), run(true)
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d events fired with Reschedule, %d with Cancel and Timer", trial, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("trial %d: event %d is %+v with Reschedule, %+v with Cancel and Timer", trial, i, got[i], want[i])
			}
		}
	}
}
