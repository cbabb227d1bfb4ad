package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func draws(d Dist, n int) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.Sample(r)
	}
	return xs
}

func tallyOf(xs []float64) *Tally {
	var t Tally
	for _, x := range xs {
		t.Add(x)
	}
	return &t
}

// quantileGrid covers the body and both tails, where buckets are sparse.
func quantileGrid() []float64 {
	ps := []float64{0, 1e-5, 1e-4, 1e-3, 0.999, 0.9999, 0.99999, 1}
	for i := 1; i < 200; i++ {
		ps = append(ps, float64(i)/200)
	}
	return ps
}

// The relative error bound is a property of the bucket layout, not a
// statistical one: each estimate must be within it of the exact order
// statistic, for every p, at every scale.
func TestTallyQuantileWithinRelativeBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		dist Dist
	}{
		{"exponential mean 1", mustDist(Exponential(1))},
		{"exponential mean 1µs", mustDist(Exponential(1e-6))},
		{"exponential mean 1h", mustDist(Exponential(3600))},
		{"lognormal spanning decades", mustDist(LogNormal(-3, 2.5))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := draws(tc.dist, 100000)
			tally := tallyOf(xs)
			slices.Sort(xs)
			worst := 0.0
			for _, p := range quantileGrid() {
				exact := stat.Quantile(p, stat.Empirical, xs, nil)
				got := tally.Quantile(p)
				rel := math.Abs(got-exact) / exact
				worst = max(worst, rel)
				if rel > TallyRelativeError {
					t.Errorf("Quantile(%g) = %.9g, exact %.9g: relative error %.3g > %.3g",
						p, got, exact, rel, TallyRelativeError)
				}
			}
			// The bound should also be nearly attained, or it is not the
			// bound of this layout.
			if worst < TallyRelativeError/4 {
				t.Errorf("worst relative error %.3g, suspiciously far below the bound %.3g", worst, TallyRelativeError)
			}
			if tally.Quantile(0) != xs[0] || tally.Quantile(1) != xs[len(xs)-1] {
				t.Errorf("Quantile(0), Quantile(1) = %g, %g, want the exact extremes %g, %g",
					tally.Quantile(0), tally.Quantile(1), xs[0], xs[len(xs)-1])
			}
		})
	}
	if TallyRelativeError > 0.01 {
		t.Errorf("TallyRelativeError = %g, documented as under 1%%", TallyRelativeError)
	}
}

func TestTallyMomentsMatchTwoPass(t *testing.T) {
	// Welford's update and gonum's two-pass formula round differently; with
	// 1e5 values they agree to ~1e-13 relative. The offset case would lose
	// all digits of the sd to cancellation in a naive sum-of-squares.
	for _, tc := range []struct {
		name   string
		offset float64
		tol    float64
	}{{"plain", 0, 1e-12}, {"offset 1e6", 1e6, 1e-8}} {
		xs := draws(mustDist(Exponential(1.5)), 100000)
		for i := range xs {
			xs[i] += tc.offset
		}
		tally := tallyOf(xs)
		mean, sd := stat.MeanStdDev(xs, nil)
		var sum float64
		for _, x := range xs {
			sum += x
		}
		if tally.N() != int64(len(xs)) {
			t.Errorf("%s: N = %d, want %d", tc.name, tally.N(), len(xs))
		}
		if !closeRel(tally.Mean(), mean, 1e-12) {
			t.Errorf("%s: Mean = %.15g, want %.15g", tc.name, tally.Mean(), mean)
		}
		if !closeRel(tally.StdDev(), sd, tc.tol) {
			t.Errorf("%s: StdDev = %.15g, want %.15g", tc.name, tally.StdDev(), sd)
		}
		if tally.Sum() != sum {
			t.Errorf("%s: Sum = %.15g, want %.15g", tc.name, tally.Sum(), sum)
		}
		if tally.Min() != slices.Min(xs) || tally.Max() != slices.Max(xs) {
			t.Errorf("%s: Min, Max = %g, %g, want %g, %g", tc.name, tally.Min(), tally.Max(), slices.Min(xs), slices.Max(xs))
		}
	}
}

