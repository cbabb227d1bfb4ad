package sim

// Kind names an event handler registered with [Sim.Handle]. Events carry a
// Kind and one integer argument instead of a closure, so scheduling never
// allocates and the queue holds plain values.
type Kind uint32

// Timer identifies a cancellable event. The zero Timer is never live.
type Timer struct {
	slot int32 // index+1 into Sim.timers; 0 means none
	gen  uint32
}

// event is one scheduled occurrence, 32 bytes so that two fit a cache line.
// Events are ordered by (at, key); key holds the scheduling sequence number
// in its high 48 bits and the handler kind in its low 16, so simultaneous
// events fire in the order they were scheduled and a run never depends on
// heap internals.
type event struct {
	at   Time
	key  uint64
	arg  int64
	slot int32 // timer slot+1, or 0 when the event cannot be cancelled
}

const kindBits = 16

func (e *event) before(o *event) bool {
	return e.at < o.at || (e.at == o.at && e.key < o.key)
}

func (e *event) kind() Kind { return Kind(e.key & (1<<kindBits - 1)) }

// timerSlot tracks one cancellable event while it is queued. A slot on the
// heap knows its position there, so Cancel takes the event out at once and
// memory follows what is still to fire, not everything ever scheduled: a call
// timeout of half an hour that is cancelled after ten milliseconds costs ten
// milliseconds of queue. The price is one test per move in the heap for the
// slot, paid by every event; lazy deletion with periodic compaction would
// avoid that test, but would keep up to as many dead events as live ones and
// pay for them in bursts. An event scheduled for the current instant goes to
// the soon ring, which drains before the clock moves, so a cancelled one
// there is only marked and skipped. The slot is freed when its event leaves
// the queue (fired, removed or skipped), never earlier, so a queued event's
// slot always refers to it; gen tells a stale Timer handle from the slot's
// current occupant.
type timerSlot struct {
	gen       uint32
	pos       int32 // index in Sim.heap, or -1 while in the soon ring
	cancelled bool  // only ever set in the soon ring
}

// Sim is the kernel: a virtual clock and the events still to fire. It is not
// safe for concurrent use; parallel replications each own one Sim.
type Sim struct {
	now     Time
	seq     uint64
	fired   uint64
	stopped bool

	// MaxEvents, when non-zero, stops the run once that many events have
	// fired: the guard against a model whose event count explodes.
	// RunUntil reads it when it starts and at each poll of Interrupted, so
	// a change from a handler may take up to 65,536 events to be seen.
	MaxEvents uint64
	// Interrupted, when set, is asked every 65,536 events whether to stop:
	// how a caller cancels a long run without the kernel knowing of
	// contexts or signals.
	Interrupted func() bool
	// Horizon, when non-zero, is the furthest instant a run reaches:
	// RunUntil stops short of an event due after it, and PastHorizon then
	// says so. Times summed past the clock's range saturate at Never, so
	// such an event may stand for work that never ends, and firing it
	// would end that work as if it had.
	Horizon     Time
	pastHorizon bool

	heap []event // 4-ary min-heap: shallower than binary, fewer cache misses per pop
	// firing: heap[0] is the event whose handler runs now, left in place
	// until the handler's first push onto the heap takes its place (one
	// sift down for the pop and the push, as most handlers schedule a
	// successor) or, if it makes none, removed when the handler returns.
	// It comes before every other event, so the heap stays a heap.
	firing bool
	// soon holds events scheduled for the current instant. They are the
	// commonest kind in a queueing model (a released server hands over to the
	// next waiter) and a ring buffer serves them without touching the heap.
	soon     []event
	soonHead int
	soonLen  int

	handlers []func(arg int64)

	timers    []timerSlot
	timerFree []int32
	deadSoon  int // cancelled timers still in soon
}

// New returns an empty simulation at time 0.
func New() *Sim { return &Sim{} }

// Handle registers fn and returns the Kind that schedules it. Registration
// order must itself be deterministic (it is when done while building a model).
func (s *Sim) Handle(fn func(arg int64)) Kind {
	if len(s.handlers) == 1<<kindBits {
		panic("sim: too many handlers")
	}
	s.handlers = append(s.handlers, fn)
	return Kind(len(s.handlers) - 1)
}

