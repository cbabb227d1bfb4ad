package calibration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// combinedRE matches nginx's predefined combined format,
//
//	$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"
//
// and captures what follows it. nginx escapes '"' inside quoted variables
// (as \x22, or \" with escape=json), so a quoted field never holds a bare
// quote.
var combinedRE = regexp.MustCompile(`^(\S+) - (\S+) \[([^\]]+)\] "((?:[^"\\]|\\.)*)" (\d{3}) (\d+|-) "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"(.*)$`)

// nginxTimeKeys are the JSON keys tried, in order, for a record's time.
var nginxTimeKeys = []string{"time_iso8601", "time_local", "msec", "@timestamp", "timestamp", "time"}

// nginxPathKeys are the JSON keys tried for the request path when there is
// no "request" key holding the whole request line.
var nginxPathKeys = []string{"request_uri", "uri", "path", "url"}

// nginxValue is the --metric of an nginx log: one variable, or the
// difference of two.
type nginxValue struct{ a, b string }

func parseNginxValue(s string) (nginxValue, error) {
	a, b, diff := strings.Cut(s, "-")
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "" || diff && b == "" {
		return nginxValue{}, fmt.Errorf("metric %q is neither a variable nor a difference of two (request_time-upstream_response_time)", s)
	}
	return nginxValue{a, b}, nil
}

// missing returns the first variable the line does not carry at all, which
// means the log_format lacks it: "" when all are there.
func (v nginxValue) missing(get func(string) (string, bool)) string {
	for _, k := range []string{v.a, v.b} {
		if k == "" {
			continue
		}
		if _, ok := get(k); !ok {
			return k
		}
	}
	return ""
}

// eval computes the value from a field lookup. ok is false when a variable
// is absent or holds no time ("-"); err reports a field that is not a time.
func (v nginxValue) eval(get func(string) (string, bool)) (val float64, ok bool, err error) {
	x, ok, err := nginxField(get, v.a)
	if !ok || err != nil || v.b == "" {
		return x, ok, err
	}
	y, ok, err := nginxField(get, v.b)
	if !ok || err != nil {
		return 0, ok, err
	}
	return x - y, true, nil
}

func nginxField(get func(string) (string, bool), key string) (float64, bool, error) {
	s, present := get(key)
	if !present {
		return 0, false, nil
	}
	v, ok, err := parseNginxTimes(s)
	if err != nil {
		return 0, false, fmt.Errorf("%s %q: %v", key, s, err)
	}
	return v, ok, nil
}

// parseNginxTimes reads a time variable in seconds with millisecond
// resolution. The $upstream_*_time variables hold a list when a request
// went to several servers, "0.010, 0.020", with groups after an internal
// redirect separated by " : ", and "-" for a server that gave no time; the
// list is summed, the total time spent upstream. ok is false when there is no
// number at all: "-" or empty.
func parseNginxTimes(s string) (sum float64, ok bool, err error) {
	for _, group := range strings.Split(s, ":") {
		for _, item := range strings.Split(group, ",") {
			item = strings.TrimSpace(item)
			if item == "-" || item == "" {
				continue
			}
			v, perr := strconv.ParseFloat(item, 64)
			if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, false, fmt.Errorf("%q is not a time in seconds", item)
			}
			sum += v
			ok = true
		}
	}
	return sum, ok, nil
}

func (r *Reader) readNginx(name string, lr *lineReader, fs *FileStats, f Format) error {
	val, err := parseNginxValue(r.nginxMetric())
	if err != nil {
		return err
	}
	// nginx logs whole milliseconds, each time the difference of two clock
	// readings: a difference of two times may come out below 0 by up to a
	// millisecond per time, and is then a small true value, not an error.
	r.s.Resolution, r.s.ResolutionText = DefaultNginxResolution, "nginx 1ms (nginx logs times in whole milliseconds)"
	r.s.RoundedFields, r.s.Roundings = 1, 2
	if val.b != "" {
		r.s.RoundedFields, r.s.Roundings = 2, 4
	}
	for {
		line, num, ok, err := r.nextLine(name, lr, fs)
		if !ok {
			return err
		}
		var (
			rec record
			get func(string) (string, bool)
			msg string
		)
		if f == FormatNginxJSON {
			get, msg = r.nginxJSONRecord(line, &rec)
		} else {
			get, msg = nginxCombinedRecord(line, &rec)
		}
		if msg != "" {
			r.malformed(name, fs, num, "%s", msg)
			continue
		}
		if missing := val.missing(get); missing != "" {
			r.malformed(name, fs, num, "no %s field", missing)
			continue
		}
		v, ok, err := val.eval(get)
		if err != nil {
			r.malformed(name, fs, num, "%v", err)
			continue
		}
		rec.value, rec.hasValue = v, ok
		rec.tag = get
		r.add(name, fs, num, &rec)
	}
}

