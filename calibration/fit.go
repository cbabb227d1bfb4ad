package calibration

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"capsim/sim"
)

// The candidate families, in the order they are tried and listed when tied.
const (
	FamilyLogNormal   = "lognormal"
	FamilyGamma       = "gamma"
	FamilyWeibull     = "weibull"
	FamilyNormal      = "normal"
	FamilyExponential = "exponential"
	FamilyEmpirical   = "empirical"
	FamilyConstant    = "constant"
	FamilyUniform     = "uniform"

	// The shifted families, a floor plus the family (shifted.go).
	FamilyShiftedLogNormal   = "lognormal+shift"
	FamilyShiftedExponential = "exponential+shift"
)

// Families lists the parametric families fitted by maximum likelihood.
var Families = []string{FamilyLogNormal, FamilyGamma, FamilyWeibull, FamilyNormal, FamilyExponential}

// RankBy selects how candidates are ordered.
type RankBy string

const (
	// RankAIC orders by Akaike's information criterion, 2k − 2 ln L: the
	// likelihood the fits maximised, with a penalty per parameter. It is the
	// default because it compares families on the same footing as the
	// fitting itself.
	RankAIC RankBy = "aic"
	// RankKS orders by the Kolmogorov–Smirnov distance, the largest gap
	// between the fitted and the observed CDF, which weighs the body of the
	// distribution more than its tails.
	RankKS RankBy = "ks"
)

// FitOptions adjust Fit. The zero value fits every family in Families and
// ranks by AIC.
type FitOptions struct {
	Families []string // families to try; nil means Families
	Rank     RankBy   // "" means RankAIC
	// Choose forces the chosen family (one of Families, "uniform" or
	// "empirical") instead of the best ranked; the ranking is still
	// reported.
	Choose string

	// Resolution is the granularity of the values in seconds (0: exact).
	// Raw holds them before negative ones within the resolution were
	// clamped to 0, and Roundings counts the roundings to that resolution
	// each went through. Values within a few quanta of 0 are then fitted by
	// moments instead of by maximum likelihood: see fitByMoments.
	Resolution float64
	Raw        []float64
	Roundings  int

	// Statuses holds each value's HTTP status (0 when unknown), to warn
	// when failures were timed; nil when there are none.
	Statuses []int
}

// Candidate is one fitted family.
type Candidate struct {
	Family string
	// Dist is the fitted distribution, its parameters rounded to the six
	// significant digits it prints with; LogLik, AIC and KS are computed
	// for exactly this rounded distribution.
	Dist   sim.Dist
	K      int // number of fitted parameters
	LogLik float64
	AIC    float64
	KS     float64
	// Err says why the family could not be fitted; the other fields are
	// then zero.
	Err error
	// ByMoments is true for a fit by moments of coarsely logged values, to
	// which LogLik, AIC and KS do not apply.
	ByMoments bool
	model     model
}

// HasDensity reports whether the candidate is a fitted family with a
// density and quantiles (not the empirical distribution or a constant).
func (c *Candidate) HasDensity() bool { return c.model != nil && c.Family != FamilyEmpirical }

// Scored reports whether the candidate's KS and AIC are measures of its
// fit: it has a density and was fitted by likelihood, not by the moments
// of coarsely logged values.
func (c *Candidate) Scored() bool { return c.HasDensity() && !c.ByMoments }

// Density is the fitted density at x (seconds), 0 where it is undefined.
func (c *Candidate) Density(x float64) float64 {
	if !c.HasDensity() || x <= 0 {
		return 0
	}
	p := math.Exp(c.model.LogProb(x))
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return 0
	}
	return p
}

// Quantile is the fitted p-quantile in seconds, NaN without a model.
func (c *Candidate) Quantile(p float64) float64 {
	if !c.HasDensity() {
		return math.NaN()
	}
	return c.model.Quantile(p)
}

