package sweep

import (
	"math"
	"strconv"
)

// Rank is a design's place among the sweep's designs by first failure,
// best first. A design is behind another only when the other's interval
// lies wholly above its own (the other's low end above its high end, a
// design that held counting as failing above the range); N is 1 plus the
// number of designs surely ahead of it. Shared says another design has
// the same N: the intervals do not order them.
type Rank struct {
	N      int
	Shared bool
}

// String is the rank as printed: "1", or "=2" when shared.
func (r Rank) String() string {
	s := strconv.Itoa(r.N)
	if r.Shared {
		return "=" + s
	}
	return s
}

// span is the interval a first failure could lie in: an end no
// multiplier settles is infinite; a design that held lies above the
// highest multiplier tried.
func (ff FirstFailure) span(top float64) (lo, hi float64) {
	if !ff.Found {
		return top, math.Inf(1)
	}
	lo, hi = ff.Lo, ff.Hi
	if math.IsNaN(lo) {
		lo = math.Inf(-1)
	}
	if math.IsNaN(hi) {
		hi = math.Inf(1)
	}
	return lo, hi
}

// Ranks ranks every design, in design order.
func (r *Result) Ranks() []Rank {
	top := math.Inf(1)
	if len(r.Multipliers) > 0 {
		top = r.Multipliers[len(r.Multipliers)-1]
	}
	out := make([]Rank, len(r.FirstFailures))
	for i, a := range r.FirstFailures {
		_, ahi := a.span(top)
		out[i].N = 1
		for j, b := range r.FirstFailures {
			blo, _ := b.span(top)
			if j != i && blo > ahi {
				out[i].N++
			}
		}
	}
	for i := range out {
		for j := range out {
			if i != j && out[i].N == out[j].N {
				out[i].Shared = true
			}
		}
	}
	return out
}
