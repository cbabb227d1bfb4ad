package sim

import "math"

// Tally buckets observations by the leading bits of their float64
// representation: the 11 exponent bits and the top tallyMantissaBits bits of
// the mantissa. That splits every octave [2^e, 2^(e+1)) into
// 2^tallyMantissaBits buckets of equal width 2^e/2^tallyMantissaBits, so a
// bucket index costs one shift, with no logarithm, and every bucket is narrow
// relative to the values it holds.
const (
	tallyMantissaBits = 6
	tallyShift        = 52 - tallyMantissaBits
	tallyPerOctave    = 1 << tallyMantissaBits
)

// TallyRelativeError bounds the relative error of Tally.Quantile: a quantile
// is reported as the midpoint of the bucket holding the exact order
// statistic x, at most half a bucket width 2^e/2^7 from x >= 2^e.
const TallyRelativeError = 1.0 / (2 * tallyPerOctave)

// TallyFloor is the smallest value Tally buckets. Smaller values (0 above
// all, such as a wait that did not happen) are counted in a bucket of their
// own, and a quantile that falls among them is reported as the minimum. The
// floor is a thousandth of the clock resolution, so no duration is lost to
// it, and it keeps the histogram range, hence its memory, bounded.
const TallyFloor = 1e-12

// The bits of TallyFloor and of the largest float64, as constants for
// Add's range check (math.Float64bits is not constant); a test checks them.
const (
	tallyFloorBits = 0x3d719799812dea11
	tallyMaxBits   = 0x7fefffffffffffff
)

var (
	tallyMinIndex = tallyBucket(TallyFloor)
	tallyMaxIndex = tallyBucket(math.MaxFloat64)
)

func tallyBucket(x float64) int { return int(math.Float64bits(x) >> tallyShift) }

// tallyBucketMid returns the midpoint of bucket i.
func tallyBucketMid(i int) float64 {
	lo := math.Float64frombits(uint64(i) << tallyShift)
	hi := math.Float64frombits(uint64(i+1) << tallyShift)
	return lo + (hi-lo)/2
}

// Tally collects non-negative observations, such as latencies and waits:
// count, sum, mean, standard deviation, minimum, maximum and quantiles.
//
// Mean and standard deviation are exact up to float64 rounding (Welford's
// update). Quantiles come from a histogram with logarithmically spaced
// buckets and are within a relative error of TallyRelativeError (≈0.78%) of
// the exact sample quantile, except among values below TallyFloor, which
// share one bucket.
//
// Add is O(1) and allocates only when an observation falls outside the range
// of buckets seen so far, so it stops allocating once the range of values has
// been seen. Memory depends on the spread of the values, not their number:
// 512 bytes per octave between the smallest and largest (plus some slack),
// about 20 KiB for values spanning a microsecond to an hour, and never more
// than 532 KiB, the span from TallyFloor to the largest float64.
//
// The zero Tally is empty and ready to use.
type Tally struct {
	n        int64
	mean     float64
	m2       float64 // sum of squared deviations from the mean
	sum      float64
	min, max float64
	zeros    int64   // observations below TallyFloor
	base     int     // bucket index of counts[0]
	counts   []int64 // counts[i] is the number of observations in bucket base+i
}

// Add records the observation x. It panics if x is negative, NaN or
// infinite: those are not durations and would poison every statistic.
func (t *Tally) Add(x float64) {
	// One unsigned comparison of the bits sorts out the common case, a
	// finite x >= TallyFloor: the bits of non-negative floats are in the
	// order of their values, and everything else wraps round or lies
	// above: below the floor (0, subnormals), negative (the sign bit, -0
	// included), +Inf and NaN.
	b := math.Float64bits(x)
	bucketed := b-tallyFloorBits <= tallyMaxBits-tallyFloorBits
	if !bucketed && (!(x >= 0) || math.IsInf(x, 1)) {
		panic("sim: Tally.Add of a negative or non-finite value")
	}
	t.n++
	d := x - t.mean
	t.mean += d / float64(t.n)
	t.m2 += d * (x - t.mean)
	t.sum += x
	if t.n == 1 {
		t.min, t.max = x, x
	} else {
		// The builtins only when they could change something: exact
		// as they are (NaN, -0 and all), at one comparison per value.
		if !(x > t.min) {
			t.min = min(t.min, x)
		}
		if !(x < t.max) {
			t.max = max(t.max, x)
		}
	}
	if !bucketed {
		t.zeros++
		return
	}
	i := int(b >> tallyShift) // tallyBucket(x), from the bits at hand
	// Below t.base, j wraps round to a large value. Testing j < len rather
	// than the converse lets the compiler drop the bounds check.
	if j := uint(i - t.base); j < uint(len(t.counts)) {
		t.counts[j]++
		return
	}
	t.grow(i)
	t.counts[i-t.base]++
}

