package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"capsim/model/sweep"
	"capsim/scenarios"
)

// sweepCLI runs capsim in-process and returns its exit code and streams.
func sweepCLI(t *testing.T, terminal bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWith(t, IOStreams{ErrIsTerminal: terminal}, args...)
}

// A short M/M/4/6 sweep: its SLO (success_rate >= 0.9) breaks near 0.62x.
var shortMMcK = []string{"sweep", "mmck", "--set", "duration=1500s", "--set", "warmup=100s",
	"--multipliers", "0.5,0.75,1", "--replications", "3", "--refine", "2"}

const designsScenario = `name: two
duration: 600s
components:
  app: {kind: pool, servers: 2, queue: 4}
journeys:
  visit:
    rate: 1/s
    steps: [{use: app, work: exponential(mean=1s)}]
designs:
  small: {}
  large: {components: {app: {servers: 4}}}
`

func TestSweepFlagErrors(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "two.yaml")
	if err := os.WriteFile(scenario, []byte(designsScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	badDefaults := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badDefaults, []byte(designsScenario+"sweep: {multipliers: \"5:1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"mmck", "--multipliers", "3:1"},
			"--multipliers 3:1: the end 1 is below the start 3; write start:end:step with start <= end, e.g. 1:3:0.5"},
		{[]string{"mmck", "--multipliers", "1:4:0"}, "--multipliers 1:4:0: the step must be > 0, got 0"},
		{[]string{"mmck", "--replications", "0"}, "--replications must be between 1 and 10000, got 0"},
		{[]string{"mmck", "--workers", "0"}, "--workers must be between 1 and 4096, got 0"},
		{[]string{"mmck", "--refine", "-1"}, "--refine must be between 0 and 50, got -1"},
		{[]string{"mmck", "--section", "0"}, "--section must be between 1 and 64, got 0"},
		{[]string{"mmck", "--round", "1"}, "--round goes with --shard: a round is split into shards"},
		{[]string{scenario, "--designs", "small,nope"}, `--designs: unknown design "nope" (available: base, small, large)`},
		{[]string{scenario, "--designs", "small,small"}, `--designs: design "small" is listed twice`},
		{[]string{"mmck", "--designs", "v2"}, `--designs: unknown design "v2" (available: base)`},
		{[]string{badDefaults}, badDefaults + ":12:22: sweep.multipliers: the end 1 is below the start 5; write start:end:step with start <= end, e.g. 1:5:0.5"},
		{[]string{"mmck", "--replications", "x"}, `--replications must be a whole number, got "x" (see capsim sweep --help)`},
	}
	for _, c := range cases {
		args := append([]string{"sweep", "--out", out}, c.args...)
		code, stdout, stderr := sweepCLI(t, false, args...)
		if code != exitUsage || stderr != "capsim: "+c.want+"\n" || stdout != "" {
			t.Errorf("%v: exit %d\nstderr %q\nwant   %q", c.args, code, stderr, "capsim: "+c.want+"\n")
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused sweep created its output folder: %v", err)
	}
}

// readTree returns every file under dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The whole output folder, charts included, and stdout are the same bytes
// whatever the number of workers; nothing else is left in the folder.
func TestSweepOutputDoesNotDependOnWorkers(t *testing.T) {
	dirs := []string{filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")}
	var stdouts []string
	for i, workers := range []string{"1", "2"} {
		code, stdout, stderr := sweepCLI(t, false, append(shortMMcK, "--workers", workers, "--quiet", "--out", dirs[i])...)
		if code != exitOK || stderr != "" {
			t.Fatalf("--workers %s: exit %d, stderr %q", workers, code, stderr)
		}
		stdouts = append(stdouts, strings.ReplaceAll(stdout, dirs[i], "DIR"))
	}
	if stdouts[0] != stdouts[1] {
		t.Errorf("stdout differs:\n%s\n---\n%s", stdouts[0], stdouts[1])
	}
	one, two := readTree(t, dirs[0]), readTree(t, dirs[1])
	for _, name := range []string{"runs.csv", "summary.csv", "first_failure.csv", "manifest.json", "report.md", "report.html",
		"charts/success_customer.svg", "charts/series_base.svg"} {
		if one[name] == nil {
			t.Errorf("%s is missing", name)
		}
	}
	if one["charts/success_customer.png"] != nil {
		t.Error("charts/success_customer.png written without --png")
	}
	for name, data := range one {
		if strings.Contains(name, ".tmp-") {
			t.Errorf("temporary file %s left behind", name)
		}
		if !bytes.Equal(data, two[name]) {
			t.Errorf("%s differs between 1 and 2 workers", name)
		}
	}
	if len(one) != len(two) {
		t.Errorf("%d files with 1 worker, %d with 2", len(one), len(two))
	}
	if !strings.HasPrefix(string(one["runs.csv"]), "scenario,design,multiplier,replication,seed,metric,kind,name,measure,stage,value\nmmck,base,0.5,0,1,broken_count,run,,broken_count,,0\n") {
		t.Errorf("runs.csv starts:\n%.200s", one["runs.csv"])
	}
	for _, want := range []string{"design base", "0.75x", "customer", "FAIL", "first failure", "customer success_rate >= 0.9; failure_stage service at server"} {
		if !strings.Contains(stdouts[0], want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdouts[0])
		}
	}
}

// --fail-on-slo turns a broken SLO into exit code 3, after the outputs are
// written; a sweep that stays inside its SLOs exits 0.
func TestSweepFailOnSLO(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := sweepCLI(t, false, append(shortMMcK, "--fail-on-slo", "-q", "--out", dir)...)
	if code != exitSLOFailed || !strings.HasPrefix(stderr, "capsim: SLO broken inside the range: base at 0.") ||
		!strings.HasSuffix(stderr, "x (customer success_rate >= 0.9)\n") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "first_failure.csv")); err != nil {
		t.Fatalf("outputs not written before failing: %v", err)
	}
	code, stdout, stderr := sweepCLI(t, false, "sweep", "mmck", "--set", "duration=1500s", "--multipliers", "0.25",
		"--replications", "2", "--fail-on-slo", "--quiet", "--out", t.TempDir())
	if code != exitOK || stderr != "" || !strings.Contains(stdout, "no SLO broken up to 0.25x") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// Progress is drawn on a terminal's stderr and erased at the end.
