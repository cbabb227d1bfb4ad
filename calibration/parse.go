package calibration

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// timeLayouts are the textual timestamps the readers accept, tried in order:
// RFC 3339 with any fraction (k6 JSON, k6 CSV with timeFormat=rfc3339, nginx
// $time_iso8601, most JSON loggers), the same with a space instead of the T
// and without a zone (log4j/logback defaults, read as UTC), and nginx
// $time_local.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05,999999999",
	"02/Jan/2006:15:04:05 -0700",
}

// Bounds used to tell the unit of a numeric epoch timestamp by its size.
// Seconds since 1970 stay below 1e11 until the year 5138; milliseconds,
// microseconds and nanoseconds of any date after 1973 are above 1e11, 1e14
// and 1e17. k6 CSV writes unix, unix_milli, unix_micro or unix_nano
// (option timeFormat) with no marker of which.
const (
	epochMilliMin = 1e11
	epochMicroMin = 1e14
	epochNanoMin  = 1e17
)

// parseTimestamp reads a timestamp as Unix seconds. It accepts the layouts in
// timeLayouts and numeric epochs in seconds (with a fraction, as nginx $msec
// writes them), milliseconds, microseconds or nanoseconds.
func parseTimestamp(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return math.NaN(), fmt.Errorf("empty timestamp")
	}
	if c := s[0]; c >= '0' && c <= '9' && !strings.ContainsAny(s, "-/:T ") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN(), fmt.Errorf("timestamp %q is not a number or a date", s)
		}
		return epochSeconds(v), nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return unixSeconds(t), nil
		}
	}
	return math.NaN(), fmt.Errorf("timestamp %q is in no known format", s)
}

// parseTimestampParts is parseTimestamp keeping whole seconds apart from
// their fraction, so that the difference of two nearby timestamps keeps its
// microseconds: a float64 of Unix seconds holds only about 0.2 µs.
func parseTimestampParts(s string) (sec int64, frac float64, err error) {
	s = strings.TrimSpace(s)
	if c := s; c != "" && c[0] >= '0' && c[0] <= '9' && !strings.ContainsAny(s, "-/:T ") {
		whole, fraction, _ := strings.Cut(s, ".")
		ip, err1 := strconv.ParseInt(whole, 10, 64)
		fp := 0.0
		var err2 error
		if fraction != "" {
			fp, err2 = strconv.ParseFloat("0."+fraction, 64)
		}
		if err1 != nil || err2 != nil {
			v, err := parseTimestamp(s)
			return int64(math.Floor(v)), v - math.Floor(v), err
		}
		div := int64(1)
		switch v := float64(ip); {
		case v >= epochNanoMin:
			div = 1e9
		case v >= epochMicroMin:
			div = 1e6
		case v >= epochMilliMin:
			div = 1e3
		}
		return ip / div, (float64(ip%div) + fp) / float64(div), nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Unix(), float64(t.Nanosecond()) / 1e9, nil
		}
	}
	_, err = parseTimestamp(s)
	return 0, 0, err
}

// epochSeconds converts a numeric epoch of unknown unit to seconds.
func epochSeconds(v float64) float64 {
	switch {
	case v >= epochNanoMin:
		return v / 1e9
	case v >= epochMicroMin:
		return v / 1e6
	case v >= epochMilliMin:
		return v / 1e3
	}
	return v
}

func unixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}

// ParseTime reads a time given on the command line (for --since and
// --until): any layout the readers accept, or a numeric Unix epoch.
func ParseTime(s string) (time.Time, error) {
	v, err := parseTimestamp(s)
	if err != nil {
		return time.Time{}, err
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
}

// Unit is a time unit for plain numbers, as its factor to seconds.
type Unit float64

// Units by name, as they appear in flags and in column-name suffixes.
var unitNames = map[string]Unit{
	"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "sec": 1, "seconds": 1, "m": 60, "min": 60, "h": 3600,
}

// ParseUnit reads a unit name: ns, us, ms, s, m or h.
func ParseUnit(s string) (Unit, error) {
	if u, ok := unitNames[s]; ok {
		return u, nil
	}
	return 0, fmt.Errorf("unknown unit %q (want ns, us, ms, s, m or h)", s)
}

// unitFromName guesses the unit of a column or field from its name, such as
// duration_ms, elapsed_us or latency_seconds. ok is false when the name says
// nothing.
func unitFromName(name string) (u Unit, ok bool) {
	lower := strings.ToLower(name)
	for _, sep := range []string{"_", "-", "."} {
		if i := strings.LastIndex(lower, sep); i >= 0 {
			if u, ok := unitNames[lower[i+1:]]; ok {
				return u, true
			}
		}
	}
	for _, suffix := range []string{"Ms", "MS", "Millis"} {
		if strings.HasSuffix(name, suffix) && len(name) > len(suffix) {
			// camelCase, such as durationMs or elapsedMillis.
			return 1e-3, true
		}
	}
	return 0, false
}

// parseDurationValue reads a number in unit, or a Go-style duration with its
// own unit ("40s", "1m30s", "120ms"), and returns seconds.
func parseDurationValue(s string, unit Unit) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("value %q is not finite", s)
		}
		return v * float64(unit), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return d.Seconds(), nil
	}
	return 0, fmt.Errorf("value %q is not a number", s)
}

// ParseSeconds reads a duration with a unit, as scenarios write them ("36s",
// "0.56s", "3m45s", "120ms"), and returns seconds. A bare number is refused:
// a figure without its unit is the commonest calibration mistake.
func ParseSeconds(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("%q has no unit (write for example %ss or %sms)", s, s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 0.56s, 40s or 3m45s", s)
	}
	return d.Seconds(), nil
}

// urlPath returns the path of a request target or URL, without query or
// fragment: "https://host/api/trips/7?x=1" and "/api/trips/7?x=1" both give
// "/api/trips/7".
func urlPath(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if u, err := url.Parse(s); err == nil {
			if u.Path == "" {
				return "/"
			}
			return u.Path
		}
		rest := s[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			s = rest[j:]
		} else {
			return "/"
		}
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	return s
}

// splitRequestLine splits an HTTP request line ("POST /api/x?y=1 HTTP/1.1")
// into method and path. ok is false for lines that are not requests, such
// as the "-" or binary junk nginx logs for aborted connections.
func splitRequestLine(s string) (method, path string, ok bool) {
	fields := strings.Fields(s)
	if len(fields) < 2 || !strings.HasPrefix(fields[1], "/") && !strings.Contains(fields[1], "://") {
		return "", "", false
	}
	return fields[0], urlPath(fields[1]), true
}
