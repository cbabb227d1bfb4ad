package plots

import "capsim/sim/human"

// Number and Seconds are how capsim writes numbers for a person to read,
// in a report's tables and on the terminal alike, so the two never show
// the same value two ways. They are package human's, which the model's
// messages use too.

// Number writes v compactly, to 4 significant digits; NaN or an infinity
// (nothing observed) is "-".
func Number(v float64) string { return human.Number(v) }

// Seconds writes a duration of s seconds with a unit chosen for its
// magnitude: µs, ms, s, or m from two minutes on; 0 is "0s", a time
// like any other. NaN is "-".
func Seconds(s float64) string { return human.Seconds(s) }

// Percent writes a fraction as a percentage to 3 significant digits and
// no more than one decimal: 0.875 is "87.5%", 0.99 is "99%". NaN is "-".
func Percent(v float64) string { return human.Percent(v) }
