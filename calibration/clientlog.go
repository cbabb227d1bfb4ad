package calibration

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ClientFields name the parts of a load driver's own JSON lines, one
// object per request, such as
//
//	{"t": "2026-01-01T10:00:00.123Z", "journey": "thumb", "status": 200, "latency_ms": 812.4}
//
// Each is a field path as a plan's expr: reads one (data.timings.ms for a
// nested object). A plan source states them under fields:.
type ClientFields struct {
	Time    string // the request's time: RFC 3339 or an epoch
	Route   string // the route or journey step it called: a name or a path
	Status  string // its HTTP status
	Latency string // how long it took: a number in Unit, or "812ms"
	// Unit is the unit of Latency's plain numbers; 0 takes it from the
	// field's name (latency_ms), and a number then without one is an error.
	Unit Unit
	// Timeout and Error, when named, are boolean fields saying the client
	// gave up or the request failed without a response; either counts the
	// request as failed whatever its status, and lets it have none.
	Timeout, Error string
}

// clientFieldKeys are the keys of fields:, the four a request needs first.
var clientFieldKeys = []string{"time", "route", "status", "latency", "unit", "timeout", "error"}

// ClientRequest is one request a driver logged.
type ClientRequest struct {
	Time    float64 // Unix seconds
	Route   string
	Status  int     // 0 when the request got no response
	Latency float64 // seconds
	// Failed is a status of 400 or more, or the timeout or error flag set.
	Failed bool
}

// readClientFields reads a source's fields: mapping.
func readClientFields(n *yaml.Node, at func(*yaml.Node, string, ...any) error) (*ClientFields, []error) {
	if n.Kind != yaml.MappingNode {
		return nil, []error{at(n, "fields: want {time: FIELD, route: FIELD, status: FIELD, latency: FIELD}")}
	}
	f := &ClientFields{}
	// The keys that name a field of the log, and where each name goes.
	names := map[string]*string{
		"time": &f.Time, "route": &f.Route, "status": &f.Status, "latency": &f.Latency,
		"timeout": &f.Timeout, "error": &f.Error,
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" || strings.ContainsAny(v.Value, " \t") {
			errs = append(errs, at(v, "fields: %s: want the name of a field, such as latency_ms or data.timings.ms", k.Value))
			continue
		}
		if dst, ok := names[k.Value]; ok {
			*dst = v.Value
			continue
		}
		if k.Value != "unit" {
			errs = append(errs, at(k, "fields: unknown key %q (want %s)", k.Value, strings.Join(clientFieldKeys, ", ")))
			continue
		}
		u, err := ParseUnit(v.Value)
		if err != nil {
			errs = append(errs, at(v, "fields: unit: %v", err))
		}
		f.Unit = u
	}
	for _, need := range []struct{ key, val string }{{"time", f.Time}, {"route", f.Route}, {"status", f.Status}, {"latency", f.Latency}} {
		if need.val == "" && len(errs) == 0 {
			errs = append(errs, at(n, "fields: no %s: (the field holding the request's %s)", need.key, need.key))
		}
	}
	return f, errs
}

