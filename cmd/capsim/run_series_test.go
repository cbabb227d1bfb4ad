package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"capsim/cmd/golden"
)

// A tiny deterministic run's series, byte for byte: one desk, a job every
// 250 ms of 300 ms work for a second, sampled every millisecond.
func TestRunSeriesGolden(t *testing.T) {
	dir := t.TempDir()
	scenario, out := filepath.Join(dir, "desk.yaml"), filepath.Join(dir, "series.csv")
	src := `name: desk
duration: 500ms
arrivals: even
components:
  desk: {kind: pool, servers: 1}
journeys:
  j: {rate: 4/s, steps: [{use: desk, work: 300ms}]}
`
	if err := os.WriteFile(scenario, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "run", scenario, "--series", out); code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("run_series_desk.csv"), data)
}

// The series is the run's own data: over an M/M/1 run ending on a sample
// (no warmup, drain: 0s), the server's busy-seconds at the last sample over
// the run's length is the utilisation the run reports, to the last bit:
// the CSV writes every float in full.
func TestRunSeriesBusyTimeIsTheUtilisation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "series.csv")
	code, stdout, stderr := run(t, "run", "mm1", "--json", "--series", out,
		"--set", "duration=5000s", "--set", "warmup=0s", "--set", "drain=0s")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var res struct {
		Components []struct {
			Name        string
			Utilisation float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	rows := readCSVRows(t, out)
	var last, end float64
	samples := 0
	for _, r := range rows[1:] {
		if r[1] == "component" && r[2] == "server" && r[3] == "busy_s" {
			samples++
			end, _ = strconv.ParseFloat(r[0], 64)
			last, _ = strconv.ParseFloat(r[4], 64)
		}
	}
	if samples != 501 || end != 5000 {
		t.Fatalf("%d busy_s samples ending at %gs, want 501 ending at 5000s", samples, end)
	}
	if len(res.Components) != 1 || res.Components[0].Name != "server" {
		t.Fatalf("components %+v, want server alone", res.Components)
	}
	if u := res.Components[0].Utilisation; !(u > 0.5) || last/end != u {
		t.Errorf("busy_s %g over %gs = %.12g, want the reported utilisation %.12g", last, end, last/end, u)
	}
}

// A series is refused where it would replace the scenario or the trace.
func TestRunSeriesRefusesItsInputs(t *testing.T) {
	scenario := filepath.Join(t.TempDir(), "desk.yaml")
	src := "name: desk\nduration: 1s\ncomponents:\n  desk: {kind: pool, servers: 1}\n" +
		"journeys:\n  j: {rate: 1/s, steps: [{use: desk, work: 1ms}]}\n"
	if err := os.WriteFile(scenario, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "run", scenario, "--series", scenario)
	if want := "capsim: --series " + scenario + ": it is " + scenario + ", an input of this command; name another file\n"; code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, exitUsage, want)
	}
	trace := filepath.Join(filepath.Dir(scenario), "out")
	code, _, stderr = run(t, "run", scenario, "--series", trace, "--trace", trace)
	if want := "capsim: --series " + trace + ": it is the --trace file too; name another file\n"; code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, exitUsage, want)
	}
	after, err := os.ReadFile(scenario)
	if err != nil || string(after) != src {
		t.Errorf("the scenario was changed: %q, %v", after, err)
	}
}

// Outputs are one file however they are spelled: another path to the
// same file, or a symlink to it, is refused before anything is written.
func TestRunOutputsSpelledApartAreOneFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	trace := "tr.jsonl"
	if err := os.WriteFile(trace, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(trace, "link.jsonl"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want string }{
		{"--trace tr.jsonl --series ./tr.jsonl", "--series ./tr.jsonl: it is the --trace file too"},
		{"--trace tr.jsonl --graph ./tr.jsonl", "--graph ./tr.jsonl: it is the --trace file too"},
		{"--trace tr.jsonl --graph link.jsonl", "--graph link.jsonl: it is the --trace file too"},
		{"--series new.csv --graph " + filepath.Join(dir, "new.csv"), "--graph " + filepath.Join(dir, "new.csv") + ": it is the --series file too"},
		{"--trace sub/../t.jsonl --series t.jsonl", "--series t.jsonl: it is the --trace file too"},
	} {
		code, _, stderr := run(t, append([]string{"run", "mmc"}, strings.Fields(c.args)...)...)
		if want := "capsim: " + c.want + "; name another file\n"; code != exitUsage || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.args, code, stderr, exitUsage, want)
		}
	}
	if got, err := os.ReadFile(trace); err != nil || string(got) != "kept\n" {
		t.Errorf("the trace file was written: %q, %v", got, err)
	}
	for _, name := range []string{"new.csv", "t.jsonl"} {
		if _, err := os.Stat(name); err == nil {
			t.Errorf("%s was written", name)
		}
	}
}