// grow widens the bucket window to include bucket i. It adds slack on the
// side that grew, proportional to the current window, so that a slowly
// drifting range costs a logarithmic number of reallocations.
func (t *Tally) grow(i int) {
	slack := max(4*tallyPerOctave, len(t.counts)/2)
	lo, hi := t.base, t.base+len(t.counts)
	if len(t.counts) == 0 {
		lo, hi = i-slack, i+1+slack
	}
	if i < lo {
		lo = i - slack
	}
	if i >= hi {
		hi = i + 1 + slack
	}
	lo = max(lo, tallyMinIndex)
	hi = min(hi, tallyMaxIndex+1)
	counts := make([]int64, hi-lo)
	if len(t.counts) > 0 {
		copy(counts[t.base-lo:], t.counts)
	}
	t.base, t.counts = lo, counts
}

// N returns the number of observations.
func (t *Tally) N() int64 { return t.n }

// Sum returns the sum of the observations, 0 when there are none.
func (t *Tally) Sum() float64 { return t.sum }

// Mean returns the mean of the observations, NaN when there are none.
func (t *Tally) Mean() float64 {
	if t.n == 0 {
		return math.NaN()
	}
	return t.mean
}

// StdDev returns the sample standard deviation (denominator n−1) of the
// observations: NaN when there are none, 0 when there is one.
func (t *Tally) StdDev() float64 {
	switch t.n {
	case 0:
		return math.NaN()
	case 1:
		return 0
	}
	return math.Sqrt(t.m2 / float64(t.n-1))
}

// Min returns the smallest observation, NaN when there are none.
func (t *Tally) Min() float64 {
	if t.n == 0 {
		return math.NaN()
	}
	return t.min
}

// Max returns the largest observation, NaN when there are none.
func (t *Tally) Max() float64 {
	if t.n == 0 {
		return math.NaN()
	}
	return t.max
}

// Quantile estimates the p-quantile of the observations, defined as the
// ⌈p·n⌉-th smallest (the smallest for p = 0), the same order statistic as
// gonum's stat.Quantile with stat.Empirical. The estimate is within a
// relative error of TallyRelativeError of it; p = 0 and p = 1, the minimum
// and maximum, are exact. Quantile returns NaN when there are no
// observations or p is outside [0, 1].
func (t *Tally) Quantile(p float64) float64 {
	if t.n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	rank := p * float64(t.n)
	if rank <= 1 {
		return t.min
	}
	if rank > float64(t.n-1) {
		return t.max
	}
	cum := float64(t.zeros)
	if cum >= rank {
		return t.min
	}
	for j, c := range t.counts {
		if c == 0 {
			continue
		}
		cum += float64(c)
		if cum >= rank {
			// The midpoint may lie outside the observed range in the
			// outermost buckets; clamping only moves it closer to the truth.
			return min(max(tallyBucketMid(t.base+j), t.min), t.max)
		}
	}
	return t.max
}

// Reset forgets all observations. It keeps the bucket storage, so a Tally
// reset at the end of a warm-up does not allocate again.
func (t *Tally) Reset() {
	clear(t.counts)
	*t = Tally{base: t.base, counts: t.counts}
}

