package sweep

import (
	"math"
	"sync"

	"capsim/model"

	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes the replications of one quantity: how many had a
// value, their mean, and the 95 % confidence interval of the mean.
type Summary struct {
	N    int
	Mean float64 // NaN when N == 0
	// Lo and Hi bound the Student t interval mean ± t(0.975, N−1)·s/√N,
	// s the sample standard deviation. They are NaN when N < 2: one value
	// says nothing about its spread. For a rate of counted events (see
	// Trials) the interval is widened to the Wilson interval of the
	// pooled counts. A cell's interval is then kept within its unit's
	// values (model.Unit.Clamp: a fraction within [0, 1], durations and
	// counts from 0), so it may not be symmetric about the mean.
	Lo, Hi float64
	// Trials, for a rate of counted events such as journey_success_rate,
	// is the number of events it counts over all N replications (the
	// journeys started, the requests made); 0 for other metrics.
	Trials int64
}

// Level is the confidence level of every interval capsim reports.
const Level = 0.95

// acc accumulates a sample by Welford's update (Welford 1962; Knuth, TAOCP
// vol. 2, 4.2.2), which keeps the variance accurate when values are large
// next to their spread, as event counts are.
//
// Products are converted to float64 before they are added: the Go spec lets
// an architecture fuse x*y+z into one rounding (arm64, ppc64 and s390x do),
// and an explicit conversion forbids it, so the same values in the same
// order give the same bits everywhere.
type acc struct {
	n    int
	mean float64
	m2   float64 // sum of squared deviations from the mean
}

// add records x; NaN (nothing measured) is skipped.
func (a *acc) add(x float64) {
	if math.IsNaN(x) {
		return
	}
	a.n++
	d := x - a.mean
	a.mean += d / float64(a.n)
	a.m2 += float64(d * (x - a.mean))
}

// withZeros returns the accumulator of a's values followed by k zeros,
// by the pairwise combination of Chan, Golub and LeVeque (1979).
func (a acc) withZeros(k int) acc {
	if k <= 0 {
		return a
	}
	n := a.n + k
	d := -a.mean
	na, nk := float64(a.n), float64(k)
	return acc{
		n:    n,
		mean: float64(a.mean*na) / float64(n),
		m2:   a.m2 + float64(float64(d*d)*float64(na*nk))/float64(n),
	}
}

func (a acc) summary() Summary { return a.summaryAt(Level) }

// summaryAt is summary with the interval at confidence level.
func (a acc) summaryAt(level float64) Summary {
	s := Summary{N: a.n, Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if a.n == 0 {
		return s
	}
	s.Mean = a.mean
	if a.n < 2 {
		return s
	}
	sd := math.Sqrt(a.m2 / float64(a.n-1))
	half := float64(tQuantileAt(a.n-1, level)*sd) / math.Sqrt(float64(a.n))
	s.Lo, s.Hi = s.Mean-half, s.Mean+half
	return s
}

type tKey struct {
	df    int
	level float64
}

var tCache sync.Map // tKey → t quantile

// tQuantile is the two-sided 95 % critical value of Student's t with df
// degrees of freedom: the 0.975 quantile.
func tQuantile(df int) float64 { return tQuantileAt(df, Level) }

// tQuantileAt is the two-sided critical value of Student's t with df
// degrees of freedom at confidence level.
func tQuantileAt(df int, level float64) float64 {
	k := tKey{df, level}
	if v, ok := tCache.Load(k); ok {
		return v.(float64)
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-level)/2)
	tCache.Store(k, q)
	return q
}

// zAt is the two-sided critical value of the standard normal at level.
func zAt(level float64) float64 {
	if level == Level {
		return zLevel
	}
	return distuv.UnitNormal.Quantile(1 - (1-level)/2)
}

// Interval returns the summary of values: their mean and its 95 % Student
// t confidence interval, leaving out NaNs.
func Interval(values []float64) Summary {
	var a acc
	for _, v := range values {
		a.add(v)
	}
	return a.summary()
}

// rateInterval gives a rate of counted events an interval that cannot
// claim more than its counts allow. Five replications of 8 journeys
// that each saw 7 succeed have no spread at all, and the Student t
// interval is the single point 87.5 %; yet 35 successes in 40 say only
// that the rate lies in about [74 %, 95 %]. The interval reported is the
// wider of the two, so it shows both the binomial uncertainty of the
// pooled counts and any spread between replications beyond it, and it
// stays within [0, 1]. With one replication it stays NaN, as every
// interval does: the spread between runs is then unknown. counts are
// the events and trials the runs counted, summed over them.
func rateInterval(m model.Measure, s Summary, counts [2]int64) Summary {
	if _, ok := m.Rate(); !ok || s.N < 2 || counts[1] <= 0 {
		return s
	}
	return widenByCounts(s, float64(counts[0]), float64(counts[1]))
}

// widenByCounts widens s, the replications' summary of a rate, to the
// Wilson interval of k counted events in n trials pooled over them where
// that is wider, within [0, 1]; see rateInterval.
func widenByCounts(s Summary, k, n float64) Summary { return widenByCountsAt(s, k, n, zLevel) }

// widenByCountsAt is widenByCounts with the Wilson interval whose
// critical value is z.
func widenByCountsAt(s Summary, k, n, z float64) Summary {
	lo, hi := wilsonZ(k, n, z)
	s.Trials = int64(n)
	return widenTo(s, lo, hi, 0, 1)
}

// widenTo widens s's interval to [lo, hi] where that is wider (a NaN end
// takes the bound), kept within [floor, ceil].
func widenTo(s Summary, lo, hi, floor, ceil float64) Summary {
	if math.IsNaN(s.Lo) || lo < s.Lo {
		s.Lo = lo
	}
	if math.IsNaN(s.Hi) || hi > s.Hi {
		s.Hi = hi
	}
	s.Lo, s.Hi = math.Max(floor, s.Lo), math.Min(ceil, s.Hi)
	return s
}

// differenceInterval gives the paired difference of a rate of counted
// events between two designs an interval that cannot claim more than the
// counts of either allow, as rateInterval does for one design. Five
// replications in which the baseline lost exactly one of 8 journeys and
// the design none differ by exactly 12.5 points in every replication,
// and the Student t interval is that point; yet 35 of 40 and 40 of 40
// say only that the difference lies in about [+1, +26] points. The
// interval reported is the wider of the paired one and Newcombe's hybrid
// score interval of the two pooled counts (Newcombe 1998, method 10), kept
// within [−1, 1]. Newcombe's interval treats the two designs' journeys as
// independent; the common random numbers make them positively
// correlated, so it is the wider of the two whenever the runs' own
// spread does not say otherwise. design and base are the counts, events
// and trials, summed over the runs of each.
func differenceInterval(m model.Measure, s Summary, design, base [2]int64) Summary {
	if _, ok := m.Rate(); !ok || s.N < 2 || design[1] <= 0 || base[1] <= 0 {
		return s
	}
	lo, hi := newcombe(float64(design[0]), float64(design[1]), float64(base[0]), float64(base[1]), zLevel)
	return widenTo(s, lo, hi, -1, 1)
}

// newcombe is the hybrid score interval of p1 − p2, for k1 of n1 and k2
// of n2, from the Wilson intervals (l, u) of each with critical value z:
//
//	lower = d − √((p1 − l1)² + (u2 − p2)²)
//	upper = d + √((u1 − p1)² + (p2 − l2)²)
func newcombe(k1, n1, k2, n2, z float64) (lo, hi float64) {
	p1, p2 := k1/n1, k2/n2
	l1, u1 := wilsonZ(k1, n1, z)
	l2, u2 := wilsonZ(k2, n2, z)
	d := p1 - p2
	return d - math.Hypot(p1-l1, u2-p2), d + math.Hypot(u1-p1, p2-l2)
}

// zLevel is the two-sided critical value of the standard normal at Level.
var zLevel = distuv.UnitNormal.Quantile(1 - (1-Level)/2)

// Wilson returns the Wilson score interval (Wilson 1927) at Level for k
// successes in n trials: unlike the normal approximation it stays inside
// [0, 1] and does not collapse to a point when k is 0 or n.
//
//	centre = (p + z²/2n) / (1 + z²/n)
//	half   = z √(p(1−p)/n + z²/4n²) / (1 + z²/n)
func Wilson(k, n float64) (lo, hi float64) { return wilsonZ(k, n, zLevel) }

// wilsonZ is the Wilson interval with critical value z.
func wilsonZ(k, n, z float64) (lo, hi float64) {
	if !(n > 0) {
		return math.NaN(), math.NaN()
	}
	z2 := float64(z * z)
	p := k / n
	d := 1 + z2/n
	centre := (p + z2/float64(2*n)) / d
	half := float64(z*math.Sqrt(float64(p*(1-p))/n+z2/float64(4*n*n))) / d
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// RateIntervalAt is the interval at confidence level of a rate of
// counted events measured run by run, as a sweep's rate gets (see
// rateInterval): the Student t interval of the runs' shares, widened to
// the Wilson interval of the k events in n trials pooled over them
// where that is wider, within [0, 1]. NaN without trials.
func RateIntervalAt(shares []float64, k, n int64, level float64) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	var a acc
	for _, x := range shares {
		a.add(x)
	}
	s := widenByCountsAt(a.summaryAt(level), float64(k), float64(n), zAt(level))
	return s.Lo, s.Hi
}