func TestSweepProgressOnTerminal(t *testing.T) {
	code, _, stderr := sweepCLI(t, true, "sweep", "mmck", "--set", "duration=500s", "--set", "warmup=0s", "--multipliers", "1,2",
		"--replications", "2", "--refine", "0", "--out", t.TempDir())
	if code != exitOK || !strings.Contains(stderr, "\r\x1b[Ksweep mmck: grid 4/4 runs (100%)") || !strings.HasSuffix(stderr, "\r\x1b[K") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// Progress on a stderr that is no terminal (a log file, a pipe, or one
// with TERM=dumb) is plain lines, at most one per tenth of each round;
// --quiet writes none.
func TestSweepProgressPlain(t *testing.T) {
	args := []string{"sweep", "mmck", "--set", "duration=500s", "--set", "warmup=0s", "--multipliers", "1,2",
		"--replications", "2", "--refine", "1", "--section", "1", "--out", t.TempDir()}
	code, _, stderr := sweepCLI(t, false, args...)
	want := `sweep mmck: grid 1/4 runs (25%)
sweep mmck: grid 2/4 runs (50%)
sweep mmck: grid 3/4 runs (75%)
sweep mmck: grid 4/4 runs (100%)
sweep mmck: grid 4/4 · refine round 1 of 1: 1/3 runs (33%)
sweep mmck: grid 4/4 · refine round 1 of 1: 2/3 runs (66%)
sweep mmck: grid 4/4 · refine round 1 of 1: 3/3 runs (100%)
`
	if code != exitOK || stderr != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, stderr, want)
	}
	code, _, stderr = sweepCLI(t, false, append(args, "--quiet")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("--quiet: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = sweepCLI(t, true, append(args, "--quiet")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("--quiet on a terminal: exit %d, stderr %q", code, stderr)
	}
}

// An interrupted sweep writes nothing: no runs.csv, no temporary file.
func TestSweepInterruptedLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	root := newRootCmd(&IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	root.SetArgs(append(shortMMcK, "--out", dir))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := root.ExecuteContext(ctx)
	var ce *codedError
	if !errors.As(err, &ce) || ce.code != exitInterrupt || err.Error() != "sweep interrupted; no output written" {
		t.Fatalf("error %v", err)
	}
	if files := readTree(t, dir); len(files) != 0 {
		t.Fatalf("files left: %v", files)
	}
}

// The manifest hashes the bytes the sweep simulated: the embedded scenario
// and the calibration file it includes.
func TestSweepManifestHashesTheBytesLoaded(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := sweepCLI(t, false, "sweep", "trip", "--designs", "v1-original", "--multipliers", "1",
		"--replications", "1", "--refine", "0", "--set", "duration=60s", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	hash := func(b []byte) string {
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:])
	}
	main, _ := scenarios.Get("trip")
	cal, err := fs.ReadFile(scenarios.FS(), path.Join(path.Dir(scenarios.File("trip")), "trip-calibration.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if m.ScenarioSHA256 != hash(main) {
		t.Errorf("scenario_sha256 %s, want %s", m.ScenarioSHA256, hash(main))
	}
	want := []manifestFile{{File: "trip-calibration.yaml", SHA256: hash(cal)}}
	if !slices.Equal(m.Included, want) {
		t.Errorf("included %+v, want %+v", m.Included, want)
	}
}

