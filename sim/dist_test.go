package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func mustDist(d Dist, err error) Dist {
	if err != nil {
		panic(err)
	}
	return d
}

func closeRel(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Abs(want)
}

// samplingCases are checked draw by draw against their own Mean, CV and
// Quantile. Each family appears in a regime that exercises a different code
// path: small gamma shapes use gonum's small-shape sampler, a normal with mean
// near 0 is heavily truncated.
var samplingCases = []struct {
	name string
	dist Dist
}{
	{"uniform", mustDist(Uniform(1, 3))},
	{"exponential", mustDist(Exponential(1.5))},
	{"normal far from 0", mustDist(Normal(1, 0.2))},
	{"normal truncated", mustDist(Normal(0.5, 0.5))},
	{"half normal", mustDist(Normal(0, 1))},
	{"lognormal narrow", mustDist(LogNormal(-0.62, 0.29))},
	{"lognormal wide", mustDist(LogNormal(0, 0.8))},
	{"gamma shape 2", mustDist(Gamma(2, 0.5))},
	{"gamma shape 0.5", mustDist(Gamma(0.5, 2))},
	{"gamma shape 0.15", mustDist(Gamma(0.15, 4))},
	{"weibull shape 1.5", mustDist(Weibull(1.5, 2))},
	{"weibull shape 0.7", mustDist(Weibull(0.7, 1))},
	{"empirical", mustDist(Empirical([]float64{0.1, 0.2, 0.2, 0.3, 0.5, 0.8, 1.3, 2.1, 3.4, 5.5}))},
	{"shifted exponential", mustDist(mustDist(Exponential(1.5)).Shifted(2))},
	{"shifted lognormal", mustDist(mustDist(LogNormal(-0.62, 0.29)).Shifted(0.25))},
	{"shifted gamma shape 0.5", mustDist(mustDist(Gamma(0.5, 2)).Shifted(1))},
	{"shifted truncated normal", mustDist(mustDist(Normal(0.5, 0.5)).Shifted(3))},
}

// With n = 1e5 draws every estimate below has a standard error computable
// from the draws or the distribution; allowing 5 standard errors makes a
// spurious failure of any one check a one-in-a-million event for a fresh
// seed (the seed is fixed, so the outcome is reproducible), while a wrong
// formula (a mean off by a few percent, a truncation ignored) misses by
// tens of standard errors.
const (
	sampleN      = 100000
	sampleSigmas = 5
)

func TestSampleMatchesMeanCVAndQuantile(t *testing.T) {
	for _, tc := range samplingCases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.dist
			r := rand.New(rand.NewPCG(1, 2))
			xs := make([]float64, sampleN)
			for i := range xs {
				xs[i] = d.Sample(r)
				if !(xs[i] >= 0) {
					t.Fatalf("draw %d = %g, want >= 0", i, xs[i])
				}
			}
			mean, variance := stat.MeanVariance(xs, nil)
			sd := d.Mean() * d.CV()

			// Standard error of the sample mean: sd/√n.
			if se := sd / math.Sqrt(sampleN); math.Abs(mean-d.Mean()) > sampleSigmas*se {
				t.Errorf("sample mean %.6g, Mean() %.6g, more than %d standard errors (%.3g) apart",
					mean, d.Mean(), sampleSigmas, se)
			}
			// Standard error of the sample variance: √((μ4 − σ⁴)/n), with
			// the fourth central moment estimated from the draws.
			m4 := stat.MomentAbout(4, xs, mean, nil)
			if se := math.Sqrt((m4 - variance*variance) / sampleN); math.Abs(variance-sd*sd) > sampleSigmas*se {
				t.Errorf("sample variance %.6g, (Mean()·CV())² %.6g, more than %d standard errors (%.3g) apart",
					variance, sd*sd, sampleSigmas, se)
			}
			// The fraction of draws at or below Quantile(p) is a binomial
			// proportion with standard error √(p(1−p)/n). For the discrete
			// empirical distribution P(X <= Quantile(p)) is the next atom's
			// cumulative probability, so compare with that instead of p.
			for _, p := range []float64{0.05, 0.5, 0.95} {
				q := d.Quantile(p)
				want := p
				if d.kind == kindEmpirical {
					want = stat.CDF(q, stat.Empirical, d.table, nil)
				}
				below := 0
				for _, x := range xs {
					if x <= q {
						below++
					}
				}
				frac := float64(below) / sampleN
				if se := math.Sqrt(want * (1 - want) / sampleN); math.Abs(frac-want) > sampleSigmas*se {
					t.Errorf("fraction of draws <= Quantile(%g) = %.6g is %.5f, want %.5f ± %.5f",
						p, q, frac, want, sampleSigmas*se)
				}
			}
		})
	}
}

