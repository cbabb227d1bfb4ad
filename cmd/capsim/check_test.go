package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"capsim/cmd/golden"
	"capsim/model"
)

const shop = "testdata/check/shop.yaml"

// recordShop writes the logs a recorded run of the shop would leave, in the
// real formats: an nginx JSON access log, a k6 CSV and the application's
// JSON lines (its log: events with since_s, and one outcome event per
// journey named after it, as an application logs trip_creation success or
// failure). The run is capsim's own, at a seed the checks do not use, with
// sets applied: logs from a known model.
func recordShop(t *testing.T, dir string, seed uint64, sets ...string) (nginx, k6, app string) {
	t.Helper()
	return recordShopDesign(t, dir, "", seed, sets...)
}

func recordShopDesign(t *testing.T, dir, design string, seed uint64, sets ...string) (nginx, k6, app string) {
	t.Helper()
	doc, overrides, err := openScenario(shop, sets, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := compileDesign(doc, model.LoadOptions{Design: design, Overrides: overrides})
	if err != nil {
		t.Fatal(err)
	}
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ng, k, ap strings.Builder
	k.WriteString("metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n")
	_, err = c.Run(model.RunOptions{Seed: seed, Trace: func(e *model.TraceEvent) {
		at := origin.Add(time.Duration(e.T * 1e9))
		switch {
		case e.Event == model.EvRequestEnd && e.Edge:
			fmt.Fprintf(&ng, `{"time_iso8601":"%s","request_id":"%s","request":"GET /%s HTTP/1.1","status":"%d","request_time":"%.3f"}`+"\n",
				at.Format(time.RFC3339), e.Request, e.Route, e.Status, e.Duration)
			fmt.Fprintf(&k, "http_req_duration,%d,%.6f,,,,true,,GET,%s,HTTP/1.1,default,,%d,,,http://shop/%s,,\n",
				at.Unix(), e.Duration*1000, e.Route, e.Status, e.Route)
		case e.Event == model.EvJourneyEnd:
			fmt.Fprintf(&ap, `{"time":"%s","event":"%s","request_id":"%s","result":"%s","failure_stage":"%s","duration_s":%g}`+"\n",
				at.Format(time.RFC3339Nano), e.Journey, e.Request, e.Result, e.Stage, e.Duration)
		case e.Since != "" && !strings.HasPrefix(e.Event, model.TracePrefix):
			fmt.Fprintf(&ap, `{"time":"%s","event":"%s","request_id":"%s","job_id":%d,"since_s":%g}`+"\n",
				at.Format(time.RFC3339Nano), e.Event, e.Request, e.JobID, e.SinceS)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	nginx, k6, app = filepath.Join(dir, "access.log"), filepath.Join(dir, "k6.csv"), filepath.Join(dir, "app.jsonl")
	for path, data := range map[string]string{nginx: ng.String(), k6: k.String(), app: ap.String()} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return nginx, k6, app
}

// The model that wrote the logs passes its own check, from nginx's and from
// k6's view; the same model with the database save 20 % slower fails, and
// the report names the stage.
func TestCheckPassesTheRightModelAndNamesTheWrongStage(t *testing.T) {
	dir := t.TempDir()
	nginx, k6, app := recordShop(t, dir, 101)
	for _, access := range []string{nginx, k6} {
		code, stdout, stderr := run(t, "check", shop, "--access", access, "--app", app)
		if code != exitOK || stderr != "" {
			t.Errorf("right model, %s: exit %d, stderr %q\n%s", filepath.Base(access), code, stderr, stdout)
		}
		if !strings.Contains(stdout, "The model matches the recording: no line failed.") {
			t.Errorf("right model, %s: no verdict of a match:\n%s", filepath.Base(access), stdout)
		}
		for _, line := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(line, "FAIL") {
				t.Errorf("right model, %s: %s", filepath.Base(access), line)
			}
		}
	}

	out := filepath.Join(dir, "report")
	code, stdout, stderr := run(t, "check", shop, "--access", nginx, "--app", app, "--scale", "distributions.db_save=1.2", "--out", out)
	if code != exitMismatch || !strings.HasPrefix(stderr, "capsim: the model does not match the recording: ") {
		t.Errorf("wrong model: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "FAIL stage order_saved\n     mean +2") {
		t.Errorf("wrong model: the stage 20%% off is not named:\n%s", stdout)
	}
	// Stages the change does not touch still pass.
	for _, stage := range []string{"page_served", "order_validated", "receipt_started", "receipt_sent"} {
		if !strings.Contains(stdout, "pass  stage "+stage) {
			t.Errorf("wrong model: stage %s does not pass:\n%s", stage, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if len([]rune(line)) > 100 {
			t.Errorf("line wider than 100 columns: %q", line)
		}
	}
	for _, name := range []string{"report.md", "check.csv", "charts/qq-stage-order_saved.svg", "charts/qq-route-order.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("--out: %v", err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "**The model does not match the recording**") || !strings.Contains(string(md), "- stage order_saved: mean +2") {
		t.Errorf("report.md has no verdict naming the stage:\n%s", md)
	}
}

// Bad input to check: each mistake exits 2 with its exact message.
func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	_, _, app := recordShop(t, dir, 101, "duration=60s")
	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, []byte(`{"time":"2026-01-01T00:00:01Z","event":"page_served","since_s":0.1}`+"\n"+`{"time":"2026-01-01T00:00:02Z","event":"page_se`+"\n"), 0o644)
	// An outcome whose result is neither word: once counted as a failure.
	odd := filepath.Join(dir, "odd.jsonl")
	data, _ := os.ReadFile(app)
	os.WriteFile(odd, []byte(strings.Replace(string(data), `"result":"success"`, `"result":"ok"`, 1)), 0o644)
	badTime := filepath.Join(dir, "badtime.jsonl")
	os.WriteFile(badTime, []byte(`{"time":"yesterday","event":"page_served","since_s":0.1}`+"\n"), 0o644)
	// The same log twice over (shipped twice), and a line repeated.
	nginx, _, _ := recordShop(t, dir, 102, "duration=60s")
	access, _ := os.ReadFile(nginx)
	twice := filepath.Join(dir, "twice.log")
	os.WriteFile(twice, append(slices.Clone(access), access...), 0o644)
	accessLines := strings.SplitAfter(string(access), "\n")
	repeated := filepath.Join(dir, "repeated.jsonl")
	os.WriteFile(repeated, []byte(string(data)+strings.SplitAfter(string(data), "\n")[2]), 0o644)
	// A status that is not a number: once dropped from the failure rate.
	wordStatus := filepath.Join(dir, "wordstatus.log")
	os.WriteFile(wordStatus, []byte(accessLines[0]+strings.Replace(accessLines[1], `"status":"`, `"status":"x`, 1)), 0o644)
	k6Word := filepath.Join(dir, "k6word.csv")
	os.WriteFile(k6Word, []byte("metric_name,timestamp,metric_value,name,status,url\n"+
		"http_req_duration,1767225600,50.5,browse,200,http://shop/browse\nhttp_req_duration,1767225601,50.5,browse,OK,http://shop/browse\n"), 0o644)
	k6Twice := filepath.Join(dir, "k6twice.csv")
	os.WriteFile(k6Twice, []byte("metric_name,timestamp,metric_value,name,status,url\n"+
		"http_req_duration,1767225600,50.5,browse,200,http://shop/browse\n"), 0o644)
	negative := filepath.Join(dir, "negative.log")
	os.WriteFile(negative, []byte(accessLines[0]+strings.Replace(accessLines[1], `"request_time":"`, `"request_time":"-`, 1)), 0o644)
	// A combined line ending in nginx's $request_id is one request's.
	const withID = `10.0.0.1 - - [01/Jan/2026:00:00:01 +0000] "GET /browse HTTP/1.1" 200 512 "-" "k6/0.50" 0.040 9c14f5addc27ea1af97a89781b3ec220` + "\n"
	combinedTwice := filepath.Join(dir, "combinedtwice.log")
	os.WriteFile(combinedTwice, []byte(withID+withID), 0o644)
	// Application logs a check cannot use: once run, and every stage
	// failed for want of recorded times, or a line dropped unsaid.
	emptyApp := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(emptyApp, []byte("\n"), 0o644)
	noEvent := filepath.Join(dir, "noevent.jsonl")
	os.WriteFile(noEvent, []byte(`{"time":"2026-01-01T00:00:01Z","event":"page_served","since_s":0.1}`+"\n"+`{"time":"2026-01-01T00:00:02Z","since_s":0.1}`+"\n"), 0o644)
	noSince := filepath.Join(dir, "nosince.jsonl")
	os.WriteFile(noSince, []byte(`{"time":"2026-01-01T00:00:01Z","event":"page_served","took_s":0.1}`+"\n"), 0o644)
	// Files given as access logs that are none: once met with the advice
	// of calibrate's flags (--format, --column, --from-event), or read as
	// a CSV of no records.
	plainCSV := filepath.Join(dir, "plain.csv")
	os.WriteFile(plainCSV, []byte("a,b\n1,2\n"), 0o644)
	garbage := filepath.Join(dir, "garbage.log")
	os.WriteFile(garbage, []byte("\xff\xfe not a log\n"), 0o644)
	accessN := strings.Count(string(access), "\n")
	cases := []struct{ args, want string }{
		{"check " + shop + " --access " + app, "capsim: " + app + " is an application log: give it with --app; --access takes nginx's access log or k6's output"},
		{"check " + shop + " --access " + plainCSV, "capsim: " + plainCSV + " is a plain CSV, not an access log: --access takes nginx's access log (combined or JSON) or k6's output (CSV or JSON)"},
		{"check " + shop + " --access " + garbage, "capsim: " + garbage + ": not an access log: --access takes nginx's access log (combined or JSON) or k6's output (CSV or JSON)"},
		{"check " + shop + " --access " + twice, fmt.Sprintf("capsim: %s:%d: the same line as %s:1; a record logged twice would be counted twice (give each once)", twice, accessN+1, twice)},
		{"check " + shop + " --access " + nginx + " --access " + twice, fmt.Sprintf("capsim: %s:1: the same line as %s:1; a record logged twice would be counted twice (give each once)", twice, nginx)},
		{"check " + shop + " --access " + combinedTwice, fmt.Sprintf("capsim: %s:2: the same line as %s:1; a record logged twice would be counted twice (give each once)", combinedTwice, combinedTwice)},
		{"check " + shop + " --app " + repeated, fmt.Sprintf("capsim: %s:%d: the same line as %s:3; a record logged twice would be counted twice (give each once)", repeated, strings.Count(string(data), "\n")+1, repeated)},
		{"check " + shop + " --access " + wordStatus, "capsim: " + wordStatus + `:2: status "x` + statusOf(accessLines[1]) + `" is not an HTTP status (a whole number)`},
		// Refused, not skipped: the check stops at the line.
		{"check " + shop + " --access " + negative, "capsim: " + negative + ":2: value -" + timeOf(accessLines[1]) + "s is not a duration (negative or not finite)"},
		{"check " + shop + " --access " + k6Word, "capsim: " + k6Word + `:3: status "OK" is not an HTTP status (a whole number)`},
		// Two k6 files both open with the same header, and a row alike in
		// both (k6 rows carry no request id): no repeated record, the read
		// goes on to the bad status.
		{"check " + shop + " --access " + k6Twice + " --access " + k6Word, "capsim: " + k6Word + `:3: status "OK" is not an HTTP status (a whole number)`},
		{"check " + shop, "capsim: give the recorded run's logs: --access FILE (nginx or k6) and/or --app FILE (application log)"},
		{"check " + shop + " --app missing.jsonl", "capsim: missing.jsonl: no such file or directory"},
		{"check " + shop + " --app " + torn, "capsim: " + torn + ":2: the line ends inside the JSON object (truncated)"},
		{"check " + shop + " --app " + emptyApp, "capsim: " + emptyApp + ": is empty"},
		{"check " + shop + " --app " + noEvent, "capsim: " + noEvent + ":2: no field event (nor msg or message): every line of an application log names its event"},
		{"check " + shop + " --app " + noSince, "capsim: " + noSince + ": no line has the field since_s (--stage-field)"},
		{"check " + shop + " --app " + app + " --stage-field nope", "capsim: " + app + ": no line has the field nope (--stage-field)"},
		{"check " + shop + " --app " + badTime, "capsim: " + badTime + `:1: timestamp "yesterday" is in no known format`},
		{"check " + shop + " --app " + app + " --route nope=/x", "capsim: --route nope: the scenario has no route nope that a journey calls"},
		{"check " + shop + " --app " + app + " --route browse", `capsim: --route "browse": want ROUTE=PATTERN, e.g. trip_view=/api/trips/*`},
		{"check " + shop + " --app " + app + " --tolerance 200%", `capsim: --tolerance must be a share between 0 and 100% (10% or 0.1), got "200%"`},
		{"check " + shop + " --app " + app + " --replications 0", "capsim: --replications must be between 1 and 10000, got 0"},
		{"check " + shop + " --app " + app + " --alpha 2", "capsim: --alpha must be between 0 and 1, got 2"},
		{"check " + shop + " --app " + app + " --app " + app, "capsim: " + app + " and " + app + " are the same file: its records would count twice; give each file once"},
		{"check " + shop + " --app " + odd, "capsim: 1 shopper event(s) have a result other than success or failure: every outcome must say one of the two"},
		{"check " + shop + " --app " + app + " --resolution 876000h", "capsim: --resolution must be > 0 and at most 1s (the granularity a log writes times in), got 876000h0m0s"},
		{"check " + shop + " --access " + app + " --replay", "capsim: --replay reads the journeys' starts from their outcome events: give --app FILE"},
		{"check " + shop + " --app " + torn + " --replay", "capsim: " + torn + ":2: the line ends inside the JSON object (truncated)"},
		{"check missing.yaml --app " + app, "capsim: missing.yaml: no such file"},
		// A model whose journeys call no route has nothing to hold an
		// access log to: once "no line failed", exit 0.
		{"check mm1 --set duration=60s --set warmup=0s -r 1 --access " + nginx,
			"capsim: --access: the scenario's journeys call no route, so an access log has nothing to be compared with; give the application log (--app FILE) to compare the journeys"},
	}
	for _, c := range cases {
		code, stdout, stderr := run(t, strings.Fields(c.args)...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != exitUsage || first != c.want || stdout != "" {
			t.Errorf("capsim %s: exit %d, stdout %q\nstderr %q\nwant   %q", c.args, code, stdout, first, c.want)
		}
	}
}

// Two requests alike in one second write the same combined nginx line (it
// keeps whole seconds and no request id), and k6 the same CSV row: both
// are counted, not refused as a record logged twice.
func TestCheckCountsLinesAlikeWithoutARequestID(t *testing.T) {
	dir := t.TempDir()
	const line = `10.0.0.1 - - [01/Jan/2026:00:00:01 +0000] "GET /browse HTTP/1.1" 200 512 "-" "k6/0.50" 0.040` + "\n"
	combined := filepath.Join(dir, "combined.log")
	os.WriteFile(combined, []byte(line+line+line), 0o644)
	const row = "http_req_duration,1767225600,50.5,browse,200,http://shop/browse\n"
	k6 := filepath.Join(dir, "k6.csv")
	os.WriteFile(k6, []byte("metric_name,timestamp,metric_value,name,status,url\n"+row+row), 0o644)
	for access, want := range map[string]string{combined: "route browse (nginx)      3", k6: "route browse (k6)      2"} {
		code, stdout, stderr := run(t, "check", shop, "-r", "1", "--set", "duration=60s", "--access", access)
		if code == exitUsage || !strings.Contains(stdout, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q in\n%s", filepath.Base(access), code, stderr, want, stdout)
		}
	}
}

// What one side holds and the other lacks is a failed line: a run that
// calls nothing (once "0 lines", no line failed, exit 0), and recorded
// requests no route of the scenario selects.
func TestCheckFailsWhatOneSideOnlyHolds(t *testing.T) {
	dir := t.TempDir()
	nginx, _, app := recordShop(t, dir, 101, "duration=60s")
	code, stdout, _ := run(t, "check", shop, "-r", "1", "--set", "duration=1ms", "--access", nginx, "--app", app)
	for _, want := range []string{"FAIL route browse (nginx)\n     the model has none; the recording has ",
		"FAIL stage page_served\n     the model has none; the recording has "} {
		if code != exitMismatch || !strings.Contains(stdout, want) {
			t.Errorf("a run of 1ms: exit %d, want %q in\n%s", code, want, stdout)
		}
	}
	data, _ := os.ReadFile(nginx)
	other := filepath.Join(dir, "other.log")
	os.WriteFile(other, append(data, `{"time_iso8601":"2026-01-01T00:00:09Z","request_id":"r-admin","request":"GET /admin HTTP/1.1","status":"200","request_time":"0.010"}`+"\n"...), 0o644)
	code, stdout, _ = run(t, "check", shop, "-r", "1", "--set", "duration=60s", "--access", other)
	if want := "FAIL route *unmatched* (nginx)\n     1 recorded requests match no route's pattern"; code != exitMismatch || !strings.Contains(stdout, want) {
		t.Errorf("a request of another route: exit %d, want %q in\n%s", code, want, stdout)
	}
}

// statusOf is the status an nginx JSON line logs.
func statusOf(line string) string {
	_, rest, _ := strings.Cut(line, `"status":"`)
	st, _, _ := strings.Cut(rest, `"`)
	return st
}

// timeOf is the request_time an nginx JSON line logs.
func timeOf(line string) string {
	_, rest, _ := strings.Cut(line, `"request_time":"`)
	v, _, _ := strings.Cut(rest, `"`)
	return strings.TrimRight(strings.TrimRight(v, "0"), ".")
}

// A real recording (testdata/check/recorded, made by record/record.sh:
// nginx in front of a Go server that sleeps the shop's times, 2 shoppers a
// second for 240 s): the shop's model passes it, and the model with its
// database save 20 % slower fails, on the route that saves and the stage.
func TestCheckARealRecording(t *testing.T) {
	logs := []string{"--access", "testdata/check/recorded/access.log.gz",
		"--app", "testdata/check/recorded/app.jsonl.gz", "--app", "testdata/check/recorded/client.jsonl.gz"}
	// The recorded shoppers' arrival rate, or their very starts.
	for _, load := range [][]string{{"--multiplier", "2"}, {"--replay"}} {
		t.Run(load[0], func(t *testing.T) {
			checkRecording(t, append(append([]string{"check", shop, "--set", "duration=240s"}, load...), logs...))
		})
	}
}

func checkRecording(t *testing.T, args []string) {
	code, stdout, stderr := run(t, args...)
	if code != exitOK || !strings.Contains(stdout, "The model matches the recording: no line failed.") {
		t.Errorf("right model: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	code, stdout, _ = run(t, append(args, "--scale", "distributions.db_save=1.2")...)
	var failed []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "FAIL ") && !strings.HasPrefix(line, "FAIL  ") { // the reasons, not the table rows
			failed = append(failed, line)
		}
	}
	if want := []string{"FAIL route order (nginx)", "FAIL stage order_saved"}; code != exitMismatch || strings.Join(failed, "\n") != strings.Join(want, "\n") {
		t.Errorf("wrong model: exit %d, failed %q, want %q\n%s", code, failed, want, stdout)
	}
}

// Outcomes: logs of the shop whose payment provider refuses 3 % of orders
// pass the model with that design, and fail the model without it on the
// journey's success rate and the order route's HTTP failure rate.
func TestCheckComparesOutcomes(t *testing.T) {
	nginx, _, app := recordShopDesign(t, t.TempDir(), "flaky-payment", 101)
	code, stdout, _ := run(t, "check", shop, "--design", "flaky-payment", "--access", nginx, "--app", app)
	if code != exitOK || !strings.Contains(strings.Join(strings.Fields(stdout), " "), "pass journey shopper failed_at:payment") {
		t.Errorf("right model: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "check", shop, "--access", nginx, "--app", app)
	var failed []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "FAIL ") && !strings.HasPrefix(line, "FAIL  ") {
			failed = append(failed, line)
		}
	}
	if want := []string{"FAIL journey shopper success_rate", "FAIL route order http_failure_rate"}; code != exitMismatch || strings.Join(failed, "\n") != strings.Join(want, "\n") {
		t.Errorf("wrong model: exit %d, failed %q, want %q\n%s", code, failed, want, stdout)
	}
}

// The whole report of a check that fails, on the real recording replayed:
// the terminal's tables and report.md, byte for byte.
func TestCheckReportGolden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "check")
	code, stdout, _ := run(t, "check", shop, "--set", "duration=240s", "--replay", "--scale", "distributions.db_save=1.2",
		"--access", "testdata/check/recorded/access.log.gz",
		"--app", "testdata/check/recorded/app.jsonl.gz", "--app", "testdata/check/recorded/client.jsonl.gz", "--out", out)
	if code != exitMismatch {
		t.Fatalf("exit %d, want %d", code, exitMismatch)
	}
	golden.Check(t, goldenFile("check_recorded"), []byte(stdout))
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "check_recorded_report.md.golden"), md)
}

// A load driver's own JSON lines, read with the fields a sources file
// names, give the same report as k6's CSV of the same requests
// (testdata/check/client: driver.jsonl is k6.csv line by line, with its
// times and latencies written in the other forms a driver may use).
func TestCheckReadsADriversJSONLines(t *testing.T) {
	args := []string{"check", shop, "--design", "flaky-payment", "--set", "duration=60s", "--access"}
	code, fromK6, stderr := run(t, append(args, "testdata/check/client/k6.csv")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("k6.csv: exit %d, stderr %q\n%s", code, stderr, fromK6)
	}
	// Both routes with all their requests, and order's three 502s.
	for _, want := range []string{"pass  route browse (k6)     69", "pass  route order (k6)      69",
		"pass  route order       http_failure_rate     69    304      4.3%"} {
		if !strings.Contains(fromK6, want) {
			t.Errorf("k6.csv: no %q in\n%s", want, fromK6)
		}
	}
	code, fromDriver, stderr := run(t, append(args, "testdata/check/client/driver.yaml")...)
	if code != exitOK || stderr != "" || fromDriver != fromK6 {
		t.Errorf("driver.yaml: exit %d, stderr %q\n%s\nwant the report of k6.csv:\n%s", code, stderr, fromDriver, fromK6)
	}
}

// A driver's log or its sources file that cannot be read: exit 2 and the
// file, line and field.
func TestCheckDriverLogBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const good = `{"t":1767225600,"journey":"browse","status":200,"latency_ms":34.8}` + "\n"
	fields := "{time: t, route: journey, status: status, latency: latency_ms, timeout: timed_out}"
	sources := func(name, log, fields string) string {
		return write(name, "sources:\n  driver:\n    file: "+write(log+".jsonl", good+log2[log])+"\n    fields: "+fields+"\n")
	}
	cases := []struct{ file, want string }{
		{sources("missing.yaml", "missing", fields), dir + `/missing.jsonl:2: no field latency_ms (the request's latency)`},
		{sources("word.yaml", "word", fields), dir + `/word.jsonl:2: latency_ms: "fast" is not a number or a duration such as 812ms`},
		{sources("unit.yaml", "unit", fields), dir + `/unit.jsonl:2: latency_ms: "812xs" has an unknown unit "xs" (want ns, us, ms, s, m or h)`},
		{write("bare.yaml", "sources:\n  driver:\n    file: "+write("bare.jsonl", log2["bare"])+"\n    fields: {time: t, route: journey, status: status, latency: took}\n"),
			dir + `/bare.jsonl:1: took: 812 is a number without a unit: give unit: under fields: (ms, s, ...)`},
		{sources("flag.yaml", "flag", fields), dir + `/flag.jsonl:2: timed_out: "maybe" is not true or false`},
		{sources("nostatus.yaml", "nostatus", fields),
			dir + `/nostatus.jsonl:2: no status in field status: a request without a response counts as failed only when told (its timed_out field must say it failed)`},
		{sources("badstatus.yaml", "badstatus", fields), dir + `/badstatus.jsonl:2: status: status "OK" is not an HTTP status (a whole number)`},
		{sources("time.yaml", "time", fields), dir + `/time.jsonl:2: t: timestamp "yesterday" is in no known format`},
		{sources("parsec.yaml", "missing", "{time: t, route: journey, status: status, latency: latency_ms, unit: parsec}"),
			dir + `/parsec.yaml:4:82: source driver: fields: unit: unknown unit "parsec" (want ns, us, ms, s, m or h)`},
		{sources("nolatency.yaml", "missing", "{time: t, route: journey, status: status}"),
			dir + `/nolatency.yaml:4:13: source driver: fields: no latency: (the field holding the request's latency)`},
		{sources("typo.yaml", "missing", "{time: t, route: journey, status: status, latency: latency_ms, timout: x}"),
			dir + `/typo.yaml:4:76: source driver: fields: unknown key "timout" (want time, route, status, latency, unit, timeout, error)`},
		{write("measured.yaml", "sources:\n  driver: {file: x.jsonl, fields: "+fields+"}\nmeasured:\n  x: {from: driver, expr: latency_ms}\n"),
			dir + `/measured.yaml:3:1: measured: a check reads the logs under sources: only (measured: and figures: are calibrate's)`},
		{write("resolution.yaml", "sources:\n  driver: {file: x.jsonl, resolution: 1ms, fields: "+fields+"}\n"),
			dir + `/resolution.yaml:2:27: source driver: resolution: a check takes it from --resolution`},
	}
	for _, c := range cases {
		code, stdout, stderr := run(t, "check", shop, "--access", c.file)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != exitUsage || first != "capsim: "+c.want || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q\nstderr %q\nwant   %q", filepath.Base(c.file), code, stdout, first, "capsim: "+c.want)
		}
	}
	// calibrate's plans name their fields in expr: and where:.
	plan := write("plan.yaml", "sources:\n  driver: {file: x.jsonl, fields: "+fields+"}\nmeasured:\n  x: {from: driver, expr: latency_ms}\n")
	code, _, stderr := run(t, "calibrate", plan)
	if want := "capsim: " + plan + ":2:27: source driver: fields: names a client log's parts for capsim check; here expr: and where: name the fields they read\n"; code != exitUsage || stderr != want {
		t.Errorf("calibrate with fields: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// log2 holds the second line of each bad driver log of
// TestCheckDriverLogBadInput, after a good one.
var log2 = map[string]string{
	"missing":   `{"t":1767225601,"journey":"browse","status":200}`,
	"word":      `{"t":1767225601,"journey":"browse","status":200,"latency_ms":"fast"}`,
	"unit":      `{"t":1767225601,"journey":"browse","status":200,"latency_ms":"812xs"}`,
	"bare":      `{"t":1767225601,"journey":"browse","status":200,"took":812}`,
	"flag":      `{"t":1767225601,"journey":"browse","status":200,"latency_ms":81,"timed_out":"maybe"}`,
	"nostatus":  `{"t":1767225601,"journey":"browse","latency_ms":81}`,
	"badstatus": `{"t":1767225601,"journey":"browse","status":"OK","latency_ms":81}`,
	"time":      `{"t":"yesterday","journey":"browse","status":200,"latency_ms":81}`,
}

// A request is one route's: --route patterns that both select requests are
// refused, in an access log and in a driver's own log, with the two routes
// and how many requests they share. Before, those requests counted in both
// routes' times, and as many requests of no route went unreported.
func TestCheckRefusesRoutesThatShareRequests(t *testing.T) {
	dir := t.TempDir()
	nginx, _, app := recordShop(t, dir, 101, "duration=60s")
	args := []string{"check", shop, "-r", "1", "--set", "duration=60s", "--route", "browse=~.", "--access"}
	for _, tc := range []struct{ file, want string }{
		{nginx, "capsim: routes browse (~.) and order (/order) both select 69 requests of " + nginx +
			"; a request is one route's: give --route patterns that no request matches twice"},
		{"testdata/check/client/k6.csv", "capsim: routes browse (~.) and order (/order) both select 69 requests of " +
			"testdata/check/client/k6.csv; a request is one route's: give --route patterns that no request matches twice"},
		{"testdata/check/client/driver.yaml", "capsim: routes browse (~.) and order (/order) both select 69 requests of " +
			"testdata/check/client/driver.jsonl; a request is one route's: give --route patterns that no request matches twice"},
	} {
		code, stdout, stderr := run(t, append(args, tc.file, "--app", app)...)
		if code != exitUsage || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%s: exit %d, stderr\n%s\nwant exit %d and\n%s\nstdout:\n%s", tc.file, code, stderr, exitUsage, tc.want, stdout)
		}
	}
	// Disjoint patterns are taken, as they were.
	code, _, stderr := run(t, "check", shop, "-r", "1", "--set", "duration=60s", "--route", "browse=/brow*", "--access", nginx, "--app", app)
	if code == exitUsage {
		t.Errorf("disjoint patterns: exit %d, stderr %s", code, stderr)
	}
}