// ReadSources reads a file of sources: alone, as capsim check is given
// the logs of a recorded run: the plan's sources: section, its client logs
// with fields:. Problems are reported at once, each at name:line:column.
func ReadSources(name string, r io.Reader) ([]PlanSource, error) {
	root, at, err := readTop(name, r, "sources:", "a mapping with sources:")
	if err != nil {
		return nil, err
	}
	p := &Plan{File: name}
	var errs []error
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "sources" {
			errs = append(errs, at(k, "%s: a check reads the logs under sources: only (measured: and figures: are calibrate's)", k.Value))
			continue
		}
		errs = append(errs, p.readSources(name, v, true)...)
	}
	if len(errs) == 0 && len(p.Sources) == 0 {
		errs = append(errs, at(root, "no source (want sources: NAME: {file: FILE, fields: {...}})"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p.Sources, nil
}

// ReadClientLog reads every request of a driver's JSON lines, called name,
// with fields. The first line that cannot be read is the error, at
// name:line and naming the field: a comparison must not lose a request.
func ReadClientLog(name string, in io.Reader, f ClientFields) ([]ClientRequest, error) {
	unit := f.Unit
	if unit == 0 {
		unit, _ = unitFromName(f.Latency)
	}
	lr := newLineReader(in)
	var reqs []ClientRequest
	for {
		line, num, tooLong, err := lr.next()
		if err == io.EOF {
			return reqs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, num, fmt.Sprintf(format, args...))
		}
		if tooLong {
			return nil, fail("line longer than %d bytes", MaxLineBytes)
		}
		if num > MaxLines || len(reqs) >= MaxValues {
			// As every reader: a small gzip can stand for gigabytes.
			return nil, fail("more than %d lines or %d requests; check a part of the run (a shorter span)", MaxLines, MaxValues)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		obj, err := decodeObject(line)
		if err != nil {
			return nil, fail("%s", jsonErrText(err))
		}
		get := func(field, what string) (string, error) {
			v, ok := lookupString(obj, field)
			if !ok || v == "" {
				return "", fail("no field %s (the request's %s)", field, what)
			}
			return v, nil
		}
		var rq ClientRequest
		ts, err := get(f.Time, "time")
		if err != nil {
			return nil, err
		}
		if rq.Time, err = parseTimestamp(ts); err != nil {
			return nil, fail("%s: %v", f.Time, err)
		}
		if rq.Route, err = get(f.Route, "route"); err != nil {
			return nil, err
		}
		lat, err := get(f.Latency, "latency")
		if err != nil {
			return nil, err
		}
		if rq.Latency, err = clientLatency(lat, unit); err != nil {
			return nil, fail("%s: %v", f.Latency, err)
		}
		for _, flag := range []string{f.Timeout, f.Error} {
			if flag == "" {
				continue
			}
			// A driver may write the flag only on the requests it marks.
			if v, ok := lookupString(obj, flag); ok && v != "" {
				set, err := strconv.ParseBool(v)
				if err != nil {
					return nil, fail("%s: %q is not true or false", flag, v)
				}
				rq.Failed = rq.Failed || set
			}
		}
		if st, ok := lookupString(obj, f.Status); ok {
			n, msg := parseStatus(st)
			if msg != "" {
				return nil, fail("%s: %s", f.Status, msg)
			}
			rq.Status = n
		}
		if rq.Status == 0 && !rq.Failed {
			// Left out, it would leave the HTTP failure rate silently;
			// counted as a success, it would lower it.
			what := "name its timeout or error field under fields:"
			if f.Timeout != "" || f.Error != "" {
				what = "its " + strings.Trim(f.Timeout+" or "+f.Error, " or") + " field must say it failed"
			}
			return nil, fail("no status in field %s: a request without a response counts as failed only when told (%s)", f.Status, what)
		}
		rq.Failed = rq.Failed || rq.Status >= firstErrorStatus
		reqs = append(reqs, rq)
	}
}

// clientLatency reads a latency: a number in unit, a number with a unit
// ("812ms", "812 ms", "0.8s") or a Go duration ("1m30s"), in seconds.
func clientLatency(s string, unit Unit) (float64, error) {
	s = strings.TrimSpace(s)
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E')
	})
	if end < 0 {
		end = len(s)
	}
	// An exponent's e is a unit's letter when what follows is no number.
	for end > 0 && (s[end-1] == 'e' || s[end-1] == 'E') {
		end--
	}
	v, err := strconv.ParseFloat(s[:end], 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number or a duration such as 812ms", s)
	}
	u := unit
	if suffix := strings.TrimSpace(s[end:]); suffix != "" {
		known, ok := unitNames[suffix]
		if !ok {
			d, err := time.ParseDuration(s)
			if err != nil {
				return 0, fmt.Errorf("%q has an unknown unit %q (want ns, us, ms, s, m or h)", s, suffix)
			}
			v, u = d.Seconds(), 1
		} else {
			u = known
		}
	} else if u == 0 {
		return 0, fmt.Errorf("%s is a number without a unit: give unit: under fields: (ms, s, ...)", s)
	}
	v *= float64(u)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is not finite", s)
	case v < 0:
		return 0, fmt.Errorf("%q is negative", s)
	}
	return v, nil
}

// RouteMatcher compiles a route pattern (Filter.Route's syntax) into a test
// of a request's route as a driver names it: its path, or a name the pattern
// matches as k6's name tag does.
func RouteMatcher(pattern string) (func(name string) bool, error) {
	re, err := compileRoute(pattern)
	if err != nil {
		return nil, err
	}
	return func(name string) bool { return re.MatchString(name) || re.MatchString(urlPath(name)) }, nil
}