// model is what goodness of fit and plots need of a fitted distribution.
type model interface {
	CDF(x float64) float64
	LogProb(x float64) float64
	Quantile(p float64) float64
}

// Observed summarises the values fitted.
type Observed struct {
	N                       int
	Mean, SD, CV            float64
	Min, P50, P95, P99, Max float64
}

// Result is the outcome of Fit.
type Result struct {
	Observed Observed
	// Candidates are ordered best first by Rank; families that could not
	// be fitted come last, with Err set.
	Candidates []Candidate
	Rank       RankBy
	// Chosen is the distribution to use: the best candidate, the family
	// forced by FitOptions.Choose, or a constant when the values do not
	// vary. RunnerUp is the next best candidate, nil when there is none.
	Chosen   *Candidate
	RunnerUp *Candidate
	Warnings []Warning
	// Sorted holds the values fitted, ascending, after the adjustment of
	// zeros described in the warnings.
	Sorted []float64
}

// Fit fits the candidate families to values (seconds, >= 0) and ranks them.
// times, when not nil, holds each value's Unix time (NaN when unknown) and is
// used only to look for latency climbing over the recording. Problems that do
// not prevent a fit are returned as Result.Warnings.
func Fit(values, times []float64, opts FitOptions) (*Result, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("no values to fit")
	}
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("value %g is not a duration (negative or not finite)", v)
		}
		if err := withinClock(v); err != nil {
			return nil, err
		}
	}
	families := opts.Families
	if families == nil {
		families = Families
	}
	for _, f := range families {
		if !slices.Contains(Choosable, f) || f == FamilyEmpirical {
			return nil, fmt.Errorf("unknown family %q (want one of %v)", f, Families)
		}
	}
	if (opts.Choose == FamilyUniform || slices.Contains(ShiftedFamilies, opts.Choose)) && !slices.Contains(families, opts.Choose) {
		families = append(slices.Clone(families), opts.Choose)
	}
	if opts.Choose != "" && opts.Choose != FamilyEmpirical && !slices.Contains(families, opts.Choose) {
		return nil, fmt.Errorf("cannot choose %q: not among the families fitted %v", opts.Choose, families)
	}
	rank := opts.Rank
	if rank == "" {
		rank = RankAIC
	}
	if rank != RankAIC && rank != RankKS {
		return nil, fmt.Errorf("unknown ranking %q (want aic or ks)", rank)
	}

	x := slices.Clone(values)
	slices.Sort(x)
	res := &Result{Rank: rank, Observed: observe(x)}
	if x[0] == x[len(x)-1] {
		c := Candidate{Family: FamilyConstant, Dist: sim.Constant(round6(x[0]))}
		res.Chosen, res.Sorted = &c, x
		res.Warnings = append(res.Warnings, warnf(WarnNoSpread,
			"all %d values are %ss: no family can be fitted; the constant is used", len(x), SecondsText(x[0])))
		return res, nil
	}
	orig := slices.Clone(x)
	if x[0] == 0 {
		res.Warnings = append(res.Warnings, replaceZeros(x))
	}
	if opts.Families == nil && hasFloor(x) {
		for _, f := range ShiftedFamilies {
			if !slices.Contains(families, f) {
				families = append(slices.Clone(families), f)
			}
		}
	}
	for _, f := range families {
		res.Candidates = append(res.Candidates, fitFamily(f, x))
	}
	slices.SortStableFunc(res.Candidates, func(a, b Candidate) int {
		if (a.Err == nil) != (b.Err == nil) {
			if a.Err == nil {
				return -1
			}
			return 1
		}
		if a.Err != nil {
			return 0
		}
		if rank == RankKS {
			return cmp.Or(cmp.Compare(a.KS, b.KS), cmp.Compare(a.AIC, b.AIC))
		}
		return cmp.Or(cmp.Compare(a.AIC, b.AIC), cmp.Compare(a.KS, b.KS))
	})
	var fitted []*Candidate
	for i := range res.Candidates {
		if res.Candidates[i].Err == nil {
			fitted = append(fitted, &res.Candidates[i])
		}
	}
	switch {
	case opts.Choose == FamilyEmpirical:
		d, err := sim.Empirical(orig)
		if err != nil {
			return nil, err
		}
		res.Chosen = &Candidate{Family: FamilyEmpirical, Dist: d, model: empiricalModel(orig)}
		if len(fitted) > 0 {
			res.RunnerUp = fitted[0]
		}
	case opts.Choose != "":
		for i, c := range fitted {
			if c.Family == opts.Choose {
				res.Chosen = c
				if i == 0 && len(fitted) > 1 {
					res.RunnerUp = fitted[1]
				} else if i > 0 {
					res.RunnerUp = fitted[0]
				}
			}
		}
		if res.Chosen == nil {
			for _, c := range res.Candidates {
				if c.Family == opts.Choose {
					return nil, fmt.Errorf("%s cannot be fitted to these values: %v", c.Family, c.Err)
				}
			}
		}
	case len(fitted) == 0:
		return nil, fmt.Errorf("no family could be fitted: %v", res.Candidates[0].Err)
	default:
		res.Chosen = fitted[0]
		if len(fitted) > 1 {
			res.RunnerUp = fitted[1]
		}
	}
	if opts.Choose == "" && opts.Resolution > 0 && len(opts.Raw) == len(values) && res.Observed.Mean < coarseQuanta*opts.Resolution {
		c, w := fitByMoments(opts.Raw, opts.Resolution, opts.Roundings)
		res.RunnerUp, res.Chosen = res.Chosen, c
		// The zeros were not fitted as half a quantum after all.
		res.Warnings = slices.DeleteFunc(res.Warnings, func(w Warning) bool { return w.Kind == WarnZeros })
		res.Warnings = append(res.Warnings, w)
	}
	res.Sorted = x
	if w, ok := MixedStatuses(opts.Statuses); ok {
		res.Warnings = append(res.Warnings, w)
	}
	res.Warnings = append(res.Warnings, diagnose(res, times, values)...)
	return res, nil
}

