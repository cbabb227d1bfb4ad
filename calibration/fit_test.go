package calibration

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Round-trip tests: draw from a known distribution with a seeded PCG stream,
// fit, and recover the parameters. With n = 100 000 draws the standard error
// of every parameter below is under 0.5% (about σ/√n for lognormal μ, shape
// ×√(2/n) for gamma, 0.78·shape/√n for Weibull), so the tolerances allow
// about five standard errors; the seeds make the outcome exact anyway.
const roundTripN = 100_000

func draw(n int, seed uint64, r func(*rand.Rand) float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	x := make([]float64, n)
	for i := range x {
		x[i] = r(rng)
	}
	return x
}

// mustFit fits x, failing the test when the fit cannot be made.
func mustFit[D any](t *testing.T, fit func([]float64) (D, error), x []float64) D {
	t.Helper()
	d, err := fit(x)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkParam fails when got is not within tol (relative) of want, or within
// tol absolutely when want is 0.
func checkParam(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	diff := math.Abs(got - want)
	if want != 0 {
		diff /= math.Abs(want)
	}
	if !(diff <= tol) {
		t.Errorf("%s = %.6g, want %.6g within %g", name, got, want, tol)
	}
}

func TestFitExponentialRoundTrip(t *testing.T) {
	t.Parallel()
	x := draw(roundTripN, 1, func(r *rand.Rand) float64 { return 1.5 * r.ExpFloat64() })
	e := mustFit(t, FitExponential, x)
	checkParam(t, "mean", 1/e.Rate, 1.5, 0.015)
}

func TestFitLogNormalRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mu, sigma float64 }{{-0.62, 0.29}, {3.6, 0.2}, {0, 1.2}} {
		x := draw(roundTripN, 2, func(r *rand.Rand) float64 { return math.Exp(c.mu + c.sigma*r.NormFloat64()) })
		l := mustFit(t, FitLogNormal, x)
		if math.Abs(l.Mu-c.mu) > 5*c.sigma/math.Sqrt(roundTripN) {
			t.Errorf("mu = %.6g, want %.6g", l.Mu, c.mu)
		}
		checkParam(t, "sigma", l.Sigma, c.sigma, 0.015)
	}
}

func TestFitGammaRoundTrip(t *testing.T) {
	t.Parallel()
	for i, c := range []struct{ shape, scale float64 }{{2, 0.5}, {0.4, 3}, {24.1, 1.64}} {
		x := draw(roundTripN, uint64(10+i), func(r *rand.Rand) float64 {
			return distuv.Gamma{Alpha: c.shape, Beta: 1 / c.scale, Src: r}.Rand()
		})
		g := mustFit(t, FitGamma, x)
		checkParam(t, "shape", g.Alpha, c.shape, 0.03)
		checkParam(t, "scale", 1/g.Beta, c.scale, 0.03)
	}
}

func TestFitWeibullRoundTrip(t *testing.T) {
	t.Parallel()
	for i, c := range []struct{ shape, scale float64 }{{1.5, 2}, {0.7, 0.05}, {8, 40}} {
		x := draw(roundTripN, uint64(20+i), func(r *rand.Rand) float64 {
			return distuv.Weibull{K: c.shape, Lambda: c.scale}.Quantile(r.Float64())
		})
		w := mustFit(t, FitWeibull, x)
		checkParam(t, "shape", w.K, c.shape, 0.02)
		checkParam(t, "scale", w.Lambda, c.scale, 0.02)
	}
}

func TestFitNormalRoundTrip(t *testing.T) {
	t.Parallel()
	// The first case is barely truncated; the second loses 31% of its mass
	// below 0 and is recovered only by the truncated likelihood (the plain
	// sample mean of its draws is about 0.97, not 0.5).
	for i, c := range []struct{ mean, sd float64 }{{1, 0.2}, {0.5, 1}} {
		x := draw(roundTripN, uint64(30+i), func(r *rand.Rand) float64 {
			for {
				if v := c.mean + c.sd*r.NormFloat64(); v >= 0 {
					return v
				}
			}
		})
		n := mustFit(t, FitNormal, x)
		checkParam(t, "mean", n.Mu, c.mean, 0.05)
		checkParam(t, "sd", n.Sigma, c.sd, 0.03)
	}
}

