package calibration

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Uncertainty is how well a fit's n values pin its parameters down, in the
// names and units the fragment writes the distribution with: a scenario
// run with parameter draws (capsim sweep --uncertainty) draws each
// replication's parameters from it.
//
// Per family:
//
//   - exponential, lognormal: the inverse of the observed Fisher
//     information, which is exact in closed form at the estimate
//     (exponential: se(mean) = mean/√n; lognormal: se(mu) = sigma/√n,
//     se(sigma) = sigma/√2n, uncorrelated).
//   - gamma, Weibull, truncated normal: the inverse of the observed Fisher
//     information, the negative Hessian of the log-likelihood at the
//     estimate taken by central differences. Their two estimates are
//     correlated (a gamma's shape and scale strongly: a larger shape with a
//     smaller scale keeps the mean), so Corr is given too; drawing them
//     independently would overstate the mean's uncertainty many times.
//   - exponential+shift, lognormal+shift: the floor held at its estimate,
//     and the part above it as its family above, given the floor. What a
//     run reads of a service time, its mean and its tail, then spreads as
//     over repeated samples (TestUncertaintyShiftedMatchesSpread): the
//     exponential's floor is off by about mean/n, far less than the mean's
//     mean/√n, and the lognormal's, correlated with mu, moves the mean and
//     the tail little once mu has made up for it. Drawing the floor from a
//     normal would be wrong besides: it lies below the smallest value.
//   - empirical: N alone, Method "bootstrap": a draw resamples the n values
//     with replacement, which needs no model of their shape.
//   - uniform, a fit by moments, a constant: N alone and no Method. The
//     uniform's bounds are not asymptotically normal (their error is of
//     order 1/n, not 1/√n) and a moment fit has no likelihood, so no
//     standard error is claimed and nothing is drawn.
type Uncertainty struct {
	N      int
	Method string   // MethodFisher, MethodBootstrap, or "" (nothing to draw)
	Params []string // the distribution's parameter names, as its text writes them
	SE     []float64
	// Time says which parameters are times in seconds (written with a unit).
	Time []bool
	// Corr is the correlation of the two estimates of a two-parameter
	// family; 0 for one parameter.
	Corr float64
}

// The methods an Uncertainty may name.
const (
	MethodFisher    = "fisher"
	MethodBootstrap = "bootstrap"
)

// hessianStep is the relative step of the central differences: the
// truncation error of a second difference is of order h² (1e-8 of the
// curvature) and its rounding error of order ε·|ln L|/h², about 1e-8 of
// it for the few thousand values a fit sees.
const hessianStep = 1e-4

// SamplingUncertainty returns the uncertainty of the candidate chosen for
// sorted (the values Fit fitted, ascending). An error says why no standard
// error could be computed (a likelihood flat or curved the wrong way at
// the estimate, as at a half-normal's boundary); N is still set then.
func SamplingUncertainty(c *Candidate, sorted []float64) (Uncertainty, error) {
	n := len(sorted)
	u := Uncertainty{N: n}
	if c == nil || c.ByMoments {
		return u, nil
	}
	nf := float64(n)
	m := c.model
	if s, ok := m.(shifted); ok {
		// The floor is held where it was estimated and the part above it
		// gets its family's closed form (see the type's comment).
		m = s.m
	}
	switch c.Family {
	case FamilyEmpirical:
		u.Method = MethodBootstrap
		return u, nil
	case FamilyExponential, FamilyShiftedExponential:
		mean := 1 / m.(distuv.Exponential).Rate
		u.Method, u.Params, u.Time, u.SE = MethodFisher, []string{"mean"}, []bool{true}, []float64{mean / math.Sqrt(nf)}
		return u, nil
	case FamilyLogNormal, FamilyShiftedLogNormal:
		l := m.(distuv.LogNormal)
		u.Method, u.Params, u.Time = MethodFisher, []string{"mu", "sigma"}, []bool{false, false}
		u.SE = []float64{l.Sigma / math.Sqrt(nf), l.Sigma / math.Sqrt(2*nf)}
		return u, nil
	}
	var theta [2]float64
	var build func(a, b float64) (model, bool)
	var scale float64 // a size for the step of a parameter at 0
	switch c.Family {
	case FamilyGamma:
		g := c.model.(distuv.Gamma)
		u.Params, u.Time = []string{"shape", "scale"}, []bool{false, true}
		theta = [2]float64{g.Alpha, 1 / g.Beta}
		build = func(a, b float64) (model, bool) { return distuv.Gamma{Alpha: a, Beta: 1 / b}, a > 0 && b > 0 }
	case FamilyWeibull:
		w := c.model.(distuv.Weibull)
		u.Params, u.Time = []string{"shape", "scale"}, []bool{false, true}
		theta = [2]float64{w.K, w.Lambda}
		build = func(a, b float64) (model, bool) { return distuv.Weibull{K: a, Lambda: b}, a > 0 && b > 0 }
	case FamilyNormal:
		t := c.model.(TruncatedNormal)
		if t.Mu == 0 {
			// The half-normal is the boundary of the family: the
			// likelihood's maximum is not a stationary point, and a normal
			// about it would put half its draws outside.
			return u, errors.New("the fit is on the half-normal boundary (mean 0), where the estimate is not normal")
		}
		u.Params, u.Time = []string{"mean", "sd"}, []bool{true, true}
		theta = [2]float64{t.Mu, t.Sigma}
		scale = t.Sigma
		build = func(a, b float64) (model, bool) { return TruncatedNormal{Mu: a, Sigma: b}, b > 0 }
	default:
		return u, nil
	}
	ll := func(a, b float64) float64 {
		m, ok := build(a, b)
		if !ok {
			return math.NaN()
		}
		return logLikelihood(m, sorted)
	}
	cov, err := inverseObservedInformation(ll, theta, scale)
	if err != nil {
		return u, err
	}
	u.Method = MethodFisher
	u.SE = []float64{math.Sqrt(cov[0][0]), math.Sqrt(cov[1][1])}
	u.Corr = cov[0][1] / (u.SE[0] * u.SE[1])
	return u, nil
}

// inverseObservedInformation inverts the negative Hessian of ll at theta,
// taken by central differences with steps hessianStep × |θᵢ| (× scale for
// a parameter at 0).
func inverseObservedInformation(ll func(a, b float64) float64, theta [2]float64, scale float64) ([2][2]float64, error) {
	var h [2]float64
	for i, t := range theta {
		h[i] = hessianStep * math.Abs(t)
		if h[i] == 0 {
			h[i] = hessianStep * scale
		}
		if !(h[i] > 0) {
			return [2][2]float64{}, errors.New("a parameter at 0 leaves no step for the curvature")
		}
	}
	at := func(da, db float64) float64 { return ll(theta[0]+da*h[0], theta[1]+db*h[1]) }
	f0 := at(0, 0)
	jaa := -(at(1, 0) - 2*f0 + at(-1, 0)) / (h[0] * h[0])
	jbb := -(at(0, 1) - 2*f0 + at(0, -1)) / (h[1] * h[1])
	jab := -(at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h[0] * h[1])
	det := jaa*jbb - jab*jab
	if math.IsNaN(det) || !(jaa > 0) || !(det > 0) {
		return [2][2]float64{}, errors.New("the likelihood is not curved downwards at the estimate")
	}
	return [2][2]float64{{jbb / det, -jab / det}, {-jab / det, jaa / det}}, nil
}
