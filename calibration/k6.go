package calibration

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// k6 writes time metrics (http_req_duration, iteration_duration, any Trend
// created with isTime) in milliseconds, in both its CSV and JSON outputs.
const k6Millisecond Unit = 1e-3

// k6 CSV output (k6 run --out csv=FILE) has a header of metric_name,
// timestamp, metric_value, then one column per indexed system tag (sorted by
// name: check, error, error_code, expected_response, group, method, name,
// proto, scenario, service, status, subproto, tls_version, url in recent
// versions; older ones lack some), then extra_tags ("k=v&k=v", the tags
// without a column) and, since v0.45, metadata in the same form. Columns are
// found by their header name, so any subset or order is read.
func (r *Reader) readK6CSV(name string, lr *lineReader, fs *FileStats) error {
	var (
		cols                    map[string]int
		iName, iTime, iValue    int
		iURL, iStatus, iTagName int
		iExtra, iMeta           int
		nCols                   int
	)
	metric, unit := r.k6Metric(), r.k6Unit()
	for {
		line, num, ok, err := r.nextLine(name, lr, fs)
		if !ok {
			return err
		}
		fields, perr := splitCSVLine(line, ',')
		if cols == nil {
			if perr != nil {
				return fmt.Errorf("%s:%d: not a k6 CSV header: %v", name, num, perr)
			}
			cols = make(map[string]int, len(fields))
			for i, f := range fields {
				cols[strings.TrimSpace(f)] = i
			}
			for _, req := range []string{"metric_name", "timestamp", "metric_value"} {
				if _, ok := cols[req]; !ok {
					return fmt.Errorf("%s:%d: header has no %s column; is this k6 --out csv output?", name, num, req)
				}
			}
			iName, iTime, iValue = cols["metric_name"], cols["timestamp"], cols["metric_value"]
			iURL, iStatus, iTagName = colIndex(cols, "url"), colIndex(cols, "status"), colIndex(cols, "name")
			iExtra, iMeta = colIndex(cols, "extra_tags"), colIndex(cols, "metadata")
			nCols = len(fields)
			continue
		}
		if perr != nil {
			r.malformed(name, fs, num, "%v", perr)
			continue
		}
		if len(fields) != nCols {
			r.malformed(name, fs, num, "%d fields where the header has %d", len(fields), nCols)
			continue
		}
		if fields[iName] != metric {
			fs.Other++
			continue
		}
		v, err := strconv.ParseFloat(fields[iValue], 64)
		if err != nil {
			r.malformed(name, fs, num, "metric_value %q is not a number", fields[iValue])
			continue
		}
		t, err := parseTimestamp(fields[iTime])
		if err != nil {
			r.malformed(name, fs, num, "%v", err)
			continue
		}
		rec := record{value: v * float64(unit), hasValue: true, time: t}
		if iURL >= 0 {
			rec.path = urlPath(fields[iURL])
		}
		if iTagName >= 0 {
			rec.name = fields[iTagName]
		}
		if iStatus >= 0 {
			var msg string
			if rec.status, msg = parseStatus(fields[iStatus]); msg != "" {
				r.malformed(name, fs, num, "%s", msg)
				continue
			}
		}
		rec.tag = func(key string) (string, bool) {
			if i, ok := cols[key]; ok && i != iExtra && i != iMeta {
				return fields[i], fields[i] != ""
			}
			if iExtra >= 0 {
				if v, ok := lookupAmpPairs(fields[iExtra], key); ok {
					return v, true
				}
			}
			if iMeta >= 0 {
				return lookupAmpPairs(fields[iMeta], key)
			}
			return "", false
		}
		r.add(name, fs, num, &rec)
	}
}

func colIndex(cols map[string]int, name string) int {
	if i, ok := cols[name]; ok {
		return i
	}
	return -1
}

