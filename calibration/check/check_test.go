package check

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

// The KS distance of two small samples, worked by hand: after 1, 2, 3 the
// first sample's CDF is 3/4 and the second's 1/4 (only its 3), the widest
// gap.
func TestKSDistanceByHand(t *testing.T) {
	a := []float64{1, 2, 3, 7}
	b := []float64{3, 4, 5, 6}
	if d := ksDistance(a, b); d != 0.5 {
		t.Errorf("D = %g, want 0.5", d)
	}
	if d := ksDistance(a, a); d != 0 {
		t.Errorf("D of a sample with itself = %g, want 0", d)
	}
	// c(0.05) = 1.3581 (the table value of the Kolmogorov distribution),
	// scaled by sqrt((n+m)/(n m)) = sqrt(2/100) for n = m = 100.
	if c := ksCritical(100, 100, 0.05); math.Abs(c-1.3581*math.Sqrt(0.02)) > 1e-4 {
		t.Errorf("critical D = %g, want %g", c, 1.3581*math.Sqrt(0.02))
	}
}

// The 95 % interval of a p95 from 1..1000: rank 950, and ranks
// 950 ± 1.96·sqrt(1000·0.95·0.05) = 950 ± 13.5, i.e. 936 and 965.
func TestQuantileInterval(t *testing.T) {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i + 1)
	}
	if e := quantileCI(x, 0.95); e != (Estimate{950, 936, 965}) {
		t.Errorf("p95 %+v, want {950 936 965}", e)
	}
}

// Wilson's interval for 0 of 10 and 5 of 10, against the textbook values.
func TestRateInterval(t *testing.T) {
	for _, c := range []struct {
		k, n     int
		low, hig float64
	}{{0, 10, 0, 0.2775}, {5, 10, 0.2366, 0.7634}} {
		e := rateCI(c.k, c.n)
		if math.Abs(e.Low-c.low) > 1e-4 || math.Abs(e.High-c.hig) > 1e-4 {
			t.Errorf("%d/%d: [%g, %g], want [%g, %g]", c.k, c.n, e.Low, e.High, c.low, c.hig)
		}
	}
}

func lognormal(rng *rand.Rand, n int, median, sigma float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = median * math.Exp(sigma*rng.NormFloat64())
	}
	return x
}

// Two draws of one distribution pass; a draw 20 % slower fails, with the
// reason; a draw 3 % slower that a large sample tells apart still passes,
// being within the tolerance.
func TestVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rec, sim := NewRun(), NewRun()
	rec.Stage("same").Values = lognormal(rng, 2000, 0.2, 0.5)
	sim.Stage("same").Values = lognormal(rng, 10000, 0.2, 0.5)
	rec.Stage("slow").Values = lognormal(rng, 2000, 0.2, 0.5)
	sim.Stage("slow").Values = lognormal(rng, 10000, 0.24, 0.5)
	rec.Stage("close").Values = lognormal(rng, 20000, 0.2, 0.5)
	sim.Stage("close").Values = lognormal(rng, 100000, 0.206, 0.5)
	rec.Stage("few").Values = []float64{1, 2}
	sim.Stage("few").Values = []float64{10, 20}
	sim.Stage("unseen").Values = []float64{1}
	rep := Compare(rec, sim, "nginx", Rules{})
	got := map[string]string{}
	for _, l := range rep.Timings {
		got[l.Name] = l.Verdict
	}
	want := map[string]string{"same": Pass, "slow": Fail, "close": Pass, "few": Few, "unseen": Fail}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: %s, want %s", name, got[name], v)
		}
	}
	i := slices.IndexFunc(rep.Timings, func(l TimingLine) bool { return l.Name == "slow" })
	if why := rep.Timings[i].Why; why != "mean +19.0%, p95 +18.8% simulated vs recorded (tolerance 10%); KS 0.142 vs 0.048 at α 0.001" {
		t.Errorf("slow: why %q", why)
	}
	if why := rep.Timings[slices.IndexFunc(rep.Timings, func(l TimingLine) bool { return l.Name == "unseen" })].Why; why != "the recording has none; the model has 1" {
		t.Errorf("unseen: why %q", why)
	}
	if rep.Failed() != 2 {
		t.Errorf("%d failed, want 2", rep.Failed())
	}
}

// A success rate of 95 % against 99 % over 2,000 journeys each fails
// (z about −7); 98.8 % against 99 % passes (within one point).
func TestRateVerdicts(t *testing.T) {
	rec, sim := NewRun(), NewRun()
	*rec.Journey("a") = Outcome{Ended: 2000, Succeeded: 1980, Stages: map[string]int{"pay": 20}}
	*sim.Journey("a") = Outcome{Ended: 2000, Succeeded: 1900, Stages: map[string]int{"pay": 100}}
	*rec.Journey("b") = Outcome{Ended: 2000, Succeeded: 1980, Stages: map[string]int{"pay": 20}}
	*sim.Journey("b") = Outcome{Ended: 2000, Succeeded: 1976, Stages: map[string]int{"pay": 24}}
	rep := Compare(rec, sim, "", Rules{})
	var got []string
	for _, l := range rep.Rates {
		got = append(got, l.Name+" "+l.Measure+" "+l.Verdict)
	}
	want := "a success_rate FAIL,a failed_at:pay FAIL,b success_rate pass,b failed_at:pay pass"
	if strings.Join(got, ",") != want {
		t.Errorf("got %s\nwant %s", strings.Join(got, ","), want)
	}
}