// A problem in a file the scenario includes is reported under the path
// typed, joined with the include's name.
func TestIncludedFileErrorNamesThePathTyped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	scenario := "name: inc\nduration: 60s\ninclude: [fit.yaml]\ncomponents:\n  app: {kind: pool, servers: 1}\n" +
		"journeys:\n  visit:\n    rate: 1/s\n    steps: [{use: app, work: service}]\n"
	for name, data := range map[string]string{"s.yaml": scenario, "fit.yaml": "distributions:\n  service: exponential(mean=1s)\n  bogus: [\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := run(t, "validate", filepath.Join(dir, "s.yaml"))
	if code != exitUsage || !strings.Contains(stderr, filepath.Join(dir, "fit.yaml")+":") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// sweep --designs a+b composes designs as run --design a+b does, and names
// the result a+b: its runs are those of a design that states both overlays
// at once, row for row.
func TestSweepComposedDesign(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "two.yaml")
	both := designsScenario + "  busy: {journeys: {visit: {rate: 3/s}}}\n  large-busy: {components: {app: {servers: 4}}, journeys: {visit: {rate: 3/s}}}\n"
	if err := os.WriteFile(scenario, []byte(both), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := sweepCLI(t, false, "sweep", scenario, "--designs", "large+busy,large-busy", "-m", "1,2", "-r", "2", "--refine", "0", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(line, ",")
		rows[f[1]] = append(rows[f[1]], strings.Join(slices.Delete(f, 1, 2), ","))
	}
	if len(rows) != 2 || len(rows["large+busy"]) == 0 || !slices.Equal(rows["large+busy"], rows["large-busy"]) {
		t.Errorf("runs of large+busy differ from large-busy's, or are missing (designs: %v)", slices.Sorted(maps.Keys(rows)))
	}
}

// A workload variant that runs none of a journey's kind leaves that
// journey's panel out of the report instead of failing the sweep: the
// same-account burst has no views.
func TestSweepOfADesignWithoutAJourneysTraffic(t *testing.T) {
	out := t.TempDir() + "/out"
	code, _, stderr := run(t, "sweep", "trip", "--designs", "v1-original,same-account-burst", "-r", "1", "--multipliers", "1", "--refine", "0", "-q", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// With a clock, progress tells the time elapsed and an estimate of the
// time left: the runs left in the phase, and during a refinement round as
// many again for each round still to come, at the mean time per run so
// far. The clock here moves 2s per reading.
func TestSweepProgressElapsedAndLeft(t *testing.T) {
	tick := time.Unix(0, 0)
	now := func() time.Time { tick = tick.Add(2 * time.Second); return tick }
	var out, errOut bytes.Buffer
	io := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Now: now}
	code := Main([]string{"sweep", "mmck", "--set", "duration=500s", "--set", "warmup=0s", "--multipliers", "1,2",
		"--replications", "2", "--refine", "2", "--section", "1", "--out", t.TempDir()}, io)
	want := `sweep mmck: grid 1/4 runs (25%) · 2s elapsed · about 6s left in the grid
sweep mmck: grid 2/4 runs (50%) · 4s elapsed · about 4s left in the grid
sweep mmck: grid 3/4 runs (75%) · 6s elapsed · about 2s left in the grid
sweep mmck: grid 4/4 runs (100%) · 8s elapsed
sweep mmck: grid 4/4 · refine round 1 of 2: 1/2 runs (50%) · 10s elapsed · about 6s left
sweep mmck: grid 4/4 · refine round 1 of 2: 2/2 runs (100%) · 12s elapsed · about 4s left
sweep mmck: grid 4/4 · refine round 2 of 2: 1/3 runs (33%) · 14s elapsed · about 4s left
sweep mmck: grid 4/4 · refine round 2 of 2: 2/3 runs (66%) · 16s elapsed · about 2s left
sweep mmck: grid 4/4 · refine round 2 of 2: 3/3 runs (100%) · 18s elapsed
`
	if code != exitOK || errOut.String() != want {
		t.Fatalf("exit %d, stderr\n%s\nwant\n%s", code, errOut.String(), want)
	}
}

func TestFmtElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 1400 * time.Millisecond: "1s", 65 * time.Second: "1m05s", 2*time.Hour + 3*time.Minute: "2h03m"} {
		if got := fmtElapsed(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// The manifest names the scenario file as it was when the sweep read it:
// by the end of a long sweep the file may be gone (or a file named after
// an embedded scenario made in the folder), and the finished runs must
// still be written. Before, the manifest resolved the argument again and
// the sweep failed after its last run.
func TestSweepManifestNamesTheFileAsRead(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	src, _ := scenarios.Get("mm1")
	if err := os.WriteFile("mine", src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arg, after, want string }{
		{"mine", "rm", `"scenario_file": "mine"`},
		{"mm1", "mm1", `"scenario_file": "mm1.yaml (embedded)"`},
	} {
		opts := &sweepOptions{scenarioFlags: scenarioFlags{Scenario: tc.arg, Seed: 1}, Designs: defaultDesigns,
			Multipliers: "1", Replications: 1, Workers: 1, Section: defaultSection, set: map[string]bool{}}
		plan, err := planSweep(opts)
		if err != nil {
			t.Fatal(err)
		}
		if tc.after == "rm" {
			os.Remove("mine")
		} else if err := os.WriteFile(tc.after, src, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := sweepManifest(&sweep.Result{}, plan, opts)
		if err != nil || !strings.Contains(string(m), tc.want) {
			t.Errorf("%s: err %v, manifest\n%s\nwant %s", tc.arg, err, m, tc.want)
		}
	}
}