func TestFitNormalHalfNormalBoundary(t *testing.T) {
	t.Parallel()
	// |N(0, 2)| has cv² = π/2 − 1, the boundary: the fit must land on
	// mean 0 (sim.Normal refuses a negative mean) with sd ≈ 2.
	x := draw(roundTripN, 40, func(r *rand.Rand) float64 { return math.Abs(2 * r.NormFloat64()) })
	n := mustFit(t, FitNormal, x)
	if n.Mu < 0 || n.Mu > 0.1 {
		t.Errorf("mean = %g, want in [0, 0.1]", n.Mu)
	}
	checkParam(t, "sd", n.Sigma, 2, 0.03)
}

func TestTrigamma(t *testing.T) {
	t.Parallel()
	// ψ′(1) = π²/6 and ψ′(1/2) = π²/2 (Abramowitz & Stegun 6.4.2, 6.4.4);
	// ψ′(10) = π²/6 − Σ_{k=1}^{9} 1/k² by the recurrence.
	sum := 0.0
	for k := 1; k <= 9; k++ {
		sum += 1 / float64(k*k)
	}
	for _, c := range []struct{ x, want float64 }{{1, math.Pi * math.Pi / 6}, {0.5, math.Pi * math.Pi / 2}, {10, math.Pi*math.Pi/6 - sum}} {
		if got := trigamma(c.x); math.Abs(got-c.want) > 1e-10*c.want {
			t.Errorf("trigamma(%g) = %.15g, want %.15g", c.x, got, c.want)
		}
	}
}

// TestKSAndAICByHand pins the goodness-of-fit numbers on samples small
// enough to check with a pocket calculator.
func TestKSAndAICByHand(t *testing.T) {
	t.Parallel()
	// {1, 2, 3}: the exponential MLE has mean 2. ln L = 3 ln ½ − 3 =
	// −5.0794415, AIC = 2·1 − 2 ln L = 12.158883. The KS distance is
	// F(1) − 0 = 1 − e^{−1/2} = 0.39346934.
	r, err := Fit([]float64{3, 1, 2}, nil, FitOptions{Families: []string{FamilyExponential}})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Candidates[0]
	if got := c.Dist.String(); got != "exponential(mean=2s)" {
		t.Errorf("dist = %s", got)
	}
	if math.Abs(c.AIC-12.158883) > 1e-6 || math.Abs(c.KS-0.39346934) > 1e-8 {
		t.Errorf("AIC = %.8g, KS = %.8g; want 12.158883, 0.39346934", c.AIC, c.KS)
	}
	// {1, e, e²}: the lognormal MLE has μ = 1, σ = √(2/3) = 0.816497.
	// ln L = −3/2 − Σ ln x − 3 ln σ − (3/2) ln 2π = −6.6486179, so AIC =
	// 17.297236; KS = 1/3 − Φ(−1/σ) = 1/3 − 0.1103357 = 0.2229977.
	r, err = Fit([]float64{1, math.E, math.E * math.E}, nil, FitOptions{Families: []string{FamilyLogNormal}})
	if err != nil {
		t.Fatal(err)
	}
	c = r.Candidates[0]
	if got := c.Dist.String(); got != "lognormal(mu=1, sigma=0.816497)" {
		t.Errorf("dist = %s", got)
	}
	// 1e-5: σ is rounded to six digits before AIC and KS are computed.
	if math.Abs(c.AIC-17.297236) > 1e-5 || math.Abs(c.KS-0.2229977) > 1e-6 {
		t.Errorf("AIC = %.8g, KS = %.8g; want 17.297236, 0.2229977", c.AIC, c.KS)
	}
}