// coarseQuanta: when the mean of the values is within this many quanta of
// the resolution, most values sit on the first few points of the lattice
// (0, 1 ms, 2 ms for nginx) and a likelihood over the recorded values fits
// the lattice, not the durations: the zeros alone, fitted as half the
// smallest positive value, put a floor of about half a quantum under the
// fitted mean.
const coarseQuanta = 5

// fitByMoments fits values logged at a resolution too coarse for their
// size. Rounding errors of a uniformly placed quantum have mean 0, so the
// mean of the unclamped values estimates the true mean without bias; each
// rounding adds q²/12 to the variance, which Sheppard's correction
// subtracts (Kendall & Stuart, The Advanced Theory of Statistics, vol. 1,
// §3.18). A gamma with that mean and variance is used, unless the corrected
// standard deviation is under one quantum: a spread finer than the
// resolution cannot be told from the rounding (and from other noise of the
// clock, such as a cached time), so only the mean is known and the constant
// mean is used.
func fitByMoments(raw []float64, q float64, roundings int) (*Candidate, Warning) {
	mean, sd := stat.PopMeanStdDev(raw, nil)
	mean = max(mean, 0)
	roundings = max(roundings, 1)
	variance := sd*sd - float64(roundings)*q*q/12
	how := fmt.Sprintf("values within %d quanta of 0 at the %ss resolution: fitted by moments (mean %ss of the unclamped values; variance less %d roundings of q²/12, Sheppard's correction), not by maximum likelihood",
		coarseQuanta, SecondsText(q), SecondsText(mean), roundings)
	if mean > 0 && variance >= q*q {
		shape, scale := round6(mean*mean/variance), round6(variance/mean)
		if d, err := sim.Gamma(shape, scale); err == nil {
			g := distuv.Gamma{Alpha: shape, Beta: 1 / scale}
			return &Candidate{Family: FamilyGamma, Dist: d, model: g, K: 2, ByMoments: true}, warnf(WarnResolution, "%s", how)
		}
	}
	c := &Candidate{Family: FamilyConstant, Dist: sim.Constant(round6(mean)), ByMoments: true}
	return c, warnf(WarnResolution, "%s; the spread left is under one quantum, so the constant mean is used", how)
}

