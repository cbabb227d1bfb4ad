package sim

import (
	"math/rand/v2"
	"unsafe"
)

// KeyedSlotsConfig describes a bounded table of slots that each belong to
// the key that opened them, serve one holder at a time, and stay open for
// their key for a while after being released.
type KeyedSlotsConfig struct {
	Max  int  // slots open at most, idle ones included
	Open Dist // time to open a new slot, paid by the holder that opens it
	// IdleClose is how long a released slot stays open for its key; 0
	// closes it at release.
	IdleClose Time
	// Wait queues a requester that finds the table full (FIFO) instead of
	// refusing it; it is granted a slot of its key as soon as one is
	// released, or else the next slot that closes.
	Wait bool
}

type slotState uint8

const (
	slotClosed slotState = iota
	slotHeld
	slotIdle
)

type keyedSlot struct {
	state slotState
	key   int64
	ready Time // when its opening ends: released earlier, it closes
	// prev and next link the key's idle slots, most recently released
	// first; -1 ends the list.
	prev, next int32
	timer      Timer
}

// KeyedSlots is a table of at most Max open slots, such as a server's
// client connections kept alive between requests or an HTTP client's
// connections to a host. A requester names a key (the client it acts for):
// it takes one of the key's idle slots if there is one, else opens a new
// slot if fewer than Max are open, paying Open, else is refused or waits.
// A released slot stays idle for its key for IdleClose, then closes. Idle
// slots count against Max: a table can fill with slots nobody uses while
// few are held. Like WorkerPool it schedules its own events (the idle
// closes), so it holds the Sim; the caller schedules wait timeouts.
type KeyedSlots struct {
	s     *Sim
	cfg   KeyedSlotsConfig
	rng   *rand.Rand
	slots []keyedSlot
	free  []int32         // closed slots, the one to open next last (slot 0 first in a new table)
	idle  map[int64]int32 // key → its most recently released idle slot; lookup only, never iterated
	open  int
	held  int
	queue fifo
	index waitIndex
	keyOf func(id int32) int64
	grant func(id, slot int32, open Time)

	kClose Kind

	Open      TimeWeighted // slots open, idle or held
	Held      TimeWeighted // slots held
	QueueLen  TimeWeighted
	Wait      Tally // seconds from request to grant, for everyone granted
	Opened    int64 // new slots opened
	Reused    int64 // grants of a key's idle slot
	Granted   int64
	Delayed   int64 // granted only after waiting
	Rejected  int64
	Abandoned int64
}

// Bytes is what NewKeyedSlots sets aside for cfg before anything runs: a
// slot and a free-list entry per connection that may be open.
func (cfg KeyedSlotsConfig) Bytes() float64 {
	return float64(cfg.Max) * float64(unsafe.Sizeof(keyedSlot{})+unsafe.Sizeof(int32(0)))
}

// NewKeyedSlots builds an empty table on s; rng draws opening times. A
// waiter granted a slot is reported to grant with the slot and the opening
// time it must pay before using it; keyOf names the key of a waiter, which
// the table does not store (the requester's owner already does).
func NewKeyedSlots(s *Sim, cfg KeyedSlotsConfig, rng *rand.Rand, keyOf func(id int32) int64, grant func(id, slot int32, open Time)) *KeyedSlots {
	t := &KeyedSlots{s: s, cfg: cfg, rng: rng, slots: make([]keyedSlot, cfg.Max), free: make([]int32, cfg.Max),
		idle: map[int64]int32{}, keyOf: keyOf, grant: grant}
	for i := range t.free {
		t.free[i] = int32(cfg.Max - 1 - i)
	}
	t.kClose = s.Handle(t.onIdleClose)
	return t
}

// Max is the most slots open at once.
func (t *KeyedSlots) Max() int { return t.cfg.Max }

// InUse is the number of held slots.
func (t *KeyedSlots) InUse() int { return t.held }

// OpenNow is the number of open slots, idle or held.
func (t *KeyedSlots) OpenNow() int { return t.open }

// Waiting is the number of queued requesters.
func (t *KeyedSlots) Waiting() int { return t.queue.Len() }

// Acquire asks for a slot of key on behalf of id, which must not be
// negative. Granted comes with the
// slot, held from now, and the opening time the requester pays before
// using it (0 for a reused slot). Queued means a grant callback follows.
func (t *KeyedSlots) Acquire(now Time, key int64, id int32) (Outcome, int32, Time) {
	if i, ok := t.idle[key]; ok {
		t.unlinkIdle(i)
		t.s.Cancel(t.slots[i].timer)
		t.slots[i].state = slotHeld
		t.hold(now)
		t.Reused++
		t.Granted++
		t.Wait.Add(0)
		return Granted, i, 0
	}
	if t.open < t.cfg.Max {
		i, d := t.openSlot(now, key)
		t.Granted++
		t.Wait.Add(0)
		return Granted, i, d
	}
	if !t.cfg.Wait {
		t.Rejected++
		return Rejected, -1, 0
	}
	t.queue.push(waiter{id: id, since: now}, &t.index)
	t.QueueLen.Set(now, float64(t.queue.Len()))
	return Queued, -1, 0
}

