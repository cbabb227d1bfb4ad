package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"capsim/model"
)

// capsim run --trace on the trip scenario writes the events the seed-000
// report joined in Logs Insights (FIGURES 000-08), each carrying the ids a
// reader joins them by: request_id (32 hex digits, as nginx's $request_id),
// the trip (journey) id and, for the AI events, job_id; and the outcome of
// each trip as capsim.journey_end, never under a name the system logs.
func TestTripTraceHasTheReportsEvents(t *testing.T) {
	path := runWritingFile(t, "trace.jsonl", "run", "trip", "--set", "duration=20m", "--trace")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The ids each event must carry, by event name.
	want := map[string]struct{ request, job bool }{
		"photo_originals_saved": {request: true},
		"worker_ready":          {request: true, job: true},
		"ai_worker_execution":   {request: true, job: true},
		"ai_pipeline_step":      {request: true, job: true},
		"ai_callback":           {request: true, job: true},
		model.EvJourneyEnd:      {request: true, job: true},
		"trip_view":             {request: true},
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		name, _ := e["event"].(string)
		if name == model.EvJourneyEnd {
			if e["journey"] != "trip_creation" {
				continue
			}
			if _, ok := e["attributes"].(map[string]any)["photos"]; !ok {
				t.Errorf("line %d: a trip's end without its photos attribute: %s", line, sc.Text())
			}
		}
		ids, ok := want[name]
		if !ok {
			continue
		}
		seen[name]++
		has := func(key string) bool { v, ok := e[key].(float64); return ok && v > 0 }
		req, _ := e["request_id"].(string)
		if !has("journey_id") || ids.request && !hex32.MatchString(req) || ids.job && !has("job_id") {
			t.Errorf("line %d: %s without the ids it needs (journey_id, request_id%s): %s", line, name,
				map[bool]string{true: ", job_id"}[ids.job], sc.Text())
		}
		if name == model.EvJourneyEnd && e["result"] != "success" {
			t.Errorf("line %d: trip_creation %v at the peak rate, want success: %s", line, e["result"], sc.Text())
		}
		// A log: event is timed from the one before it in its request or
		// job; the first AI event of a trip waited for a cold worker.
		if name != model.EvJourneyEnd {
			if _, ok := e["since_s"].(float64); !ok || e["since"] == nil {
				t.Errorf("line %d: %s without since and since_s: %s", line, name, sc.Text())
			}
		}
		if name == "worker_ready" && (e["since"] != model.EvJobStart || e["start"] != "cold" || e["component"] != "ai_worker") {
			t.Errorf("line %d: worker_ready not timed from the job's start on a cold ai_worker: %s", line, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// 20 minutes at the peak: trips start at 0 and 15 min, and a trip has
	// 15 batches, one AI job with two pipeline steps.
	for name, n := range map[string]int{"photo_originals_saved": 30, "worker_ready": 2, "ai_worker_execution": 2,
		"ai_pipeline_step": 4, "ai_callback": 2, model.EvJourneyEnd: 2} {
		if seen[name] != n {
			t.Errorf("%d %s events, want %d", seen[name], name, n)
		}
	}
	if seen["trip_view"] == 0 {
		t.Errorf("no trip_view events in 20 minutes of view sessions")
	}
}

// A trace written with --trace-origin is an application log calibrate
// reads: the photo_originals_saved events' since_s (the nginx overhead and
// the S3 save, 000-29 and 000-30) fit back to their mean of about 0.62 s.
func TestTraceCalibratesBack(t *testing.T) {
	path := runWritingFile(t, "trace.jsonl", "run", "trip", "--set", "duration=20m", "--trace-origin", "2026-01-01T00:00:00Z", "--trace")
	code, stdout, stderr := run(t, "calibrate", path, "--from-event", "photo_originals_saved", "--column", "since_s")
	if code != exitOK {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	// Without --out, the account of the reading and the fits go to standard error.
	// Compare as words: the account may be wrapped to the terminal's width.
	if words := strings.Join(strings.Fields(stderr), " "); !strings.Contains(words, "30 records of field since_s of photo_originals_saved events: 30 used") {
		t.Errorf("calibrate did not read the 30 events of the trace:\n%s", stderr)
	}
	if !strings.Contains(stderr, "normal       mean=0.6") || stdout != "" {
		t.Errorf("the fit's mean is not about 0.62 s:\n%s", stderr)
	}
}

// A trace's times keep four-digit years, as RFC 3339 writes them: an
// origin from which the scenario's end, or the run's last event (a job
// that outlives the arrivals), would pass the end of year 9999 is refused,
// naming the latest origin that fits, and the trace is not written.
func TestTraceOriginKeepsFourDigitYears(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	src := "name: long\nduration: 1s\narrivals: even\ncomponents:\n  desk: {kind: pool, servers: 1}\n" +
		"journeys:\n  j: {rate: 1/s, steps: [{use: desk, work: 10s}]}\n"
	if err := os.WriteFile("long.yaml", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const past = ", past 9999-12-31T23:59:59.999999999Z, the last time RFC 3339 can write; give an origin of "
	for _, c := range []struct{ origin, want string }{
		{"9999-12-31T23:59:59.5Z", "the scenario's end is 1s after it" + past + "9999-12-31T23:59:58.999999999Z or earlier"},
		{"9999-12-31T23:59:55Z", "the run's last event is 10s after it" + past + "9999-12-31T23:59:49.999999999Z or earlier"},
		{"9999-12-31T23:59:55+01:00", "the run's last event is 10s after it" +
			", past 9999-12-31T23:59:59.999999999+01:00, the last time RFC 3339 can write; give an origin of 9999-12-31T23:59:49.999999999+01:00 or earlier"},
	} {
		code, stdout, stderr := run(t, "run", "long.yaml", "--trace", "t.jsonl", "--trace-origin", c.origin)
		if want := "capsim: --trace-origin " + c.origin + ": " + c.want + "\n"; code != exitUsage || stderr != want || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q", c.origin, code, stdout, stderr, exitUsage, want)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 1 {
		t.Errorf("a refused run left files: %v", entries)
	}
	for _, origin := range []string{"9999-12-31T23:59:49.999999999Z", "9999-12-31T18:59:49-05:00"} {
		if code, _, stderr := run(t, "run", "long.yaml", "--trace", "t.jsonl", "--trace-origin", origin); code != exitOK {
			t.Fatalf("%s: exit %d: %s", origin, code, stderr)
		}
		data, err := os.ReadFile("t.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e struct{ Time string }
			if err := json.Unmarshal([]byte(line), &e); err != nil || !strings.HasPrefix(e.Time, "9999-12-31T") {
				t.Errorf("%s: a line's time is not in year 9999: %q (%v)", origin, line, err)
			}
		}
	}
}
