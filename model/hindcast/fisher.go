package hindcast

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// maxFisherSupport bounds the tables FisherExact sums exactly: past a
// million possible counts, the two-proportion z test it falls back to is
// as good to every printed digit and takes no time.
const maxFisherSupport = 1_000_000

// FisherExact is the two-sided p-value of Fisher's exact test of the
// 2×2 table [[a, b], [c, d]]: the probability, given the margins, of a
// table no more likely than this one. It compares k of n observed (a, b
// = k, n−k) with K of N simulated (c, d) without assuming either count
// large, which a 6-of-6 observation is not.
func FisherExact(a, b, c, d int64) float64 {
	r1, c1, n := a+b, a+c, a+b+c+d
	lo, hi := max(0, r1+c1-n), min(r1, c1)
	if n == 0 || lo == hi {
		return 1
	}
	if hi-lo > maxFisherSupport {
		return twoProportionZ(a, b, c, d)
	}
	logC := func(n, k int64) float64 {
		x, _ := math.Lgamma(float64(n + 1))
		y, _ := math.Lgamma(float64(k + 1))
		z, _ := math.Lgamma(float64(n - k + 1))
		return x - y - z
	}
	total := logC(n, r1)
	logP := func(x int64) float64 { return logC(c1, x) + logC(n-c1, r1-x) - total }
	pa := logP(a)
	// Tables within a relative 1e-7 of the observed one's probability
	// count as equally likely, so that rounding does not drop the mirror
	// image of a symmetric table.
	cut := pa + math.Log1p(1e-7)
	var p float64
	for x := lo; x <= hi; x++ {
		if lp := logP(x); lp <= cut {
			p += math.Exp(lp)
		}
	}
	return min(1, p)
}

// twoProportionZ is the two-sided p-value of the pooled two-proportion z
// test of a/(a+b) against c/(c+d).
func twoProportionZ(a, b, c, d int64) float64 {
	n1, n2 := float64(a+b), float64(c+d)
	p := float64(a+c) / (n1 + n2)
	se := math.Sqrt(p * (1 - p) * (1/n1 + 1/n2))
	if se == 0 {
		return 1
	}
	z := math.Abs(float64(a)/n1-float64(c)/n2) / se
	return 2 * distuv.UnitNormal.Survival(z)
}
