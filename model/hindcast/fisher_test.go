package hindcast

import (
	"math"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

// Reference p-values of the two-sided test: the first two are textbook
// tables; the others were summed in exact rational arithmetic.
func TestFisherExact(t *testing.T) {
	for _, c := range []struct {
		a, b, c, d int64
		p          float64
	}{
		{1, 9, 11, 3, 0.002759456},   // the classic 24-person table
		{3, 1, 1, 3, 0.4857143},      // symmetric: both tails
		{6, 0, 28, 92, 0.0002730683}, // 6/6 observed against 28/120 simulated
		{6, 0, 110, 10, 1},           // 6/6 against 110/120: nothing to tell
		{4, 4, 60, 100, 0.4814563},
		{0, 0, 5, 5, 1},
	} {
		if got := FisherExact(c.a, c.b, c.c, c.d); math.Abs(got-c.p) > 1e-6*math.Max(1, c.p) {
			t.Errorf("FisherExact(%d, %d, %d, %d) = %.7g, want %.7g", c.a, c.b, c.c, c.d, got, c.p)
		}
	}
}

// Past the exact test's bound the z test answers, close to the exact value.
func TestFisherFallsBackOnHugeCounts(t *testing.T) {
	p := FisherExact(5_000_000, 5_000_000, 5_010_000, 4_990_000)
	z := twoProportionZ(5_000_000, 5_000_000, 5_010_000, 4_990_000)
	if p != z || !(p > 0 && p < 1e-5) {
		t.Errorf("huge table: p %g, z test %g; want the z test's tiny p", p, z)
	}
}
