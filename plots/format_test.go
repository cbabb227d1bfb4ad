package plots

import (
	"math"
	"testing"

	"capsim/sim/human"
)

// plots writes numbers and times as package human does, whose tests hold
// the texts; the values here are those texts' edge cases.
func TestNumberAndSeconds(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), 0, 0.000123456, 0.0004, 0.25, 2.5, 300, 1234.5678} {
		if got, want := Number(v), human.Number(v); got != want {
			t.Errorf("Number(%g) = %q, want human's %q", v, got, want)
		}
		if got, want := Seconds(v), human.Seconds(v); got != want {
			t.Errorf("Seconds(%g) = %q, want human's %q", v, got, want)
		}
		if got, want := Percent(v), human.Percent(v); got != want {
			t.Errorf("Percent(%g) = %q, want human's %q", v, got, want)
		}
	}
}
