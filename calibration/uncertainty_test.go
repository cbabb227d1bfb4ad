package calibration

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

func fitChosen(t *testing.T, x []float64, family string) (*Result, Uncertainty) {
	t.Helper()
	res, err := Fit(x, nil, FitOptions{Choose: family})
	if err != nil {
		t.Fatal(err)
	}
	u, err := SamplingUncertainty(res.Chosen, res.Sorted)
	if err != nil {
		t.Fatal(err)
	}
	return res, u
}

// The exponential's observed information at the estimate is n/mean², so
// se(mean) = mean/√n exactly; the lognormal's is that of a normal on ln x.
func TestUncertaintyClosedForms(t *testing.T) {
	x := draw(400, 3, func(r *rand.Rand) float64 { return 2 * r.ExpFloat64() })
	res, u := fitChosen(t, x, FamilyExponential)
	mean := 1 / res.Chosen.model.(distuv.Exponential).Rate
	if u.Method != MethodFisher || u.N != 400 || len(u.SE) != 1 || u.Params[0] != "mean" || !u.Time[0] {
		t.Fatalf("exponential uncertainty = %+v", u)
	}
	checkParam(t, "se(mean)", u.SE[0], mean/20, 1e-12)

	x = draw(200, 4, func(r *rand.Rand) float64 { return math.Exp(0.5 + 0.3*r.NormFloat64()) })
	res, u = fitChosen(t, x, FamilyLogNormal)
	l := res.Chosen.model.(distuv.LogNormal)
	checkParam(t, "se(mu)", u.SE[0], l.Sigma/math.Sqrt(200), 1e-12)
	checkParam(t, "se(sigma)", u.SE[1], l.Sigma/math.Sqrt(400), 1e-12)
}

// At the gamma's estimate the observed information equals the expected
// one, n·[[ψ′(k), 1/θ], [1/θ, k/θ²]], whose inverse gives
// var(k) = k / (n(kψ′(k) − 1)) and corr(k, θ) = −1/√(kψ′(k)); the central
// differences must reproduce them (to the parameters' six printed digits,
// which leave the gradient not quite 0).
func TestUncertaintyGammaMatchesFisher(t *testing.T) {
	x := draw(300, 5, func(r *rand.Rand) float64 {
		return distuv.Gamma{Alpha: 4, Beta: 2, Src: r}.Rand()
	})
	res, u := fitChosen(t, x, FamilyGamma)
	g := res.Chosen.model.(distuv.Gamma)
	k, theta := g.Alpha, 1/g.Beta
	tri := trigamma(k)
	n := 300.0
	wantK := math.Sqrt(k / (n * (k*tri - 1)))
	wantTheta := math.Sqrt(tri * theta * theta / (n * (k*tri - 1)))
	checkParam(t, "se(shape)", u.SE[0], wantK, 1e-3)
	checkParam(t, "se(scale)", u.SE[1], wantTheta, 1e-3)
	checkParam(t, "corr", u.Corr, -1/math.Sqrt(k*tri), 1e-3)
}

// For the families whose standard errors come from central differences,
// the spread of the estimates over many samples must match the standard
// error reported for one: 300 samples of 200, the sd of the 300 estimates
// against the median reported se, within 15 % (the sd of 300 draws is
// itself uncertain by about 4 %, and the asymptotic se is off by a few %
// at n = 200).
func TestUncertaintyMatchesSpreadOfEstimates(t *testing.T) {
	cases := []struct {
		family string
		gen    func(r *rand.Rand) float64
	}{
		{FamilyWeibull, func(r *rand.Rand) float64 { return distuv.Weibull{K: 1.5, Lambda: 2, Src: r}.Rand() }},
		{FamilyNormal, func(r *rand.Rand) float64 {
			for {
				if v := 1 + 0.8*r.NormFloat64(); v >= 0 {
					return v
				}
			}
		}},
		{FamilyGamma, func(r *rand.Rand) float64 { return distuv.Gamma{Alpha: 2, Beta: 1, Src: r}.Rand() }},
	}
	for _, c := range cases {
		t.Run(c.family, func(t *testing.T) {
			t.Parallel()
			var est [2][]float64
			var se [2][]float64
			for rep := range 300 {
				x := draw(200, uint64(1000+rep), c.gen)
				res, err := Fit(x, nil, FitOptions{Choose: c.family})
				if err != nil {
					t.Fatal(err)
				}
				u, err := SamplingUncertainty(res.Chosen, res.Sorted)
				if err != nil {
					t.Fatalf("rep %d: %v", rep, err)
				}
				a, b := estimates(res.Chosen)
				est[0], est[1] = append(est[0], a), append(est[1], b)
				se[0], se[1] = append(se[0], u.SE[0]), append(se[1], u.SE[1])
			}
			for i := range 2 {
				sd := stat.StdDev(est[i], nil)
				med := median(se[i])
				if math.Abs(med/sd-1) > 0.15 {
					t.Errorf("parameter %d: median se %.4g, sd of estimates %.4g", i, med, sd)
				}
			}
		})
	}
}

