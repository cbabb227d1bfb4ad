package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"capsim/sim"
)

// Duration is a non-negative span of simulated time written with a unit:
// 40s, 250ms, 3m45s, 1.5h. A bare number is refused: "40" could be seconds
// or milliseconds, and guessing wrong would silently scale a model by 1000.
type Duration struct {
	T   sim.Time
	Set bool
}

func (d *Duration) parseScalar(s string) error {
	t, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration{T: t, Set: true}
	return nil
}

func parseDuration(s string) (sim.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("expected a duration such as 40s, got nothing")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			// ParseFloat reads NaN and Inf, which no unit makes a time.
			return 0, fmt.Errorf("expected a duration such as 40s or 3m45s, got %q", s)
		}
		return 0, fmt.Errorf("duration %q needs a unit (ms, s, m or h), e.g. %ss", s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		// Numbers printed by %g (1e+06s) are durations too.
		f, unit, ok := splitUnit(s)
		if !ok {
			return 0, fmt.Errorf("expected a duration such as 40s or 3m45s, got %q", s)
		}
		ns := f * float64(unit)
		switch {
		case math.IsNaN(ns):
			return 0, fmt.Errorf("expected a duration such as 40s or 3m45s, got %q", s)
		case ns < 0:
			return 0, fmt.Errorf("duration must not be negative, got %s", s)
		case ns >= math.MaxInt64:
			return 0, fmt.Errorf("duration %s is more than %s, the longest time capsim simulates", s, sim.MaxDurationText)
		case ns > 0 && ns < 0.5:
			// It would round to 0, a different meaning from what was
			// written (0 often reads as "none" or "at once").
			return 0, fmt.Errorf("duration %s is shorter than a nanosecond, the clock's resolution", s)
		}
		d = time.Duration(math.Round(ns))
	}
	if d < 0 {
		return 0, fmt.Errorf("duration must not be negative, got %s", s)
	}
	if d == 0 && strings.ContainsAny(s, "123456789") {
		// time.ParseDuration truncates below a nanosecond to 0, a
		// different meaning from what was written.
		return 0, fmt.Errorf("duration %s is shorter than a nanosecond, the clock's resolution", s)
	}
	if u := repeatedUnit(s); u != "" {
		// 1h30m is one duration; 100s100s is a slip, which
		// time.ParseDuration would add up.
		return 0, fmt.Errorf("duration %q gives the unit %s twice; write each unit once, as in 1h30m", s, u)
	}
	if sim.Time(d) > MaxDuration {
		return 0, fmt.Errorf("duration %s is more than %s, the longest time capsim simulates", s, sim.MaxDurationText)
	}
	return sim.Time(d), nil
}

// repeatedUnit returns a unit that s gives more than once, as written
// the second time, or "".
func repeatedUnit(s string) string {
	var seen []string
	for _, written := range strings.FieldsFunc(s, inNumber) {
		unit, ok := durationUnits[written]
		if !ok {
			continue // an exponent's e; time.ParseDuration refused the rest
		}
		if slices.Contains(seen, unit) {
			return written
		}
		seen = append(seen, unit)
	}
	return ""
}

// durationUnits maps each unit time.ParseDuration reads to the unit it is:
// us, µs (the micro sign) and μs (the Greek mu) are one.
var durationUnits = map[string]string{"ns": "ns", "us": "µs", "µs": "µs", "μs": "µs", "ms": "ms", "s": "s", "m": "m", "h": "h"}

// inNumber says whether r belongs to a duration's numbers, not its units.
func inNumber(r rune) bool { return r >= '0' && r <= '9' || r == '.' || r == '+' || r == '-' }

var units = []struct {
	suffix string
	d      time.Duration
}{{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"µs", time.Microsecond}, {"ms", time.Millisecond},
	{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}

// splitUnit parses a single number in any float syntax followed by one unit.
func splitUnit(s string) (float64, time.Duration, bool) {
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			if f, err := strconv.ParseFloat(num, 64); err == nil {
				return f, u.d, true
			}
		}
	}
	return 0, 0, false
}

// Rate is an arrival rate written as count/unit: 4/h, 3.6/s, 600/m.
type Rate struct {
	PerSecond float64
	Text      string
}