func TestAnalyticMomentsAndQuantiles(t *testing.T) {
	// Closed forms, computed independently of gonum; 1e-12 relative leaves
	// room for the rounding of special functions only.
	const tol = 1e-12
	halfNormal := mustDist(Normal(0, 1))
	checks := []struct {
		name      string
		got, want float64
	}{
		{"uniform mean", mustDist(Uniform(1, 3)).Mean(), 2},
		{"uniform cv", mustDist(Uniform(1, 3)).CV(), 1 / math.Sqrt(12)},
		{"uniform q0.25", mustDist(Uniform(1, 3)).Quantile(0.25), 1.5},
		{"exponential cv", mustDist(Exponential(1.5)).CV(), 1},
		{"exponential median", mustDist(Exponential(1.5)).Quantile(0.5), 1.5 * math.Ln2},
		{"half-normal mean", halfNormal.Mean(), math.Sqrt(2 / math.Pi)},
		{"half-normal cv", halfNormal.CV(), math.Sqrt(1-2/math.Pi) / math.Sqrt(2/math.Pi)},
		// Φ⁻¹(0.75), the median of |Z|.
		{"half-normal median", halfNormal.Quantile(0.5), 0.6744897501960817},
		{"lognormal mean", mustDist(LogNormal(0.3, 0.5)).Mean(), math.Exp(0.3 + 0.125)},
		{"lognormal cv", mustDist(LogNormal(0.3, 0.5)).CV(), math.Sqrt(math.Expm1(0.25))},
		{"lognormal median", mustDist(LogNormal(0.3, 0.5)).Quantile(0.5), math.Exp(0.3)},
		{"gamma mean", mustDist(Gamma(2, 0.5)).Mean(), 1},
		{"gamma cv", mustDist(Gamma(2, 0.5)).CV(), 1 / math.Sqrt2},
		// Gamma(1, θ) is exponential: p95 = θ·ln 20.
		{"gamma shape 1 p95", mustDist(Gamma(1, 2)).Quantile(0.95), 2 * math.Log(20)},
		{"weibull mean", mustDist(Weibull(1.5, 2)).Mean(), 2 * math.Gamma(1+1/1.5)},
		{"weibull median", mustDist(Weibull(1.5, 2)).Quantile(0.5), 2 * math.Pow(math.Ln2, 1/1.5)},
		{"weibull shape 1 cv", mustDist(Weibull(1, 3)).CV(), 1},
		{"constant mean", Constant(2.5).Mean(), 2.5},
		{"constant q0.99", Constant(2.5).Quantile(0.99), 2.5},
		{"empirical mean", mustDist(Empirical([]float64{1, 2, 3, 6})).Mean(), 3},
		{"empirical cv", mustDist(Empirical([]float64{1, 2, 3, 6})).CV(), math.Sqrt(3.5) / 3},
	}
	for _, c := range checks {
		if !closeRel(c.got, c.want, tol) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	if cv := Constant(0).CV(); cv != 0 {
		t.Errorf("constant(0) CV = %g, want 0", cv)
	}
}

func TestConstantSamplesItsValue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := Constant(0.7)
	for range 100 {
		if x := d.Sample(r); x != 0.7 {
			t.Fatalf("Sample = %g, want 0.7", x)
		}
	}
}

func TestTruncatedNormalEnds(t *testing.T) {
	d := mustDist(Normal(0.5, 0.5))
	if q := d.Quantile(0); q != 0 {
		t.Errorf("Quantile(0) = %g, want 0 (the truncation point)", q)
	}
	if q := d.Quantile(1); !math.IsInf(q, 1) {
		t.Errorf("Quantile(1) = %g, want +Inf", q)
	}
	// Mass below 0 is Φ(−1) ≈ 0.159; the truncated mean exceeds 0.5 by
	// 0.5·φ(1)/(1−Φ(1)) = 0.5·0.2419707/0.8413447.
	if m := d.Mean(); !closeRel(m, 0.5+0.5*0.24197072451914337/0.8413447460685429, 1e-12) {
		t.Errorf("Mean() = %.15g", m)
	}
}