// Merge adds the observations of o to t, as if each had been passed to Add
// (up to float64 rounding in mean and standard deviation). o is unchanged;
// t.Merge(t) doubles every count.
func (t *Tally) Merge(o *Tally) {
	if o.n == 0 {
		return
	}
	on, omean, om2, omin, omax := o.n, o.mean, o.m2, o.min, o.max
	if t.n == 0 {
		t.mean, t.m2, t.min, t.max = omean, om2, omin, omax
	} else {
		// Chan, Golub and LeVeque's pairwise combination of mean and M2.
		n := float64(t.n + on)
		d := omean - t.mean
		t.mean += d * float64(on) / n
		t.m2 += om2 + d*d*float64(t.n)*float64(on)/n
		t.min = min(t.min, omin)
		t.max = max(t.max, omax)
	}
	t.n += on
	t.sum += o.sum
	t.zeros += o.zeros

	first, last := -1, -1
	for j, c := range o.counts {
		if c != 0 {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	if first < 0 {
		return
	}
	lo, hi := o.base+first, o.base+last
	if lo < t.base || lo >= t.base+len(t.counts) {
		t.grow(lo)
	}
	if hi >= t.base+len(t.counts) {
		t.grow(hi)
	}
	for j := first; j <= last; j++ {
		t.counts[o.base+j-t.base] += o.counts[j]
	}
}

// TimeWeighted integrates a piecewise-constant signal over simulated time,
// such as a queue length or a number of busy servers, to give its time
// average. The zero TimeWeighted holds the value 0 from time 0.
type TimeWeighted struct {
	value float64
	last  Time    // when value took effect, or the last Reset if later
	start Time    // the last Reset
	area  float64 // integral of the signal over [start, last], in value·nanoseconds
	max   float64
}

func (w *TimeWeighted) advance(now Time) {
	if now < w.last {
		w.updatedBefore(now)
	}
	w.area += w.value * float64(now-w.last)
	w.last = now
}

// updatedBefore panics for an update at now, before the last one. It is a
// call of its own so that advance stays small enough to inline into Set:
// the message, built in place, would cost more than the rest of advance.
//
//go:noinline
func (w *TimeWeighted) updatedBefore(now Time) {
	panic("sim: TimeWeighted updated at " + now.String() + ", before its last update at " + w.last.String())
}

// Set changes the signal to v at time now. Times must not decrease.
func (w *TimeWeighted) Set(now Time, v float64) {
	w.advance(now)
	w.value = v
	if !(v < w.max) { // max as it is (NaN, -0 and all), at one comparison
		w.max = max(w.max, v)
	}
}

// Add changes the signal by dv at time now. Times must not decrease.
func (w *TimeWeighted) Add(now Time, dv float64) { w.Set(now, w.value+dv) }

// Value returns the current value of the signal.
func (w *TimeWeighted) Value() float64 { return w.value }

// Max returns the largest value the signal has held since the last Reset,
// counting the value in force at the Reset.
func (w *TimeWeighted) Max() float64 { return w.max }

// Mean returns the time average of the signal over [last Reset, now], or
// the current value if no time has passed since the Reset.
func (w *TimeWeighted) Mean(now Time) float64 {
	if now < w.last {
		panic("sim: TimeWeighted.Mean at " + now.String() + ", before its last update at " + w.last.String())
	}
	span := now - w.start
	if span == 0 {
		return w.value
	}
	return (w.area + w.value*float64(now-w.last)) / float64(span)
}

// Integral returns the integral of the signal over [last Reset, now], in
// value·seconds: busy-seconds for a count of busy servers. Sampled at a
// fixed step, its differences give the signal's mean over any window of
// whole steps, however short the changes inside are.
func (w *TimeWeighted) Integral(now Time) float64 {
	if now < w.last {
		panic("sim: TimeWeighted.Integral at " + now.String() + ", before its last update at " + w.last.String())
	}
	return (w.area + w.value*float64(now-w.last)) / float64(Second)
}

// Reset forgets the history before now, as at the end of a warm-up: the
// current value stays in force, and Mean and Max start afresh from now.
func (w *TimeWeighted) Reset(now Time) {
	w.advance(now)
	w.start = now
	w.area = 0
	w.max = w.value
}

// Series samples a piecewise-constant signal at a fixed step, for plots:
// Values[i] is the value in force at time i·Step. A change at exactly a step
// boundary is in force at that boundary. The signal is 0 until the first
// Record.
type Series struct {
	Step   Time
	Values []float64

	value float64 // in force since last
	last  Time
}

// NewSeries returns an empty Series sampled every step. It panics unless
// step > 0.
func NewSeries(step Time) *Series {
	if step <= 0 {
		panic("sim: NewSeries step must be > 0, got " + step.String())
	}
	return &Series{Step: step}
}

// Record notes that the signal changes to v at time now. Every step boundary
// before now that has not been sampled yet takes the previous value. Times
// must not decrease.
func (s *Series) Record(now Time, v float64) {
	s.advance(now)
	s.fillThrough(now - 1)
	s.value = v
}

// Close samples every remaining step boundary up to and including end with
// the value in force, so that a run of length end stepped by Step yields
// end/Step + 1 values.
func (s *Series) Close(end Time) {
	s.advance(end)
	s.fillThrough(end)
}

func (s *Series) advance(now Time) {
	if s.Step <= 0 {
		panic("sim: Series step must be > 0, got " + s.Step.String())
	}
	if now < s.last {
		panic("sim: Series updated at " + now.String() + ", before its last update at " + s.last.String())
	}
	s.last = now
}

// fillThrough samples every boundary not yet sampled up to and including
// until with the value in force.
func (s *Series) fillThrough(until Time) {
	for next := Time(len(s.Values)) * s.Step; next <= until; next += s.Step {
		s.Values = append(s.Values, s.value)
	}
}
