package calibration

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The files under testdata/calibration hold one load test of the photo-trip
// service as each tool would have recorded it: 3 trips of 14 batch uploads
// (about 40 s each) with status polls in between and one rejected upload
// (500), in k6's CSV and JSON outputs and summaries, in two nginx access-log
// formats, and, for another run with two trips overlapping, in the
// backend's JSON log. Each file also carries the damage such files really
// show: torn last lines, a stack trace in a JSON log, an error-log line in an
// access log, a line in the old log_format after a reload.
const testdataDir = "../testdata/calibration"

func testdata(name string) string { return filepath.Join(testdataDir, name) }

// readSample reads the testdata files with opts into a sample.
func readSample(t *testing.T, opts Options, files ...string) *Sample {
	t.Helper()
	return sampleOf(t, opts, func(r *Reader) error {
		for _, f := range files {
			if err := r.ReadFile(testdata(f)); err != nil {
				return err
			}
		}
		return nil
	})
}

// readInput reads the one input in, named name, with opts into a sample.
func readInput(t *testing.T, opts Options, name string, in io.Reader) *Sample {
	t.Helper()
	return sampleOf(t, opts, func(r *Reader) error { return r.Read(name, in) })
}

// sampleOf is the sample a reader with opts takes from what read gives
// it; a failure on the way ends the test.
func sampleOf(t *testing.T, opts Options, read func(*Reader) error) *Sample {
	t.Helper()
	r, err := NewReader(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := read(r); err != nil {
		t.Fatal(err)
	}
	s, err := r.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func TestReadTestdata(t *testing.T) {
	t.Parallel()
	photos := "/api/trips/*/photos"
	since, err := ParseTime("2025-09-29T14:19:00+09:00")
	if err != nil {
		t.Fatal(err)
	}
	// Each file's damage is the file's own, so every reading of a file,
	// whatever it filters, reports the same lines.
	lineErrs := map[string][]string{
		"k6-out.csv": {
			"k6-out.csv:56: 3 fields where the header has 19",
			"k6-out.csv:529: bad CSV: a quoted field is not closed (truncated line?)",
		},
		"k6-out.json": {"k6-out.json:165: the line ends inside the JSON object (truncated)"},
		"nginx-access.log": {
			"nginx-access.log:41: not in nginx combined format",
			"nginx-access.log:45: not in nginx combined format",
		},
		"nginx-access.json": {
			`nginx-access.json:3: not a JSON object: "10.0.12.31 - - [29/Sep/2025:14:02:04 +09…"`,
			"nginx-access.json:42: the line ends inside the JSON object (truncated)",
		},
		"applog.jsonl": {
			`applog.jsonl:26: not a JSON object: "java.util.concurrent.RejectedExecutionEx…"`,
			`applog.jsonl:27: not a JSON object: "at java.base/java.util.concurrent.Thread…"`,
			`applog.jsonl:28: not a JSON object: "at com.yeodam.image.DerivativeScheduler.…"`,
		},
		"latencies.csv": {"latencies.csv:13: 3 fields where the header has 4"},
	}
	for _, c := range []struct {
		name   string
		file   string
		opts   Options
		n      int
		mean   float64 // seconds; checked to 1e-6
		stats  FileStats
		notes  []string
		source string
	}{
		{
			name: "k6 csv uploads", file: "k6-out.csv",
			opts: Options{Filter: Filter{Route: photos, Status: []string{"200"}}},
			n:    42, mean: 40.591675,
			stats:  FileStats{Lines: 529, Other: 468, Records: 58, Filtered: 16, Used: 42, Malformed: 2},
			source: "k6 metric http_req_duration",
		},
		{
			name: "k6 csv tag from extra_tags", file: "k6-out.csv",
			opts: Options{Filter: Filter{Route: "**/photos", Status: []string{"2xx"}, Tags: []Tag{{"trip_id", "172"}}}},
			n:    14, mean: 40.219148,
			stats:  FileStats{Lines: 529, Other: 468, Records: 58, Filtered: 44, Used: 14, Malformed: 2},
			source: "k6 metric http_req_duration",
		},
		{
			name: "k6 json", file: "k6-out.json",
			opts: Options{Filter: Filter{Route: photos}},
			n:    30, mean: 40.785991,
			stats:  FileStats{Lines: 165, Other: 124, Records: 40, Filtered: 10, Used: 30, Malformed: 1},
			source: "k6 metric http_req_duration",
		},
		{
			name: "nginx combined uploads", file: "nginx-access.log",
			opts: Options{Filter: Filter{Route: photos, Status: []string{"2xx"}}},
			// The same 42 uploads k6 timed, at nginx's millisecond resolution.
			n: 42, mean: 40.591667,
			stats:  FileStats{Lines: 62, Records: 60, Filtered: 18, Used: 42, Malformed: 2},
			source: "nginx request_time",
		},
		{
			name: "nginx combined time window", file: "nginx-access.log",
			opts: Options{Filter: Filter{Route: photos, Since: since}},
			n:    16, mean: 37.769562,
			stats:  FileStats{Lines: 62, Records: 60, Filtered: 44, Used: 16, Malformed: 2},
			source: "nginx request_time",
		},
		{
			name: "nginx combined overhead", file: "nginx-access.log",
			opts: Options{Metric: "request_time-upstream_response_time"},
			// The favicon and the TLS junk have no upstream time ("-").
			n: 58, mean: 0.0525,
			stats:  FileStats{Lines: 62, Records: 60, NoValue: 2, Used: 58, Malformed: 2},
			source: "nginx request_time-upstream_response_time",
		},
		{
			name: "nginx json upstream", file: "nginx-access.json",
			opts: Options{Metric: "upstream_response_time"},
			n:    58, mean: 30.401741,
			stats:  FileStats{Lines: 62, Records: 60, NoValue: 2, Used: 58, Malformed: 2},
			source: "nginx upstream_response_time",
		},
		{
			name: "nginx json method tag", file: "nginx-access.json",
			opts: Options{Filter: Filter{Tags: []Tag{{"request_method", "GET"}}}},
			n:    15, mean: 0.013,
			stats:  FileStats{Lines: 62, Records: 60, Filtered: 45, Used: 15, Malformed: 2},
			source: "nginx request_time",
		},
		{
			name: "applog stage join", file: "applog.jsonl",
			opts: Options{FromEvent: "photo_originals_saved", ToEvent: "request_completed"},
			n:    29, mean: 72.068828,
			stats:  FileStats{Lines: 92, Other: 30, Records: 29, Used: 29, Malformed: 3},
			notes:  []string{"1 request_id values had photo_originals_saved but no request_completed"},
			source: "time from photo_originals_saved to request_completed by request_id",
		},
		{
			name: "applog stage join filtered by fields of either event", file: "applog.jsonl",
			opts: Options{FromEvent: "photo_originals_saved", ToEvent: "request_completed",
				Filter: Filter{Route: "/api/trips/182/*", Status: []string{"200"}, Tags: []Tag{{"trip_id", "182"}}}},
			n: 14, mean: 70.33,
			stats:  FileStats{Lines: 92, Other: 30, Records: 29, Filtered: 15, Used: 14, Malformed: 3},
			notes:  []string{"1 request_id values had photo_originals_saved but no request_completed"},
			source: "time from photo_originals_saved to request_completed by request_id",
		},
		{
			name: "applog field", file: "applog.jsonl",
			opts: Options{FromEvent: "photo_originals_saved", Column: "elapsed_ms"},
			n:    30, mean: 0.498733,
			stats:  FileStats{Lines: 92, Other: 59, Records: 30, Used: 30, Malformed: 3},
			source: "field elapsed_ms of photo_originals_saved events",
		},
		{
			name: "plain csv", file: "latencies.csv",
			opts: Options{Column: "latency_ms"},
			n:    38, mean: 40.485921,
			stats:  FileStats{Lines: 41, Records: 39, NoValue: 1, Used: 38, Malformed: 1},
			source: "column latency_ms",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := readSample(t, c.opts, c.file)
			if len(s.Values) != c.n || math.Abs(mean(s.Values)-c.mean) > 1e-6 {
				t.Errorf("n = %d, mean = %.6f; want %d, %.6f", len(s.Values), mean(s.Values), c.n, c.mean)
			}
			want := c.stats
			want.File, want.Format = testdata(c.file), s.Stats[0].Format
			if s.Stats[0] != want {
				t.Errorf("stats\n got %+v\nwant %+v", s.Stats[0], want)
			}
			var errs []string
			for _, e := range s.LineErrors {
				errs = append(errs, strings.TrimPrefix(e.Error(), testdataDir+"/"))
			}
			wantErrs := lineErrs[c.file]
			if !slices.Equal(errs, wantErrs) || s.LineErrorCount != len(wantErrs) {
				t.Errorf("line errors (%d)\n got %q\nwant %q", s.LineErrorCount, errs, wantErrs)
			}
			if !slices.Equal(s.Notes, c.notes) {
				t.Errorf("notes %q, want %q", s.Notes, c.notes)
			}
			if s.Source != c.source {
				t.Errorf("source %q, want %q", s.Source, c.source)
			}
			if slices.ContainsFunc(s.Times, math.IsNaN) {
				t.Errorf("some values lack a time")
			}
		})
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]Format{
		"k6-out.csv": FormatK6CSV, "k6-out.json": FormatK6JSON,
		"k6-summary-export.json": FormatK6Summary, "k6-handle-summary.json": FormatK6Summary, "k6-summary-v1.json": FormatK6Summary,
		"nginx-access.log": FormatNginxCombined, "nginx-access.json": FormatNginxJSON,
		"applog.jsonl": FormatAppLog, "latencies.csv": FormatCSV,
	} {
		f, err := os.Open(testdata(file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Detect(bufio.NewReader(f))
		f.Close()
		if err != nil || got != want {
			t.Errorf("Detect(%s) = %s, %v; want %s", file, got, err, want)
		}
	}
}

func TestReadGzipped(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(testdata("k6-out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	in, err := Decompress(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := readInput(t, Options{Filter: Filter{Route: "/api/trips/*/photos", Status: []string{"200"}}}, "k6-out.csv.gz", in)
	if len(s.Values) != 42 {
		t.Errorf("gzipped: %d values, want 42", len(s.Values))
	}
}

// TestReadNoUsableValues pins the message for a filter that keeps nothing:
// it names the file and the filter and accounts for every record.
func TestReadNoUsableValues(t *testing.T) {
	t.Parallel()
	r, _ := NewReader(Options{Filter: Filter{Route: "/api/users/*"}})
	if err := r.ReadFile(testdata("k6-out.csv")); err != nil {
		t.Fatal(err)
	}
	_, err := r.Sample()
	want := `no usable values of k6 metric http_req_duration in ../testdata/calibration/k6-out.csv with filter "route=/api/users/*": 529 lines, 58 records, 58 excluded by the filter, 0 without a value, 0 rejected, 2 malformed lines`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestReadLineHandling(t *testing.T) {
	t.Parallel()
	// A line over MaxLineBytes is reported and skipped without being held;
	// CRLF endings, blank lines and a missing final newline are fine.
	long := strings.Repeat("9", MaxLineBytes+10)
	in := "latency_ms\r\n120\r\n\r\n" + long + "\r\n80\r\n-5\r\n95"
	s := readInput(t, Options{Format: FormatCSV}, "in.csv", strings.NewReader(in))
	if !slices.Equal(s.Values, []float64{0.12, 0.08, 0.095}) {
		t.Errorf("values %v", s.Values)
	}
	want := []LineError{
		{"in.csv", 4, "line longer than 1048576 bytes"},
		{"in.csv", 6, "value -0.005s is not a duration (negative or not finite); skipped"},
	}
	if !slices.Equal(s.LineErrors, want) {
		t.Errorf("line errors %v, want %v", s.LineErrors, want)
	}
	if st := s.Stats[0]; st.Lines != 7 || st.Malformed != 1 || st.Rejected != 1 {
		t.Errorf("stats %+v", st)
	}
}

// A time no scenario could hold, longer than the clock's bound, is a
// line's mistake (a field in the wrong unit, a counter read as a time)
// and skipped as a negative one is: kept, it would give a fit an
// infinite mean that a scenario then refuses far from the data.
func TestReadSkipsTimesPastTheClock(t *testing.T) {
	t.Parallel()
	in := "latency_ms\n120\n1e308\n80\n4e12\n3155760000000\n"
	s := readInput(t, Options{Format: FormatCSV}, "in.csv", strings.NewReader(in))
	if !slices.Equal(s.Values, []float64{0.12, 0.08, 3155760000}) {
		t.Errorf("values %v", s.Values)
	}
	want := []LineError{
		{"in.csv", 3, "value 1e+305s passes 100 years, the longest time capsim simulates; skipped"},
		{"in.csv", 5, "value 4e+09s passes 100 years, the longest time capsim simulates; skipped"},
	}
	if !slices.Equal(s.LineErrors, want) {
		t.Errorf("line errors %v, want %v", s.LineErrors, want)
	}
	if st := s.Stats[0]; st.Used != 3 || st.Rejected != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestReadOptionErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts Options
		file string
		want string
	}{
		{Options{Column: "x"}, "k6-out.csv", "../testdata/calibration/k6-out.csv is k6-csv: --column applies to plain CSV and application logs; use --metric"},
		{Options{Metric: "x"}, "latencies.csv", "../testdata/calibration/latencies.csv is csv: --metric applies to k6 and nginx input; use --column"},
		{Options{}, "applog.jsonl", "../testdata/calibration/applog.jsonl is an application log: give --from-event and --to-event to time a stage, or --column to read a field"},
		{Options{}, "latencies.csv", "../testdata/calibration/latencies.csv:1: the CSV has columns timestamp, route, status, latency_ms: name the one to read with --column"},
		{Options{Column: "ms"}, "latencies.csv", `../testdata/calibration/latencies.csv:1: no column "ms"; the header has timestamp, route, status, latency_ms`},
		{Options{}, "k6-handle-summary.json", "../testdata/calibration/k6-handle-summary.json is a k6 end-of-test summary: it holds figures, not values; calibrate it on its own"},
		{Options{Format: FormatK6CSV}, "latencies.csv", "../testdata/calibration/latencies.csv:1: header has no metric_name column; is this k6 --out csv output?"},
		{Options{Format: FormatK6CSV}, "nginx-access.log", `../testdata/calibration/nginx-access.log:1: not a k6 CSV header: bad CSV: bare " in non-quoted-field`},
	} {
		r, err := NewReader(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.ReadFile(testdata(c.file)); err == nil || err.Error() != c.want {
			t.Errorf("%s: error\n got %v\nwant %s", c.file, err, c.want)
		}
	}
	if _, err := NewReader(Options{Filter: Filter{Status: []string{"2x"}}}); err == nil || err.Error() != `status "2x" is neither a code (200) nor a class (2xx)` {
		t.Errorf("bad status: %v", err)
	}
	t0 := time.Date(2025, 9, 29, 5, 0, 0, 0, time.UTC)
	if _, err := NewReader(Options{Filter: Filter{Since: t0, Until: t0}}); err == nil ||
		err.Error() != "the time window is empty: since 2025-09-29T05:00:00Z is not before until 2025-09-29T05:00:00Z" {
		t.Errorf("empty window: %v", err)
	}
}

func TestParseNginxTimes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		sum     float64
		ok      bool
		wantErr string
	}{
		{"0.010", 0.010, true, ""},
		{"0.010, 0.020", 0.030, true, ""},
		{"0.004, 41.047", 41.051, true, ""},
		{"0.012 : 59.988", 60.0, true, ""},
		{"0.010, - : 0.005", 0.015, true, ""},
		{"-", 0, false, ""},
		{"", 0, false, ""},
		{"- : -", 0, false, ""},
		{"0.0x2", 0, false, `"0.0x2" is not a time in seconds`},
	} {
		sum, ok, err := parseNginxTimes(c.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if math.Abs(sum-c.sum) > 1e-12 || ok != c.ok || gotErr != c.wantErr {
			t.Errorf("parseNginxTimes(%q) = %g, %v, %q; want %g, %v, %q", c.in, sum, ok, gotErr, c.sum, c.ok, c.wantErr)
		}
	}
}

func TestNginxCombinedTails(t *testing.T) {
	t.Parallel()
	head := `10.0.0.1 - alice [29/Sep/2025:14:00:44 +0900] "POST /api/trips/9/photos?x=1 HTTP/1.1" 200 599 "-" "curl/8.5.0"`
	for _, c := range []struct {
		tail string
		want map[string]string
	}{
		{" 0.120", map[string]string{"request_time": "0.120"}},
		{" 0.120 0.118", map[string]string{"request_time": "0.120", "upstream_response_time": "0.118"}},
		{" 0.120 0.010, 0.105 : 0.002 4b5f0c1d2e3f40516273849a0b1c2d3e", map[string]string{
			"request_time": "0.120", "upstream_response_time": "0.010, 0.105 : 0.002", "request_id": "4b5f0c1d2e3f40516273849a0b1c2d3e"}},
		{` 0.120 "0.010, 0.105" req-7`, map[string]string{"request_time": "0.120", "upstream_response_time": "0.010, 0.105", "request_id": "req-7"}},
		{` rt=0.120 uct="0.000" urt="0.010, 0.105"`, map[string]string{"rt": "0.120", "uct": "0.000", "urt": "0.010, 0.105"}},
	} {
		var rec record
		get, msg := nginxCombinedRecord([]byte(head+c.tail), &rec)
		if msg != "" {
			t.Errorf("%q: %s", c.tail, msg)
			continue
		}
		for k, v := range c.want {
			if got, _ := get(k); got != v {
				t.Errorf("%q: %s = %q, want %q", c.tail, k, got, v)
			}
		}
		if rec.path != "/api/trips/9/photos" || rec.status != 200 || rec.time != 1759122044 {
			t.Errorf("%q: path %q status %d time %v", c.tail, rec.path, rec.status, rec.time)
		}
		if u, _ := get("remote_user"); u != "alice" {
			t.Errorf("remote_user %q", u)
		}
	}
	var rec record
	if _, msg := nginxCombinedRecord([]byte(head), &rec); msg != "nothing after the user agent: the log_format lacks $request_time" {
		t.Errorf("no tail: %q", msg)
	}
}

func TestNginxJSONDefaultEscaping(t *testing.T) {
	t.Parallel()
	// Without escape=json nginx writes a quote in a variable as \x22.
	line := `{"time_local":"29/Sep/2025:14:00:44 +0900","request":"GET /q?x=\x22a\x22 HTTP/1.1","status":"200","request_time":"0.004","http_user_agent":"Mozilla/5.0 \x22test\x22"}`
	s := readInput(t, Options{Format: FormatNginxJSON}, "default-escape.json", strings.NewReader(line))
	if !slices.Equal(s.Values, []float64{0.004}) || s.Times[0] != 1759122044 {
		t.Errorf("values %v times %v", s.Values, s.Times)
	}
}

func TestParseTimestamp(t *testing.T) {
	t.Parallel()
	// 2025-09-29T05:00:44Z is Unix 1759122044.
	for _, in := range []string{
		"1759122044", "1759122044000", "1759122044000000", "1759122044000000000", "1759122044.000",
		"2025-09-29T05:00:44Z", "2025-09-29T14:00:44+09:00", "2025-09-29T14:00:44.000000+09:00",
		"2025-09-29T14:00:44.000+0900", "2025-09-29 05:00:44", "2025-09-29 05:00:44,000", "29/Sep/2025:14:00:44 +0900",
	} {
		got, err := parseTimestamp(in)
		if err != nil || got != 1759122044 {
			t.Errorf("parseTimestamp(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := parseTimestamp("yesterday"); err == nil || err.Error() != `timestamp "yesterday" is in no known format` {
		t.Errorf("bad timestamp: %v", err)
	}
}

func TestRouteAndUnits(t *testing.T) {
	t.Parallel()
	m, err := Filter{Route: "/api/trips/*/photos"}.compile()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"/api/trips/17/photos": true, "/api/trips/17/photos/3": false, "/api/trips/photos": false, "/api/trips/1/2/photos": false,
	} {
		if got := m.match(&record{path: path, time: math.NaN()}); got != want {
			t.Errorf("route match %s = %v", path, got)
		}
	}
	// A k6 name tag set by http.url`` is matched through its path.
	if !m.match(&record{name: "https://api.example/api/trips/${}/photos", time: math.NaN()}) {
		t.Error("name tag not matched")
	}
	re, _ := Filter{Route: `~^/api/trips/[0-9]+/photos$`}.compile()
	if !re.match(&record{path: "/api/trips/17/photos", time: math.NaN()}) || re.match(&record{path: "/api/trips/x/photos", time: math.NaN()}) {
		t.Error("regexp route")
	}
	for name, want := range map[string]Unit{"latency_ms": 1e-3, "elapsed_us": 1e-6, "durationMs": 1e-3, "wait_seconds": 1, "cold_start.s": 1, "items": 0, "request_time": 0} {
		got, _ := unitFromName(name)
		if got != want {
			t.Errorf("unitFromName(%s) = %g, want %g", name, got, want)
		}
	}
	for in, want := range map[string]float64{"36s": 36, "0.56s": 0.56, "3m45s": 225, "120ms": 0.12, "1h": 3600, "250us": 250e-6} {
		if got, err := ParseSeconds(in); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("ParseSeconds(%s) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSeconds("0.56"); err == nil || err.Error() != `"0.56" has no unit (write for example 0.56s or 0.56ms)` {
		t.Errorf("ParseSeconds without unit: %v", err)
	}
}

// TestReadEveryFileMustContribute: with several files, one that gives no
// value is named in an error rather than silently ignored.
func TestReadEveryFileMustContribute(t *testing.T) {
	t.Parallel()
	r, _ := NewReader(Options{Format: FormatCSV, Column: "latency_ms", Filter: Filter{Status: []string{"200"}}})
	for name, in := range map[string]string{
		"a.csv": "status,latency_ms\n200,120\n200,80\n",
		"b.csv": "status,latency_ms\n500,1300\n",
	} {
		if err := r.Read(name, strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := r.Sample()
	want := `no usable values of column latency_ms in b.csv with filter "status=200": 2 lines, 1 records, 1 excluded by the filter, 0 without a value, 0 rejected, 0 malformed lines`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	if s == nil || len(s.Stats) != 2 {
		t.Errorf("the sample must still account for both files: %+v", s)
	}
}

// FuzzReaders feeds arbitrary bytes to every line reader: whatever the
// input, reading returns values or errors and never panics.
func FuzzReaders(f *testing.F) {
	for _, name := range []string{"k6-out.csv", "k6-out.json", "nginx-access.log", "nginx-access.json", "applog.jsonl", "latencies.csv"} {
		b, err := os.ReadFile(testdata(name))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 4000 {
			b = b[:4000]
		}
		f.Add(b)
	}
	f.Add([]byte("{\"type\":\"Point\",\"metric\":\"http_req_duration\",\"data\":{\"value\":-1}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{
			{Format: FormatK6CSV, Filter: Filter{Route: "/**", Tags: []Tag{{"trip_id", "171"}}}},
			{Format: FormatK6JSON},
			{Format: FormatNginxCombined, Metric: "request_time-upstream_response_time"},
			{Format: FormatNginxJSON, Metric: "upstream_response_time"},
			{Format: FormatAppLog, FromEvent: "photo_originals_saved", ToEvent: "request_completed", Filter: Filter{Status: []string{"2xx"}}},
			{Format: FormatAppLog, Column: "elapsed_ms"},
			{Format: FormatCSV, Column: "latency_ms"},
			{Format: FormatAuto, Column: "latency_ms"},
		} {
			r, err := NewReader(opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Read("fuzz", bytes.NewReader(data)) != nil {
				continue
			}
			if s, err := r.Sample(); err == nil {
				if _, err := Fit(s.Values, s.Times, FitOptions{}); err != nil && len(s.Values) > 0 {
					t.Fatalf("values read but not fitted: %v", err)
				}
			}
		}
	})
}

// A byte order mark at the start of a log (Windows editors write one) is
// no part of its first line: the file reads as the same file without it.
func TestByteOrderMarkIsSkipped(t *testing.T) {
	for _, gz := range []bool{false, true} {
		data := []byte("\xef\xbb\xbfduration_s\n1.5\n2.5\n")
		if gz {
			var b bytes.Buffer
			w := gzip.NewWriter(&b)
			w.Write(data)
			w.Close()
			data = b.Bytes()
		}
		r, err := Decompress(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r)
		if string(got) != "duration_s\n1.5\n2.5\n" {
			t.Errorf("gzip %v: read %q", gz, got)
		}
	}
}

// A stream shorter than a byte order mark, an empty gzip member and a gzip
// stream cut short or corrupt: the first two read as what they hold, the
// others fail with a message saying what is wrong with the stream.
func TestDecompressShortAndBrokenStreams(t *testing.T) {
	t.Parallel()
	var empty, whole bytes.Buffer
	gzip.NewWriter(&empty).Close()
	zw := gzip.NewWriter(&whole)
	zw.Write(bytes.Repeat([]byte("latency_ms,120\n"), 5000))
	zw.Close()
	for in, want := range map[string]string{"": "", "5": "5", "5\n": "5\n", empty.String(): ""} {
		r, err := Decompress(strings.NewReader(in))
		if err != nil {
			t.Errorf("Decompress(%q): %v", in, err)
			continue
		}
		if got, err := io.ReadAll(r); err != nil || string(got) != want {
			t.Errorf("Decompress(%q) reads %q, %v; want %q", in, got, err, want)
		}
	}
	corrupt := append(slices.Clone(whole.Bytes()[:10]), "garbage that is no deflate stream"...)
	for name, c := range map[string]struct {
		in   []byte
		want string
	}{
		"magic only":  {gzipMagic, "the gzip stream ends early: the file is truncated"},
		"cut short":   {whole.Bytes()[:whole.Len()/2], "the gzip stream ends early: the file is truncated"},
		"not deflate": {corrupt, "the gzip stream is corrupt: flate: corrupt input before offset 1"},
	} {
		r, err := Decompress(bytes.NewReader(c.in))
		if err == nil {
			_, err = io.ReadAll(r)
		}
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrBadGzip) {
			t.Errorf("%s: error %v, want %q satisfying ErrBadGzip", name, err, c.want)
		}
	}
}

// An input whose format is not told says so, and wraps ErrNotRecognised
// for a caller to word what to do about it.
func TestAnUnrecognisedFormatIsErrNotRecognised(t *testing.T) {
	r, err := NewReader(Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Read("x.log", strings.NewReader("<html>\n"))
	if want := "x.log: format not recognised; pass --format"; err == nil || err.Error() != want || !errors.Is(err, ErrNotRecognised) {
		t.Errorf("got %v, want %s (ErrNotRecognised)", err, want)
	}
}

// A time window over records with no time keeps none, and the message
// says why: the input has no timestamps, whatever the window. A window
// that leaves out timed records says nothing of the kind.
func TestATimeWindowOverUntimedRecordsSaysWhy(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ in, want string }{
		{"latency_ms\n10\n20\n", `no usable values of column latency_ms in a.csv with filter "since=2026-01-01T00:00:00Z": 3 lines, 2 records, 2 excluded by the filter, 0 without a value, 0 rejected, 0 malformed lines; no record has a time, so the time window (since, until) keeps none: the input has no timestamps`},
		{"time,latency_ms\n2025-06-01T00:00:00Z,10\n", `no usable values of column latency_ms in a.csv with filter "since=2026-01-01T00:00:00Z": 2 lines, 1 records, 1 excluded by the filter, 0 without a value, 0 rejected, 0 malformed lines`},
	} {
		r, _ := NewReader(Options{Format: FormatCSV, Column: "latency_ms", Filter: Filter{Since: since}})
		if err := r.Read("a.csv", strings.NewReader(c.in)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Sample(); err == nil || err.Error() != c.want {
			t.Errorf("error\n got %v\nwant %s", err, c.want)
		}
	}
}

// A wide CSV's columns are listed in part: the first 20, and how many in
// all, not thousands of names in one message.
func TestAWideHeaderIsListedInPart(t *testing.T) {
	t.Parallel()
	var cols []string
	for i := range 30 {
		cols = append(cols, fmt.Sprintf("c%d", i))
	}
	r, _ := NewReader(Options{Format: FormatCSV})
	err := r.Read("w.csv", strings.NewReader(strings.Join(cols, ",")+"\n"+strings.Repeat("1,", 29)+"1\n"))
	want := "w.csv:1: the CSV has columns " + strings.Join(cols[:20], ", ") + ", … (30 in all): name the one to read with --column"
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}