func (r *Rate) parseScalar(s string) error {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return fmt.Errorf("expected a rate such as 4/h or 3.6/s, got %q", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.Contains(num, "_") {
		// ParseFloat reads Go's 1_000, but no duration takes an
		// underscore: a rate takes none either.
		return fmt.Errorf("expected a rate such as 4/h or 3.6/s, got %q", s)
	}
	if v < 0 {
		return fmt.Errorf("rate must not be negative, got %q", s)
	}
	per := map[string]float64{"s": 1, "m": 60, "min": 60, "h": 3600}[strings.TrimSpace(unit)]
	if per == 0 {
		return fmt.Errorf("rate unit must be /s, /m or /h, got %q", s)
	}
	switch ps := v / per; {
	case ps > MaxRate:
		return fmt.Errorf("rate %s is more than %g/s, one arrival per nanosecond of the clock", strings.TrimSpace(s), float64(MaxRate))
	case ps > 0 && 1/ps > MaxDuration.Seconds():
		return fmt.Errorf("rate %s is less than one per %s, the longest time capsim simulates (write 0/h for no arrivals)", strings.TrimSpace(s), sim.MaxDurationText)
	}
	*r = Rate{PerSecond: v / per, Text: strings.TrimSpace(s)}
	return nil
}

// Threshold is an SLO bound such as ">= 0.99" or "<= 1s".
type Threshold struct {
	Op    string // >=, >, <=, <
	Value float64
	Text  string
}

func (t *Threshold) parseScalar(s string) error {
	s = strings.TrimSpace(s)
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, ok := strings.CutPrefix(s, op); ok {
			rest = strings.TrimSpace(rest)
			v, err := strconv.ParseFloat(strings.TrimSuffix(rest, "%"), 64)
			switch {
			case err == nil && strings.HasSuffix(rest, "%"):
				v /= 100
			case err != nil:
				d, derr := parseDuration(rest)
				if derr != nil {
					return fmt.Errorf("expected a bound such as \">= 0.99\" or \"<= 1s\", got %q", s)
				}
				v = d.Seconds()
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("bound must be finite, got %q", s)
			}
			*t = Threshold{Op: op, Value: v, Text: s}
			return nil
		}
	}
	return fmt.Errorf("expected a bound starting with >=, >, <= or <, got %q", s)
}

// number is the bound's number as written, without its operator, and
// whether it was written as a time (with a unit) rather than a number or
// a percentage.
func (t Threshold) number() (text string, timed bool) {
	rest := strings.TrimSpace(strings.TrimPrefix(t.Text, t.Op))
	_, err := strconv.ParseFloat(strings.TrimSuffix(rest, "%"), 64)
	return rest, err != nil
}

// checkUnit refuses a bound written in another unit than the measure it
// bounds: a bare number for a time, as a bare duration is refused (10
// could be seconds or milliseconds), and a time for a fraction.
func (t Threshold) checkUnit(u Unit) error {
	num, timed := t.number()
	switch {
	case u == UnitSeconds && !timed:
		return fmt.Errorf("bound %q needs a unit (ms, s, m or h), e.g. \"%s %ss\"", t.Text, t.Op, num)
	case u == UnitFraction && timed:
		return fmt.Errorf("bounds a fraction, such as \">= 0.99\" or \">= 99%%\", not a time, got %q", t.Text)
	}
	return nil
}

// never says why the bound can hold of no value within b, the range of
// the key it bounds ("< 0s" of a time, "> 1" of a fraction), or "" when
// some value satisfies it.
func (t Threshold) never(b KeyBound) string {
	end := func(x float64) string {
		num, timed := t.number()
		switch {
		case timed:
			return sim.Time(math.Round(x * 1e9)).String()
		case strings.HasSuffix(num, "%"):
			return strconv.FormatFloat(x*100, 'g', -1, 64) + "%"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	switch {
	case t.Op == ">" && !b.HiOpen && t.Value >= b.Hi:
		return fmt.Sprintf("%q can never hold: no value is above %s", t.Text, end(b.Hi))
	case t.Op == "<" && !b.LoOpen && t.Value <= b.Lo:
		return fmt.Sprintf("%q can never hold: no value is below %s", t.Text, end(b.Lo))
	}
	return ""
}

// Holds reports whether x satisfies the bound.
func (t Threshold) Holds(x float64) bool {
	switch t.Op {
	case ">=":
		return x >= t.Value
	case ">":
		return x > t.Value
	case "<=":
		return x <= t.Value
	default:
		return x < t.Value
	}
}

// Count is a non-negative integer written literally or as the name of a
// journey attribute (repeat: photos).
type Count struct {
	N    int
	Attr string
	Set  bool
}

func (c *Count) parseScalar(s string) error {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return fmt.Errorf("count must not be negative, got %d", n)
		}
		if n > MaxCount {
			return fmt.Errorf("count %d is more than %d, the largest count capsim keeps", n, MaxCount)
		}
		*c = Count{N: n, Set: true}
		return nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f > MaxCount {
			return fmt.Errorf("count %s is more than %d, the largest count capsim keeps", s, MaxCount)
		}
		return fmt.Errorf("expected a whole number, got %s", s)
	}
	if !validName(s) {
		return fmt.Errorf("expected a whole number or an attribute name, got %q", s)
	}
	*c = Count{Attr: s, Set: true}
	return nil
}

// Weight is a non-negative number written literally or as an attribute name
// (weight: heic_share).
type Weight struct {
	V    float64
	Attr string
}

func (w *Weight) parseScalar(s string) error {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("weight must be a finite number >= 0, got %s", s)
		}
		*w = Weight{V: v}
		return nil
	}
	if !validName(s) {
		return fmt.Errorf("expected a number or an attribute name, got %q", s)
	}
	*w = Weight{Attr: s}
	return nil
}

// Share is a fraction written as a percentage (10%) or a number (0.1).
type Share struct {
	V    float64
	Text string
}

func (s *Share) parseScalar(text string) error {
	t := strings.TrimSpace(text)
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("expected a share >= 0 such as 10%% or 0.1, got %q", text)
	}
	if strings.HasSuffix(t, "%") {
		v /= 100
	}
	*s = Share{V: v, Text: t}
	return nil
}
