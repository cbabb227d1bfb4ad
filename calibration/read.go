package calibration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// Format names an input format.
type Format string

// The input formats. FormatAuto tells them apart by content.
const (
	FormatAuto          Format = "auto"
	FormatK6CSV         Format = "k6-csv"         // k6 run --out csv=FILE
	FormatK6JSON        Format = "k6-json"        // k6 run --out json=FILE
	FormatK6Summary     Format = "k6-summary"     // end-of-test summary JSON, any of its shapes
	FormatNginxJSON     Format = "nginx-json"     // access log with a JSON log_format
	FormatNginxCombined Format = "nginx-combined" // combined format + $request_time [...]
	FormatAppLog        Format = "applog"         // application JSON-lines log
	FormatCSV           Format = "csv"            // plain CSV with a header
)

// Formats lists the formats a caller may ask for, FormatAuto first.
var Formats = []Format{FormatAuto, FormatK6CSV, FormatK6JSON, FormatK6Summary, FormatNginxJSON, FormatNginxCombined, FormatAppLog, FormatCSV}

// ParseFormat reads a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Defaults of Options.
const (
	DefaultK6Metric    = "http_req_duration"
	DefaultNginxMetric = "request_time"
	DefaultJoinKey     = "request_id"
)

// Options say what to read and which values to keep.
type Options struct {
	Format Format // FormatAuto or "" detects each file's format
	Filter Filter

	// Metric is the k6 metric (default http_req_duration) or the nginx
	// variable (default request_time) whose values are read. For nginx it
	// may be a difference of two variables, "request_time-upstream_response_time",
	// the time spent in nginx itself.
	Metric string
	// Column is the plain-CSV column, or the application-log field, holding
	// a duration.
	Column string
	// Unit is the unit of plain numbers in CSV columns and log fields; 0
	// infers it from the column's name (latency_ms) or assumes seconds.
	// k6 values are read as milliseconds unless Unit is set (for a custom
	// Trend that does not hold times); nginx times are always seconds.
	Unit Unit

	// FromEvent and ToEvent name two application-log events; the value is
	// the time from the first to the second with the same JoinKey. With
	// Column instead of ToEvent, FromEvent only selects the events whose
	// field is read.
	FromEvent, ToEvent string
	// JoinKey is the field that ties events of one request together
	// (default request_id; trip_id or job_id join longer stages).
	JoinKey string
}

// MaxReportedLineErrors bounds how many line errors a Sample keeps in
// detail; all of them are counted.
const MaxReportedLineErrors = 20

// LineError is a problem with one input line: malformed, or holding a value
// that cannot be a duration.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// FileStats counts what happened to the lines of one file.
type FileStats struct {
	File      string
	Format    Format
	Lines     int // lines read, blank ones included
	Other     int // well-formed records of other metrics or events
	Records   int // records of the metric or event asked for
	Filtered  int // of those, excluded by the filter
	Untimed   int // of the excluded, those a time window left out for want of a time
	NoValue   int // of those, without a value (nginx "-")
	Rejected  int // of those, with a negative or non-finite value
	Used      int // of those, kept
	Malformed int // lines that could not be parsed
}

// Sample is the outcome of reading: the values kept, in seconds and in
// reading order, and an account of everything else.
type Sample struct {
	Values []float64
	// Times holds each value's Unix time in seconds (NaN when unknown),
	// used to look for latency climbing over the recording.
	Times []float64
	// Statuses holds each value's HTTP status, 0 when unknown, to tell
	// whether failures were timed.
	Statuses []int
	// Counts holds, for a value split per item, how many items it covers.
	Counts []float64
	Files  []string
	Filter Filter
	// Source says what was read, for instance "k6 metric http_req_duration".
	Source string
	Stats  []FileStats
	// LineErrors holds the first MaxReportedLineErrors problems with lines;
	// LineErrorCount counts all of them.
	LineErrors     []LineError
	LineErrorCount int
	// Notes are facts about the reading a user should know: assumed units,
	// events that found no partner in a join.
	Notes []string

	// FilterText, when set, describes the selection instead of Filter (a
	// plan's where: conditions).
	FilterText string
	// Raw holds the values before negative ones within the resolution were
	// clamped to 0, parallel to Values; nil when nothing was derived.
	Raw []float64
	// Resolution is the granularity of the values in seconds (0: exact),
	// RoundedFields how many rounded fields each value was computed from
	// and Roundings how many roundings those went through (an nginx time
	// is the difference of two rounded clock readings), ResolutionText where
	// the resolution comes from, and Clamped how many values were negative
	// within the rounding and kept as 0.
	Resolution     float64
	RoundedFields  int
	Roundings      int
	ResolutionText string
	Clamped        int
}

