package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refQueue is the obvious queue the indexed fifo must agree with: a slice,
// popped from the front, an abandoned id's oldest entry cut out.
type refQueue []waiter

func (r *refQueue) pop() (waiter, bool) {
	if len(*r) == 0 {
		return waiter{}, false
	}
	w := (*r)[0]
	*r = (*r)[1:]
	return w, true
}

func (r *refQueue) remove(id int32) (waiter, bool) {
	for i, w := range *r {
		if w.id == id {
			*r = slices.Delete(*r, i, i+1)
			return w, true
		}
	}
	return waiter{}, false
}

// Three fifos sharing one index, as a KeyedLock's keys do, driven by random
// pushes, pops and removals over few ids, so that ids are often queued
// twice in one fifo or in two at once: every pop and removal must return
// what the reference queues return, whatever the index says.
func TestFifoMatchesAPlainQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		var ix waitIndex
		qs := make([]fifo, 3)
		refs := make([]refQueue, 3)
		ids := int32(2 + r.IntN(20))
		for step := 0; step < 500; step++ {
			k := r.IntN(len(qs))
			q, ref := &qs[k], &refs[k]
			switch op := r.IntN(10); {
			case op < 4:
				w := waiter{id: r.Int32N(ids), since: Time(step)}
				q.push(w, &ix)
				*ref = append(*ref, w)
			case op < 7:
				got, ok := q.pop(ix)
				want, wantOK := ref.pop()
				if got != want || ok != wantOK {
					t.Fatalf("trial %d step %d: pop = %v %v, want %v %v", trial, step, got, ok, want, wantOK)
				}
			default:
				id := r.Int32N(ids)
				got, ok := q.remove(id, ix)
				want, wantOK := ref.remove(id)
				if got != want || ok != wantOK {
					t.Fatalf("trial %d step %d: remove(%d) = %v %v, want %v %v", trial, step, id, got, ok, want, wantOK)
				}
			}
			if q.Len() != len(*ref) {
				t.Fatalf("trial %d step %d: Len = %d, want %d", trial, step, q.Len(), len(*ref))
			}
		}
	}
}

// With each id queued at most once, as a model's processes are, removal
// goes through the index and never scans: a waiter at the back of a long
// queue is found as fast as one at the front.
func TestFifoRemoveUsesTheIndex(t *testing.T) {
	var ix waitIndex
	var q fifo
	for id := int32(0); id < 1000; id++ {
		q.push(waiter{id: id, since: Time(id)}, &ix)
	}
	if q.unindexed != 0 {
		t.Fatalf("%d unindexed entries with every id queued once", q.unindexed)
	}
	for _, id := range []int32{999, 0, 500} {
		if w, ok := q.remove(id, ix); !ok || w.since != Time(id) {
			t.Fatalf("remove(%d) = %v %v", id, w, ok)
		}
		if _, ok := q.remove(id, ix); ok {
			t.Fatalf("second remove(%d) found it", id)
		}
	}
	if w, ok := q.pop(ix); !ok || w.id != 1 {
		t.Fatalf("pop after removing 0 gave %v %v, want id 1", w, ok)
	}
	if q.Len() != 996 {
		t.Fatalf("Len = %d, want 996", q.Len())
	}
	// An id that left can queue again, at the back.
	q.push(waiter{id: 0, since: 2000}, &ix)
	if w, ok := q.remove(0, ix); !ok || w.since != 2000 {
		t.Fatalf("remove of a re-queued id = %v %v", w, ok)
	}
}
