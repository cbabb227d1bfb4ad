package main

import (
	"os"
	"path/filepath"
	"testing"

	"capsim/model"
	"capsim/scenarios"
)

// slowTests says whether the end-to-end checks that take tens of seconds
// run: .ci/run sets CAPSIM_SLOW_TESTS=1, so CI always runs them, while a
// contributor's `go test ./...` stays quick.
func slowTests(t *testing.T) {
	t.Helper()
	if os.Getenv("CAPSIM_SLOW_TESTS") != "1" {
		t.Skip("end-to-end: set CAPSIM_SLOW_TESTS=1 (as .ci/run does) to run it")
	}
}

// notInShort skips the test under go test -short, saying why: what it
// does that a quick run leaves out.
func notInShort(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
}

// Every embedded scenario runs under each of its designs, and sweeps with
// its own defaults (charts and report included) at a small -r: two of
// them once failed to draw their report, and nothing ran them whole.
func TestEveryEmbeddedScenarioRunsAndSweeps(t *testing.T) {
	slowTests(t)
	for _, name := range scenarios.List() {
		l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		designs := []string{""}
		for _, d := range l.Scenario.Designs.Items {
			designs = append(designs, d.Name)
		}
		for _, d := range designs {
			args := []string{"run", name}
			if d != "" {
				args = append(args, "--design", d)
			}
			if code, _, stderr := sweepCLI(t, false, args...); code != 0 {
				t.Errorf("capsim %v: exit %d\n%s", args, code, stderr)
			}
		}
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := sweepCLI(t, false, "sweep", name, "-r", "1", "--out", out)
		if code != 0 {
			t.Errorf("capsim sweep %s -r 1: exit %d\n%s", name, code, stderr)
			continue
		}
		for _, f := range []string{"runs.csv", "summary.csv", "first_failure.csv", "report.md", "report.html"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("capsim sweep %s: %s missing or empty (%v)", name, f, err)
			}
		}
	}
}