// FilterString describes the selection of values for provenance.
func (s *Sample) FilterString() string {
	if s.FilterText != "" {
		return s.FilterText
	}
	return s.Filter.String()
}

// Reader reads one or more files into a Sample. A join of application-log
// events spans all the files read, so a request whose events were rotated
// into two files is still joined.
type Reader struct {
	opts   Options
	m      *matcher
	s      Sample
	join   *joiner
	noted  map[string]bool
	format Format // the format of the file being read
}

// NewReader checks opts and returns a Reader.
func NewReader(opts Options) (*Reader, error) {
	if opts.Format == "" {
		opts.Format = FormatAuto
	}
	if _, err := ParseFormat(string(opts.Format)); err != nil {
		return nil, err
	}
	if opts.Format == FormatK6Summary {
		return nil, errors.New("an end-of-test summary holds figures, not values: read it with ReadK6Summary")
	}
	if strings.Contains(opts.Metric, "{") {
		// A submetric as k6 names it in summaries,
		// http_req_duration{expected_response:true}, is the metric's
		// records with those tags.
		base, tags := splitSubmetric(opts.Metric)
		opts.Metric = base
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			opts.Filter.Tags = append(opts.Filter.Tags, Tag{k, tags[k]})
		}
	}
	m, err := opts.Filter.compile()
	if err != nil {
		return nil, err
	}
	if opts.JoinKey == "" {
		opts.JoinKey = DefaultJoinKey
	}
	return &Reader{opts: opts, m: m, s: Sample{Filter: opts.Filter}, noted: map[string]bool{}}, nil
}

// ReadFile reads the file at path, decompressing it if it is gzipped.
func (r *Reader) ReadFile(path string) error {
	in, closeFn, err := OpenFile(path)
	if err != nil {
		return err
	}
	defer closeFn()
	return r.Read(path, in)
}

// Read reads one input called name.
func (r *Reader) Read(name string, in io.Reader) error {
	br, ok := in.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(in, 64<<10)
	}
	format := r.opts.Format
	if format == FormatAuto {
		var err error
		if format, err = Detect(br); errors.Is(err, ErrNotRecognised) {
			return fmt.Errorf("%s: %w", name, notRecognised(calibrateFlags.Format))
		} else if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if format == FormatK6Summary {
		return fmt.Errorf("%s is a k6 end-of-test summary: it holds figures, not values; calibrate it on its own", name)
	}
	if err := r.checkOptions(name, format); err != nil {
		return err
	}
	r.format = format
	r.s.Files = append(r.s.Files, name)
	r.s.Stats = append(r.s.Stats, FileStats{File: name, Format: format})
	fs := &r.s.Stats[len(r.s.Stats)-1]
	lr := newLineReader(br)
	var err error
	switch format {
	case FormatK6CSV:
		err = r.readK6CSV(name, lr, fs)
	case FormatK6JSON:
		err = r.readK6JSON(name, lr, fs)
	case FormatNginxJSON, FormatNginxCombined:
		err = r.readNginx(name, lr, fs, format)
	case FormatAppLog:
		err = r.readAppLog(name, lr, fs)
	case FormatCSV:
		err = r.readCSV(name, lr, fs)
	}
	if err != nil {
		return err
	}
	if r.s.Source == "" {
		r.s.Source = r.source(format)
	}
	return nil
}