// replaceZeros replaces values of 0 — durations below the timer's resolution,
// such as nginx's 1 ms — by half the smallest positive value, so that the
// families defined on x > 0 can be fitted and compared on the same data.
func replaceZeros(x []float64) Warning {
	zeros := 0
	for x[zeros] == 0 {
		zeros++
	}
	half := x[zeros] / 2
	for i := range zeros {
		x[i] = half
	}
	return warnf(WarnZeros, "%d of %d values are 0 (below the timer's resolution); they were fitted as %ss, half the smallest positive value",
		zeros, len(x), SecondsText(half))
}

func observe(sorted []float64) Observed {
	mean, sd := stat.PopMeanStdDev(sorted, nil)
	o := Observed{
		N: len(sorted), Mean: mean, SD: sd,
		Min: sorted[0], Max: sorted[len(sorted)-1],
		P50: stat.Quantile(0.5, stat.Empirical, sorted, nil),
		P95: stat.Quantile(0.95, stat.Empirical, sorted, nil),
		P99: stat.Quantile(0.99, stat.Empirical, sorted, nil),
	}
	if mean > 0 {
		o.CV = sd / mean
	}
	return o
}

// fitFamily fits one family to sorted, rounds its parameters as they will be
// printed, and measures the rounded distribution.
func fitFamily(family string, sorted []float64) Candidate {
	c := Candidate{Family: family}
	var err error
	switch family {
	case FamilyExponential:
		var e distuv.Exponential
		if e, err = FitExponential(sorted); err == nil {
			mean := round6(1 / e.Rate)
			e = distuv.Exponential{Rate: 1 / mean}
			c.model, c.K = e, 1
			c.Dist, err = sim.Exponential(mean)
		}
	case FamilyNormal:
		var t TruncatedNormal
		if t, err = FitNormal(sorted); err == nil {
			t = TruncatedNormal{Mu: round6(t.Mu), Sigma: round6(t.Sigma)}
			c.model, c.K = t, 2
			c.Dist, err = sim.Normal(t.Mu, t.Sigma)
		}
	case FamilyLogNormal:
		var l distuv.LogNormal
		if l, err = FitLogNormal(sorted); err == nil {
			l = distuv.LogNormal{Mu: round6(l.Mu), Sigma: round6(l.Sigma)}
			c.model, c.K = l, 2
			c.Dist, err = sim.LogNormal(l.Mu, l.Sigma)
		}
	case FamilyGamma:
		var g distuv.Gamma
		if g, err = FitGamma(sorted); err == nil {
			shape, scale := round6(g.Alpha), round6(1/g.Beta)
			g = distuv.Gamma{Alpha: shape, Beta: 1 / scale}
			c.model, c.K = g, 2
			c.Dist, err = sim.Gamma(shape, scale)
		}
	case FamilyUniform:
		// The maximum-likelihood uniform spans the observed range; its
		// bounds are rounded outwards so that every value keeps a density.
		lo, hi := roundOut(sorted[0], -1), roundOut(sorted[len(sorted)-1], 1)
		c.model, c.K = distuv.Uniform{Min: lo, Max: hi}, 2
		c.Dist, err = sim.Uniform(lo, hi)
	case FamilyShiftedExponential:
		var e distuv.Exponential
		var shift float64
		if shift, e, err = FitShiftedExponential(sorted); err == nil {
			// Rounded down, so that no value falls below the floor.
			shift, mean := roundOut(shift, -1), round6(1/e.Rate)
			c.model, c.K = shifted{distuv.Exponential{Rate: 1 / mean}, shift}, 2
			if c.Dist, err = sim.Exponential(mean); err == nil {
				c.Dist, err = c.Dist.Shifted(shift)
			}
		}
	case FamilyShiftedLogNormal:
		var l distuv.LogNormal
		var shift float64
		if shift, l, err = FitShiftedLogNormal(sorted); err == nil {
			shift, l = roundOut(shift, -1), distuv.LogNormal{Mu: round6(l.Mu), Sigma: round6(l.Sigma)}
			c.model, c.K = shifted{l, shift}, 3
			if c.Dist, err = sim.LogNormal(l.Mu, l.Sigma); err == nil {
				c.Dist, err = c.Dist.Shifted(shift)
			}
		}
	case FamilyWeibull:
		var w distuv.Weibull
		if w, err = FitWeibull(sorted); err == nil {
			w = distuv.Weibull{K: round6(w.K), Lambda: round6(w.Lambda)}
			c.model, c.K = w, 2
			c.Dist, err = sim.Weibull(w.K, w.Lambda)
		}
	}
	if err != nil {
		return Candidate{Family: family, Err: err}
	}
	c.LogLik = logLikelihood(c.model, sorted)
	c.AIC = AIC(c.LogLik, c.K)
	c.KS = KS(sorted, c.model.CDF)
	return c
}

