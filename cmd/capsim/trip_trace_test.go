package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// capsim run --trace on the trip scenario writes the events the seed-000
// report joined in Logs Insights (FIGURES 000-08), each carrying the ids a
// reader joins them by: request_id, the trip (journey) id and, for the AI
// events, job_id.
func TestTripTraceHasTheReportsEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	code, _, stderr := run(t, "run", "trip", "--set", "duration=20m", "--trace", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
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
		"trip_creation":         {request: true, job: true},
		"trip_view":             {request: true},
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		name, _ := e["event"].(string)
		ids, ok := want[name]
		if !ok {
			continue
		}
		seen[name]++
		has := func(key string) bool { v, ok := e[key].(float64); return ok && v > 0 }
		if !has("journey_id") || ids.request && !has("request_id") || ids.job && !has("job_id") {
			t.Errorf("line %d: %s without the ids it needs (journey_id, request_id%s): %s", line, name,
				map[bool]string{true: ", job_id"}[ids.job], sc.Text())
		}
		if name == "trip_creation" && e["result"] != "success" {
			t.Errorf("line %d: trip_creation %v at the peak rate, want success: %s", line, e["result"], sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// 20 minutes at the peak: trips start at 0 and 15 min, and a trip has
	// 15 batches, one AI job with two pipeline steps.
	for name, n := range map[string]int{"photo_originals_saved": 30, "worker_ready": 2, "ai_worker_execution": 2,
		"ai_pipeline_step": 4, "ai_callback": 2, "trip_creation": 2} {
		if seen[name] != n {
			t.Errorf("%d %s events, want %d", seen[name], name, n)
		}
	}
	if seen["trip_view"] == 0 {
		t.Errorf("no trip_view events in 20 minutes of view sessions")
	}
}
