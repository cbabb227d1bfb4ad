package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An overload the drain hid reaches the sweep: M/M/1 at ρ = 1.2 (1.5x)
// queues all run, and the default drain lets the backlog end, so every
// journey succeeds and only the latency SLO breaks. Each such run has an
// overloaded_count of 1 in runs.csv, summary.csv gives the share of runs,
// and the design's table and the report name the multiplier. At ρ = 1
// (1.25x) the backlog is a random walk's, there in 4 runs of 5; at ρ = 0.4
// (0.5x) it is never there, and its cell reads 0 once another cell of the
// design had it.
func TestSweepNamesAnOverloadTheDrainHid(t *testing.T) {
	dir := t.TempDir()
	out, jsonFile := filepath.Join(dir, "out"), filepath.Join(dir, "sweep.json")
	stdout := sweepMM1(t, out, "0.5,1.25,1.5", "--json", jsonFile)
	wantRows := []string{
		"mm1,base,0.5,overloaded_count,run,,overloaded_count,,5,,0,0,0",
		"mm1,base,1.25,overloaded_count,run,,overloaded_count,,5,,0.8,0.244710979,1",
		"mm1,base,1.5,overloaded_count,run,,overloaded_count,,5,,1,1,1",
	}
	if got := linesWith(t, filepath.Join(out, "summary.csv"), ",overloaded_count,"); strings.Join(got, "\n") != strings.Join(wantRows, "\n") {
		t.Errorf("summary.csv's overloaded_count rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantRows, "\n"))
	}
	// runs.csv: a row only for the runs where it fired, 4 at 1.25x and 5
	// at 1.5x, each with the value 1.
	runs := linesWith(t, filepath.Join(out, "runs.csv"), ",overloaded_count,")
	var at125, at15 int
	for _, r := range runs {
		switch {
		case !strings.HasSuffix(r, ",overloaded_count,run,,overloaded_count,,1"):
			t.Errorf("runs.csv row %q", r)
		case strings.HasPrefix(r, "mm1,base,1.25,"):
			at125++
		case strings.HasPrefix(r, "mm1,base,1.5,"):
			at15++
		default:
			t.Errorf("runs.csv row %q: no run at 0.5x is overloaded", r)
		}
	}
	if at125 != 4 || at15 != 5 {
		t.Errorf("runs.csv: %d overloaded runs at 1.25x and %d at 1.5x, want 4 and 5", at125, at15)
	}
	want := "(journeys per run left out to fit 100 columns; --wide shows them)\n" +
		"overload hidden by the drain: 1.25x (4 of 5 runs), 1.5x (5 of 5 runs) — journeys that drained count\n" +
		"  as succeeded or failed; --set drain=0s counts them as unfinished\n\nfirst failure:"
	if !strings.Contains(stdout, want) {
		t.Errorf("the design's table is not followed by\n%s\nstdout:\n%s", want, stdout)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"\n\nOverload hidden by the drain: base at 1.25x (4 of 5 runs), 1.5x (5 of 5 runs). In those runs a component " +
			"was at capacity, and the backlog still in flight when the arrivals stopped ended in the drain: journeys that " +
			"drained count as succeeded or failed; `--set drain=0s` counts them as unfinished. The verdicts are the SLOs' " +
			"on the runs as they are, drained journeys included.\n",
		"\nOverload hidden by the drain: 1.25x (4 of 5 runs), 1.5x (5 of 5 runs) — journeys that drained count as " +
			"succeeded or failed; `--set drain=0s` counts them as unfinished.\n",
	} {
		if !strings.Contains(string(report), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}

	// The note is a report: the verdicts and the first failure are the
	// latency SLO's, as without it.
	if !strings.Contains(stdout, "  base  1.25x (CI 0.5–1.25): customer mean <= 10s\n") {
		t.Errorf("first failure moved:\n%s", stdout)
	}

	// --json carries the count too, cell by cell of the grid, and leaves
	// it out where no run was overloaded.
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Designs []struct {
			Cells []struct {
				Multiplier     float64         `json:"multiplier"`
				RunsOverloaded json.RawMessage `json:"runs_overloaded"`
			} `json:"cells"`
		} `json:"designs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Designs) != 1 {
		t.Fatalf("--json: %v, %d designs", err, len(doc.Designs))
	}
	var got []string
	for _, c := range doc.Designs[0].Cells {
		got = append(got, fmt.Sprintf("%gx:%s", c.Multiplier, c.RunsOverloaded))
	}
	if want := "0.5x: 1.25x:4 1.5x:5"; strings.Join(got, " ") != want {
		t.Errorf("cells' runs_overloaded: %s; want %s", strings.Join(got, " "), want)
	}
}

// sweepMM1 sweeps mm1 shortened to 2000 s at multipliers, 5 replications
// and no refinement, into out, and returns what it printed.
func sweepMM1(t *testing.T, out, multipliers string, extra ...string) string {
	t.Helper()
	args := append([]string{"sweep", "mm1", "--set", "duration=2000s", "--set", "warmup=100s",
		"--multipliers", multipliers, "--replications", "5", "--refine", "0", "--quiet", "--out", out}, extra...)
	code, stdout, stderr := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return stdout
}

// Where no run is overloaded, no output mentions it: no row in the CSVs,
// no line under the table, no sentence in the report.
func TestSweepWithoutOverloadSaysNothingOfIt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	stdout := sweepMM1(t, out, "0.5,0.75")
	if strings.Contains(stdout, "overload") {
		t.Errorf("stdout names an overload:\n%s", stdout)
	}
	for _, name := range []string{"runs.csv", "summary.csv", "report.md", "report.html"} {
		if got := linesWith(t, filepath.Join(out, name), "verload"); len(got) > 0 {
			t.Errorf("%s: %q", name, got)
		}
	}
}

// linesWith returns the lines of the file at path that contain s.
func linesWith(t *testing.T, path, s string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// At a load too low for any journey to start in the run, an SLO on the
// journey measures nothing: run says so and --fail-on-slo does not fail,
// and a sweep does not call the design failing there (it said "already
// fails at 1e-12x"), but names the SLO under the table.
func TestSLOsOfNoTrafficMeasureNothing(t *testing.T) {
	code, stdout, stderr := run(t, "run", "mm1", "-m", "1e-12", "--fail-on-slo")
	want := "  n/a  customer mean <= 10s (nothing to measure: no customer journey started in the run)\n"
	if code != exitOK || !strings.Contains(stdout, want) {
		t.Errorf("run: exit %d, want %q in\n%s%s", code, want, stdout, stderr)
	}
	stdout = sweepMM1(t, filepath.Join(t.TempDir(), "out"), "1e-12,0.5")
	for _, want := range []string{"measured nothing, as no run saw traffic for it: customer mean <= 10s at 1e-12x\n",
		"  base  no SLO broken up to 0.5x\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("sweep: want %q in\n%s", want, stdout)
		}
	}
}
