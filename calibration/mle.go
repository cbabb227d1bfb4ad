package calibration

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The maximum-likelihood estimators, one per family. Each takes values in
// seconds and returns the fitted distribution as a gonum distuv value (or,
// for the truncated normal, a type of this package with the same methods);
// each returns an error, never panics, on data it cannot fit.

var (
	errTooFew    = errors.New("needs at least 2 values")
	errNoSpread  = errors.New("all values are equal")
	errNotPos    = errors.New("needs values > 0")
	errNotFinite = errors.New("values must be finite and >= 0")
)

func checkValues(x []float64, positive bool) error {
	if len(x) < 2 {
		return errTooFew
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return errNotFinite
		}
		if positive && v == 0 {
			return errNotPos
		}
	}
	return nil
}

// FitExponential returns the exponential distribution of greatest
// likelihood: rate = 1/mean, through distuv.Exponential.Fit.
func FitExponential(x []float64) (distuv.Exponential, error) {
	if err := checkValues(x, false); err != nil {
		return distuv.Exponential{}, err
	}
	var e distuv.Exponential
	e.Fit(x, nil)
	if !(e.Rate > 0) || math.IsInf(e.Rate, 0) {
		return distuv.Exponential{}, errors.New("mean must be > 0")
	}
	return e, nil
}

// FitLogNormal returns the lognormal of greatest likelihood: mu and sigma
// are the mean and the population standard deviation (divisor n, not n−1)
// of ln x.
func FitLogNormal(x []float64) (distuv.LogNormal, error) {
	if err := checkValues(x, true); err != nil {
		return distuv.LogNormal{}, err
	}
	_, mu, sigma, err := logSpread(x)
	if err != nil {
		return distuv.LogNormal{}, err
	}
	return distuv.LogNormal{Mu: mu, Sigma: sigma}, nil
}

// logSpread returns ln x with its mean and population standard deviation
// (divisor n), or errNoSpread when the logs do not vary.
func logSpread(x []float64) (logs []float64, mean, sd float64, err error) {
	logs = make([]float64, len(x))
	for i, v := range x {
		logs[i] = math.Log(v)
	}
	mean, sd = stat.PopMeanStdDev(logs, nil)
	if !(sd > 0) {
		return nil, 0, 0, errNoSpread
	}
	return logs, mean, sd, nil
}

// FitGamma returns the gamma distribution of greatest likelihood. With
// s = ln(mean x) − mean(ln x), the shape k solves ln k − ψ(k) = s and the
// scale is mean/k. The root is found by Newton's method, f'(k) = 1/k − ψ′(k),
// from the closed-form approximation k₀ = (3 − s + √((s−3)² + 24s)) / 12s
// (Choi & Wette 1969; Minka, "Estimating a Gamma distribution", 2002), which
// is within 1.5% of the root, so a few steps reach full precision. ln k − ψ(k)
// decreases strictly from +∞ to 0, so the root is unique for every s > 0.
func FitGamma(x []float64) (distuv.Gamma, error) {
	if err := checkValues(x, true); err != nil {
		return distuv.Gamma{}, err
	}
	var sumLog float64
	for _, v := range x {
		sumLog += math.Log(v)
	}
	mean := stat.Mean(x, nil)
	s := math.Log(mean) - sumLog/float64(len(x))
	if !(s > 1e-12) {
		return distuv.Gamma{}, errNoSpread
	}
	k := (3 - s + math.Sqrt((s-3)*(s-3)+24*s)) / (12 * s)
	converged := false
	for range 100 {
		f, df := logMinusDigamma(k)
		next := k - (f-s)/df
		if !(next > 0) {
			next = k / 2
		}
		if math.Abs(next-k) <= 1e-12*k {
			k, converged = next, true
			break
		}
		k = next
	}
	if !converged || math.IsNaN(k) || math.IsInf(k, 0) {
		return distuv.Gamma{}, errors.New("the shape estimate did not converge")
	}
	return distuv.Gamma{Alpha: k, Beta: k / mean}, nil
}

