package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// distKind selects the family of a Dist. Sampling switches on it rather than
// calling through an interface so that the hot path stays inlinable and free
// of allocation.
type distKind uint8

const (
	kindNone distKind = iota
	kindConstant
	kindUniform
	kindExponential
	kindNormal
	kindLogNormal
	kindGamma
	kindWeibull
	kindEmpirical
)

// Dist is a probability distribution of non-negative values, in seconds when
// they are durations. It is a small value: copy it freely. The zero Dist is
// "no distribution"; test for it with IsZero.
//
// The meaning of the two parameters depends on the family:
//
//	constant     a = value
//	uniform      a = lo, b = hi
//	exponential  a = mean
//	normal       a = mean, b = sd (of the untruncated normal)
//	lognormal    a = mu, b = sigma (of ln X)
//	gamma        a = shape, b = scale
//	weibull      a = shape, b = scale
//	empirical    a = mean, b = population sd of table
//
// shift is added to every draw of the family (see Shifted); the two
// parameters always describe the family before the shift.
type Dist struct {
	kind  distKind
	a, b  float64
	shift float64
	table []float64 // empirical only: the observed values, sorted, never mutated
}

// z95 is the 0.95 quantile of the standard normal, the link between a p95
// and the parameters of a lognormal.
var z95 = distuv.UnitNormal.Quantile(0.95)

// Constant returns the distribution that always yields v. A constant is
// usually written by hand in code rather than read from a scenario, so an
// invalid v is a programming error: Constant panics if v is negative, NaN or
// infinite.
func Constant(v float64) Dist {
	if err := checkNonNegative("constant", "value", v); err != nil {
		panic(err)
	}
	return Dist{kind: kindConstant, a: v}
}

// Uniform returns the continuous uniform distribution on [lo, hi).
// It requires 0 <= lo < hi; use Constant for a single value.
func Uniform(lo, hi float64) (Dist, error) {
	if err := checkNonNegative("uniform", "lo", lo); err != nil {
		return Dist{}, err
	}
	if err := checkFinite("uniform", "hi", hi); err != nil {
		return Dist{}, err
	}
	if !(hi > lo) {
		return Dist{}, fmt.Errorf("uniform: max must be > min, got min=%g, max=%g", lo, hi)
	}
	return Dist{kind: kindUniform, a: lo, b: hi}, nil
}

// Exponential returns the exponential distribution with the given mean.
func Exponential(mean float64) (Dist, error) {
	return checked(Dist{kind: kindExponential, a: mean}, checkPositive("exponential", "mean", mean))
}

// Normal returns a normal distribution truncated at 0: a draw below 0 is
// discarded and drawn again, so no negative value ever comes out. Mean, CV
// and Quantile describe that truncated distribution, so Mean() exceeds mean
// when sd is not small next to mean.
//
// mean must be >= 0. That keeps at least half of the untruncated mass above 0,
// so a draw needs on average at most two tries; a negative mean could make
// rejection arbitrarily slow.
func Normal(mean, sd float64) (Dist, error) {
	return checked(Dist{kind: kindNormal, a: mean, b: sd},
		checkNonNegative("normal", "mean", mean), checkPositive("normal", "sd", sd))
}

// LogNormal returns the distribution of X where ln X is normal with mean mu
// and standard deviation sigma.
func LogNormal(mu, sigma float64) (Dist, error) {
	return checked(Dist{kind: kindLogNormal, a: mu, b: sigma},
		checkFinite("lognormal", "mu", mu), checkPositive("lognormal", "sigma", sigma))
}

// Gamma returns the gamma distribution with the given shape k and scale θ:
// mean kθ, variance kθ².
func Gamma(shape, scale float64) (Dist, error) {
	return checked(Dist{kind: kindGamma, a: shape, b: scale},
		checkPositive("gamma", "shape", shape), checkPositive("gamma", "scale", scale))
}