func TestTallyMergeEqualsAddingAll(t *testing.T) {
	xs := draws(mustDist(LogNormal(0, 2)), 30000)
	for i := 0; i < len(xs); i += 7 {
		xs[i] = 0 // exercise the zero bucket
	}
	all := tallyOf(xs)
	// An empty part must merge as a no-op, and into an empty receiver.
	parts := []*Tally{tallyOf(xs[:10000]), {}, tallyOf(xs[10000:20000]), tallyOf(xs[20000:])}
	var merged Tally
	for _, p := range parts {
		merged.Merge(p)
	}
	if merged.N() != all.N() || merged.Min() != all.Min() || merged.Max() != all.Max() {
		t.Errorf("merged N, Min, Max = %d, %g, %g, want %d, %g, %g",
			merged.N(), merged.Min(), merged.Max(), all.N(), all.Min(), all.Max())
	}
	// Pairwise combination rounds differently from one long Welford pass.
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"Mean", merged.Mean(), all.Mean()}, {"StdDev", merged.StdDev(), all.StdDev()}, {"Sum", merged.Sum(), all.Sum()}} {
		if !closeRel(c.got, c.want, 1e-12) {
			t.Errorf("merged %s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	// Bucket counts add exactly, so quantiles are identical, not just close.
	for _, p := range quantileGrid() {
		if merged.Quantile(p) != all.Quantile(p) {
			t.Errorf("merged Quantile(%g) = %g, want %g", p, merged.Quantile(p), all.Quantile(p))
		}
	}

	// Disjoint value ranges force the receiver to widen its bucket window.
	high := tallyOf([]float64{1e6, 2e6})
	low := tallyOf([]float64{1e-6, 2e-6, 3e-6})
	high.Merge(low)
	if high.N() != 5 || high.Quantile(0.5) != tallyOf([]float64{1e-6, 2e-6, 3e-6, 1e6, 2e6}).Quantile(0.5) {
		t.Errorf("merging a lower range: N = %d, median %g", high.N(), high.Quantile(0.5))
	}
}

func TestTallyMergeWithItselfDoubles(t *testing.T) {
	xs := draws(mustDist(Exponential(2)), 1000)
	tally := tallyOf(xs)
	twice := tallyOf(append(slices.Clone(xs), xs...))
	tally.Merge(tally)
	if tally.N() != 2000 || !closeRel(tally.Mean(), twice.Mean(), 1e-12) || !closeRel(tally.StdDev(), twice.StdDev(), 1e-12) {
		t.Errorf("self-merge: N %d mean %g sd %g, want %d %g %g",
			tally.N(), tally.Mean(), tally.StdDev(), twice.N(), twice.Mean(), twice.StdDev())
	}
	for _, p := range quantileGrid() {
		if tally.Quantile(p) != twice.Quantile(p) {
			t.Errorf("self-merge Quantile(%g) = %g, want %g", p, tally.Quantile(p), twice.Quantile(p))
		}
	}
}

func TestTallyZerosAreExact(t *testing.T) {
	var tally Tally
	for range 30 {
		tally.Add(0)
	}
	for _, x := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		tally.Add(x)
	}
	// 30 of 40 observations are 0: every quantile up to 0.75 is 0.
	for _, p := range []float64{0, 0.5, 0.75} {
		if q := tally.Quantile(p); q != 0 {
			t.Errorf("Quantile(%g) = %g, want 0", p, q)
		}
	}
	// Ranks 30.4 and 32 select the 31st and 32nd smallest: 1 and 2.
	for _, tc := range []struct{ p, want float64 }{{0.76, 1}, {0.8, 2}} {
		if q := tally.Quantile(tc.p); math.Abs(q-tc.want)/tc.want > TallyRelativeError {
			t.Errorf("Quantile(%g) = %g, want %g", tc.p, q, tc.want)
		}
	}
	if tally.Min() != 0 || !closeRel(tally.Mean(), 55.0/40, 1e-15) {
		t.Errorf("Min %g, Mean %g", tally.Min(), tally.Mean())
	}
}

func TestTallyEmptyAndSingle(t *testing.T) {
	var tally Tally
	for name, v := range map[string]float64{
		"Mean": tally.Mean(), "StdDev": tally.StdDev(), "Min": tally.Min(), "Max": tally.Max(), "Quantile": tally.Quantile(0.5),
	} {
		if !math.IsNaN(v) {
			t.Errorf("empty %s = %g, want NaN", name, v)
		}
	}
	if tally.N() != 0 || tally.Sum() != 0 {
		t.Errorf("empty N %d, Sum %g", tally.N(), tally.Sum())
	}
	tally.Add(0.123)
	if tally.StdDev() != 0 || tally.Quantile(0.5) != 0.123 || tally.Mean() != 0.123 {
		t.Errorf("single observation: sd %g, median %g, mean %g", tally.StdDev(), tally.Quantile(0.5), tally.Mean())
	}
	if q := tally.Quantile(1.5); !math.IsNaN(q) {
		t.Errorf("Quantile(1.5) = %g, want NaN", q)
	}
}

func TestTallyReset(t *testing.T) {
	tally := tallyOf(draws(mustDist(Exponential(1)), 1000))
	tally.Reset()
	if tally.N() != 0 || tally.Sum() != 0 || !math.IsNaN(tally.Mean()) {
		t.Errorf("after Reset: N %d, Sum %g, Mean %g", tally.N(), tally.Sum(), tally.Mean())
	}
	tally.Add(5)
	tally.Add(7)
	if tally.Min() != 5 || tally.Max() != 7 || tally.Mean() != 6 || tally.Quantile(1) != 7 {
		t.Errorf("after Reset and two adds: min %g max %g mean %g", tally.Min(), tally.Max(), tally.Mean())
	}
	if q := tally.Quantile(0.5); q != 5 {
		t.Errorf("median of {5, 7} = %g, want 5 (the first order statistic)", q)
	}
}

func TestTallyAddDoesNotAllocateAfterWarmUp(t *testing.T) {
	xs := draws(mustDist(LogNormal(0, 1.5)), 10000)
	var tally Tally
	for _, x := range xs[:100] {
		tally.Add(x)
	}
	tally.Add(slices.Min(xs))
	tally.Add(slices.Max(xs))
	i := 0
	allocs := testing.AllocsPerRun(len(xs)-1, func() {
		tally.Add(xs[i])
		i++
	})
	if allocs != 0 {
		t.Errorf("%g allocations per Add after warm-up, want 0", allocs)
	}
	tally.Reset()
	i = 0
	if allocs := testing.AllocsPerRun(len(xs)-1, func() { tally.Add(xs[i]); i++ }); allocs != 0 {
		t.Errorf("%g allocations per Add after Reset, want 0", allocs)
	}
}

func TestTallyMemoryIsBounded(t *testing.T) {
	var tally Tally
	for _, x := range []float64{TallyFloor, 1, 1e300, math.MaxFloat64, 1e-3, 1e100} {
		tally.Add(x)
	}
	// Every bucket from the floor (2^-40) to the largest float64: under 1064
	// octaves of 64 buckets, 8 bytes each, the 532 KiB of the documentation.
	const maxBuckets = 1064 * tallyPerOctave
	if len(tally.counts) > maxBuckets || len(tally.counts)*8 > 532<<10 {
		t.Errorf("%d buckets, want at most %d", len(tally.counts), maxBuckets)
	}
	if got := tally.Quantile(1); got != math.MaxFloat64 {
		t.Errorf("Quantile(1) = %g", got)
	}
}

func TestTallyAddRejectsInvalid(t *testing.T) {
	for _, x := range []float64{-1e-9, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%g) did not panic", x)
				}
			}()
			var tally Tally
			tally.Add(x)
		}()
	}
}