func estimates(c *Candidate) (float64, float64) {
	switch m := c.model.(type) {
	case distuv.Weibull:
		return m.K, m.Lambda
	case distuv.Gamma:
		return m.Alpha, 1 / m.Beta
	case TruncatedNormal:
		return m.Mu, m.Sigma
	}
	panic("no parameters")
}

func median(x []float64) float64 {
	y := append([]float64(nil), x...)
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if y[j] < y[i] {
				y[i], y[j] = y[j], y[i]
			}
		}
	}
	return y[len(y)/2]
}

// An empirical fit records n and is resampled; a uniform records n alone.
func TestUncertaintyWithoutStandardErrors(t *testing.T) {
	x := draw(50, 6, func(r *rand.Rand) float64 { return 1 + r.Float64() })
	_, u := fitChosen(t, x, FamilyEmpirical)
	if u.Method != MethodBootstrap || u.N != 50 || u.SE != nil {
		t.Errorf("empirical: %+v", u)
	}
	_, u = fitChosen(t, x, FamilyUniform)
	if u.Method != "" || u.N != 50 || u.SE != nil {
		t.Errorf("uniform: %+v", u)
	}
}

// For a floor plus a lognormal or an exponential, what a run reads of the
// distribution is its mean and its tail. Over 300 samples of 400 values
// from a known shifted distribution, the sd of the fitted distributions'
// mean and p95 (the real sampling spread) must match the sd of the mean
// and p95 of 2,000 distributions drawn, as a sweep with --uncertainty
// draws them, from one sample's uncertainty (the median over the samples),
// within 15 %.
func TestUncertaintyShiftedMatchesSpread(t *testing.T) {
	const z95 = 1.6448536269514722
	cases := []struct {
		family string
		gen    func(r *rand.Rand) float64
		// mean and p95 of the floor and the part above it, given the
		// parameters the uncertainty draws (the others as fitted).
		stats func(c *Candidate, x []float64) (float64, float64)
	}{
		{FamilyShiftedLogNormal, func(r *rand.Rand) float64 { return 0.02 + math.Exp(-4.9+0.6*r.NormFloat64()) },
			func(c *Candidate, x []float64) (float64, float64) {
				floor := c.model.(shifted).shift
				return floor + math.Exp(x[0]+x[1]*x[1]/2), floor + math.Exp(x[0]+z95*x[1])
			}},
		{FamilyShiftedExponential, func(r *rand.Rand) float64 { return 2 + 0.5*r.ExpFloat64() },
			func(c *Candidate, x []float64) (float64, float64) {
				floor := c.model.(shifted).shift
				return floor + x[0], floor + x[0]*math.Log(20)
			}},
	}
	for _, c := range cases {
		t.Run(c.family, func(t *testing.T) {
			t.Parallel()
			var fitted, drawn [2][]float64
			for rep := range 300 {
				x := draw(400, uint64(2000+rep), c.gen)
				res, err := Fit(x, nil, FitOptions{Choose: c.family})
				if err != nil {
					t.Fatal(err)
				}
				u, err := SamplingUncertainty(res.Chosen, res.Sorted)
				if err != nil || u.Method != MethodFisher {
					t.Fatalf("rep %d: %+v, %v", rep, u, err)
				}
				var est []float64 // in the order of u.Params
				switch m := res.Chosen.model.(shifted).m.(type) {
				case distuv.LogNormal:
					est = []float64{m.Mu, m.Sigma}
				case distuv.Exponential:
					est = []float64{1 / m.Rate}
				}
				mean, p95 := c.stats(res.Chosen, est)
				fitted[0], fitted[1] = append(fitted[0], mean), append(fitted[1], p95)
				rng := rand.New(rand.NewPCG(uint64(rep), 7))
				var means, p95s []float64
				for range 2000 {
					x := make([]float64, len(est))
					for i := range x {
						x[i] = est[i] + u.SE[i]*rng.NormFloat64() // uncorrelated: corr is 0 for both
					}
					m, q := c.stats(res.Chosen, x)
					means, p95s = append(means, m), append(p95s, q)
				}
				drawn[0], drawn[1] = append(drawn[0], stat.StdDev(means, nil)), append(drawn[1], stat.StdDev(p95s, nil))
			}
			for i, name := range []string{"mean", "p95"} {
				real, claimed := stat.StdDev(fitted[i], nil), median(drawn[i])
				if math.Abs(claimed/real-1) > 0.15 {
					t.Errorf("%s: drawn distributions spread %.4g, fitted ones over samples %.4g", name, claimed, real)
				}
			}
		})
	}
}