// checkOptions refuses options that mean nothing for a format, rather than
// ignoring them and fitting something the user did not ask for.
// nextLine returns the next non-blank line and its number, counting every
// line read and reporting an over-long one as malformed; ok is false at the
// end of the input, with err set if reading failed.
func (r *Reader) nextLine(name string, lr *lineReader, fs *FileStats) (line []byte, num int, ok bool, err error) {
	for {
		line, num, tooLong, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil, 0, false, nil
		}
		if err != nil {
			return nil, 0, false, fmt.Errorf("%s: %w", name, err)
		}
		if fs.Lines++; fs.Lines > MaxLines || len(r.s.Values) >= MaxValues {
			return nil, 0, false, fmt.Errorf("%s:%d: more than %d lines or %d values; fit a part of the data (a filter, or a shorter span)", name, num, MaxLines, MaxValues)
		}
		if tooLong {
			r.malformed(name, fs, num, "line longer than %d bytes", MaxLineBytes)
			continue
		}
		// Blank lines and # comments are not records in any format read.
		if trimmed := bytes.TrimSpace(line); len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		return line, num, true, nil
	}
}

func (r *Reader) checkOptions(name string, f Format) error {
	o := r.opts
	w := calibrateFlags
	isK6 := f == FormatK6CSV || f == FormatK6JSON
	isNginx := f == FormatNginxJSON || f == FormatNginxCombined
	switch {
	case o.Metric != "" && !isK6 && !isNginx:
		return fmt.Errorf("%s is %s: %s applies to k6 and nginx input; use %s", name, f, w.Metric, w.Column)
	case o.Column != "" && f != FormatCSV && f != FormatAppLog:
		return fmt.Errorf("%s is %s: %s applies to plain CSV and application logs; use %s", name, f, w.Column, w.Metric)
	case (o.FromEvent != "" || o.ToEvent != "") && f != FormatAppLog:
		return fmt.Errorf("%s is %s: %s and %s apply to application logs", name, f, w.FromEvent, w.ToEvent)
	case f == FormatAppLog && o.Column == "" && (o.FromEvent == "" || o.ToEvent == ""):
		return fmt.Errorf("%s is an application log: give %s and %s to time a stage, or %s to read a field", name, w.FromEvent, w.ToEvent, w.Column)
	case f == FormatAppLog && o.ToEvent != "" && o.ToEvent == o.FromEvent:
		return fmt.Errorf("%s and %s are both %q: a stage needs two different events", w.FromEvent, w.ToEvent, o.ToEvent)
	case f == FormatAppLog && o.Column != "" && o.ToEvent != "":
		return fmt.Errorf("%s: give either %s (time between two events) or %s (a field of one event), not both", name, w.ToEvent, w.Column)
	}
	if r.format != "" && family(r.format) != family(f) {
		return fmt.Errorf("%s is %s but an earlier file was %s: calibrate one kind of measurement at a time", name, f, r.format)
	}
	return nil
}

// family groups the formats that carry the same measurements, which may be
// read together: k6 CSV with k6 JSON, nginx JSON with nginx combined.
func family(f Format) string {
	switch f {
	case FormatK6CSV, FormatK6JSON:
		return "k6"
	case FormatNginxJSON, FormatNginxCombined:
		return "nginx"
	}
	return string(f)
}

func (r *Reader) source(f Format) string {
	o := r.opts
	switch f {
	case FormatK6CSV, FormatK6JSON:
		return "k6 metric " + r.k6Metric()
	case FormatNginxJSON, FormatNginxCombined:
		return "nginx " + r.nginxMetric()
	case FormatAppLog:
		if o.ToEvent != "" {
			return fmt.Sprintf("time from %s to %s by %s", o.FromEvent, o.ToEvent, o.JoinKey)
		}
		if o.FromEvent != "" {
			return fmt.Sprintf("field %s of %s events", o.Column, o.FromEvent)
		}
		return "field " + o.Column
	case FormatCSV:
		return "column " + o.Column
	}
	return string(f)
}