// Weibull returns the Weibull distribution with the given shape k and scale
// λ: P(X > x) = exp(-(x/λ)^k).
func Weibull(shape, scale float64) (Dist, error) {
	return checked(Dist{kind: kindWeibull, a: shape, b: scale},
		checkPositive("weibull", "shape", shape), checkPositive("weibull", "scale", scale))
}

// Empirical returns the distribution that resamples the observed values, each
// with probability 1/len(values). The values are copied, so the caller may
// reuse the slice.
func Empirical(values []float64) (Dist, error) {
	if len(values) == 0 {
		return Dist{}, errors.New("empirical: values must not be empty")
	}
	for i, v := range values {
		if err := checkNonNegative("empirical", fmt.Sprintf("values[%d]", i), v); err != nil {
			return Dist{}, err
		}
	}
	table := slices.Clone(values)
	slices.Sort(table)
	mean, sd := stat.PopMeanStdDev(table, nil)
	return Dist{kind: kindEmpirical, a: mean, b: sd, table: table}, nil
}

// Shifted returns the distribution of s + X: every draw of d moved later by
// s, as a service time with a floor (a fixed network round trip, a minimum
// amount of work) plus a variable part. The mean and every quantile grow by
// s, the standard deviation stays, so the CV falls. A shift adds to one d
// already has, and a constant's is its value. s must be finite and >= 0,
// so no draw is ever negative; d must not be the zero Dist.
func (d Dist) Shifted(s float64) (Dist, error) {
	if d.kind == kindNone {
		return Dist{}, errors.New("shift: of no distribution")
	}
	if !(s >= 0) || math.IsInf(s, 1) {
		return Dist{}, fmt.Errorf("shift must be finite and >= 0, got %g", s)
	}
	if d.kind == kindConstant {
		d.a += s
		return d, nil
	}
	d.shift += s
	return d, nil
}

// Shift returns the fixed time every draw of d includes, 0 for an unshifted
// distribution.
func (d Dist) Shift() float64 { return d.shift }

// maxLogNormalP95OverMean is the largest p95/mean a lognormal can have.
// With r = ln(p95/mean), the parameters satisfy r = z95·σ − σ²/2, whose
// right-hand side peaks at σ = z95 with value z95²/2.
var maxLogNormalP95OverMean = math.Exp(z95 * z95 / 2)

// LogNormalMeanP95 returns the lognormal with the given mean and 0.95
// quantile, as monitoring dashboards report them. It solves
//
//	mean = exp(μ + σ²/2),  p95 = exp(μ + z95·σ)
//
// which reduces to σ²/2 − z95·σ + ln(p95/mean) = 0. Of the two roots it takes
// the smaller σ, the one with the lighter tail: the larger root describes a
// distribution whose mean is carried by rare huge values, which is not what a
// service with that mean and p95 usually looks like. A solution exists only
// when mean < p95 <= exp(z95²/2)·mean ≈ 3.868·mean.
func LogNormalMeanP95(mean, p95 float64) (Dist, error) {
	if err := checkPositive("lognormal", "mean", mean); err != nil {
		return Dist{}, err
	}
	if err := checkPositive("lognormal", "p95", p95); err != nil {
		return Dist{}, err
	}
	if !(p95 > mean) {
		return Dist{}, fmt.Errorf("lognormal: p95 must be > mean, got mean=%g, p95=%g", mean, p95)
	}
	ratio := p95 / mean
	if ratio > maxLogNormalP95OverMean {
		return Dist{}, fmt.Errorf("lognormal: p95/mean must be <= %.4g (the largest a lognormal allows), got %g", maxLogNormalP95OverMean, ratio)
	}
	r := math.Log(ratio)
	// σ = z − √(z² − 2r), rewritten so that it does not cancel when r is
	// small. At the bound, rounding can push z² − 2r a hair below 0.
	sigma := 2 * r / (z95 + math.Sqrt(max(0, z95*z95-2*r)))
	return Dist{kind: kindLogNormal, a: math.Log(mean) - sigma*sigma/2, b: sigma}, nil
}

