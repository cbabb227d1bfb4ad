package sim

// waiter is an entity queued for a resource since a given time.
type waiter struct {
	id    int32
	since Time
}

// fifo is a growable ring buffer of waiters. Abandoned waiters (timed out)
// are marked dead in place and skipped when they reach the head, so leaving
// the queue costs a scan but never a reshuffle.
type fifo struct {
	buf   []waiter
	head  int
	size  int // slots in use, dead ones included
	alive int
}

func (q *fifo) Len() int { return q.alive }

func (q *fifo) push(w waiter) {
	if q.size == len(q.buf) {
		grown := make([]waiter, max(8, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = w
	q.size++
	q.alive++
}

// pop removes the oldest live waiter.
func (q *fifo) pop() (waiter, bool) {
	for q.size > 0 {
		w := q.buf[q.head]
		q.head = (q.head + 1) % len(q.buf)
		q.size--
		if w.id >= 0 {
			q.alive--
			return w, true
		}
	}
	return waiter{}, false
}

// remove marks id dead and reports whether it was queued.
func (q *fifo) remove(id int32) (waiter, bool) {
	for i := 0; i < q.size; i++ {
		w := &q.buf[(q.head+i)%len(q.buf)]
		if w.id == id {
			found := *w
			w.id = -1
			q.alive--
			return found, true
		}
	}
	return waiter{}, false
}