// Now is the current simulated time.
func (s *Sim) Now() Time { return s.now }

// Fired counts the events fired so far (cancelled timers excluded).
func (s *Sim) Fired() uint64 { return s.fired }

// Pending counts events still to fire. A cancelled timer is not counted: it
// has left the queue, or will be skipped without firing.
func (s *Sim) Pending() int {
	n := len(s.heap) + s.soonLen - s.deadSoon
	if s.firing {
		n--
	}
	return n
}

// At schedules kind(arg) at time t. A time in the past is clamped to now:
// the clock never runs backwards. O(log n).
func (s *Sim) At(t Time, k Kind, arg int64) {
	s.push(event{at: t, key: uint64(k), arg: arg})
}

// After schedules kind(arg) d after now.
func (s *Sim) After(d Time, k Kind, arg int64) {
	// The time is known to be now or later, so the event goes straight to
	// where push would send it, without push's clamp and test.
	if d <= 0 {
		s.pushSoon(event{at: s.now, key: uint64(k), arg: arg})
		return
	}
	t := s.now + d
	if t < s.now {
		t = Never // the sum overflowed
	}
	e := event{at: t, key: uint64(k), arg: arg}
	if s.firing {
		s.pushFiring(e)
		return
	}
	s.pushHeap(e)
}

// Timer schedules a cancellable kind(arg) at time t.
func (s *Sim) Timer(t Time, k Kind, arg int64) Timer {
	var slot int32
	if n := len(s.timerFree); n > 0 {
		slot = s.timerFree[n-1]
		s.timerFree = s.timerFree[:n-1]
	} else {
		s.timers = append(s.timers, timerSlot{})
		slot = int32(len(s.timers))
	}
	ts := &s.timers[slot-1]
	ts.cancelled = false
	ts.pos = -1 // push sets it if the event goes to the heap
	s.push(event{at: t, key: uint64(k), arg: arg, slot: slot})
	return Timer{slot: slot, gen: ts.gen}
}

// Cancel stops a timer that has not fired yet and reports whether it did.
// The event leaves the heap at once, O(log n); one due at the current
// instant is skipped when reached instead.
func (s *Sim) Cancel(t Timer) bool {
	// The zero Timer, the commonest (a grant to a request that waits with
	// no timeout), costs a test where it is cancelled, not a call.
	return t.slot != 0 && s.cancel(t)
}

// Reschedule moves timer t to fire kind(arg) at time at instead, and
// returns the timer that now stands for it. The result is Cancel(t) then
// Timer(at, k, arg) to the bit: the event takes a new place among
// simultaneous ones, as one scheduled now would. A timer still on the
// heap is moved where it is, one sift instead of a removal and a push,
// for the models that put off their next event at every change (a
// processor-sharing CPU, at every arrival and departure).
func (s *Sim) Reschedule(t Timer, at Time, k Kind, arg int64) Timer {
	if at < s.now {
		at = s.now
	}
	if t.slot != 0 && at > s.now {
		if ts := &s.timers[t.slot-1]; ts.gen == t.gen && ts.pos >= 0 {
			i := int(ts.pos)
			e := s.heap[i]
			s.seq++
			e.at, e.key, e.arg = at, uint64(k)|s.seq<<kindBits, arg
			if i > 0 && e.before(&s.heap[(i-1)>>2]) {
				s.up(i, e)
			} else {
				s.down(i, e)
			}
			return t
		}
	}
	// Fired, cancelled, in the soon ring, or now due at once (which the
	// soon ring takes): the long way.
	s.Cancel(t)
	return s.Timer(at, k, arg)
}

func (s *Sim) cancel(t Timer) bool {
	ts := &s.timers[t.slot-1]
	if ts.gen != t.gen || ts.cancelled {
		return false
	}
	if ts.pos < 0 {
		ts.cancelled = true
		s.deadSoon++
		return true
	}
	s.removeHeap(int(ts.pos))
	s.retire(t.slot)
	return true
}

// retire frees the slot of an event leaving the queue and reports whether
// the event was cancelled.
func (s *Sim) retire(slot int32) (cancelled bool) {
	ts := &s.timers[slot-1]
	cancelled = ts.cancelled
	if cancelled {
		s.deadSoon--
	}
	ts.gen++
	s.timerFree = append(s.timerFree, slot)
	return cancelled
}