// nginxJSONRecord parses one line of a JSON log_format. Keys are whatever
// the log_format names them; values are strings (the usual quoted
// "$variable") or numbers. msg is non-empty for a malformed line.
func (r *Reader) nginxJSONRecord(line []byte, rec *record) (get func(string) (string, bool), msg string) {
	obj, err := decodeObject(line)
	if err != nil && bytes.Contains(line, []byte(`\x`)) {
		// Without escape=json, nginx escapes '"', '\' and control bytes as
		// \xHH, which JSON does not allow; such lines are read by turning
		// \xHH into \u00HH.
		obj, err = decodeObject(hexEscapes.ReplaceAll(line, []byte(`\u00$1`)))
	}
	if err != nil {
		return nil, jsonErrText(err)
	}
	get = func(key string) (string, bool) { return lookupString(obj, key) }
	rec.time = math.NaN()
	for _, k := range nginxTimeKeys {
		if s, ok := get(k); ok && s != "" && s != "-" {
			t, err := parseTimestamp(s)
			if err != nil {
				return nil, k + ": " + err.Error()
			}
			rec.time = t
			break
		}
	}
	if req, ok := get("request"); ok {
		if method, path, ok := splitRequestLine(req); ok {
			rec.path = path
			obj["request_method"] = method
		}
	} else {
		for _, k := range nginxPathKeys {
			if s, ok := get(k); ok && s != "" {
				rec.path = urlPath(s)
				break
			}
		}
	}
	if s, ok := get("status"); ok {
		if rec.status, msg = parseStatus(s); msg != "" {
			return nil, msg
		}
	}
	return get, ""
}

var hexEscapes = regexp.MustCompile(`\\x([0-9A-Fa-f]{2})`)

// nginxCombinedRecord parses one line of the combined format followed by
// timing variables. Two layouts of the tail are read:
//
//	... "$http_user_agent" $request_time [$upstream_response_time] [$request_id]
//	... "$http_user_agent" rt=$request_time urt="$upstream_response_time" ...
//
// In the first, a quoted or unquoted upstream time list may contain spaces
// ("0.010, 0.020 : 0.005"); $request_id is recognised as the last field when
// it is not part of a time list (nginx writes it as 32 hex digits). In the
// second, every key=value pair becomes a field under its key.
func nginxCombinedRecord(line []byte, rec *record) (get func(string) (string, bool), msg string) {
	m := combinedRE.FindSubmatch(line)
	if m == nil {
		return nil, "not in nginx combined format"
	}
	fields := map[string]string{
		"remote_addr":     string(m[1]),
		"remote_user":     string(m[2]),
		"time_local":      string(m[3]),
		"request":         string(m[4]),
		"status":          string(m[5]),
		"body_bytes_sent": string(m[6]),
		"http_referer":    string(m[7]),
		"http_user_agent": string(m[8]),
	}
	t, err := parseTimestamp(fields["time_local"])
	if err != nil {
		return nil, "time_local: " + err.Error()
	}
	rec.time = t
	if method, path, ok := splitRequestLine(fields["request"]); ok {
		rec.path = path
		fields["request_method"] = method
	}
	rec.status, _ = parseStatus(fields["status"]) // three digits, by combinedRE
	tail, err := tokenize(string(m[9]))
	if err != nil {
		return nil, err.Error()
	}
	if len(tail) == 0 {
		return nil, "nothing after the user agent: the log_format lacks $request_time"
	}
	allPairs := true
	for _, tok := range tail {
		if k, _, ok := strings.Cut(tok, "="); !ok || k == "" {
			allPairs = false
		}
	}
	if allPairs {
		for _, tok := range tail {
			k, v, _ := strings.Cut(tok, "=")
			fields[k] = v
		}
	} else {
		fields["request_time"] = tail[0]
		rest := tail[1:]
		if n := len(rest); n > 0 && isRequestID(rest[n-1]) {
			fields["request_id"] = rest[n-1]
			rest = rest[:n-1]
		}
		if len(rest) > 0 {
			fields["upstream_response_time"] = strings.Join(rest, " ")
		}
	}
	return func(key string) (string, bool) { v, ok := fields[key]; return v, ok }, ""
}

// tokenize splits the tail of a log line into fields: runs of non-space
// characters, or double-quoted strings (quotes removed, \x22 and \" kept as
// written), including the value part of key="value".
func tokenize(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		var b strings.Builder
		for i < len(s) && s[i] != ' ' && s[i] != '\t' {
			if s[i] == '"' {
				j := i + 1
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' {
						j++
					}
					j++
				}
				if j >= len(s) {
					return nil, errors.New("unterminated quote after the user agent")
				}
				b.WriteString(s[i+1 : j])
				i = j + 1
				continue
			}
			b.WriteByte(s[i])
			i++
		}
		out = append(out, b.String())
	}
	return out, nil
}

// isRequestID reports whether a tail field is a $request_id rather than a
// piece of an upstream time list.
func isRequestID(tok string) bool {
	if len(tok) == 32 && strings.Trim(tok, "0123456789abcdef") == "" {
		return true
	}
	switch t := strings.TrimRight(tok, ","); t {
	case "", "-", ":":
		return false
	default:
		_, err := strconv.ParseFloat(t, 64)
		return err != nil
	}
}

// decodeObject decodes one JSON object, keeping numbers as written.
func decodeObject(line []byte) (map[string]any, error) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("not a JSON object: %q", excerpt(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errTruncated
		}
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return obj, nil
}

var errTruncated = errors.New("the line ends inside the JSON object (truncated)")

// excerpt returns the start of a line for a message.
func excerpt(b []byte) string {
	const n = 40
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// lookupString returns the field key of obj as text. A key containing dots
// that is not itself a key is followed into nested objects: "mdc.request_id".
func lookupString(obj map[string]any, key string) (string, bool) {
	v, ok := obj[key]
	if !ok && strings.Contains(key, ".") {
		var cur any = obj
		for part := range strings.SplitSeq(key, ".") {
			m, isMap := cur.(map[string]any)
			if !isMap {
				return "", false
			}
			if cur, ok = m[part]; !ok {
				return "", false
			}
		}
		v, ok = cur, true
	}
	if !ok {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", false
	default:
		b, _ := json.Marshal(x)
		return string(b), true
	}
}