func (r *Reader) k6Metric() string {
	if r.opts.Metric != "" {
		return r.opts.Metric
	}
	return DefaultK6Metric
}

// k6Unit is the unit of k6 values: milliseconds, unless told otherwise
// (a custom Trend that does not hold times).
func (r *Reader) k6Unit() Unit {
	if r.opts.Unit != 0 {
		return r.opts.Unit
	}
	return k6Millisecond
}

func (r *Reader) nginxMetric() string {
	if r.opts.Metric != "" {
		return r.opts.Metric
	}
	return DefaultNginxMetric
}

// note records a fact once, however often it is observed.
func (r *Reader) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !r.noted[msg] {
		r.noted[msg] = true
		r.s.Notes = append(r.s.Notes, msg)
	}
}

func (r *Reader) lineError(name string, line int, format string, args ...any) {
	r.s.LineErrorCount++
	if len(r.s.LineErrors) < MaxReportedLineErrors {
		r.s.LineErrors = append(r.s.LineErrors, LineError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

func (r *Reader) malformed(name string, fs *FileStats, line int, format string, args ...any) {
	fs.Malformed++
	r.lineError(name, line, format, args...)
}

// add passes one record of the asked-for metric through the filter.
func (r *Reader) add(name string, fs *FileStats, line int, rec *record) {
	fs.Records++
	if !r.m.match(rec) {
		fs.Filtered++
		if math.IsNaN(rec.time) && r.m.windowed() {
			fs.Untimed++
		}
		return
	}
	if !rec.hasValue {
		fs.NoValue++
		return
	}
	raw := rec.value
	if rec.value < 0 && rec.value >= -float64(r.s.RoundedFields)*r.s.Resolution*(1+1e-9) {
		rec.value = 0
		r.s.Clamped++
	}
	if math.IsNaN(rec.value) || math.IsInf(rec.value, 0) || rec.value < 0 {
		fs.Rejected++
		r.lineError(name, line, "value %gs is not a duration (negative or not finite); skipped", rec.value)
		return
	}
	if err := withinClock(rec.value); err != nil {
		fs.Rejected++
		r.lineError(name, line, "%v; skipped", err)
		return
	}
	fs.Used++
	r.s.Values = append(r.s.Values, rec.value)
	r.s.Times = append(r.s.Times, rec.time)
	r.s.Statuses = append(r.s.Statuses, rec.status)
	if r.s.Resolution > 0 {
		r.s.Raw = append(r.s.Raw, raw)
	}
}

// Sample finishes reading and returns what was kept. It is an error when no
// value survived, or when one of several files gave none; the message names
// the files and the filter and says where the records went, and the Sample
// returned with it still accounts for every line, so that the malformed ones
// can be shown.
func (r *Reader) Sample() (*Sample, error) {
	if r.join != nil {
		r.join.finish(r)
	}
	s := r.s
	if s.Clamped > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d of %d values were negative within the rounding of their fields (%d × %ss) and were kept as 0", s.Clamped, len(s.Values), s.RoundedFields, SecondsText(s.Resolution)))
	}
	if len(s.Stats) == 0 {
		return &s, errors.New("no files were read")
	}
	if len(s.Values) == 0 {
		return &s, noValues(s, s.Stats)
	}
	if r.join == nil {
		// A file that contributes nothing is a mistake (a wrong file, a
		// filter that only fits the others), not something to average
		// away. A join is exempt: a rotated log may hold only the starts
		// of requests whose ends are in the next file.
		for _, fs := range s.Stats {
			if fs.Used == 0 {
				return &s, noValues(s, []FileStats{fs})
			}
		}
	}
	return &s, nil
}

// noValues explains where the records of files went when none was kept.
func noValues(s Sample, stats []FileStats) error {
	var t FileStats
	files := make([]string, len(stats))
	for i, fs := range stats {
		files[i] = fs.File
		t.Lines += fs.Lines
		t.Records += fs.Records
		t.Filtered += fs.Filtered
		t.Untimed += fs.Untimed
		t.NoValue += fs.NoValue
		t.Rejected += fs.Rejected
		t.Malformed += fs.Malformed
	}
	why := ""
	if t.Untimed > 0 && t.Untimed == t.Records {
		// Every record left out for want of a time: the window cannot
		// be met by what the files hold, whatever it is.
		why = "; no record has a time, so the time window (since, until) keeps none: the input has no timestamps"
	}
	return fmt.Errorf("no usable values of %s in %s with filter %q: %d lines, %d records, %d excluded by the filter, %d without a value, %d rejected, %d malformed lines%s",
		s.Source, strings.Join(files, ", "), s.Filter.String(), t.Lines, t.Records, t.Filtered, t.NoValue, t.Rejected, t.Malformed, why)
}

// calibrateFlags are what the reader's messages call its settings: the
// flags of capsim calibrate. A plan words its own (plan.go), and check
// screens its inputs first, in its words (check.AccessLog).
var calibrateFlags = struct{ Format, Metric, Column, FromEvent, ToEvent string }{
	Format: "--format", Metric: "--metric", Column: "--column", FromEvent: "--from-event", ToEvent: "--to-event"}

// ErrNotRecognised is in the error of an input whose format Detect cannot
// tell, for a caller to word what to do about it.
var ErrNotRecognised = errors.New("format not recognised")

// notRecognised is the error for an input whose format is not told, with
// what to set when the caller has a setting for it.
func notRecognised(format string) error {
	if format == "" {
		return ErrNotRecognised
	}
	return fmt.Errorf("%w; pass %s", ErrNotRecognised, format)
}

// Detect tells the format of an input from its first non-blank line, without
// consuming it.
func Detect(br *bufio.Reader) (Format, error) {
	head, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	line := firstLine(head)
	if len(line) == 0 {
		return "", errors.New("is empty")
	}
	if line[0] == '{' {
		return detectJSON(head, line), nil
	}
	if bytes.HasPrefix(line, []byte("metric_name,")) {
		return FormatK6CSV, nil
	}
	if combinedRE.Match(line) {
		return FormatNginxCombined, nil
	}
	if bytes.ContainsAny(line, ",;\t") || isSingleColumnHeader(line) {
		return FormatCSV, nil
	}
	return "", notRecognised(calibrateFlags.Format)
}

// firstLine returns the first line that is neither blank nor a # comment,
// which exporters and people put above the data.
func firstLine(b []byte) []byte {
	for len(b) > 0 {
		line, rest, _ := bytes.Cut(b, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' {
			return line
		}
		b = rest
	}
	return nil
}

func isSingleColumnHeader(line []byte) bool {
	for _, c := range line {
		if !(c == '_' || c == '-' || c == '.' || c == ' ' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// detectJSON tells the JSON formats apart by their keys. A first line that
// is not a JSON object on its own is the opening of a pretty-printed
// document, which among the formats read here only a summary is.
func detectJSON(head, line []byte) Format {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		var doc map[string]json.RawMessage
		if json.Unmarshal(head, &doc) == nil || bytes.Equal(line, []byte("{")) {
			return FormatK6Summary
		}
		// A broken first line: let the line-oriented reader of the most
		// plausible format report it with its line number.
		return guessJSONLines(line)
	}
	has := func(k string) bool { _, ok := obj[k]; return ok }
	switch {
	case has("metrics") && (has("root_group") || has("state") || has("options")):
		return FormatK6Summary
	case has("version") && has("results"):
		return FormatK6Summary
	case has("type") && has("metric") && has("data"):
		return FormatK6JSON
	case has("request_time") || has("upstream_response_time") || has("remote_addr") || has("time_local") || (has("request") && has("status")):
		return FormatNginxJSON
	}
	return FormatAppLog
}

func guessJSONLines(line []byte) Format {
	switch {
	case bytes.Contains(line, []byte(`"type":"Point"`)) || bytes.Contains(line, []byte(`"type":"Metric"`)):
		return FormatK6JSON
	case bytes.Contains(line, []byte(`"request_time"`)):
		return FormatNginxJSON
	}
	return FormatAppLog
}