// LogNormalP50P95 returns the lognormal with the given median and 0.95
// quantile: μ = ln p50, σ = ln(p95/p50)/z95.
func LogNormalP50P95(p50, p95 float64) (Dist, error) {
	if err := checkPositive("lognormal", "p50", p50); err != nil {
		return Dist{}, err
	}
	if err := checkPositive("lognormal", "p95", p95); err != nil {
		return Dist{}, err
	}
	if !(p95 > p50) {
		return Dist{}, fmt.Errorf("lognormal: p95 must be > p50, got p50=%g, p95=%g", p50, p95)
	}
	return Dist{kind: kindLogNormal, a: math.Log(p50), b: math.Log(p95/p50) / z95}, nil
}

// LogNormalMeanCV returns the lognormal with the given mean and coefficient
// of variation: σ² = ln(1 + cv²), μ = ln mean − σ²/2.
func LogNormalMeanCV(mean, cv float64) (Dist, error) {
	s2 := math.Log1p(cv * cv)
	return checked(Dist{kind: kindLogNormal, a: math.Log(mean) - s2/2, b: math.Sqrt(s2)},
		checkPositive("lognormal", "mean", mean), checkPositive("lognormal", "cv", cv))
}

// GammaMeanCV returns the gamma with the given mean and coefficient of
// variation: shape = 1/cv², scale = mean·cv².
func GammaMeanCV(mean, cv float64) (Dist, error) {
	return checked(Dist{kind: kindGamma, a: 1 / (cv * cv), b: mean * cv * cv},
		checkPositive("gamma", "mean", mean), checkPositive("gamma", "cv", cv))
}

// gammaP95OverMean is p95/mean of any gamma with the given shape; the scale
// cancels out.
func gammaP95OverMean(shape float64) float64 {
	return distuv.Gamma{Alpha: shape, Beta: 1}.Quantile(0.95) / shape
}

// Bounds of the search for the shape at which gammaP95OverMean peaks. The
// ratio is unimodal in the shape: it tends to 0 as the shape tends to 0 (the
// mass piles up at 0 and the mean is carried by a thin tail), to 1 as the
// shape grows (the distribution concentrates on its mean), and peaks at about
// 5.83 near shape 0.088. Both bounds sit where it is far below the peak.
const (
	gammaPeakSearchLo = 1e-3
	gammaPeakSearchHi = 10.0
)

// gammaMaxShape caps the shape GammaMeanP95 will consider. p95/mean − 1
// shrinks like z95/√shape, so this only rejects p95/mean below 1 + 5.2e-8,
// where the gamma quantile itself loses accuracy.
const gammaMaxShape = 1e15

// gammaPeak returns the shape at which p95/mean is largest, and that largest
// ratio, by golden-section search on the logarithm of the shape. gonum's
// optimize.Minimize could do it, but it times itself with the wall clock,
// which the kernel never reads.
func gammaPeak() (shape, ratio float64) {
	invPhi := (math.Sqrt(5) - 1) / 2
	lo, hi := math.Log(gammaPeakSearchLo), math.Log(gammaPeakSearchHi)
	x1 := hi - invPhi*(hi-lo)
	x2 := lo + invPhi*(hi-lo)
	f1, f2 := gammaP95OverMean(math.Exp(x1)), gammaP95OverMean(math.Exp(x2))
	for hi-lo > 1e-9 {
		if f1 > f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - invPhi*(hi-lo)
			f1 = gammaP95OverMean(math.Exp(x1))
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + invPhi*(hi-lo)
			f2 = gammaP95OverMean(math.Exp(x2))
		}
	}
	if f1 > f2 {
		return math.Exp(x1), f1
	}
	return math.Exp(x2), f2
}