func (s *Sim) push(e event) {
	if e.at <= s.now {
		e.at = s.now
		s.pushSoon(e)
		return
	}
	if s.firing {
		s.pushFiring(e)
		return
	}
	s.pushHeap(e)
}

// pushFiring queues e, due after now, in the place of the firing event.
// It is small enough to be inlined, and push and After test for its case
// themselves: they are inlined where they are called, so the handler's
// successor, the commonest push, reaches the sift with one call, not two.
func (s *Sim) pushFiring(e event) {
	s.seq++
	e.key |= s.seq << kindBits
	s.firing = false
	s.down(0, e)
}

// pushHeap queues e, due after now, on the heap, when no event is firing
// in place (its callers have taken that case to pushFiring).
func (s *Sim) pushHeap(e event) {
	s.seq++
	e.key |= s.seq << kindBits
	s.heap = append(s.heap, e)
	s.up(len(s.heap)-1, e)
}

// up moves e, whose place is free at i, towards the root until its parent
// comes before it. Both sifts move a hole rather than swap, one write per
// level, and tell every timer it passes its new position.
func (s *Sim) up(i int, e event) {
	h := s.heap
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(&h[p]) {
			break
		}
		s.place(h, i, h[p])
		i = p
	}
	s.place(h, i, e)
}

// down moves e, whose place is free at i, away from the root until no
// child comes before it.
func (s *Sim) down(i int, e event) {
	h := s.heap
	for {
		c := 4*i + 1
		var m int
		if c+3 < len(h) {
			// Two pairs, then their winners. A node with all four
			// children is the common case away from the bottom of a large
			// heap, and the slice of four, fixed in length, needs no
			// bounds check per child.
			k := h[c : c+4]
			a := 0
			if k[1].before(&k[0]) {
				a = 1
			}
			b := 2
			if k[3].before(&k[2]) {
				b = 3
			}
			if k[b].before(&k[a]) {
				a = b
			}
			m = c + a
		} else if c < len(h) {
			m = c
			for j := c + 1; j < len(h); j++ {
				if h[j].before(&h[m]) {
					m = j
				}
			}
		} else {
			break
		}
		if !h[m].before(&e) {
			break
		}
		s.place(h, i, h[m])
		i = m
	}
	s.place(h, i, e)
}

// place puts e at i in the heap h (s.heap, which the sifts hold in a
// local) and tells its timer, if it has one, where it now is.
func (s *Sim) place(h []event, i int, e event) {
	h[i] = e
	if e.slot != 0 {
		s.timers[e.slot-1].pos = int32(i)
	}
}

// pushSoon queues e, due now, in the soon ring.
func (s *Sim) pushSoon(e event) {
	s.seq++
	e.key |= s.seq << kindBits
	if s.soonLen == len(s.soon) {
		grown := make([]event, max(16, 2*len(s.soon))) // a power of two, so & masks
		for i := 0; i < s.soonLen; i++ {
			grown[i] = s.soon[(s.soonHead+i)&(len(s.soon)-1)]
		}
		s.soon, s.soonHead = grown, 0
	}
	s.soon[(s.soonHead+s.soonLen)&(len(s.soon)-1)] = e
	s.soonLen++
}

func (s *Sim) popHeap() event {
	h := s.heap
	top := h[0]
	n := len(h) - 1
	s.heap = h[:n]
	if n > 0 {
		s.down(0, h[n])
	}
	return top
}

// removeHeap takes out the event at i, filling its place with the last one.
func (s *Sim) removeHeap(i int) {
	n := len(s.heap) - 1
	last := s.heap[n]
	s.heap = s.heap[:n]
	if i == n {
		return
	}
	if i > 0 && last.before(&s.heap[(i-1)>>2]) {
		s.up(i, last)
	} else {
		s.down(i, last)
	}
}

// next removes the earliest event, or reports false when none is left. An
// event in soon is at the current instant; one on the heap may share that
// instant with a smaller seq, so the two heads are compared.
func (s *Sim) next() (event, bool) {
	if s.soonLen > 0 {
		head := &s.soon[s.soonHead]
		if len(s.heap) == 0 || head.before(&s.heap[0]) {
			e := *head
			s.soonHead = (s.soonHead + 1) & (len(s.soon) - 1)
			s.soonLen--
			return e, true
		}
	}
	if len(s.heap) == 0 {
		return event{}, false
	}
	return s.popHeap(), true
}

