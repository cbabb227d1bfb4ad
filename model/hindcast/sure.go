package hindcast

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"capsim/model/sweep"
)

// # When a verdict is sure
//
// A verdict is read off a sample of runs; more runs could turn it. It
// is sure when the runs pin down what the model would give with
// infinitely many of them well enough that the verdict holds for every
// value the sample allows, at confidence level (the report's Level:
// 95 %, or with looks its share sweep.LookSchedule.Level):
//
//   - a count k/n: the model's rate, given infinitely many runs, agrees
//     when it lies in the observed count's own 95 % Wilson interval (the
//     Fisher test becomes the binomial test of k of n at that rate). It
//     is sure when the model rate's interval (the sweep's for a rate: the
//     runs' t interval widened to the pooled Wilson interval) lies wholly
//     inside the observed interval, or wholly on one side of it.
//   - a value or a range: the band 95 % of single runs fall in is, given
//     infinitely many runs, μ ± z·σ, the runs' mean and spread. A t
//     interval of μ and a chi-square interval of σ, each at half the
//     error (Bonferroni), bound where the band's ends can lie. It is sure
//     to meet the observed range when even the band of the smallest σ
//     reaches it from either end of μ's interval, and sure to miss when
//     even the band of the largest σ stays wholly on one side of it.
//
// The observation's own interval is not narrowed by the looks: it was
// measured once, and only the model's side is sampled again.
//
// A sure verdict must be the verdict the rule gave: where the two could
// part (a Fisher p near 0.05 with few model trials), the observation is
// not sure, and more runs settle it.

// countSure says whether j's count verdict is sure at level; shares are
// the runs' own shares of counted events.
func countSure(j *Judged, shares []float64, level float64) bool {
	if j.N == 0 {
		return false
	}
	c := j.Obs.Count
	obsLo, obsHi := sweep.Wilson(float64(c.K), float64(c.N))
	// The Wilson interval of k = n ends at 1 exactly (and of k = 0 starts
	// at 0), which its floating-point formula misses by a unit in the
	// last place: a model that never fails must lie inside 400/400's.
	if c.K == c.N {
		obsHi = 1
	}
	if c.K == 0 {
		obsLo = 0
	}
	lo, hi := sweep.RateIntervalAt(shares, j.K, j.N, level)
	inside := obsLo <= lo && hi <= obsHi
	outside := hi < obsLo || lo > obsHi
	return agreesWith(j, inside, outside)
}

// valueSure says whether j's value verdict is sure at level, from the
// mean and standard deviation of the n runs that measured the value.
func valueSure(j *Judged, mean, sd float64, n int, level float64) bool {
	if n < 2 {
		return false
	}
	half := (1 - level) / 2 // the error each interval may spend
	df := float64(n - 1)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - half/2)
	chi := distuv.ChiSquared{K: df}
	muLo, muHi := mean-t*sd/math.Sqrt(float64(n)), mean+t*sd/math.Sqrt(float64(n))
	sdLo, sdHi := sd*math.Sqrt(df/chi.Quantile(1-half/2)), sd*math.Sqrt(df/chi.Quantile(half/2))
	z := distuv.UnitNormal.Quantile(1 - (1-Level)/2)
	meets := muHi-z*sdLo <= j.ObsHi && muLo+z*sdLo >= j.ObsLo
	misses := muLo-z*sdHi > j.ObsHi || muHi+z*sdHi < j.ObsLo
	return agreesWith(j, meets, misses)
}

// agreesWith is sureness of j's verdict: sure to agree and agreeing, or
// sure to disagree and disagreeing.
func agreesWith(j *Judged, sureAgree, sureDisagree bool) bool {
	return (j.Agrees && sureAgree) || (!j.Agrees && sureDisagree)
}
