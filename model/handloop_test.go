package model_test

import (
	"math/rand/v2"
	"testing"
)

// handLoopMMc is the same M/M/c model as the mmc scenario written as the
// smallest event loop that can run it: two event kinds in a binary heap of
// values, a slice-backed FIFO, nothing general. It is the reference
// BenchmarkMMc is read against: their ratio is what capsim's generality
// (named streams, the op interpreter, statistics for every component)
// costs on the same work.
func handLoopMMc(customers int, lambda, mu float64, servers int, seed uint64) (meanWait float64) {
	type ev struct {
		t       float64
		seq     uint64
		arrival bool
	}
	var h []ev
	less := func(a, b *ev) bool { return a.t < b.t || (a.t == b.t && a.seq < b.seq) }
	var seq uint64
	push := func(e ev) {
		seq++
		e.seq = seq
		h = append(h, e)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !less(&h[i], &h[p]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
	}
	pop := func() ev {
		top := h[0]
		n := len(h) - 1
		h[0] = h[n]
		h = h[:n]
		for i := 0; ; {
			c := 2*i + 1
			if c >= n {
				break
			}
			if c+1 < n && less(&h[c+1], &h[c]) {
				c++
			}
			if !less(&h[c], &h[i]) {
				break
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
		return top
	}
	arr := rand.New(rand.NewPCG(seed, 1))
	svc := rand.New(rand.NewPCG(seed, 2))
	var queue []float64
	head, busy, done := 0, 0, 0
	now, waited := 0.0, 0.0
	start := func(arrived float64) {
		waited += now - arrived
		busy++
		push(ev{t: now + svc.ExpFloat64()/mu})
	}
	push(ev{t: arr.ExpFloat64() / lambda, arrival: true})
	for done < customers {
		e := pop()
		now = e.t
		if e.arrival {
			push(ev{t: now + arr.ExpFloat64()/lambda, arrival: true})
			if busy < servers {
				start(now)
			} else {
				queue = append(queue, now)
			}
			continue
		}
		busy--
		done++
		if head < len(queue) {
			start(queue[head])
			head++
			if head > 1024 && head*2 > len(queue) {
				queue = append(queue[:0], queue[head:]...)
				head = 0
			}
		}
	}
	return waited / float64(done)
}

// The hand loop is a fair reference only if it computes the same thing.
func TestHandLoopMatchesErlangC(t *testing.T) {
	const wq = 1.969383 // Erlang C, M/M/4, λ = 3.6, μ = 1
	got := handLoopMMc(400000, 3.6, 1, 4, 1)
	if got < wq*0.95 || got > wq*1.05 {
		t.Fatalf("hand loop Wq = %v, want within 5%% of %v", got, wq)
	}
}

// BenchmarkHandWrittenMMc: 100,000 customers per iteration, as BenchmarkMMc.
func BenchmarkHandWrittenMMc(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		handLoopMMc(100000, 3.6, 1, 4, uint64(i+1))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2e5, "ns/event")
}
