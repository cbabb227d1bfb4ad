package plots

import (
	"math"
	"reflect"
	"testing"
)

// No two series among the first 24 look alike: where their colours are
// near (closer than 100 in RGB), their markers or their dashes differ.
// Before each colour had its own marker, series 6 (dark sky blue) drew
// the filled circle of series 0 (blue), and series 7 (dark orange) the
// box of series 1 (vermillion): the trip's warm-worker and two-workers.
func TestSeriesLooksAreDistinct(t *testing.T) {
	for i := 0; i < 24; i++ {
		for j := i + 1; j < 24; j++ {
			a, b := seriesLook(i), seriesLook(j)
			ca, cb := palette[i%len(palette)], palette[j%len(palette)]
			d := math.Sqrt(sq(float64(ca.R)-float64(cb.R)) + sq(float64(ca.G)-float64(cb.G)) + sq(float64(ca.B)-float64(cb.B)))
			sameMarker := reflect.TypeOf(a.glyph.Shape) == reflect.TypeOf(b.glyph.Shape)
			sameDashes := reflect.DeepEqual(a.line.Dashes, b.line.Dashes)
			if d < 100 && sameMarker && sameDashes {
				t.Errorf("series %d and %d: colours %v and %v (%.0f apart) with the same marker and line", i, j, ca, cb, d)
			}
		}
	}
}

func sq(x float64) float64 { return x * x }