// logMinusDigamma returns ln k − ψ(k) and its derivative 1/k − ψ′(k). For
// large k both are differences of nearly equal numbers (ln k − ψ(k) ≈ 1/2k),
// so from k = 10 on they come from their asymptotic series instead
// (Abramowitz & Stegun 6.3.18 and 6.4.12):
//
//	ln k − ψ(k) = 1/2k + 1/12k² − 1/120k⁴ + 1/252k⁶ − 1/240k⁸ + 1/132k¹⁰ − …
//	1/k − ψ′(k) = −1/2k² − 1/6k³ + 1/30k⁵ − 1/42k⁷ + 1/30k⁹ − …
//
// whose first omitted terms are below 1e-13 of the sums at k = 10. This
// keeps the gamma fit exact for the large shapes (cv of a few percent) that
// service times with little spread produce.
func logMinusDigamma(k float64) (f, df float64) {
	if k < 10 {
		return math.Log(k) - mathext.Digamma(k), 1/k - trigamma(k)
	}
	inv := 1 / k
	inv2 := inv * inv
	f = inv/2 + inv2*(1.0/12-inv2*(1.0/120-inv2*(1.0/252-inv2*(1.0/240-inv2/132))))
	df = -inv2/2 - inv*inv2*(1.0/6-inv2*(1.0/30-inv2*(1.0/42-inv2/30)))
	return f, df
}

// trigamma returns ψ′(x) for x > 0: the recurrence ψ′(x) = ψ′(x+1) + 1/x²
// lifts x to at least 10, where the asymptotic series
// 1/x + 1/2x² + 1/6x³ − 1/30x⁵ + 1/42x⁷ − 1/30x⁹ (Abramowitz & Stegun 6.4.12)
// is off by less than its next term, 5/66x¹¹ < 1e-12.
func trigamma(x float64) float64 {
	var acc float64
	for x < 10 {
		acc += 1 / (x * x)
		x++
	}
	inv := 1 / x
	inv2 := inv * inv
	return acc + inv + inv2/2 + inv*inv2*(1.0/6-inv2*(1.0/30-inv2*(1.0/42-inv2/30)))
}

// FitWeibull returns the Weibull distribution of greatest likelihood. With
// z = ln x − mean(ln x), the shape k solves
//
//	g(k) = Σ z·e^{kz} / Σ e^{kz} − 1/k = 0
//
// (the usual likelihood equation, centred so that x^k cannot overflow), and
// the scale is λ = (mean x^k)^{1/k}. g increases strictly from −∞ to max z,
// so the root is unique; it is found by Newton's method kept inside a
// bracket (a step leaving the bracket bisects it instead), starting from
// k₀ = π/(√6·sd(ln x)), the shape whose ln X has the sample's spread.
func FitWeibull(x []float64) (distuv.Weibull, error) {
	if err := checkValues(x, true); err != nil {
		return distuv.Weibull{}, err
	}
	n := float64(len(x))
	z, meanLog, sdLog, err := logSpread(x)
	if err != nil {
		return distuv.Weibull{}, err
	}
	zmax := math.Inf(-1)
	for i := range z {
		z[i] -= meanLog
		zmax = max(zmax, z[i])
	}
	// sums returns Σw, Σzw, Σz²w with w = e^{kz − k·zmax}; the common factor
	// cancels in g and g′ and is restored in the scale.
	sums := func(k float64) (s0, s1, s2 float64) {
		for _, zi := range z {
			w := math.Exp(k * (zi - zmax))
			s0 += w
			s1 += zi * w
			s2 += zi * zi * w
		}
		return s0, s1, s2
	}
	lo, hi := 0.0, math.Inf(1)
	k := math.Pi / (math.Sqrt(6) * sdLog)
	converged := false
	for range 200 {
		s0, s1, s2 := sums(k)
		m1 := s1 / s0
		g := m1 - 1/k
		if g < 0 {
			lo = k
		} else {
			hi = k
		}
		dg := s2/s0 - m1*m1 + 1/(k*k)
		next := k - g/dg
		if !(next > lo && next < hi) {
			if math.IsInf(hi, 1) {
				next = 2 * k
			} else {
				next = (lo + hi) / 2
			}
		}
		if math.Abs(next-k) <= 1e-13*k {
			k, converged = next, true
			break
		}
		k = next
	}
	if !converged {
		return distuv.Weibull{}, errors.New("the shape estimate did not converge")
	}
	s0, _, _ := sums(k)
	lambda := math.Exp(meanLog + zmax + math.Log(s0/n)/k)
	return distuv.Weibull{K: k, Lambda: lambda}, nil
}

