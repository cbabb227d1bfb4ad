package sim

// waiter is an entity queued for a resource since a given time.
type waiter struct {
	id    int32
	since Time
}

// fifo is a growable ring buffer of waiters. Abandoned waiters (timed out)
// are marked dead in place and skipped when they reach the head, so leaving
// the queue never reshuffles it; a waitIndex finds the entry to mark.
//
// Positions are absolute: head counts every entry that ever left the front,
// and the entry at position p lives in buf[p&(len(buf)-1)]. A position so
// stays valid while the ring turns and when it grows: the index changes
// only when an entry joins or leaves.
type fifo struct {
	buf   []waiter // its length is 0 or a power of two
	head  int
	size  int // slots in use, dead ones included
	alive int
	// unindexed counts live entries the index does not point at: an id
	// queued a second time while still queued, here or in another fifo
	// sharing the index. While there are any, remove scans, so that it
	// still withdraws the oldest entry of the id, as the queue order says.
	unindexed int
}

// waitIndex locates, for each waiter id, its live entry in one of the
// fifos of a resource, or holds the zero waitPos when it has none: Abandon then costs O(1) instead of a scan of the queue. It is
// a slice indexed by id, not a map, since ids are small dense integers (the
// model's process slots) and a slice costs neither hashing nor allocation
// once grown. The fifos of a KeyedLock share one, so its size follows the
// ids, not the ids times the keys.
type waitIndex []waitPos

type waitPos struct {
	q   *fifo
	pos int
}

func (q *fifo) Len() int { return q.alive }

// at returns where id waits in q, if ix knows it does.
func (ix waitIndex) at(q *fifo, id int32) (int, bool) {
	if int(id) >= len(ix) {
		return 0, false
	}
	p := ix[id]
	return p.pos, p.q == q
}

func (q *fifo) push(w waiter, ix *waitIndex) {
	if w.id < 0 {
		panic("sim: negative waiter id")
	}
	if int(w.id) >= len(*ix) {
		grown := make(waitIndex, max(int(w.id)+1, 2*len(*ix), 64))
		copy(grown, *ix)
		*ix = grown
	}
	if (*ix)[w.id].q != nil {
		q.unindexed++ // the index keeps pointing at the older entry
	} else {
		(*ix)[w.id] = waitPos{q: q, pos: q.head + q.size}
	}
	if q.size == len(q.buf) {
		grown := make([]waiter, max(8, 2*len(q.buf)))
		for p := q.head; p < q.head+q.size; p++ {
			grown[p&(len(grown)-1)] = q.buf[p&(len(q.buf)-1)]
		}
		q.buf = grown
	}
	q.buf[(q.head+q.size)&(len(q.buf)-1)] = w
	q.size++
	q.alive++
}

// pop removes the oldest live waiter.
func (q *fifo) pop(ix waitIndex) (waiter, bool) {
	for q.size > 0 {
		pos := q.head
		w := q.buf[pos&(len(q.buf)-1)]
		q.head++
		q.size--
		if w.id >= 0 {
			q.alive--
			q.forget(ix, w.id, pos)
			return w, true
		}
	}
	return waiter{}, false
}

// remove marks id's oldest entry dead and reports whether id was queued.
func (q *fifo) remove(id int32, ix waitIndex) (waiter, bool) {
	if id < 0 {
		return waiter{}, false
	}
	pos, ok := ix.at(q, id)
	if q.unindexed > 0 {
		ok = false
		for p := q.head; p < q.head+q.size; p++ {
			if q.buf[p&(len(q.buf)-1)].id == id {
				pos, ok = p, true
				break
			}
		}
	}
	if !ok {
		return waiter{}, false
	}
	w := &q.buf[pos&(len(q.buf)-1)]
	found := *w
	w.id = -1
	q.alive--
	q.forget(ix, id, pos)
	return found, true
}

// forget notes that id's entry at pos has left the queue.
func (q *fifo) forget(ix waitIndex, id int32, pos int) {
	if p := &ix[id]; p.q == q && p.pos == pos {
		*p = waitPos{}
	} else {
		q.unindexed--
	}
}

// removeFirst takes the oldest live waiter for which match holds out of
// the queue, keeping the others in their order.
func (q *fifo) removeFirst(match func(id int32) bool, ix waitIndex) (waiter, bool) {
	for p := q.head; p < q.head+q.size; p++ {
		if w := q.buf[p&(len(q.buf)-1)]; w.id >= 0 && match(w.id) {
			return q.remove(w.id, ix)
		}
	}
	return waiter{}, false
}
