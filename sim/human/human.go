// Package human writes numbers and times for a person to read: one way
// for every layer, so that a value never shows two ways in one output.
// plots' Number, Seconds and Percent are these; model uses them in its
// messages (a guard that stopped a run says when).
//
// It stands on the ground floor, inside sim: it imports no other capsim
// package and knows nothing of what it formats.
package human

import (
	"math"
	"strconv"
)

// Number writes v compactly, to 4 significant digits; NaN or an infinity
// (nothing observed) is "-".
func Number(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Seconds writes a duration of s seconds with a unit chosen for its
// magnitude: µs, ms, s, m from two minutes on, h from a week on, and
// years (of 365.25 days, as the 100-year span a scenario may write) from
// two years on, where minutes and hours run to numbers no one reads (the
// clock's end is 200 years, not 105192000.0m); 0 is "0s", a time like
// any other. NaN is "-".
func Seconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "-"
	case s == 0:
		return "0s"
	case s < 1e-3:
		return strconv.FormatFloat(s*1e6, 'f', 0, 64) + "µs"
	case s < 1:
		return strconv.FormatFloat(s*1e3, 'f', 1, 64) + "ms"
	case s < 120:
		return strconv.FormatFloat(s, 'f', 2, 64) + "s"
	case s < week:
		return strconv.FormatFloat(s/60, 'f', 1, 64) + "m"
	case s < 2*year:
		return strconv.FormatFloat(s/3600, 'f', 1, 64) + "h"
	default:
		return strconv.FormatFloat(s/year, 'f', 1, 64) + " years"
	}
}

const (
	week = 7 * 24 * 3600
	year = 365.25 * 24 * 3600
)

// Percent writes a fraction as a percentage to 3 significant digits and
// no more than one decimal: 0.875 is "87.5%", 0.99 is "99%". NaN is "-".
func Percent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	p := 100 * v
	digits := 1
	if p == math.Trunc(p) || math.Abs(p) >= 100 {
		digits = 0
	}
	return strconv.FormatFloat(p, 'f', digits, 64) + "%"
}

// Significant writes v to digits significant digits, never in exponent
// form: 0.000123456 to 3 digits is "0.000123", 123456 is "123000". A value
// too large to round so keeps its exponent.
func Significant(v float64, digits int) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	if err != nil {
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