// GammaMeanP95 returns the gamma with the given mean and 0.95 quantile.
// For a fixed mean, p95/mean depends on the shape alone; it rises from 0 to
// a peak of about 5.83 near shape 0.088 and then falls towards 1. Each ratio
// below the peak is thus reached by two shapes; GammaMeanP95 takes the larger
// one (the smaller cv), for the same reason LogNormalMeanP95 takes the
// smaller σ. The shape is found by bisection on its logarithm, using gonum's
// gamma quantile, to full float64 precision.
func GammaMeanP95(mean, p95 float64) (Dist, error) {
	if err := checkPositive("gamma", "mean", mean); err != nil {
		return Dist{}, err
	}
	if err := checkPositive("gamma", "p95", p95); err != nil {
		return Dist{}, err
	}
	if !(p95 > mean) {
		return Dist{}, fmt.Errorf("gamma: p95 must be > mean, got mean=%g, p95=%g", mean, p95)
	}
	target := p95 / mean
	peakShape, peakRatio := gammaPeak()
	if target > peakRatio {
		return Dist{}, fmt.Errorf("gamma: p95/mean must be <= %.4g (the largest a gamma allows), got %g", peakRatio, target)
	}
	lo, hi := peakShape, 2*peakShape
	for gammaP95OverMean(hi) >= target {
		lo, hi = hi, 2*hi
		if hi > gammaMaxShape {
			return Dist{}, fmt.Errorf("gamma: p95/mean must be >= %.10g to be solved accurately, got %.10g", gammaP95OverMean(gammaMaxShape), target)
		}
	}
	// Invariant: ratio(lo) >= target > ratio(hi).
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if !(mid > lo && mid < hi) {
			break
		}
		if gammaP95OverMean(mid) >= target {
			lo = mid
		} else {
			hi = mid
		}
	}
	shape := lo
	if math.Abs(gammaP95OverMean(hi)-target) < math.Abs(gammaP95OverMean(lo)-target) {
		shape = hi
	}
	return Dist{kind: kindGamma, a: shape, b: mean / shape}, nil
}

// Sample draws one value using r. It does not allocate for constant, uniform,
// exponential, normal, lognormal, weibull and empirical distributions.
// Sample panics on the zero Dist. Each case adds the shift itself, so that a
// draw stays one call. The receiver is a pointer: a Dist is seven words,
// which a value receiver loads on every draw, whether the case reads them
// or not.
//
// The exponential, the commonest family by far (arrivals, service times),
// is drawn here and the rest in sample: the common draw skips the jump
// table and the large frame the rarer families need (gonum's gamma is
// inlined there).
func (d *Dist) Sample(r *rand.Rand) float64 {
	if d.kind == kindExponential {
		return d.shift + d.a*r.ExpFloat64()
	}
	return d.sample(r)
}

func (d *Dist) sample(r *rand.Rand) float64 {
	switch d.kind {
	case kindConstant:
		return d.shift + d.a
	case kindUniform:
		return d.shift + d.a + (d.b-d.a)*r.Float64()
	case kindExponential:
		return d.shift + d.a*r.ExpFloat64()
	case kindNormal:
		for {
			if x := d.a + d.b*r.NormFloat64(); x >= 0 {
				return d.shift + x
			}
		}
	case kindLogNormal:
		return d.shift + math.Exp(d.a+d.b*r.NormFloat64())
	case kindGamma:
		return d.shift + distuv.Gamma{Alpha: d.a, Beta: 1 / d.b, Src: r}.Rand()
	case kindWeibull:
		// gonum's Weibull.Rand is this same inversion of one uniform draw, but
		// it wraps the source in a new rand.Rand on every call.
		return d.shift + d.weibull().Quantile(r.Float64())
	case kindEmpirical:
		return d.shift + d.table[r.IntN(len(d.table))]
	}
	panic("sim: Sample of the zero Dist")
}