// Step fires the earliest live event and reports whether one fired. It
// returns false when the queue is empty or Stop was called.
func (s *Sim) Step() bool {
	for !s.stopped {
		e, ok := s.next()
		if !ok {
			return false
		}
		if e.slot != 0 && s.retire(e.slot) {
			continue // cancelled
		}
		s.now = e.at
		s.fired++
		s.handlers[e.kind()](e.arg)
		if s.fired == s.MaxEvents {
			s.stopped = true
		}
		if s.fired&(1<<16-1) == 0 && s.Interrupted != nil && s.Interrupted() {
			s.stopped = true
		}
		return true
	}
	return false
}

// soonLeads drops the cancelled timers at the head of the soon ring and
// reports whether what is left there comes before the heap's head. It is
// apart from RunUntil's loop, which then keeps the common case, an event
// from the heap, short.
func (s *Sim) soonLeads() bool {
	for s.soonLen > 0 {
		head := &s.soon[s.soonHead]
		if head.slot == 0 || !s.timers[head.slot-1].cancelled {
			return len(s.heap) == 0 || head.before(&s.heap[0])
		}
		s.retire(head.slot)
		s.soonHead = (s.soonHead + 1) & (len(s.soon) - 1)
		s.soonLen--
	}
	return false
}

// RunUntil fires every event up to and including time end, then leaves the
// clock at end (or where Stop left it). It returns false if stopped early,
// by Stop, MaxEvents, Interrupted or an event due past the Horizon.
// Its loop is Step's, with the look at the next event's time folded in:
// the kernel's own cost per event is what this loop and the handler's
// scheduling spend.
func (s *Sim) RunUntil(end Time) bool {
	stop := end
	if s.Horizon > 0 && s.Horizon < stop {
		stop = s.Horizon
	}
	poll := s.nextPoll()
	for !s.stopped {
		// e points at the event in place: its fields are read before the
		// handler runs, and it leaves its ring slot or heap root only then.
		var e *event
		if s.soonLen > 0 && s.soonLeads() {
			e = &s.soon[s.soonHead]
			if e.at > stop {
				break
			}
			s.soonHead = (s.soonHead + 1) & (len(s.soon) - 1)
			s.soonLen--
		} else {
			if len(s.heap) == 0 || s.heap[0].at > stop {
				break // nothing left to fire (RunUntil(Never) on an empty queue)
			}
			e = &s.heap[0]
			s.firing = true
		}
		k, arg := e.kind(), e.arg
		if e.slot != 0 && s.retire(e.slot) {
			panic("sim: a cancelled timer reached the head of the queue") // Cancel takes it out of the heap; soonLeads drops the ring's
		}
		s.now = e.at
		s.fired++
		s.handlers[k](arg)
		if s.firing {
			s.firing = false
			s.popHeap()
		}
		if s.fired == poll {
			if s.fired == s.MaxEvents {
				s.stopped = true
			}
			if s.fired&(1<<16-1) == 0 && s.Interrupted != nil && s.Interrupted() {
				s.stopped = true
			}
			poll = s.nextPoll()
		}
	}
	if s.stopped {
		return false
	}
	if stop < end && s.Pending() > 0 {
		s.stopped, s.pastHorizon = true, true
		return false
	}
	if end > s.now && end != Never {
		s.now = end
	}
	return true
}

// nextPoll is the count of fired events at which RunUntil next looks at
// MaxEvents and Interrupted: one comparison per event instead of two.
func (s *Sim) nextPoll() uint64 {
	next := s.fired | (1<<16 - 1) + 1 // the next multiple of 65,536
	if s.MaxEvents > s.fired && s.MaxEvents < next {
		next = s.MaxEvents
	}
	return next
}

// PastHorizon reports whether RunUntil stopped because the next event was
// due after the Horizon.
func (s *Sim) PastHorizon() bool { return s.pastHorizon }

// Stop makes Step and RunUntil return before the next event; handlers call it
// when a guard trips.
func (s *Sim) Stop() { s.stopped = true }

// Stopped reports whether Stop was called.
func (s *Sim) Stopped() bool { return s.stopped }