func (t *KeyedSlots) hold(now Time) {
	t.held++
	t.Held.Set(now, float64(t.held))
}

// openSlot opens a free slot for key, held from now, and returns it with
// its opening time.
func (t *KeyedSlots) openSlot(now Time, key int64) (int32, Time) {
	i := t.free[len(t.free)-1]
	t.free = t.free[:len(t.free)-1]
	d := Seconds(t.cfg.Open.Sample(t.rng))
	if d < 0 {
		d = 0
	}
	t.slots[i] = keyedSlot{state: slotHeld, key: key, ready: now + d, prev: -1, next: -1}
	t.open++
	t.Open.Set(now, float64(t.open))
	t.hold(now)
	t.Opened++
	return i, d
}

// Release gives back held slot i: it stays idle for its key for
// IdleClose. A slot released before its opening ended (its holder gave up
// while opening it) closes at once, as does every slot without IdleClose.
func (t *KeyedSlots) Release(now Time, i int32) {
	sl := &t.slots[i]
	if sl.state != slotHeld {
		panic("sim: KeyedSlots.Release of a slot not held")
	}
	t.held--
	t.Held.Set(now, float64(t.held))
	if t.cfg.IdleClose <= 0 || now < sl.ready {
		t.close(now, i)
		return
	}
	if t.handOver(now, i) {
		return
	}
	sl.state = slotIdle
	sl.prev, sl.next = -1, -1
	if h, ok := t.idle[sl.key]; ok {
		sl.next = h
		t.slots[h].prev = i
	}
	t.idle[sl.key] = i
	sl.timer = t.s.Timer(now+t.cfg.IdleClose, t.kClose, int64(i))
}

// handOver gives released slot i, still open, to the oldest requester
// queued for its key, and reports whether there was one. A client's pool
// to one host hands a connection it keeps alive to the next call waiting
// for that host; left idle, the next call to arrive would take it ahead
// of those waiting, and they would wait for a slot to close. Requesters
// of other keys still wait for a slot to close: the slot is not theirs.
func (t *KeyedSlots) handOver(now Time, i int32) bool {
	if t.queue.Len() == 0 {
		return false
	}
	key := t.slots[i].key
	w, ok := t.queue.removeFirst(func(id int32) bool { return t.keyOf(id) == key }, t.index)
	if !ok {
		return false
	}
	t.QueueLen.Set(now, float64(t.queue.Len()))
	t.hold(now)
	t.Reused++
	t.Granted++
	t.Delayed++
	t.Wait.Add((now - w.since).Seconds())
	t.grant(w.id, i, 0)
	return true
}

func (t *KeyedSlots) onIdleClose(arg int64) {
	i := int32(arg)
	if t.slots[i].state != slotIdle {
		return
	}
	t.unlinkIdle(i)
	t.close(t.s.Now(), i)
}

// unlinkIdle takes idle slot i out of its key's list.
func (t *KeyedSlots) unlinkIdle(i int32) {
	sl := &t.slots[i]
	switch {
	case sl.prev >= 0:
		t.slots[sl.prev].next = sl.next
	case sl.next >= 0:
		t.idle[sl.key] = sl.next
	default:
		delete(t.idle, sl.key)
	}
	if sl.next >= 0 {
		t.slots[sl.next].prev = sl.prev
	}
	sl.prev, sl.next = -1, -1
}

// close closes slot i, and opens the freed room for the oldest waiter.
func (t *KeyedSlots) close(now Time, i int32) {
	t.slots[i].state = slotClosed
	t.free = append(t.free, i)
	t.open--
	t.Open.Set(now, float64(t.open))
	w, ok := t.queue.pop(t.index)
	if !ok {
		return
	}
	t.QueueLen.Set(now, float64(t.queue.Len()))
	j, d := t.openSlot(now, t.keyOf(w.id))
	t.Granted++
	t.Delayed++
	t.Wait.Add((now - w.since).Seconds())
	t.grant(w.id, j, d)
}

// Abandon withdraws queued requester id (its wait timed out) and reports
// whether it was still waiting.
func (t *KeyedSlots) Abandon(now Time, id int32) bool {
	if _, ok := t.queue.remove(id, t.index); !ok {
		return false
	}
	t.QueueLen.Set(now, float64(t.queue.Len()))
	t.Abandoned++
	return true
}

// ResetStats starts the statistics afresh at now, keeping the current state.
func (t *KeyedSlots) ResetStats(now Time) {
	t.Open.Reset(now)
	t.Held.Reset(now)
	t.QueueLen.Reset(now)
	t.Wait.Reset()
	t.Opened, t.Reused, t.Granted, t.Delayed, t.Rejected, t.Abandoned = 0, 0, 0, 0, 0, 0
}