// TruncatedNormal is the normal distribution with mean Mu and standard
// deviation Sigma conditioned on X >= 0, the way sim draws normal
// durations: its density is φ((x−μ)/σ) / (σ·Φ(μ/σ)) for x >= 0.
type TruncatedNormal struct {
	Mu, Sigma float64
}

// mass is P(X >= 0) of the untruncated normal, Φ(μ/σ).
func (t TruncatedNormal) mass() float64 {
	return distuv.UnitNormal.CDF(t.Mu / t.Sigma)
}

// CDF returns P(X <= x).
func (t TruncatedNormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	below := distuv.UnitNormal.CDF(-t.Mu / t.Sigma)
	return (distuv.UnitNormal.CDF((x-t.Mu)/t.Sigma) - below) / t.mass()
}

// LogProb returns the log density at x.
func (t TruncatedNormal) LogProb(x float64) float64 {
	if x < 0 {
		return math.Inf(-1)
	}
	return distuv.UnitNormal.LogProb((x-t.Mu)/t.Sigma) - math.Log(t.Sigma) - math.Log(t.mass())
}

// Prob returns the density at x.
func (t TruncatedNormal) Prob(x float64) float64 { return math.Exp(t.LogProb(x)) }

// Quantile returns the p-quantile.
func (t TruncatedNormal) Quantile(p float64) float64 {
	below := distuv.UnitNormal.CDF(-t.Mu / t.Sigma)
	return max(0, t.Mu+t.Sigma*distuv.UnitNormal.Quantile(below+p*t.mass()))
}

// negligibleTruncation is the mass below 0 under which the plain normal MLE
// is taken as the truncated one: the likelihoods then differ by less than
// n·1e-9 in log, far below what ranks candidates.
const negligibleTruncation = 1e-9

// halfNormalCV2 is the squared CV of the half-normal (a normal with mean 0
// truncated at 0), π/2 − 1: the largest a truncated normal with mean >= 0
// can have.
var halfNormalCV2 = math.Pi/2 - 1

// FitNormal returns the normal truncated at 0 of greatest likelihood, with
// Mu >= 0 as sim.Normal requires.
//
// With the truncation point known, the truncated normal is an exponential
// family with sufficient statistics x and x², so its MLE is the
// distribution whose mean and mean square equal the sample's. Writing
// α = −μ/σ and λ = φ(α)/(1 − Φ(α)), the mean is σ(λ − α) and the variance
// σ²(1 + αλ − λ²), so the squared CV depends on α alone,
//
//	cv²(α) = (1 + αλ − λ²) / (λ − α)²,
//
// increasing from 0 (α → −∞) to π/2 − 1 (α = 0, the half-normal). α is
// found by bisection on cv²(α) = the sample's cv², then σ = mean/(λ − α)
// and μ = −ασ. A sample cv² at or beyond π/2 − 1 puts the optimum on the
// boundary μ = 0: the half-normal, whose MLE is σ = √(mean x²). When the
// plain normal fit puts almost no mass below 0 it is the answer.
func FitNormal(x []float64) (TruncatedNormal, error) {
	if err := checkValues(x, false); err != nil {
		return TruncatedNormal{}, err
	}
	var plain distuv.Normal
	plain.Fit(x, nil)
	if !(plain.Sigma > 0) {
		return TruncatedNormal{}, errNoSpread
	}
	if distuv.UnitNormal.CDF(-plain.Mu/plain.Sigma) < negligibleTruncation {
		return TruncatedNormal{Mu: plain.Mu, Sigma: plain.Sigma}, nil
	}
	cv2 := plain.Sigma * plain.Sigma / (plain.Mu * plain.Mu)
	if cv2 >= halfNormalCV2 {
		var ss float64
		for _, v := range x {
			ss += v * v
		}
		return TruncatedNormal{Mu: 0, Sigma: math.Sqrt(ss / float64(len(x)))}, nil
	}
	mills := func(a float64) float64 { return distuv.UnitNormal.Prob(a) / distuv.UnitNormal.Survival(a) }
	cv2At := func(a float64) float64 {
		l := mills(a)
		return (1 + a*l - l*l) / ((l - a) * (l - a))
	}
	// At α = −6.1 the mass below 0 is 5e-10, under negligibleTruncation,
	// so the root lies above it.
	lo, hi := -6.1, 0.0
	for range 200 {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			break
		}
		if cv2At(mid) < cv2 {
			lo = mid
		} else {
			hi = mid
		}
	}
	alpha := (lo + hi) / 2
	sigma := plain.Mu / (mills(alpha) - alpha)
	return TruncatedNormal{Mu: -alpha * sigma, Sigma: sigma}, nil
}

