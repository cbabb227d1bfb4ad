package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// calibrate runs the calibrate command on its own, as the root would, with
// args and stdin, and returns its streams and error.
func calibrate(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newCalibrateCmd(&IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	// Never nil: cobra would read os.Args instead, the test binary's own flags.
	cmd.SetArgs(append([]string{}, args...))
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

const calData = "../../testdata/calibration/"

// TestCalibrateK6Uploads fits the batch uploads of a k6 CSV output into a new
// fragment: the table on stdout, the account of every line on stderr, the
// fragment with its provenance in the file, and nothing on stdout.
func TestCalibrateK6Uploads(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "calibration.yaml")
	stdout, stderr, err := calibrate(t, "", calData+"k6-out.csv", "--route", "/api/trips/*/photos", "--status", "200",
		"--name", "upload_batch", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	wantTable := `upload_batch: 42 values of k6 metric http_req_duration from ../../testdata/calibration/k6-out.csv,
  filter route=/api/trips/*/photos status=200
ranked by AIC; * chosen

candidate    parameters                     KS     AIC    mean    p95
lognormal *  mu=3.69953, sigma=0.0898259    0.102  231.5  40.59s  46.87s
gamma        shape=124.19, scale=0.326852s  0.106  231.5  40.59s  46.76s
normal       mean=40.5917s, sd=3.64556s     0.114  231.8  40.59s  46.59s
weibull      shape=12.0235, scale=42.2815s  0.132  235.1  40.52s  46.32s
exponential  mean=40.5917s                  0.557  397.1  40.59s  121.6s
observed     n=42 sd=3.646s cv=0.0898                     40.59s  46.38s
`
	if stdout != "" {
		t.Errorf("stdout %q: with --out FILE the fragment goes to the file and nothing to standard output", stdout)
	}
	wantStderr := `../../testdata/calibration/k6-out.csv (k6-csv): 529 lines, 58 records of k6 metric
  http_req_duration: 42 used, 16 excluded by the filter; 2 malformed lines skipped
../../testdata/calibration/k6-out.csv:56: 3 fields where the header has 19
../../testdata/calibration/k6-out.csv:529: bad CSV: a quoted field is not closed (truncated line?)
` + wantTable + `wrote ` + out + ` (upload_batch)
`
	if stderr != wantStderr {
		t.Errorf("stderr\n%s\nwant\n%s", stderr, wantStderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	wantFrag := `# written by capsim calibrate; each entry names the command that produced it
distributions:
  # rerun: capsim calibrate ../../testdata/calibration/k6-out.csv --name upload_batch --out ` + out + ` --route '/api/trips/*/photos' --status 200
  upload_batch:
    dist: lognormal(mu=3.69953, sigma=0.0898259)
    uncertainty: {n: 42, method: fisher, se: {mu: 0.0139, sigma: 0.0098}, corr: 0}
    source:
      files: [../../testdata/calibration/k6-out.csv]
      metric: "k6 metric http_req_duration"
      filter: "route=/api/trips/*/photos status=200"
      n: 42
      ks: 0.102
      aic: 231.5
      runner_up: gamma(shape=124.19, scale=0.326852s)
      warnings: []
`
	if string(got) != wantFrag {
		t.Errorf("fragment\n%s\nwant\n%s", got, wantFrag)
	}
}

// TestCalibrateBuildsOneFragment adds entries from three sources to one
// fragment, then replaces one of them: other entries are left as they were.
func TestCalibrateBuildsOneFragment(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "calibration.yaml")
	runs := [][]string{
		{calData + "nginx-access.log", "--metric", "request_time-upstream_response_time", "--route", "/api/trips/*/photos", "--name", "nginx_overhead"},
		{calData + "applog.jsonl", "--from-event", "photo_originals_saved", "--to-event", "request_completed", "--name", "post_save"},
		{calData + "applog.jsonl", "--from-event", "photo_originals_saved", "--column", "elapsed_ms", "--name", "s3_save"},
		{calData + "nginx-access.json", "--metric", "request_time-upstream_response_time", "--status", "2xx", "--route", "/api/trips/*/photos", "--name", "nginx_overhead", "--dist", "gamma"},
	}
	for _, args := range runs {
		if _, stderr, err := calibrate(t, "", append(args, "--out", out)...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	frag := string(got)
	for _, want := range []string{
		"\n  nginx_overhead:\n    dist: gamma(",
		"\n  post_save:\n    dist: weibull(shape=6.72995, scale=77.1736s)",
		"\n  s3_save:\n    dist: lognormal(mu=-0.714211, sigma=0.191328)",
		`filter: "route=/api/trips/*/photos status=2xx"`,
		`metric: "field elapsed_ms of photo_originals_saved events"`,
	} {
		if !strings.Contains(frag, want) {
			t.Errorf("fragment lacks %q:\n%s", want, frag)
		}
	}
	if strings.Count(frag, "nginx_overhead:") != 1 || strings.Index(frag, "nginx_overhead:") > strings.Index(frag, "post_save:") {
		t.Errorf("nginx_overhead was not replaced in place:\n%s", frag)
	}
}

// TestCalibrateFiguresGolden runs from the repository root so that the
// fragment matches the package's golden file byte for byte.
func TestCalibrateFiguresGolden(t *testing.T) {
	t.Chdir("../..")
	stdout, stderr, err := calibrate(t, "", "figures", "testdata/calibration/figures.yaml", "--out", "-")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/calibration/figures.golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The rerun line records the command as given, --out - included.
	want = bytes.ReplaceAll(want, []byte("figures testdata/calibration/figures.yaml\n"), []byte("figures testdata/calibration/figures.yaml --out -\n"))
	if stdout != string(want) {
		t.Errorf("stdout is not the fragment of figures.golden.yaml alone:\n%s", stdout)
	}
	if !strings.HasPrefix(stderr, "s3_save_10_photos: figures mean=0.56s (FIGURES 000-30)\n") {
		t.Errorf("stderr does not start with the first table:\n%s", stderr)
	}
	wantWarning := "\nwarning: s3_save_10_photos: mean=0.56s says nothing about the spread: a constant is used; add a p95 or a cv if the duration varies\n"
	if !strings.Contains(stderr, wantWarning) {
		t.Errorf("stderr lacks %q:\n%s", wantWarning, stderr)
	}
}

// TestCalibratedFragmentLoadsInAScenario checks the fragment against its
// consumer: a scenario that includes it and names its entry validates.
func TestCalibratedFragmentLoadsInAScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	frag := filepath.Join(dir, "calibration.yaml")
	if _, stderr, err := calibrate(t, "", calData+"latencies.csv", "--column", "latency_ms", "--name", "upload_batch", "--out", frag); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := calibrate(t, "", "figures", calData+"figures.yaml", "--out", frag); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	validatesWithFragment(t, dir, "upload_batch", "worker_cold_start", "nginx_overhead")
}

// validatesWithFragment checks that a scenario including dir's
// calibration.yaml and using entries work, then each of delays in turn,
// passes validate: what calibrate wrote loads as scenarios read it.
func validatesWithFragment(t *testing.T, dir, work string, delays ...string) {
	t.Helper()
	src := "name: calibrated\ninclude: [calibration.yaml]\nduration: 600s\ncomponents:\n  app: {kind: pool, servers: 2}\n" +
		"journeys:\n  upload:\n    rate: 0.01/s\n    steps:\n      - use: app\n        work: " + work + "\n"
	for _, d := range delays {
		src += "      - delay: " + d + "\n"
	}
	scenario := filepath.Join(dir, "calibrated.yaml")
	if err := os.WriteFile(scenario, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "validate", scenario)
	if code != exitOK || stdout != scenario+": ok\n" {
		t.Errorf("validate: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

func TestCalibrateEmpiricalAndPlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "calibration.yaml")
	plots := filepath.Join(dir, "plots")
	_, stderr, err := calibrate(t, "", calData+"latencies.csv", "--column", "latency_ms", "--dist", "empirical",
		"--name", "upload_batch", "--out", out, "--plot", plots)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// The values are written inline: no file is written beside the
	// fragment, where it could overwrite an input of the same name.
	if _, err := os.Stat(filepath.Join(dir, "upload_batch.csv")); err == nil {
		t.Error("a values file was written beside the fragment")
	}
	frag, _ := os.ReadFile(out)
	if !strings.Contains(string(frag), "dist: empirical(34.712s, ") || strings.Count(string(frag), "s, ")+1 != 38 || strings.Contains(string(frag), "aic:") || strings.Contains(string(frag), "ks:") {
		t.Errorf("fragment:\n%s", frag)
	}
	if _, err := os.Stat(filepath.Join(plots, "upload_batch-hist.svg")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(plots, "upload_batch-qq.svg")); err == nil {
		t.Error("a QQ plot drawn for an empirical distribution, which has no fitted quantiles")
	}
	// With a parametric fit both charts are drawn.
	if _, stderr, err = calibrate(t, "", calData+"latencies.csv", "--column", "latency_ms", "--name", "b", "--plot", plots); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for f, want := range map[string]string{"b-hist.svg": "lognormal(", "b-qq.svg": "QQ against lognormal("} {
		svg, err := os.ReadFile(filepath.Join(plots, f))
		if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), want) {
			t.Errorf("%s: %v; want an SVG naming %q", f, err, want)
		}
	}
}

func TestCalibrateStdinGzip(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(calData + "nginx-access.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	stdout, stderr, err := calibrate(t, buf.String(), "-", "--route", "/api/trips/*/photos", "--status", "200")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing without --out -", stdout)
	}
	if !strings.Contains(stderr, "\nrequest_time: 42 values of nginx request_time from -, filter route=/api/trips/*/photos status=200\n") ||
		!strings.HasSuffix(stderr, "\nno fragment written: give --out FILE, or --out - for standard output\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if !strings.Contains(stderr, "-:3: not a JSON object:") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestCalibrateSummary(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := calibrate(t, "", calData+"k6-handle-summary.json", "--route", "/api/trips/*/photos", "--name", "upload_batch", "--out", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "upload_batch: figures mean=40.5917s p50=40.499s p90=45.6069s p95=46.3593s min=33.0604s max=48.0577s\n" +
		"  (k6 handleSummary data http_req_duration{name:https://api.yeodam.example/api/trips/${}/photos})\n"; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr does not start with %q:\n%s", want, stderr)
	}
	if !strings.HasPrefix(stdout, "# written by capsim calibrate") {
		t.Errorf("stdout is not the fragment alone:\n%s", stdout)
	}
	for _, want := range []string{
		"    dist: lognormal(mu=3.70013, sigma=0.0828597)\n",
		`      ref: "k6 handleSummary data http_req_duration{name:https://api.yeodam.example/api/trips/${}/photos}"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// TestCalibrateErrors pins the messages of bad invocations and their exit
// codes: 2 for usage, 1 for data that cannot be calibrated.
func TestCalibrateErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{nil, "give the files to read, e.g. capsim calibrate k6-out.csv (see calibrate --help)", exitUsage},
		{[]string{"x.csv", "--rank", "bic"}, `--rank must be aic or ks, got "bic"`, exitUsage},
		{[]string{"x.csv", "--dist", "pareto"}, `--dist must be one of lognormal, gamma, weibull, normal, exponential, lognormal+shift, exponential+shift, uniform or empirical, got "pareto"`, exitUsage},
		{[]string{"x.csv", "--remove", "a"}, "--remove takes entries out of the fragment --out FILE names: give --out FILE", exitUsage},
		{[]string{"--remove", "a", "--out", "-"}, "--remove takes entries out of the fragment --out FILE names: give --out FILE", exitUsage},
		{[]string{"x.csv", "--format", "har"}, `--format: unknown format "har" (want auto, k6-csv, k6-json, k6-summary, nginx-json, nginx-combined, applog, csv)`, exitUsage},
		{[]string{"x.csv", "--tag", "novalue"}, `--tag: tag "novalue" is not key=value`, exitUsage},
		{[]string{"x.csv", "--since", "last week"}, `--since: timestamp "last week" is in no known format`, exitUsage},
		{[]string{"x.csv", "--unit", "days"}, `--unit: unknown unit "days" (want ns, us, ms, s, m or h)`, exitUsage},
		{[]string{"x.csv", "--status", "20x"}, `status "20x" is neither a code (200) nor a class (2xx)`, exitUsage},
		{[]string{"x.csv", "--name", "9lives"}, `--name: name "9lives" must start with an ASCII letter and use only ASCII letters, digits and _ - /`, exitUsage},
		{[]string{"x.csv", "--name", "_99th"}, `--name: name "_99th" must start with an ASCII letter and use only ASCII letters, digits and _ - /`, exitUsage},
		{[]string{"x.csv", "--name", "api.p95"}, `--name: name "api.p95" holds a dot, which separates the keys of a --set or --scale path; use _ or - instead`, exitUsage},
		{[]string{calData + "missing.csv"}, "../../testdata/calibration/missing.csv: no such file", exitUsage},
		{[]string{calData + "k6-summary-v1.json", "--plot", "p"}, "../../testdata/calibration/k6-summary-v1.json is a k6 end-of-test summary: it holds figures, not values, so there is nothing to plot", exitUsage},
		{[]string{calData + "k6-out.csv", calData + "k6-summary-v1.json"}, "../../testdata/calibration/k6-summary-v1.json is a k6 end-of-test summary: it holds figures, not values; calibrate it on its own", exitUsage},
		{[]string{calData + "k6-summary-v1.json", "--dist", "lognormal+shift"}, "../../testdata/calibration/k6-summary-v1.json is a k6 end-of-test summary: figures cannot give a lognormal+shift distribution", exitUsage},
		{[]string{calData + "k6-out.csv", calData + "nginx-access.log"}, "../../testdata/calibration/nginx-access.log is nginx-combined but an earlier file was k6-csv: calibrate one kind of measurement at a time", exitUsage},
		{[]string{calData + "k6-out.csv", "--metric", "http_req_waiting", "--status", "404"},
			`no usable values of k6 metric http_req_waiting in ../../testdata/calibration/k6-out.csv with filter "status=404": 529 lines, 58 records, 58 excluded by the filter, 0 without a value, 0 rejected, 2 malformed lines`, exitUsage},
		{[]string{"figures"}, "give one figures file, e.g. capsim calibrate figures figures.yaml (see calibrate figures --help)", exitUsage},
		{[]string{"figures", calData + "missing.yaml"}, "../../testdata/calibration/missing.yaml: no such file", exitUsage},
	} {
		_, _, err := calibrate(t, "", c.args...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: error\n got %v\nwant %s", c.args, err, c.want)
			continue
		}
		code := exitError
		var ce *codedError
		if errors.As(err, &ce) {
			code = ce.code
		}
		if code != c.code {
			t.Errorf("%v: exit code %d, want %d", c.args, code, c.code)
		}
	}
}

func TestDefaultEntryName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"k6 metric http_req_duration":                                        "http_req_duration",
		"nginx request_time-upstream_response_time":                          "request_time_upstream_response_time",
		"time from photo_originals_saved to request_completed by request_id": "photo_originals_saved_to_request_completed",
		"field elapsed_ms of photo_originals_saved events":                   "elapsed_ms",
		"column 95th Latency (ms)":                                           "p95th_latency_ms",
		"column 99th":                                                        "p99th",
		"":                                                                   "measured",
	} {
		if got := defaultEntryName(in); got != want {
			t.Errorf("defaultEntryName(%q) = %q, want %q", in, got, want)
		}
		if err := checkEntryName(defaultEntryName(in)); err != nil {
			t.Errorf("defaultEntryName(%q): %v", in, err)
		}
	}
}

// The names calibrate makes up, and those it is given, are the names a
// scenario accepts: a column whose name starts with a digit gives an entry
// a scenario can refer to, and so does a --name holding a /, whose charts
// are files beside each other rather than in a folder.
func TestCalibratedNamesLoadInAScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := filepath.Join(dir, "latency.csv")
	var b strings.Builder
	b.WriteString("99th\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d\n", 100+i*i%37)
	}
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	frag := filepath.Join(dir, "calibration.yaml")
	if _, stderr, err := calibrate(t, "", csv, "--column", "99th", "--unit", "ms", "--out", frag); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	plotDir := filepath.Join(dir, "plots")
	if _, stderr, err := calibrate(t, "", csv, "--column", "99th", "--unit", "ms", "--name", "api/upload", "--out", frag, "--plot", plotDir); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	entries, _ := os.ReadDir(plotDir)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if got := strings.Join(files, " "); got != "api-upload-hist.svg api-upload-qq.svg" {
		t.Errorf("--plot wrote %s, want api-upload-hist.svg api-upload-qq.svg", got)
	}
	validatesWithFragment(t, dir, "p99th", "api/upload")
}

// A file given twice, however spelled, is refused: its values would count
// twice, and the fit's uncertainty (n, se) claim twice the evidence.
func TestCalibrateRefusesAFileTwice(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	data := "duration\n0.011\n0.023\n0.018\n0.042\n0.015\n0.027\n0.031\n0.019\n0.022\n0.036\n"
	if err := os.WriteFile("c1.csv", []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("c1.csv", "link.csv"); err != nil {
		t.Fatal(err)
	}
	for _, second := range []string{"./c1.csv", filepath.Join(dir, "c1.csv"), "link.csv"} {
		code, stdout, stderr := run(t, "calibrate", "c1.csv", second, "--out", "-")
		want := "capsim: c1.csv and " + second + " are the same file: its records would count twice; give each file once\n"
		if code != exitUsage || stderr != want || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q", second, code, stdout, stderr, exitUsage, want)
		}
	}
	if code, stdout, stderr := run(t, "calibrate", "c1.csv", "--out", "-"); code != 0 || !strings.Contains(stdout, "n: 10,") {
		t.Errorf("once: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A fragment --out names that holds a second YAML document is left as it
// is: writing it back would drop the second. The message names its line.
func TestCalibrateRefusesAFragmentOfTwoDocuments(t *testing.T) {
	t.Parallel()
	frag := filepath.Join(t.TempDir(), "calibration.yaml")
	two := "distributions:\n  a: {dist: constant(1s)}\n---\ndistributions:\n  b: {dist: constant(2s)}\n"
	if err := os.WriteFile(frag, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	want := frag + ":3:1: a second YAML document starts here; a calibration fragment is one document"
	for _, args := range [][]string{
		{"figures", calData + "figures.yaml", "--out", frag},
		{"--remove", "a", "--out", frag},
	} {
		if _, _, err := calibrate(t, "", args...); err == nil || err.Error() != want {
			t.Errorf("%v: error\n got %v\nwant %s", args, err, want)
		}
	}
	if got, _ := os.ReadFile(frag); string(got) != two {
		t.Errorf("the fragment was rewritten:\n%s", got)
	}
}