func TestEmpiricalQuantileIsAnObservedValue(t *testing.T) {
	values := []float64{3, 1, 10, 2, 2}
	d := mustDist(Empirical(values))
	values[0] = 99 // the Dist must hold its own copy
	for _, tc := range []struct{ p, want float64 }{
		{0, 1}, {0.2, 1}, {0.21, 2}, {0.6, 2}, {0.61, 3}, {0.8, 3}, {0.81, 10}, {1, 10},
	} {
		if got := d.Quantile(tc.p); got != tc.want {
			t.Errorf("Quantile(%g) = %g, want %g", tc.p, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[float64]int{}
	for range 10000 {
		seen[d.Sample(r)]++
	}
	if len(seen) != 4 || seen[99] != 0 {
		t.Errorf("draws took values %v, want exactly {1, 2, 3, 10}", seen)
	}
}

func TestLogNormalMeanP95RoundTrip(t *testing.T) {
	for _, tc := range []struct{ mean, p95 float64 }{
		{0.56, 0.9}, {1, 1.0001}, {1, 3.8}, {0.002, 0.005}, {120, 300},
	} {
		d := mustDist(LogNormalMeanP95(tc.mean, tc.p95))
		if !closeRel(d.Mean(), tc.mean, 1e-9) || !closeRel(d.Quantile(0.95), tc.p95, 1e-9) {
			t.Errorf("LogNormalMeanP95(%g, %g): mean %.12g, p95 %.12g", tc.mean, tc.p95, d.Mean(), d.Quantile(0.95))
		}
		// The smaller root has σ below z95; the other root lies above it.
		if d.b > z95 {
			t.Errorf("LogNormalMeanP95(%g, %g): sigma = %g, want the root below z95 = %g", tc.mean, tc.p95, d.b, z95)
		}
	}
	// At the bound the two roots meet at σ = z95.
	d := mustDist(LogNormalMeanP95(1, maxLogNormalP95OverMean))
	if !closeRel(d.b, z95, 1e-6) {
		t.Errorf("at the bound sigma = %.9g, want z95 = %.9g", d.b, z95)
	}
}

func TestLogNormalP50P95RoundTrip(t *testing.T) {
	d := mustDist(LogNormalP50P95(0.4, 1.1))
	if !closeRel(d.Quantile(0.5), 0.4, 1e-12) || !closeRel(d.Quantile(0.95), 1.1, 1e-12) {
		t.Errorf("p50 %.15g, p95 %.15g", d.Quantile(0.5), d.Quantile(0.95))
	}
}

func TestMeanCVRoundTrip(t *testing.T) {
	for _, tc := range []struct{ mean, cv float64 }{{0.56, 0.3}, {2, 1}, {0.01, 4}} {
		for name, d := range map[string]Dist{
			"lognormal": mustDist(LogNormalMeanCV(tc.mean, tc.cv)),
			"gamma":     mustDist(GammaMeanCV(tc.mean, tc.cv)),
		} {
			if !closeRel(d.Mean(), tc.mean, 1e-12) || !closeRel(d.CV(), tc.cv, 1e-12) {
				t.Errorf("%s(mean=%g, cv=%g): mean %.15g, cv %.15g", name, tc.mean, tc.cv, d.Mean(), d.CV())
			}
		}
	}
	// cv = 1 makes the gamma an exponential.
	if d := mustDist(GammaMeanCV(3, 1)); d.a != 1 || d.b != 3 {
		t.Errorf("GammaMeanCV(3, 1) = %v, want gamma(shape=1, scale=3s)", d)
	}
}

func TestGammaMeanP95RoundTrip(t *testing.T) {
	_, peak := gammaPeak()
	for _, tc := range []struct{ mean, p95 float64 }{
		{0.56, 0.9}, {1, math.Log(20)}, {1, 1.00001}, {1, 1.5}, {2, 11.5}, {1, peak}, {1e-3, 4e-3},
	} {
		d, err := GammaMeanP95(tc.mean, tc.p95)
		if err != nil {
			t.Errorf("GammaMeanP95(%g, %g): %v", tc.mean, tc.p95, err)
			continue
		}
		if !closeRel(d.Mean(), tc.mean, 1e-9) || !closeRel(d.Quantile(0.95), tc.p95, 1e-9) {
			t.Errorf("GammaMeanP95(%g, %g) = %v: mean %.12g, p95 %.12g", tc.mean, tc.p95, d, d.Mean(), d.Quantile(0.95))
		}
	}
	// p95 = mean·ln 20 is the exponential's ratio, so the shape must be 1.
	if d := mustDist(GammaMeanP95(1, math.Log(20))); !closeRel(d.a, 1, 1e-9) {
		t.Errorf("shape = %.12g, want 1", d.a)
	}
	// Of the two shapes giving p95/mean = 3, the solver must pick the larger.
	d := mustDist(GammaMeanP95(1, 3))
	if peakShape, _ := gammaPeak(); d.a < peakShape {
		t.Errorf("shape = %g, below the peak shape %g: picked the heavy-tailed root", d.a, peakShape)
	}
}

// The peak of p95/mean over gamma shapes, about 5.83 near shape 0.088, is the
// boundary of what GammaMeanP95 can fit; check it against a fine scan.
func TestGammaPeak(t *testing.T) {
	shape, ratio := gammaPeak()
	scanned := 0.0
	for s := 0.01; s < 1; s += 1e-4 {
		scanned = max(scanned, gammaP95OverMean(s))
	}
	if ratio < scanned || ratio > scanned*(1+1e-6) {
		t.Errorf("peak ratio %.12g, scan found %.12g", ratio, scanned)
	}
	if shape < 0.05 || shape > 0.15 {
		t.Errorf("peak shape %g, want near 0.088", shape)
	}
}

func TestConstructorErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(Uniform(-1, 1)), "uniform: lo must be >= 0, got -1"},
		{second(Uniform(2, 1)), "uniform: max must be > min, got min=2, max=1"},
		{second(Uniform(1, 1)), "uniform: max must be > min, got min=1, max=1"},
		{second(Uniform(0, math.Inf(1))), "uniform: hi must be finite, got +Inf"},
		{second(Exponential(-1)), "exponential: mean must be > 0, got -1"},
		{second(Exponential(0)), "exponential: mean must be > 0, got 0"},
		{second(Exponential(math.NaN())), "exponential: mean must be finite, got NaN"},
		{second(Normal(-1, 1)), "normal: mean must be >= 0, got -1"},
		{second(Normal(1, 0)), "normal: sd must be > 0, got 0"},
		{second(Normal(1, math.Inf(1))), "normal: sd must be finite, got +Inf"},
		{second(LogNormal(math.NaN(), 1)), "lognormal: mu must be finite, got NaN"},
		{second(LogNormal(0, -0.5)), "lognormal: sigma must be > 0, got -0.5"},
		{second(Gamma(0, 1)), "gamma: shape must be > 0, got 0"},
		{second(Gamma(1, -2)), "gamma: scale must be > 0, got -2"},
		{second(Weibull(-1, 1)), "weibull: shape must be > 0, got -1"},
		{second(Weibull(1, math.Inf(-1))), "weibull: scale must be finite, got -Inf"},
		{second(Empirical(nil)), "empirical: values must not be empty"},
		{second(Empirical([]float64{1, -2})), "empirical: values[1] must be >= 0, got -2"},
		{second(Empirical([]float64{math.NaN()})), "empirical: values[0] must be finite, got NaN"},
		{second(LogNormalMeanP95(1, 0.9)), "lognormal: p95 must be > mean, got mean=1, p95=0.9"},
		{second(LogNormalMeanP95(1, 1)), "lognormal: p95 must be > mean, got mean=1, p95=1"},
		{second(LogNormalMeanP95(1, 4)), "lognormal: p95/mean must be <= 3.868 (the largest a lognormal allows), got 4"},
		{second(LogNormalMeanP95(0, 4)), "lognormal: mean must be > 0, got 0"},
		{second(LogNormalMeanP95(1, math.Inf(1))), "lognormal: p95 must be finite, got +Inf"},
		{second(LogNormalP50P95(2, 1)), "lognormal: p95 must be > p50, got p50=2, p95=1"},
		{second(LogNormalP50P95(-1, 1)), "lognormal: p50 must be > 0, got -1"},
		{second(LogNormalMeanCV(1, 0)), "lognormal: cv must be > 0, got 0"},
		{second(GammaMeanCV(-1, 1)), "gamma: mean must be > 0, got -1"},
		{second(GammaMeanCV(1, math.NaN())), "gamma: cv must be finite, got NaN"},
		{second(GammaMeanP95(1, 0.5)), "gamma: p95 must be > mean, got mean=1, p95=0.5"},
		{second(GammaMeanP95(1, 6)), "gamma: p95/mean must be <= 5.827 (the largest a gamma allows), got 6"},
		{second(GammaMeanP95(1, 1+1e-9)), "gamma: p95/mean must be >= 1.000000052 to be solved accurately, got 1.000000001"},
	} {
		if tc.err == nil {
			t.Errorf("no error, want %q", tc.want)
		} else if tc.err.Error() != tc.want {
			t.Errorf("error %q, want %q", tc.err, tc.want)
		}
	}
}