func TestTimeWeightedHandComputed(t *testing.T) {
	var w TimeWeighted
	w.Set(2*Second, 3)          // 0 over [0s, 2s)
	w.Add(5*Second, 2)          // 3 over [2s, 5s)
	w.Set(6*Second, 1)          // 5 over [5s, 6s)
	mean := w.Mean(10 * Second) // 1 over [6s, 10s)
	// (0·2 + 3·3 + 5·1 + 1·4) / 10
	if mean != 1.8 {
		t.Errorf("Mean(10s) = %g, want 1.8", mean)
	}
	if w.Max() != 5 || w.Value() != 1 {
		t.Errorf("Max %g, Value %g, want 5, 1", w.Max(), w.Value())
	}

	w.Reset(7 * Second)
	if w.Max() != 1 || w.Value() != 1 || w.Mean(7*Second) != 1 {
		t.Errorf("after Reset: Max %g Value %g Mean %g, want 1, 1, 1", w.Max(), w.Value(), w.Mean(7*Second))
	}
	w.Set(9*Second, 4) // 1 over [7s, 9s)
	// (1·2 + 4·2) / 4
	if got := w.Mean(11 * Second); got != 2.5 {
		t.Errorf("Mean(11s) after Reset = %g, want 2.5", got)
	}
	if w.Max() != 4 {
		t.Errorf("Max after Reset = %g, want 4", w.Max())
	}

	var fresh TimeWeighted
	if fresh.Mean(0) != 0 || fresh.Mean(Second) != 0 || fresh.Max() != 0 {
		t.Error("zero TimeWeighted is not the signal 0 from time 0")
	}
}

