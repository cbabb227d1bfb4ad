package sim

import (
	"math"
	"time"
)

// Time is simulated time in nanoseconds since the start of a run. An integer
// clock keeps event order exact: two events scheduled for the same instant are
// a real tie, broken by scheduling order, never by rounding drift.
type Time int64

// Never is a time later than any event; it marks "no deadline".
const Never Time = math.MaxInt64

// Common durations, as Time.
const (
	Nanosecond  Time = 1
	Millisecond Time = 1e6
	Second      Time = 1e9
	Minute      Time = 60 * Second
	Hour        Time = 60 * Minute
)

// Seconds converts a duration in seconds, as distributions yield them, to
// Time. Values beyond the representable range saturate instead of wrapping.
func Seconds(s float64) Time { return nanoseconds(s * 1e9) }

// nanoseconds rounds ns to the nearest Time, halves away from zero as
// math.Round does, saturating. It adds the float64 just below one half,
// signed as ns, and truncates: below 2⁵² the sum rounds to the next
// integer exactly when ns's fraction is at least one half, and above it
// every float64 is an integer the sum leaves alone. That is a few
// instructions where math.Round's bit manipulation is a dozen, and three
// of these run for every customer. The sign is taken by a branch, which
// also picks the one bound to check, rather than by math.Copysign, whose
// bit operations cost more than the branch; subtracting the half is
// adding its negation, exactly. NaN takes the second way, as it took
// both checks before, and converts as it did.
func nanoseconds(ns float64) Time {
	const half = 0.49999999999999994
	if ns >= 0 {
		if ns >= math.MaxInt64 {
			return Never
		}
		return Time(ns + half)
	}
	if ns <= math.MinInt64 {
		return math.MinInt64
	}
	return Time(ns - half)
}

// Add returns t+d, saturating at Never (and at the clock's start) instead
// of wrapping round: a finish worked out from a rate can lie further off
// than the clock reaches, and a wrapped sum would fall in the past, where
// the kernel fires it at once.
func (t Time) Add(d Time) Time {
	switch {
	case d > 0 && t > Never-d:
		return Never
	case d < 0 && t < math.MinInt64-d:
		return math.MinInt64
	}
	return t + d
}

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String formats t as a Go duration ("1m30s").
func (t Time) String() string { return time.Duration(t).String() }

// MaxDuration is the longest span a scenario may write, and the longest
// time a calibrated distribution may stand for. The clock counts
// nanoseconds in an int64 and ends after about 292 years; 100 years
// leaves room to add a run's own length to any value without passing it,
// and no back end waits a century.
const MaxDuration = 36525 * 24 * Hour

// MaxDurationText is MaxDuration as messages say it.
const MaxDurationText = "100 years"