func second(_ Dist, err error) error { return err }

func TestConstantPanicsOnInvalidValue(t *testing.T) {
	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Constant(%g) did not panic", v)
				}
			}()
			Constant(v)
		}()
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		d    Dist
		want string
	}{
		{mustDist(LogNormal(-0.62, 0.29)), "lognormal(mu=-0.62, sigma=0.29)"},
		{mustDist(Exponential(1.5)), "exponential(mean=1.5s)"},
		{mustDist(Gamma(2, 0.5)), "gamma(shape=2, scale=0.5s)"},
		{mustDist(Weibull(1.5, 2)), "weibull(shape=1.5, scale=2s)"},
		{mustDist(Normal(1, 0.2)), "normal(mean=1s, sd=0.2s)"},
		{mustDist(Uniform(1, 2)), "uniform(1s, 2s)"},
		{Constant(1), "constant(1s)"},
		{Constant(0.000125), "constant(0.000125s)"},
		{mustDist(Empirical(make([]float64, 120))), "empirical(n=120)"},
		{Dist{}, "none"},
		{mustDist(mustDist(Exponential(1.5)).Shifted(2)), "exponential(mean=1.5s, shift=2s)"},
		{mustDist(mustDist(Uniform(1, 2)).Shifted(0.5)), "uniform(1s, 2s, shift=0.5s)"},
		{mustDist(Constant(1).Shifted(2)), "constant(3s)"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestScale(t *testing.T) {
	const f = 2.5
	dists := []Dist{Constant(0.3)}
	for _, tc := range samplingCases {
		dists = append(dists, tc.dist)
	}
	for _, d := range dists {
		s := d.Scale(f)
		// Scaling multiplies or shifts parameters exactly; only the
		// evaluation of special functions rounds.
		if !closeRel(s.Mean(), f*d.Mean(), 1e-12) {
			t.Errorf("%s: scaled mean %.15g, want %.15g", d, s.Mean(), f*d.Mean())
		}
		if !closeRel(s.CV(), d.CV(), 1e-12) {
			t.Errorf("%s: scaled cv %.15g, want %.15g", d, s.CV(), d.CV())
		}
		for _, p := range []float64{0.1, 0.5, 0.9} {
			if !closeRel(s.Quantile(p), f*d.Quantile(p), 1e-12) {
				t.Errorf("%s: scaled Quantile(%g) %.15g, want %.15g", d, p, s.Quantile(p), f*d.Quantile(p))
			}
		}
	}
	e := mustDist(Empirical([]float64{1, 2}))
	e.Scale(3)
	if e.Quantile(1) != 2 {
		t.Errorf("Scale modified the receiver's table: Quantile(1) = %g", e.Quantile(1))
	}
	if z := mustDist(Exponential(1)).Scale(0); z.String() != "constant(0s)" {
		t.Errorf("Scale(0) = %v, want constant(0s)", z)
	}
	if z := (Dist{}).Scale(2); !z.IsZero() {
		t.Errorf("zero Dist scaled to %v", z)
	}
	defer func() {
		if recover() == nil {
			t.Error("Scale(-1) did not panic")
		}
	}()
	Constant(1).Scale(-1)
}

func TestZeroDist(t *testing.T) {
	var d Dist
	if !d.IsZero() || Constant(0).IsZero() {
		t.Error("IsZero is true only for the zero Dist")
	}
	for name, v := range map[string]float64{"Mean": d.Mean(), "CV": d.CV(), "Quantile": d.Quantile(0.5)} {
		if !math.IsNaN(v) {
			t.Errorf("zero Dist %s = %g, want NaN", name, v)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Sample of the zero Dist did not panic")
		}
	}()
	d.Sample(rand.New(rand.NewPCG(1, 2)))
}

func TestQuantileOutsideUnitInterval(t *testing.T) {
	d := mustDist(Exponential(1))
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if q := d.Quantile(p); !math.IsNaN(q) {
			t.Errorf("Quantile(%g) = %g, want NaN", p, q)
		}
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []Dist{
		Constant(1),
		mustDist(Uniform(1, 2)),
		mustDist(Exponential(1)),
		mustDist(Normal(0.1, 1)),
		mustDist(LogNormal(0, 1)),
		mustDist(Weibull(1.5, 1)),
		mustDist(Empirical([]float64{1, 2, 3})),
		mustDist(mustDist(LogNormal(0, 1)).Shifted(2)),
		mustDist(mustDist(Exponential(1)).Shifted(0.5)),
	} {
		if allocs := testing.AllocsPerRun(1000, func() { d.Sample(r) }); allocs != 0 {
			t.Errorf("%v: %g allocations per Sample, want 0", d, allocs)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []Dist{
		mustDist(Exponential(1)),
		mustDist(LogNormal(0, 1)),
		mustDist(Gamma(2, 1)),
		mustDist(mustDist(LogNormal(0, 1)).Shifted(2)),
	} {
		b.Run(d.String(), func(b *testing.B) {
			for b.Loop() {
				d.Sample(r)
			}
		})
	}
}

// A shifted exponential, 2 s + exponential(mean 1.5 s), against its closed
// forms: mean 2 + 1.5, sd 1.5, Quantile(p) = 2 − 1.5·ln(1 − p), and nothing
// at or below the shift: P(X <= 2) = 0.
func TestShiftedExponentialAgainstTheory(t *testing.T) {
	const shift, mean = 2.0, 1.5
	d := mustDist(mustDist(Exponential(mean)).Shifted(shift))
	if got := d.Mean(); got != shift+mean {
		t.Errorf("Mean() = %.15g, want %g", got, shift+mean)
	}
	if got, want := d.CV(), mean/(shift+mean); !closeRel(got, want, 1e-12) {
		t.Errorf("CV() = %.15g, want %.15g", got, want)
	}
	if got := d.Quantile(0); got != shift {
		t.Errorf("Quantile(0) = %g, want the shift %g", got, shift)
	}
	for _, p := range []float64{0.05, 0.5, 0.95, 0.99} {
		if got, want := d.Quantile(p), shift-mean*math.Log1p(-p); !closeRel(got, want, 1e-12) {
			t.Errorf("Quantile(%g) = %.15g, want %.15g", p, got, want)
		}
	}
	if got := d.Shift(); got != shift {
		t.Errorf("Shift() = %g, want %g", got, shift)
	}
	r := rand.New(rand.NewPCG(3, 4))
	least := math.Inf(1)
	for range sampleN {
		least = min(least, d.Sample(r))
	}
	// The least of n exponential draws above the shift is itself
	// exponential with mean 1.5/n = 15 µs: above 2 s, and within 1 ms of it
	// but with probability e^(−66).
	if !(least > shift && least < shift+1e-3) {
		t.Errorf("least of %d draws = %.9g, want just above the shift %g", sampleN, least, shift)
	}
	if s := d.Scale(2); s.Shift() != 2*shift || s.Mean() != 2*(shift+mean) {
		t.Errorf("Scale(2) = %v: shift %g, mean %g; want %g and %g", s, s.Shift(), s.Mean(), 2*shift, 2*(shift+mean))
	}
	if twice := mustDist(d.Shifted(1)); twice.Shift() != shift+1 {
		t.Errorf("a second shift of 1 gives %v, want shift %g", twice, shift+1)
	}
}

func TestShiftedErrors(t *testing.T) {
	e := mustDist(Exponential(1))
	for _, tc := range []struct {
		d     Dist
		shift float64
		want  string
	}{
		{e, -1, "shift must be finite and >= 0, got -1"},
		{e, math.NaN(), "shift must be finite and >= 0, got NaN"},
		{e, math.Inf(1), "shift must be finite and >= 0, got +Inf"},
		{Dist{}, 1, "shift: of no distribution"},
	} {
		_, err := tc.d.Shifted(tc.shift)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v shifted by %g: error %v, want %q", tc.d, tc.shift, err, tc.want)
		}
	}
}
