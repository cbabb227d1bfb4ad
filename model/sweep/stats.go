package sweep

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes the replications of one quantity: how many had a
// value, their mean, and the 95 % confidence interval of the mean.
type Summary struct {
	N    int
	Mean float64 // NaN when N == 0
	// Lo and Hi bound the Student t interval mean ± t(0.975, N−1)·s/√N,
	// s the sample standard deviation. They are NaN when N < 2: one value
	// says nothing about its spread.
	Lo, Hi float64
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

func (a acc) summary() Summary {
	s := Summary{N: a.n, Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if a.n == 0 {
		return s
	}
	s.Mean = a.mean
	if a.n < 2 {
		return s
	}
	sd := math.Sqrt(a.m2 / float64(a.n-1))
	half := float64(tQuantile(a.n-1)*sd) / math.Sqrt(float64(a.n))
	s.Lo, s.Hi = s.Mean-half, s.Mean+half
	return s
}

var tCache sync.Map // degrees of freedom → t quantile

// tQuantile is the two-sided 95 % critical value of Student's t with df
// degrees of freedom: the 0.975 quantile.
func tQuantile(df int) float64 {
	if v, ok := tCache.Load(df); ok {
		return v.(float64)
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-Level)/2)
	tCache.Store(df, q)
	return q
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