// lookupAmpPairs finds key in "k=v&k=v", the form of k6's extra_tags and
// metadata columns.
func lookupAmpPairs(s, key string) (string, bool) {
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if k, v, ok := strings.Cut(pair, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// splitCSVLine splits one line of RFC 4180 CSV. Records are read a line at a
// time so that a broken quote spoils one line, not the rest of the file; a
// quoted field spanning lines is therefore reported as malformed.
func splitCSVLine(line []byte, sep rune) ([]string, error) {
	cr := csv.NewReader(bytes.NewReader(line))
	cr.Comma = sep
	cr.FieldsPerRecord = -1
	fields, err := cr.Read()
	if err != nil {
		if errors.Is(err, csv.ErrQuote) {
			return nil, errors.New(`bad CSV: a quoted field is not closed (truncated line?)`)
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("bad CSV: %v", pe.Err)
		}
		return nil, fmt.Errorf("bad CSV: %v", err)
	}
	if _, err := cr.Read(); !errors.Is(err, io.EOF) {
		return nil, errors.New("bad CSV: quoted field runs past the end of the line")
	}
	return fields, nil
}

// k6Line is one line of k6's JSON output (k6 run --out json=FILE): either a
// Metric line declaring a metric (data.type, data.contains, ...) or a Point
// line holding one sample (data.time, data.value, data.tags and, since
// v0.45, data.metadata).
type k6Line struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   struct {
		Time     string            `json:"time"`
		Value    *float64          `json:"value"`
		Tags     map[string]string `json:"tags"`
		Metadata map[string]string `json:"metadata"`
		Contains string            `json:"contains"`
	} `json:"data"`
}

func (r *Reader) readK6JSON(name string, lr *lineReader, fs *FileStats) error {
	metric, unit := r.k6Metric(), r.k6Unit()
	for {
		line, num, ok, err := r.nextLine(name, lr, fs)
		if !ok {
			return err
		}
		var l k6Line
		if trimmed := bytes.TrimSpace(line); trimmed[0] != '{' {
			r.malformed(name, fs, num, "not a JSON object: %q", excerpt(trimmed))
			continue
		}
		if err := json.Unmarshal(line, &l); err != nil {
			r.malformed(name, fs, num, "%s", jsonErrText(err))
			continue
		}
		switch l.Type {
		case "Metric":
			if l.Metric == metric && l.Data.Contains != "" && l.Data.Contains != "time" && r.opts.Unit == 0 {
				r.note("k6 declares %s as contains=%q, not time; its values were read as milliseconds (pass a unit to override)", metric, l.Data.Contains)
			}
			fs.Other++
			continue
		case "Point":
		default:
			r.malformed(name, fs, num, "type %q is neither Metric nor Point", l.Type)
			continue
		}
		if l.Metric != metric {
			fs.Other++
			continue
		}
		if l.Data.Value == nil {
			r.malformed(name, fs, num, "Point of %s has no data.value", metric)
			continue
		}
		t, err := parseTimestamp(l.Data.Time)
		if err != nil {
			r.malformed(name, fs, num, "data.time: %v", err)
			continue
		}
		tags, meta := l.Data.Tags, l.Data.Metadata
		rec := record{value: *l.Data.Value * float64(unit), hasValue: true, time: t}
		rec.path = urlPath(tags["url"])
		rec.name = tags["name"]
		if s, ok := tags["status"]; ok {
			var msg string
			if rec.status, msg = parseStatus(s); msg != "" {
				r.malformed(name, fs, num, "%s", msg)
				continue
			}
		}
		rec.tag = func(key string) (string, bool) {
			if v, ok := tags[key]; ok {
				return v, true
			}
			v, ok := meta[key]
			return v, ok
		}
		r.add(name, fs, num, &rec)
	}
}

// jsonErrText shortens encoding/json's messages, which name Go types, to what
// a user of the log can act on.
func jsonErrText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Error() == "unexpected end of JSON input" {
			return errTruncated.Error()
		}
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Sprintf("a JSON %s where an object was expected", te.Value)
		}
		return fmt.Sprintf("field %s is a JSON %s where a %s was expected", te.Field, te.Value, jsonKind(te.Type.Kind().String()))
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "float64", "int", "int64":
		return "number"
	case "map", "struct":
		return "object"
	case "slice":
		return "array"
	}
	return goKind
}