func TestFitRanksAndChooses(t *testing.T) {
	t.Parallel()
	x := draw(5000, 50, func(r *rand.Rand) float64 { return math.Exp(3.6 + 0.2*r.NormFloat64()) })
	r, err := Fit(x, nil, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Chosen.Family != FamilyLogNormal {
		t.Errorf("chosen %s, want lognormal", r.Chosen.Family)
	}
	if r.RunnerUp == nil || r.RunnerUp == r.Chosen {
		t.Fatalf("runner-up %v", r.RunnerUp)
	}
	for i := 1; i < len(r.Candidates); i++ {
		if r.Candidates[i].Err == nil && r.Candidates[i].AIC < r.Candidates[i-1].AIC {
			t.Errorf("candidates not in AIC order: %v", r.Candidates)
		}
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings on a clean lognormal sample: %v", r.Warnings)
	}
	forced, err := Fit(x, nil, FitOptions{Choose: FamilyGamma})
	if err != nil {
		t.Fatal(err)
	}
	if forced.Chosen.Family != FamilyGamma || forced.RunnerUp.Family != FamilyLogNormal {
		t.Errorf("forced gamma: chosen %s, runner-up %s", forced.Chosen.Family, forced.RunnerUp.Family)
	}
	emp, err := Fit(x, nil, FitOptions{Choose: FamilyEmpirical})
	if err != nil {
		t.Fatal(err)
	}
	if emp.Chosen.Family != FamilyEmpirical || !strings.HasPrefix(emp.Chosen.Dist.String(), "empirical(n=5000") {
		t.Errorf("empirical: %s", emp.Chosen.Dist)
	}
}

func TestFitWarnings(t *testing.T) {
	t.Parallel()
	kinds := func(ws []Warning) map[WarningKind]bool {
		m := map[WarningKind]bool{}
		for _, w := range ws {
			m[w.Kind] = true
		}
		return m
	}

	small := draw(12, 60, func(r *rand.Rand) float64 { return math.Exp(r.NormFloat64()) })
	r, err := Fit(small, nil, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !kinds(r.Warnings)[WarnSmallSample] {
		t.Errorf("12 values: no small-sample warning in %v", r.Warnings)
	}

	// A lognormal body with 3% of values 30 times slower: the tail no
	// family of the body can carry.
	tail := draw(2000, 61, func(r *rand.Rand) float64 {
		v := math.Exp(-2 + 0.3*r.NormFloat64())
		if r.Float64() < 0.03 {
			v *= 30
		}
		return v
	})
	r, err = Fit(tail, nil, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(r.Warnings); !k[WarnHeavyTail] || !k[WarnPoorFit] {
		t.Errorf("contaminated tail: want heavy-tail and poor-fit warnings, got %v", r.Warnings)
	}

	// Latency that doubles over an hour of recording, as a queue builds.
	var vals, times []float64
	rng := rand.New(rand.NewPCG(62, 62))
	for i := range 600 {
		tm := 1.7e9 + float64(i)*6
		vals = append(vals, (1+float64(i)/600)*math.Exp(0.1*rng.NormFloat64()))
		times = append(times, tm)
	}
	r, err = Fit(vals, times, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !kinds(r.Warnings)[WarnSaturation] {
		t.Errorf("climbing latency: no saturation warning in %v", r.Warnings)
	}
	// The same values in shuffled time order show no trend.
	rng.Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
	r, err = Fit(vals, times, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if kinds(r.Warnings)[WarnSaturation] {
		t.Errorf("shuffled times: unexpected saturation warning %v", r.Warnings)
	}

	// nginx-style millisecond values with zeros.
	ms := draw(500, 63, func(r *rand.Rand) float64 { return math.Round(1000*0.003*r.ExpFloat64()) / 1000 })
	r, err = Fit(ms, nil, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(r.Warnings); !k[WarnZeros] || !k[WarnQuantised] {
		t.Errorf("rounded values with zeros: want zeros and quantised warnings, got %v", r.Warnings)
	}
}

func TestFitDegenerateAndBadInput(t *testing.T) {
	t.Parallel()
	r, err := Fit([]float64{0.5, 0.5, 0.5}, nil, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Chosen.Dist.String(); got != "constant(0.5s)" || r.Warnings[0].Kind != WarnNoSpread {
		t.Errorf("equal values: chosen %s, warnings %v", got, r.Warnings)
	}
	for _, c := range []struct {
		x    []float64
		want string
	}{
		{nil, "no values to fit"},
		{[]float64{1, -2}, "value -2 is not a duration (negative or not finite)"},
		{[]float64{1, math.NaN()}, "value NaN is not a duration (negative or not finite)"},
		{[]float64{1, 1e305}, "value 1e+305s passes 100 years, the longest time capsim simulates"},
	} {
		if _, err := Fit(c.x, nil, FitOptions{}); err == nil || err.Error() != c.want {
			t.Errorf("Fit(%v) error %v, want %q", c.x, err, c.want)
		}
	}
	if _, err := Fit([]float64{1, 2}, nil, FitOptions{Rank: "bic"}); err == nil || err.Error() != `unknown ranking "bic" (want aic or ks)` {
		t.Errorf("rank bic: %v", err)
	}
	if _, err := FitGamma([]float64{0, 1}); err != errNotPos {
		t.Errorf("FitGamma with a zero: %v", err)
	}
	if _, err := FitWeibull([]float64{2, 2, 2}); err != errNoSpread {
		t.Errorf("FitWeibull of equal values: %v", err)
	}
}
