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
// range. With draws, replication r runs with its own parameters θ_r, drawn
// from their uncertainty (a fit's sampling distribution, a range), and its
// own seed; its own first failure m_r is the smallest multiplier tried at
// which its run breaks an SLO. Then m_r = g(θ_r) + ε_r, where g is the
// first failure as a function of the parameters and ε_r the noise of one
// run.
//
// Under the fits' normal approximation, the true parameters stand to the
// estimates as a draw does (θ_true − θ̂ and θ_r − θ̂ have the same
// distribution, to first order), so g(θ_true) is distributed about the
// centre of the m_r as one more draw's g(θ) would be, and m_r spreads more
// than g(θ_r) by the run noise ε_r. The 95 % prediction interval of one
// more draw,
//
//	m̄ ± t(R−1) · s · √(1 + 1/R)
//
// (m̄ and s the mean and standard deviation of the R per-run first
// failures, Student's t for R − 1 degrees of freedom), therefore covers
// the first failure of the true parameters at least about 95 % of the time
// — conservatively, as it also counts one run's noise, which the mean of R
// runs does not have. It does not narrow as R grows: it tends to the
// spread of the first failure over what the parameters may be, which is
// what the calibration leaves open. Each m_r is known to lie in the
// bracket between the multiplier tried below it and itself; the midpoint
// is used and half the mean bracket widens each end. A replication that
// broke nothing in the range leaves the high end open (NaN), one that
// broke at the lowest multiplier the low end.
//
// The refinement rounds also refine each replication's own bracket, so
// the m_r are resolved as finely as the estimate is.

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

// perRun states the per-replication first failures and the interval that
// includes parameter uncertainty.
func (ff *FirstFailure) perRun(reps int) {
	ff.Draws = reps
	if len(ff.Tried) == 0 {
		return
	}
	top := ff.Tried[len(ff.Tried)-1].Multiplier
	held, below := false, false
	var sum, width float64
	mids := make([]float64, 0, reps)
	for r := range reps {
		i := perRunFirst(ff.Tried, r)
		switch {
		case i < 0:
			// Held over the range: counted at the top, a value it exceeds.
			held = true
			ff.PerRun = append(ff.PerRun, math.NaN())
			mids = append(mids, top)
		case i == 0:
			below = true
			ff.PerRun = append(ff.PerRun, ff.Tried[0].Multiplier)
			mids = append(mids, ff.Tried[0].Multiplier)
		default:
			hi, lo := ff.Tried[i].Multiplier, ff.Tried[i-1].Multiplier
			ff.PerRun = append(ff.PerRun, hi)
			mids = append(mids, (lo+hi)/2)
			width += hi - lo
		}
		sum += mids[len(mids)-1]
	}
	n := float64(reps)
	ff.PMean = sum / n
	if reps < 2 {
		return
	}
	var ss float64
	for _, m := range mids {
		ss += (m - ff.PMean) * (m - ff.PMean)
	}
	sd := math.Sqrt(ss / (n - 1))
	half := tQuantile(reps-1)*sd*math.Sqrt(1+1/n) + width/n/2
	if !below {
		ff.PLo = max(ff.PMean-half, 0)
	}
	if !held {
		ff.PHi = ff.PMean + half
	}
}

// TakeParamIntervals copies into r's first failures the per-replication
// first failures and the intervals with parameter uncertainty of drawn, a
// sweep of the same designs whose replications drew their parameters: r
// keeps its own estimate and its interval of the replications' noise.
func (r *Result) TakeParamIntervals(drawn *Result) {
	for i := range r.FirstFailures {
		if i >= len(drawn.FirstFailures) || drawn.FirstFailures[i].Design != r.FirstFailures[i].Design {
			panic("sweep: TakeParamIntervals of a sweep of other designs")
		}
		d, ff := drawn.FirstFailures[i], &r.FirstFailures[i]
		ff.Draws, ff.PerRun, ff.PMean, ff.PLo, ff.PHi = d.Draws, d.PerRun, d.PMean, d.PLo, d.PHi
	}
}