func (d Dist) weibull() distuv.Weibull { return distuv.Weibull{K: d.a, Lambda: d.b} }

func (d Dist) gamma() distuv.Gamma { return distuv.Gamma{Alpha: d.a, Beta: 1 / d.b} }

func (d Dist) logNormal() distuv.LogNormal { return distuv.LogNormal{Mu: d.a, Sigma: d.b} }

// normalTruncation returns α = −mean/sd, the standardised truncation point,
// and the inverse Mills ratio φ(α)/(1−Φ(α)) of the truncated normal.
func (d Dist) normalTruncation() (alpha, mills float64) {
	alpha = -d.a / d.b
	return alpha, distuv.UnitNormal.Prob(alpha) / distuv.UnitNormal.Survival(alpha)
}

// Mean returns the expected value, NaN for the zero Dist.
func (d Dist) Mean() float64 { return d.shift + d.unshiftedMean() }

func (d Dist) unshiftedMean() float64 {
	switch d.kind {
	case kindConstant, kindExponential, kindEmpirical:
		return d.a
	case kindUniform:
		return (d.a + d.b) / 2
	case kindNormal:
		_, mills := d.normalTruncation()
		return d.a + d.b*mills
	case kindLogNormal:
		return d.logNormal().Mean()
	case kindGamma:
		return d.a * d.b
	case kindWeibull:
		return d.weibull().Mean()
	}
	return math.NaN()
}

// stdDev returns the standard deviation, NaN for the zero Dist. A shift
// moves every draw alike and leaves it as it is.
func (d Dist) stdDev() float64 {
	switch d.kind {
	case kindConstant:
		return 0
	case kindUniform:
		return (d.b - d.a) / math.Sqrt(12)
	case kindExponential:
		return d.a
	case kindNormal:
		// Variance of a normal truncated below at α (in sd units):
		// sd²·(1 + α·λ − λ²) with λ the inverse Mills ratio.
		alpha, mills := d.normalTruncation()
		return d.b * math.Sqrt(1+alpha*mills-mills*mills)
	case kindLogNormal:
		return d.logNormal().StdDev()
	case kindGamma:
		return math.Sqrt(d.a) * d.b
	case kindWeibull:
		return d.weibull().StdDev()
	case kindEmpirical:
		return d.b
	}
	return math.NaN()
}

// CV returns the coefficient of variation, standard deviation over mean.
// A distribution without spread has CV 0, even when its mean is 0.
// CV is NaN for the zero Dist.
func (d Dist) CV() float64 {
	sd := d.stdDev()
	if sd == 0 {
		return 0
	}
	return sd / d.Mean()
}

// Quantile returns the smallest x with P(X <= x) >= p. It returns NaN for
// the zero Dist or for p outside [0, 1], and +Inf for p = 1 when the
// distribution is unbounded. For an empirical distribution it is the
// ⌈p·n⌉-th smallest observed value.
func (d Dist) Quantile(p float64) float64 { return d.shift + d.unshiftedQuantile(p) }

func (d Dist) unshiftedQuantile(p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	switch d.kind {
	case kindConstant:
		return d.a
	case kindUniform:
		return distuv.Uniform{Min: d.a, Max: d.b}.Quantile(p)
	case kindExponential:
		return distuv.Exponential{Rate: 1 / d.a}.Quantile(p)
	case kindNormal:
		if p == 1 {
			// below+p·above can round to just under 1, which would turn an
			// unbounded quantile into a merely large one.
			return math.Inf(1)
		}
		// Map p into the part of the untruncated normal that lies above 0.
		alpha, _ := d.normalTruncation()
		below := distuv.UnitNormal.CDF(alpha)
		above := distuv.UnitNormal.Survival(alpha)
		return max(0, d.a+d.b*distuv.UnitNormal.Quantile(below+p*above))
	case kindLogNormal:
		return d.logNormal().Quantile(p)
	case kindGamma:
		return d.gamma().Quantile(p)
	case kindWeibull:
		return d.weibull().Quantile(p)
	case kindEmpirical:
		return stat.Quantile(p, stat.Empirical, d.table, nil)
	}
	return math.NaN()
}

