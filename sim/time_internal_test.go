package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNanosecondsRoundsAsMathRound holds nanoseconds to math.Round, halves
// away from zero, on the edges of the range and on three million values of
// every magnitude up to 2⁶³, a quarter of them exact halves.
func TestNanosecondsRoundsAsMathRound(t *testing.T) {
	want := func(ns float64) Time {
		switch {
		case ns >= math.MaxInt64:
			return Never
		case ns <= math.MinInt64:
			return math.MinInt64
		}
		return Time(math.Round(ns))
	}
	edges := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
		0.49999999999999994, -0.49999999999999994, math.Nextafter(0.5, 1), math.Nextafter(1.5, 0),
		1<<52 - 0.5, 1<<52 + 1, 1<<53 + 2, 1<<51 + 0.5, 1<<51 + 0.25, 1<<51 + 0.75, -(1<<52 - 0.5),
		math.Nextafter(math.MaxInt64, 0), -math.Nextafter(math.MaxInt64, 0), math.MaxInt64, math.MinInt64,
		math.Inf(1), math.Inf(-1), 1e300, -1e300, math.SmallestNonzeroFloat64, math.NaN()}
	for _, ns := range edges {
		if got, w := nanoseconds(ns), want(ns); got != w {
			t.Errorf("nanoseconds(%v) = %d, want %d", ns, got, w)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3_000_000; i++ {
		ns := math.Ldexp(rng.Float64(), rng.IntN(64)) // [0, 2⁶³)
		if i%4 == 0 {
			ns = math.Floor(ns) + 0.5 // an exact half below 2⁵², an integer above
		}
		if i%2 == 1 {
			ns = -ns
		}
		if got, w := nanoseconds(ns), want(ns); got != w {
			t.Fatalf("nanoseconds(%v) = %d, want %d", ns, got, w)
		}
	}
	if got := Seconds(1.5e-9); got != 2 {
		t.Errorf("Seconds(1.5e-9) = %d, want 2", got)
	}
}

func BenchmarkSeconds(b *testing.B) {
	xs := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = rng.ExpFloat64()
	}
	var sum Time
	for i := 0; b.Loop(); i++ {
		sum += Seconds(xs[i&1023])
	}
	if sum == 0 {
		b.Fatal("no sum")
	}
}