func logLikelihood(m model, x []float64) float64 {
	var ll float64
	for _, v := range x {
		ll += m.LogProb(v)
	}
	return ll
}

// AIC returns Akaike's information criterion, 2k − 2 ln L, for a model with
// k fitted parameters and maximised log-likelihood logLik.
func AIC(logLik float64, k int) float64 {
	return 2*float64(k) - 2*logLik
}

// KS returns the one-sample Kolmogorov–Smirnov statistic of sorted values
// against cdf: the largest distance between cdf and the empirical CDF,
//
//	D = max over i of max(i/n − F(x_i), F(x_i) − (i−1)/n),  i = 1..n.
//
// sorted must be in ascending order.
func KS(sorted []float64, cdf func(float64) float64) float64 {
	n := float64(len(sorted))
	var d float64
	for i, x := range sorted {
		f := cdf(x)
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}

// ksCritical05 approximates the 5% critical value of the KS distance for n
// values, 1.358/√n (the asymptotic Kolmogorov distribution). With parameters
// estimated from the same data the true critical value is smaller (Lilliefors
// 1967), so exceeding this one is strong evidence of a poor fit.
func ksCritical05(n int) float64 { return 1.358 / math.Sqrt(float64(n)) }

// round6 rounds v to six significant digits, the precision parameters are
// printed with: enough for any timing measured, short enough to read.
func round6(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// roundOut rounds v to six significant digits away from the inside of a
// range: down for a lower bound (dir < 0), up for an upper one.
func roundOut(v float64, dir int) float64 {
	r := round6(v)
	for i := 0; i < 4 && (dir < 0 && r > v || dir > 0 && r < v); i++ {
		step := math.Abs(v) * 1e-6
		if step == 0 {
			return v
		}
		r = round6(r + float64(dir)*step)
	}
	return r
}

// empiricalModel is the step CDF of the observed values, for plots.
type empiricalModel []float64

func (e empiricalModel) CDF(x float64) float64 {
	i, _ := slices.BinarySearchFunc(e, x, func(a, b float64) int {
		if a <= b {
			return -1
		}
		return 1
	})
	return float64(i) / float64(len(e))
}

func (e empiricalModel) LogProb(float64) float64 { return math.NaN() }

func (e empiricalModel) Quantile(p float64) float64 {
	return stat.Quantile(p, stat.Empirical, e, nil)
}
