package calibration

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Filter selects the records whose values are kept. The zero Filter keeps
// everything. Every condition must hold; a condition on a field a record does
// not carry (a status filter on a plain CSV without a status column, a time
// window on records without timestamps) excludes the record.
type Filter struct {
	// Route is a pattern matched against the request path (query removed)
	// and, for k6, against the request's name tag. In the pattern, * matches
	// within one path segment, ** matches across segments and ? matches one
	// character: "/api/trips/*/photos". A pattern starting with ~ is a
	// regular expression instead: "~^/api/trips/[0-9]+/photos$".
	Route string
	// Status lists the accepted HTTP statuses, each exact ("200") or a class
	// ("2xx"). Empty accepts any.
	Status []string
	// Tags lists key=value pairs that must all be present: k6 tags, nginx
	// JSON fields, application-log fields or CSV columns.
	Tags []Tag
	// Since and Until bound the record's time: Since <= t < Until. A zero
	// time leaves that side open.
	Since, Until time.Time
}

// Tag is one key=value condition of a Filter.
type Tag struct{ Key, Value string }

// ParseTag reads "key=value".
func ParseTag(s string) (Tag, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return Tag{}, fmt.Errorf("tag %q is not key=value", s)
	}
	return Tag{Key: k, Value: v}, nil
}

// String describes the filter as it appears in the provenance of a fit:
// "route=/api/trips/*/photos status=200 tag:scenario=upload", or "none".
func (f Filter) String() string {
	var parts []string
	if f.Route != "" {
		parts = append(parts, "route="+f.Route)
	}
	if len(f.Status) > 0 {
		parts = append(parts, "status="+strings.Join(f.Status, ","))
	}
	for _, t := range f.Tags {
		parts = append(parts, "tag:"+t.Key+"="+t.Value)
	}
	if !f.Since.IsZero() {
		parts = append(parts, "since="+f.Since.UTC().Format(time.RFC3339Nano))
	}
	if !f.Until.IsZero() {
		parts = append(parts, "until="+f.Until.UTC().Format(time.RFC3339Nano))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// Validate reports the first problem with the filter: a route pattern that
// does not compile, a status that is neither a code nor a class, an empty
// time window.
func (f Filter) Validate() error {
	_, err := f.compile()
	return err
}

// parseStatus reads an HTTP status field: empty or "-" (none logged) is
// 0, unknown; anything else must be a whole number from 0 to 999 (k6
// writes 0 for a request that got no response). A word there is an error,
// not an unknown status: dropped, its request would leave the HTTP
// failure rate silently.
func parseStatus(s string) (int, string) {
	if s == "" || s == "-" {
		return 0, ""
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 999 {
		return 0, fmt.Sprintf("status %q is not an HTTP status (a whole number)", s)
	}
	return n, ""
}

// record is one measurement as a reader hands it to the filter.
type record struct {
	value    float64 // seconds
	hasValue bool
	time     float64 // Unix seconds, NaN when unknown
	path     string  // request path, "" when unknown
	name     string  // k6 name tag, "" when unknown
	status   int     // 0 when unknown
	tag      func(key string) (string, bool)
}

// matcher is a Filter compiled for repeated use.
type matcher struct {
	f      Filter
	route  *regexp.Regexp
	status []statusPattern
	since  float64
	until  float64
}

type statusPattern struct{ lo, hi int }

func (f Filter) compile() (*matcher, error) {
	m := &matcher{f: f, since: math.Inf(-1), until: math.Inf(1)}
	if f.Route != "" {
		re, err := compileRoute(f.Route)
		if err != nil {
			return nil, err
		}
		m.route = re
	}
	for _, s := range f.Status {
		p, err := parseStatusPattern(s)
		if err != nil {
			return nil, err
		}
		m.status = append(m.status, p)
	}
	if !f.Since.IsZero() {
		m.since = unixSeconds(f.Since)
	}
	if !f.Until.IsZero() {
		m.until = unixSeconds(f.Until)
	}
	if m.since >= m.until {
		return nil, fmt.Errorf("the time window is empty: since %s is not before until %s",
			f.Since.UTC().Format(time.RFC3339), f.Until.UTC().Format(time.RFC3339))
	}
	return m, nil
}

// AnyRoute returns one Route pattern that selects what any of patterns
// selects, each request once however many of them select it: a count of
// the requests some pattern selects, beside the patterns' own counts,
// says whether two of them share requests.
func AnyRoute(patterns ...string) (string, error) {
	parts := make([]string, len(patterns))
	for i, p := range patterns {
		re, err := compileRoute(p)
		if err != nil {
			return "", err
		}
		parts[i] = "(?:" + re.String() + ")"
	}
	return "~" + strings.Join(parts, "|"), nil
}

// compileRoute turns a route pattern into an anchored regular expression.
func compileRoute(pattern string) (*regexp.Regexp, error) {
	if expr, ok := strings.CutPrefix(pattern, "~"); ok {
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("route %q: %v", pattern, err)
		}
		return re, nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func parseStatusPattern(s string) (statusPattern, error) {
	s = strings.TrimSpace(s)
	if len(s) == 3 && (strings.HasSuffix(s, "xx") || strings.HasSuffix(s, "XX")) && s[0] >= '1' && s[0] <= '5' {
		lo := int(s[0]-'0') * 100
		return statusPattern{lo, lo + 99}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n > 599 {
		return statusPattern{}, fmt.Errorf("status %q is neither a code (200) nor a class (2xx)", s)
	}
	return statusPattern{n, n}, nil
}

// windowed says whether the filter bounds the records' time.
func (m *matcher) windowed() bool { return !math.IsInf(m.since, -1) || !math.IsInf(m.until, 1) }

func (m *matcher) match(r *record) bool {
	if m.route != nil {
		ok := r.path != "" && m.route.MatchString(r.path)
		if !ok && r.name != "" {
			ok = m.route.MatchString(r.name) || m.route.MatchString(urlPath(r.name))
		}
		if !ok {
			return false
		}
	}
	if len(m.status) > 0 {
		if !slices.ContainsFunc(m.status, func(p statusPattern) bool { return r.status >= p.lo && r.status <= p.hi }) {
			return false
		}
	}
	for _, t := range m.f.Tags {
		if r.tag == nil {
			return false
		}
		if v, ok := r.tag(t.Key); !ok || v != t.Value {
			return false
		}
	}
	if m.windowed() {
		if math.IsNaN(r.time) || r.time < m.since || r.time >= m.until {
			return false
		}
	}
	return true
}
