package calibration

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Values with a floor: 2 s plus an exponential of mean 1 s, and 2 s plus a
// lognormal of mean 1 s and cv 0.5 (sigma² = ln 1.25, mu = −sigma²/2). With
// n = 5000 the exponential's floor estimate errs by about mean/n = 0.2 ms
// and its mean by mean/√n = 1.4 %; the tolerances allow about five of
// those. The lognormal's three parameters are estimated together and far
// less sharply (a floor a little lower trades against a larger mu), so its
// floor is held to 5 % and the mean and p95 it implies, which is what a
// simulation uses, to 2 %, about three standard errors of the sample's own.
func TestFitShiftedRoundTrip(t *testing.T) {
	t.Parallel()
	const n, floor = 5000, 2.0
	x := draw(n, 7, func(r *rand.Rand) float64 { return floor + r.ExpFloat64() })
	shift, e, err := FitShiftedExponential(x)
	if err != nil {
		t.Fatal(err)
	}
	if lo := minOf(x); !(shift < lo && math.Abs(shift-floor) < 5.0/n) {
		t.Errorf("exponential floor %.6g, want just below the smallest value %.6g and within %g of %g", shift, lo, 5.0/n, floor)
	}
	t.Logf("exponential: floor %.6g, mean %.6g", shift, 1/e.Rate)
	checkParam(t, "exponential mean", 1/e.Rate, 1, 5/math.Sqrt(n))

	s2 := math.Log1p(0.25)
	x = draw(n, 8, func(r *rand.Rand) float64 { return floor + math.Exp(-s2/2+math.Sqrt(s2)*r.NormFloat64()) })
	shift, l, err := FitShiftedLogNormal(x)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lognormal: floor %.6g, mu %.6g, sigma %.6g (want %g, %.6g, %.6g)", shift, l.Mu, l.Sigma, floor, -s2/2, math.Sqrt(s2))
	checkParam(t, "lognormal floor", shift, floor, 0.05)
	checkParam(t, "fitted mean", shift+l.Mean(), floor+1, 0.02)
	p95 := floor + math.Exp(-s2/2+math.Sqrt(s2)*1.6448536269514722)
	checkParam(t, "fitted p95", shift+l.Quantile(0.95), p95, 0.02)

	// Fit finds the floor and ranks the shifted lognormal first; the
	// distribution it writes carries the shift.
	res, err := Fit(x, nil, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		t.Logf("%-18s %v AIC %.1f KS %.4f", c.Family, c.Dist, c.AIC, c.KS)
	}
	if res.Chosen.Family != FamilyShiftedLogNormal || math.Abs(res.Chosen.Dist.Shift()-shift) > 1e-5*shift {
		t.Errorf("chosen %s %v, want %s with shift %.6g", res.Chosen.Family, res.Chosen.Dist, FamilyShiftedLogNormal, shift)
	}
	if q := res.Chosen.Quantile(0); !(q > floor*0.95 && q < minOf(x)) {
		t.Errorf("chosen fit's floor %g, want below the smallest value and near %g", q, floor)
	}
}

// Values without a floor get no shifted candidates; values with one too
// few to tell get none either.
func TestShiftedFamiliesOnlyForAFloor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		x    []float64
		want bool
	}{
		{"lognormal sigma 0.3", draw(5000, 9, func(r *rand.Rand) float64 { return math.Exp(0.3 * r.NormFloat64()) }), false},
		{"exponential", draw(5000, 10, func(r *rand.Rand) float64 { return r.ExpFloat64() }), false},
		{"2s + exponential", draw(5000, 11, func(r *rand.Rand) float64 { return 2 + r.ExpFloat64() }), true},
		{"2s + exponential, 10 values", draw(10, 11, func(r *rand.Rand) float64 { return 2 + r.ExpFloat64() }), false},
	} {
		res, err := Fit(c.x, nil, FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, cand := range res.Candidates {
			got = got || cand.Family == FamilyShiftedLogNormal || cand.Family == FamilyShiftedExponential
		}
		if got != c.want {
			t.Errorf("%s: shifted candidates %v, want %v", c.name, got, c.want)
		}
	}
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = min(m, v)
	}
	return m
}

// A shifted family may be chosen by name, and is refused with the reason
// where the values show no floor.
func TestChooseAShiftedFamily(t *testing.T) {
	t.Parallel()
	x := draw(200, 12, func(r *rand.Rand) float64 { return 0.5 + 0.1*r.ExpFloat64() })
	res, err := Fit(x, nil, FitOptions{Choose: FamilyShiftedExponential, Families: []string{FamilyLogNormal}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chosen.Family != FamilyShiftedExponential || res.RunnerUp.Family != FamilyLogNormal || !(res.Chosen.Dist.Shift() > 0.49) {
		t.Errorf("chosen %s %v, runner-up %s; want exponential+shift with a floor near 0.5 s over lognormal", res.Chosen.Family, res.Chosen.Dist, res.RunnerUp.Family)
	}
	// The smallest value, 10 ms, is less than the excess mean over it
	// (2.49 s) over n − 1 = 5: the floor estimate falls below 0.
	x = []float64{0.01, 1, 2, 3, 4, 5}
	_, err = Fit(x, nil, FitOptions{Choose: FamilyShiftedExponential})
	if want := "exponential+shift cannot be fitted to these values: the values show no floor above 0"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