// Several changes at one instant leave only the last value in force; the
// ones in between are held for no time and add nothing to the integral.
func TestTimeWeightedSimultaneousUpdates(t *testing.T) {
	var w TimeWeighted
	w.Add(Second, 1)
	w.Add(Second, 1)
	w.Add(Second, -1) // three changes at one instant: only the last value has weight
	w.Set(3*Second, 0)
	if got := w.Mean(4 * Second); got != 0.5 {
		t.Errorf("Mean(4s) = %g, want (1·2)/4 = 0.5", got)
	}
	if w.Max() != 2 {
		t.Errorf("Max = %g: a value held for no time still counts as reached, want 2", w.Max())
	}
}

func TestTimeWeightedRejectsTimeTravel(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Set before the last update did not panic")
		}
	}()
	var w TimeWeighted
	w.Set(2*Second, 1)
	w.Set(Second, 0)
}

func TestSeriesHandComputed(t *testing.T) {
	s := NewSeries(Second)
	s.Record(500*Millisecond, 2) // boundary 0s still sees the initial 0
	s.Record(3*Second, 5)        // 1s, 2s see 2
	s.Record(3*Second, 7)        // same instant: the last value is the one in force at 3s
	s.Record(3200*Millisecond, 1)
	s.Close(6 * Second) // 4s, 5s, 6s see 1
	want := []float64{0, 2, 2, 7, 1, 1, 1}
	if !slices.Equal(s.Values, want) {
		t.Errorf("Values = %v, want %v", s.Values, want)
	}

	s = NewSeries(250 * Millisecond)
	s.Record(0, 4)
	s.Record(Second, 6) // a change on a boundary is in force at it
	s.Close(1250 * Millisecond)
	want = []float64{4, 4, 4, 4, 6, 6}
	if !slices.Equal(s.Values, want) {
		t.Errorf("Values = %v, want %v", s.Values, want)
	}
}

func TestSeriesRejectsBadInput(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	mustPanic("NewSeries(0)", func() { NewSeries(0) })
	mustPanic("Record before the last", func() {
		s := NewSeries(Second)
		s.Record(2*Second, 1)
		s.Record(Second, 1)
	})
}

func TestTallyRangeBits(t *testing.T) {
	if tallyFloorBits != math.Float64bits(TallyFloor) {
		t.Errorf("tallyFloorBits = %#x, want %#x", uint64(tallyFloorBits), math.Float64bits(TallyFloor))
	}
	if tallyMaxBits != math.Float64bits(math.MaxFloat64) {
		t.Errorf("tallyMaxBits = %#x, want %#x", uint64(tallyMaxBits), math.Float64bits(math.MaxFloat64))
	}
}

func TestTallyFloorEdges(t *testing.T) {
	var tally Tally
	below := []float64{0, math.Copysign(0, -1), 5e-324, math.Nextafter(TallyFloor, 0)}
	above := []float64{TallyFloor, math.Nextafter(TallyFloor, 1), 1, math.MaxFloat64}
	for _, x := range below {
		tally.Add(x)
	}
	for _, x := range above {
		tally.Add(x)
	}
	if tally.zeros != int64(len(below)) {
		t.Errorf("zeros = %d, want %d", tally.zeros, len(below))
	}
	var bucketed int64
	for _, c := range tally.counts {
		bucketed += c
	}
	if bucketed != int64(len(above)) {
		t.Errorf("%d bucketed, want %d", bucketed, len(above))
	}
}
