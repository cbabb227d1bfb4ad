package calibration

import (
	"math"
	"slices"
	"strings"
)

// ShiftedFamilies are fitted beside Families when the values have a clear
// floor (hasFloor) and no families were asked for: a floor and a lognormal
// or an exponential above it, written lognormal(…, shift=…).
var ShiftedFamilies = []string{FamilyShiftedLogNormal, FamilyShiftedExponential}

// Choosable lists the families a fit may be told to choose (FitOptions.
// Choose, calibrate --dist, a plan's dist:), in the order messages list them.
var Choosable = slices.Concat(Families, ShiftedFamilies, []string{FamilyUniform, FamilyEmpirical})

// ChoosableText is Choosable for a message: "lognormal, …, uniform or
// empirical".
func ChoosableText() string {
	return strings.Join(Choosable[:len(Choosable)-1], ", ") + " or " + Choosable[len(Choosable)-1]
}

// A floor is clear when the values pile up just above a smallest value far
// from 0 and trail off above: the smallest at least floorRatio times above
// 0 what the lowest tenth spans above it, and the top (p50 to p99) at least
// tailRatio times as spread as the bottom (smallest to p50). 2 s plus a
// lognormal of mean 1 s and cv 0.5 gives about 8 and 2.6; a lognormal of
// sigma 0.3 spreads its lowest tenth over much of the way to 0 (about 1),
// an exponential starts at 0, and a narrow distribution, which the first
// test alone would take for a floor, is about as spread below its median
// as above (under 1 for a cv of 0.09): a floor there cannot be told from none.
const (
	floorRatio = 4
	tailRatio  = 2
)

// hasFloor reports whether sorted (ascending) has a clear floor. A handful
// of values (fewer than 20) says nothing about one.
func hasFloor(sorted []float64) bool {
	n := len(sorted)
	if n < 20 {
		return false
	}
	lo, p10 := sorted[0], sorted[n/10]
	p50, p99 := sorted[n/2], sorted[n*99/100]
	return lo > 0 && p10 > lo && lo >= floorRatio*(p10-lo) && p99-p50 >= tailRatio*(p50-lo)
}

// shifted is a model moved right by shift: nothing at or below it.
type shifted struct {
	m     model
	shift float64
}

func (s shifted) CDF(x float64) float64 {
	if x <= s.shift {
		return 0
	}
	return s.m.CDF(x - s.shift)
}

func (s shifted) LogProb(x float64) float64 {
	if x < s.shift {
		return math.Inf(-1)
	}
	return s.m.LogProb(x - s.shift)
}

func (s shifted) Quantile(p float64) float64 { return s.shift + s.m.Quantile(p) }