// IsZero reports whether d is the zero Dist, which holds no distribution.
func (d Dist) IsZero() bool { return d.kind == kindNone }

// String returns d in scenario syntax, parameters formatted with %g and
// durations suffixed with "s", a shift as a last parameter shift=. The text
// of every family but empirical reads back to the same distribution. The
// zero Dist prints as "none".
func (d Dist) String() string {
	s := d.unshiftedString()
	if d.shift == 0 || d.kind == kindNone {
		return s
	}
	return fmt.Sprintf("%s, shift=%gs)", s[:len(s)-1], d.shift)
}

func (d Dist) unshiftedString() string {
	switch d.kind {
	case kindConstant:
		return fmt.Sprintf("constant(%gs)", d.a)
	case kindUniform:
		return fmt.Sprintf("uniform(%gs, %gs)", d.a, d.b)
	case kindExponential:
		return fmt.Sprintf("exponential(mean=%gs)", d.a)
	case kindNormal:
		return fmt.Sprintf("normal(mean=%gs, sd=%gs)", d.a, d.b)
	case kindLogNormal:
		return fmt.Sprintf("lognormal(mu=%g, sigma=%g)", d.a, d.b)
	case kindGamma:
		return fmt.Sprintf("gamma(shape=%g, scale=%gs)", d.a, d.b)
	case kindWeibull:
		return fmt.Sprintf("weibull(shape=%g, scale=%gs)", d.a, d.b)
	case kindEmpirical:
		return fmt.Sprintf("empirical(n=%d)", len(d.table))
	}
	return "none"
}

// Scale returns the distribution of f·X: the same shape with every value
// multiplied by f, so its mean and quantiles are multiplied by f and its CV is
// unchanged. A shift is a time like the rest and is scaled too: the whole
// draw is multiplied. Scale(0) is constant(0). f must be finite and >= 0; Scale panics
// otherwise, as a negative factor would yield negative durations.
func (d Dist) Scale(f float64) Dist {
	if err := checkNonNegative("scale", "factor", f); err != nil {
		panic(err)
	}
	if d.kind == kindNone || f == 1 {
		return d
	}
	if f == 0 {
		return Constant(0)
	}
	d.shift *= f
	switch d.kind {
	case kindConstant, kindExponential:
		d.a *= f
	case kindUniform, kindNormal:
		d.a *= f
		d.b *= f
	case kindLogNormal:
		d.a += math.Log(f)
	case kindGamma, kindWeibull:
		d.b *= f
	case kindEmpirical:
		table := make([]float64, len(d.table))
		for i, v := range d.table {
			table[i] = v * f
		}
		d.table = table
		d.a *= f
		d.b *= f
	}
	return d
}

// checked is d, or the first error of the checks of its parameters, which
// its constructor lists in the order the parameters are written.
func checked(d Dist, checks ...error) (Dist, error) {
	for _, err := range checks {
		if err != nil {
			return Dist{}, err
		}
	}
	return d, nil
}

func checkFinite(family, name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s must be finite, got %g", family, name, v)
	}
	return nil
}

func checkPositive(family, name string, v float64) error {
	if err := checkFinite(family, name, v); err != nil {
		return err
	}
	if !(v > 0) {
		return fmt.Errorf("%s: %s must be > 0, got %g", family, name, v)
	}
	return nil
}

func checkNonNegative(family, name string, v float64) error {
	if err := checkFinite(family, name, v); err != nil {
		return err
	}
	if !(v >= 0) {
		return fmt.Errorf("%s: %s must be >= 0, got %g", family, name, v)
	}
	return nil
}