// Shifted families: a floor θ under which no value falls (a fixed round
// trip, a minimum amount of work) plus a variable part. θ is estimated
// slightly below the smallest value, as is standard for a threshold: the
// smallest of n values overshoots the floor by about one n-th of the
// variable part's mean.

// FitShiftedExponential returns the floor and the exponential above it of
// the unbiased estimators: with m = x̄ − x₍₁₎, θ = x₍₁₎ − m/(n−1) and mean
// m·n/(n−1) (the maximum-likelihood θ = x₍₁₎ and mean m, each corrected for
// its bias). An error when θ would be negative: the values show no floor.
func FitShiftedExponential(x []float64) (float64, distuv.Exponential, error) {
	if err := checkValues(x, false); err != nil {
		return 0, distuv.Exponential{}, err
	}
	lo := slices.Min(x)
	n := float64(len(x))
	m := stat.Mean(x, nil) - lo
	if !(m > 0) {
		return 0, distuv.Exponential{}, errNoSpread
	}
	shift := lo - m/(n-1)
	if !(shift > 0) {
		return 0, distuv.Exponential{}, errNoFloor
	}
	return shift, distuv.Exponential{Rate: (n - 1) / (n * m)}, nil
}

var errNoFloor = errors.New("the values show no floor above 0")

// FitShiftedLogNormal returns the floor θ and the lognormal of x − θ of
// greatest likelihood, θ kept at most one expected spacing, (x̄ − x₍₁₎)/n,
// below the smallest value. For a given θ the lognormal's mu and sigma are
// the mean and population sd of ln(x − θ), so the log-likelihood is, up to
// a constant, the profile ℓ(θ) = −n·(μ(θ) + ln σ(θ)). ℓ is searched on a grid
// of the allowed θ and refined by golden section around the best point; the
// cap keeps the search off the spike the likelihood of a threshold has at
// the smallest value itself (Hill 1963), where it describes one value, not
// the distribution.
func FitShiftedLogNormal(x []float64) (float64, distuv.LogNormal, error) {
	if err := checkValues(x, true); err != nil {
		return 0, distuv.LogNormal{}, err
	}
	lo := slices.Min(x)
	n := float64(len(x))
	top := lo - (stat.Mean(x, nil)-lo)/n
	if !(top > 0) {
		return 0, distuv.LogNormal{}, errNoFloor
	}
	logs := make([]float64, len(x))
	fit := func(theta float64) (mu, sigma float64) {
		for i, v := range x {
			logs[i] = math.Log(v - theta)
		}
		return stat.PopMeanStdDev(logs, nil)
	}
	profile := func(theta float64) float64 {
		mu, sigma := fit(theta)
		if !(sigma > 0) {
			return math.Inf(-1)
		}
		return -n * (mu + math.Log(sigma))
	}
	const grid = 64
	best, bestLL := 0.0, profile(0)
	for i := 1; i <= grid; i++ {
		if th := top * float64(i) / grid; profile(th) > bestLL {
			best, bestLL = th, profile(th)
		}
	}
	a, b := max(0, best-top/grid), min(top, best+top/grid)
	invPhi := (math.Sqrt(5) - 1) / 2
	for range 60 {
		c, d := b-invPhi*(b-a), a+invPhi*(b-a)
		if profile(c) >= profile(d) {
			b = d
		} else {
			a = c
		}
	}
	if th := (a + b) / 2; profile(th) > bestLL {
		best = th
	}
	if !(best > 0) {
		return 0, distuv.LogNormal{}, errNoFloor
	}
	mu, sigma := fit(best)
	if !(sigma > 0) {
		return 0, distuv.LogNormal{}, errNoSpread
	}
	return best, distuv.LogNormal{Mu: mu, Sigma: sigma}, nil
}
