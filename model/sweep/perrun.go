package sweep

import (
	"math"
)

// # The interval with parameter uncertainty
//
// A first failure's usual interval (Lo, Hi) covers the replications' noise
// with every parameter as written: more replications narrow it towards
// the first failure of the scenario as written, which is not the system's
// when its parameters were estimated from a sample or assumed within a
// range. Write g(θ) for the first failure with parameters θ; the sweep
// estimates g(θ̂), the values as written, and the question is g(θ_true).
//
// With draws, replication r runs twice more, with the same seed: once with
// its own parameters θ_r, drawn from their uncertainty (a fit's sampling
// distribution, a range), and once with θ̂; in each its own first failure
// is the smallest multiplier tried at which its run breaks an SLO. The
// difference of the two, d_r, is g(θ_r) − g(θ̂) plus the difference of two
// runs' noise on the same traffic, which common random numbers keep small.
// Under the fits' normal approximation θ_true stands to θ̂ as a draw does
// (θ_true − θ̂ and θ_r − θ̂ have the same distribution, to first order),
// so g(θ_true) − g(θ̂) is distributed as one more d would be, less its run
// noise: its 95 % prediction interval is
//
//	d̄ ± t(R−1) · s_d · √(1 + 1/R)
//
// (d̄ and s_d the mean and standard deviation of the R differences,
// Student's t for R − 1 degrees of freedom), conservative by the noise
// left in d. The estimate of g(θ̂) has its own error, which Lo and Hi
// bound; the two errors are independent, so the half-widths add in
// quadrature: the interval with parameter uncertainty is
//
//	m̂ + d̄ − √((m̂ − Lo)² + h²)  to  m̂ + d̄ + √((Hi − m̂)² + h²)
//
// with h the prediction half-width above. It does not narrow as R grows:
// h tends to the spread of the first failure over what the parameters may
// be, which is what the calibration leaves open. Each per-run first
// failure is known to lie in the bracket between the multiplier tried
// below it and itself; midpoints are used and half the mean bracket
// widens h. The refinement rounds of the drawn sweep refine each
// replication's own bracket, so they are resolved as finely as the
// estimate is. A run that broke nothing in the range leaves the high end
// open (NaN), one that broke at the lowest multiplier the low end, and so
// does an end of (Lo, Hi) that is open.

// PointSuffix names, in the sweep with draws, each design run with its
// values as written in every replication: the other half of each pair.
const PointSuffix = " (as written)"

// drawn reports whether the sweep's designs carry parameter draws.
func (c *Config) drawn() bool { return len(c.Designs) > 0 && c.Designs[0].Draws != nil }

// perRunFirst is replication r's own first failure among tried: the index
// of the first cell whose run r broke, -1 when none did.
func perRunFirst(tried []*Cell, r int) int {
	for i, c := range tried {
		if r < len(c.RunFailed) && c.RunFailed[r] {
			return i
		}
	}
	return -1
}

// perRunGaps are the brackets below each replication's own first failure,
// by the index of their upper end, as standing.gaps names them.
func perRunGaps(tried []*Cell, reps int) []int {
	var gs []int
	for r := range reps {
		if i := perRunFirst(tried, r); i > 0 {
			gs = append(gs, i)
		}
	}
	return gs
}

// perRun states the per-replication first failures.
func (ff *FirstFailure) perRun(reps int) {
	ff.Draws = reps
	for r := range reps {
		switch i := perRunFirst(ff.Tried, r); {
		case i < 0:
			ff.PerRun = append(ff.PerRun, math.NaN())
		default:
			ff.PerRun = append(ff.PerRun, ff.Tried[i].Multiplier)
		}
	}
}

// brackets are replication r's own first failure as the midpoint of its
// bracket and the bracket's width; open says it held over the range (+1)
// or broke at the lowest multiplier (-1), 0 otherwise.
func brackets(tried []*Cell, r int) (mid, width float64, open int) {
	switch i := perRunFirst(tried, r); {
	case i < 0:
		return tried[len(tried)-1].Multiplier, 0, 1
	case i == 0:
		return tried[0].Multiplier, 0, -1
	default:
		hi, lo := tried[i].Multiplier, tried[i-1].Multiplier
		return (lo + hi) / 2, hi - lo, 0
	}
}

// TakeParamIntervals gives r's first failures their intervals with
// parameter uncertainty from drawn, the sweep of the same grid in which
// every design of r ran twice per replication: under its own name with the
// replication's draw of its uncertain values, and under its name and
// PointSuffix with the values as written.
func (r *Result) TakeParamIntervals(drawn *Result) {
	find := func(name string) *FirstFailure {
		for i := range drawn.FirstFailures {
			if drawn.FirstFailures[i].Design == name {
				return &drawn.FirstFailures[i]
			}
		}
		panic("sweep: TakeParamIntervals without design " + name)
	}
	for i := range r.FirstFailures {
		ff := &r.FirstFailures[i]
		dd, pp := find(ff.Design), find(ff.Design+PointSuffix)
		ff.Draws, ff.PerRun = dd.Draws, dd.PerRun
		ff.PSD, ff.PLo, ff.PHi = math.NaN(), math.NaN(), math.NaN()
		reps := dd.Draws
		if reps < 2 || len(dd.Tried) == 0 || len(pp.Tried) == 0 {
			continue
		}
		var diffs []float64
		var width float64
		held, below := false, false
		for rep := range reps {
			md, wd, od := brackets(dd.Tried, rep)
			mp, wp, op := brackets(pp.Tried, rep)
			held = held || od > 0 || op > 0
			below = below || od < 0 || op < 0
			diffs = append(diffs, md-mp)
			width += (wd + wp) / 2
		}
		n := float64(reps)
		var mean, ss float64
		for _, d := range diffs {
			mean += d / n
		}
		for _, d := range diffs {
			ss += (d - mean) * (d - mean)
		}
		ff.PSD = math.Sqrt(ss / (n - 1))
		if !ff.Found {
			continue
		}
		h := tQuantile(reps-1)*ff.PSD*math.Sqrt(1+1/n) + width/n/2
		centre := ff.Multiplier + mean
		if !below && !math.IsNaN(ff.Lo) {
			ff.PLo = max(centre-math.Hypot(ff.Multiplier-ff.Lo, h), 0)
		}
		if !held && !math.IsNaN(ff.Hi) {
			ff.PHi = centre + math.Hypot(ff.Hi-ff.Multiplier, h)
		}
	}
}
