package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's first command: `capsim sweep` with no arguments sweeps the
// embedded trip scenario into ./capsim-out, and finds the first failures
// the README's "What the model says" table states.
func TestMainJobOutOfTheBox(t *testing.T) {
	notInShort(t, "the full default sweep")
	t.Chdir(t.TempDir())
	code, stdout, stderr := run(t, "sweep")
	// stderr, no terminal here, holds the progress as plain lines.
	// The sweep's progress, then the hindcast's beside it.
	if code != 0 || !strings.Contains(stderr, "\nsweep trip: grid 200/200 · refine round 2 of 2: 242/242 runs (100%)\n") ||
		!strings.HasSuffix(stderr, "\nhindcast trip: 100/100 runs (100%)\n") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, f := range []string{"runs.csv", "summary.csv", "compare.csv", "first_failure.csv", "manifest.json", "report.md", "report.html", "charts/success_trip_creation.svg"} {
		if _, err := os.Stat(filepath.Join("capsim-out", f)); err != nil {
			t.Errorf("capsim-out/%s: %v", f, err)
		}
	}
	ff, err := os.ReadFile(filepath.Join("capsim-out", "first_failure.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"trip,v1-original,failed,1.8125,0,1.875,trip_creation success_rate >= 0.99,trip_creation,journey_success_rate,>=,0.99,derivative_executor,derivative_create,false,true,",
		"trip,v1-improved,failed,3.3125,0,3.5625,trip_creation success_rate >= 0.99,trip_creation,journey_success_rate,>=,0.99,heic_intake,derivative_create,false,true,",
		"trip,queue-wait,failed,4.375,",
		"trip,direct-upload,failed,4.25,0,4.4375,",
		"trip,lock-fix,failed,3.3125,",
		"trip,warm-worker,failed,3.3125,",
		"trip,two-workers,failed,3.3125,",
		"trip,async-ai,failed,3.3125,",
	} {
		if !strings.Contains(string(ff), want) {
			t.Errorf("first_failure.csv lacks %q:\n%s", want, ff)
		}
	}
	if !strings.Contains(stdout, "first failure:") || !strings.Contains(stdout, "hindcast (10 replications per observation): the model agrees with") {
		t.Errorf("stdout lacks the first-failure lines:\n%s", stdout)
	}
}
