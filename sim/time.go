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
func Seconds(s float64) Time {
	ns := s * 1e9
	switch {
	case ns >= math.MaxInt64:
		return Never
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return Time(math.Round(ns))
}

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String formats t as a Go duration ("1m30s").
func (t Time) String() string { return time.Duration(t).String() }
