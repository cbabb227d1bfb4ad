package calibration

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
)

// A row is one record of any input format with all its fields, as a plan
// joins and computes over them. Besides the fields the line holds, a row
// answers for "time" (its timestamp in Unix seconds), "event" (the
// application-log event name) and "path" (the request path).
type row struct {
	get  func(key string) (string, bool)
	time float64 // Unix seconds, NaN when the line has none
	// sec and frac are time split into whole seconds and their fraction,
	// for differences precise to the nanosecond.
	sec  int64
	frac float64
	file string
	line int
}

// setTime sets the row's timestamp from its text.
func (r *row) setTime(ts string) error {
	sec, frac, err := parseTimestampParts(ts)
	if err != nil {
		return err
	}
	r.sec, r.frac, r.time = sec, frac, float64(sec)+frac
	return nil
}

func (r *row) field(key string) (string, bool) {
	if v, ok := r.get(key); ok {
		return v, true
	}
	switch key {
	case "event":
		return firstOf(r.get, appEventKeys)
	case "path":
		if req, ok := r.get("request"); ok {
			if _, p, ok := splitRequestLine(req); ok {
				return p, true
			}
		}
		if p, ok := firstOf(r.get, appPathKeys); ok {
			return urlPath(p), true
		}
	}
	return "", false
}

// rowFile is every row of one file, with the account of its lines.
type rowFile struct {
	rows []row
	// fields are the names the records hold, in order of appearance (a
	// CSV's header), for a message naming a field none has; nil where
	// the format does not tell.
	fields []string
	stats  FileStats
	errs   []LineError
	nerrs  int
}

func (rf *rowFile) malformed(name string, line int, format string, args ...any) {
	rf.stats.Malformed++
	rf.nerrs++
	if len(rf.errs) < MaxReportedLineErrors {
		rf.errs = append(rf.errs, LineError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// readRows reads every record of in, a file called name, in format (auto
// detects it). Lines that cannot be parsed are counted and kept as line
// errors; # comment lines and blank lines are skipped.
func readRows(name string, in io.Reader, format Format) (*rowFile, error) {
	br, ok := in.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(in, 64<<10)
	}
	if format == "" || format == FormatAuto {
		var err error
		if format, err = Detect(br); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if format == FormatK6Summary {
		return nil, fmt.Errorf("%s is a k6 end-of-test summary: it holds figures, not records to join", name)
	}
	rf := &rowFile{stats: FileStats{File: name, Format: format}}
	lr := newLineReader(br)
	var header map[string]int
	var sep rune = ','
	for {
		line, num, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rf.stats.Lines++
		if tooLong {
			rf.malformed(name, num, "line longer than %d bytes", MaxLineBytes)
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		r := row{file: name, line: num, time: math.NaN()}
		switch format {
		case FormatAppLog, FormatNginxJSON, FormatK6JSON:
			obj, err := decodeObject(line)
			if err != nil {
				rf.malformed(name, num, "%s", jsonErrText(err))
				continue
			}
			r.get = jsonRowLookup(obj, format)
			if format != FormatK6JSON {
				rf.addFields(obj)
			}
			keys := appTimeKeys
			switch format {
			case FormatNginxJSON:
				keys = nginxTimeKeys
			case FormatK6JSON:
				keys = []string{"data.time"}
			}
			if ts, ok := firstOf(r.get, keys); ok && ts != "-" {
				if err = r.setTime(ts); err != nil {
					rf.malformed(name, num, "%v", err)
					continue
				}
			}
		case FormatNginxCombined:
			var rec record
			get, msg := nginxCombinedRecord(line, &rec)
			if msg != "" {
				rf.malformed(name, num, "%s", msg)
				continue
			}
			r.get = get
			if tl, ok := get("time_local"); ok {
				if err := r.setTime(tl); err != nil {
					rf.malformed(name, num, "%v", err)
					continue
				}
			}
		case FormatK6CSV, FormatCSV:
			if header == nil {
				if format == FormatCSV {
					sep = plainCSVSeparator(line)
				}
				var names []string
				if names, header, err = splitCSVHeader(name, num, line, sep); err != nil {
					return nil, err
				}
				rf.fields = names
				continue
			}
			fields, err := splitCSVLine(line, sep)
			if err != nil {
				rf.malformed(name, num, "%v", err)
				continue
			}
			if len(fields) != len(header) {
				rf.malformed(name, num, "%d fields where the header has %d", len(fields), len(header))
				continue
			}
			r.get = csvRowLookup(header, fields)
			if ts, ok := firstOf(r.get, csvTimeCols); ok {
				if err = r.setTime(ts); err != nil {
					rf.malformed(name, num, "%v", err)
					continue
				}
			}
		}
		rf.stats.Records++
		rf.rows = append(rf.rows, r)
	}
	return rf, nil
}

// jsonRowLookup looks a key up in a JSON line. k6's JSON output nests a
// point's value, time and tags under data, so for it "value", "status" or
// any tag are also found there.
func jsonRowLookup(obj map[string]any, format Format) func(string) (string, bool) {
	if format != FormatK6JSON {
		return func(key string) (string, bool) { return lookupString(obj, key) }
	}
	return func(key string) (string, bool) {
		for _, prefix := range []string{"", "data.", "data.tags.", "data.metadata."} {
			if v, ok := lookupString(obj, prefix+key); ok {
				return v, true
			}
		}
		return "", false
	}
}

// csvRowLookup looks a key up among the columns of a CSV line, and for k6
// among the k=v pairs of its extra_tags and metadata columns too.
func csvRowLookup(header map[string]int, fields []string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		if i, ok := header[key]; ok && key != "extra_tags" && key != "metadata" {
			return fields[i], fields[i] != ""
		}
		for _, col := range []string{"extra_tags", "metadata"} {
			if i, ok := header[col]; ok {
				if v, ok := lookupAmpPairs(fields[i], key); ok {
					return v, true
				}
			}
		}
		return "", false
	}
}

// addFields notes the top-level keys of a JSON record not seen before.
func (rf *rowFile) addFields(obj map[string]any) {
	if len(rf.fields) >= listedColumns { // as many as a message lists
		return
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if !slices.Contains(rf.fields, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	rf.fields = append(rf.fields, keys...)
}

// hasField reports whether any record holds the field ("time": has a
// timestamp).
func (rf *rowFile) hasField(field string) bool {
	for i := range rf.rows {
		r := &rf.rows[i]
		if field == "time" {
			if !math.IsNaN(r.time) {
				return true
			}
		} else if _, ok := r.field(field); ok {
			return true
		}
	}
	return false
}
