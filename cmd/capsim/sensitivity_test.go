package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capsim/cmd/golden"
)

// What the trip scenario's answer may hinge on, with each value's label
// and how it would be perturbed: the listing is derived from the scenario,
// so a parameter added, dropped or relabelled shows up here.
func TestSensitivityListGolden(t *testing.T) {
	code, stdout, stderr := run(t, "sensitivity", "trip", "--list")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.Check(t, goldenFile("sensitivity_trip_list"), []byte(stdout))
}

// A label comment on its own line above a block (distributions:, a
// component, a journey's attributes:, a route) labels every value inside
// it that has no label of its own; a label on the value's line wins, and
// the block beside (app, upload's timeout) is not labelled by it. A named
// distribution written by family with a ranged parameter (thumbnail)
// lists that parameter too, to be moved to the range's ends.
func TestSensitivityListBlockLabels(t *testing.T) {
	code, stdout, stderr := run(t, "sensitivity", "testdata/labels/blocks.yaml", "--list", "--wide")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `base: 13 parameters, perturbed by ±10% (counts by whole steps)
parameter            kind          label       value      perturbed    note
resize               distribution  input       mean 40ms  x0.9 x1.1    000-110, the measured service times
save                 distribution  assumption  mean 20ms  x0.9 x1.1    like the resize
thumbnail            distribution  input       mean 20ms  x0.9 x1.1    000-110, the measured service times
thumbnail.mean       time          assumption  0.02s      0.01s 0.03s  not measured
app_cpu.cores        number        assumption  4          x0.9 x1.1    the host's size, not measured
app_cpu.switch_cost  number        fitted      0.02       x0.9 x1.1    to the 3x run
app.servers          count         -           8          7 9
app.queue            count         -           4          3 5
upload.photos        count         input       10         9 11         000-02
upload.share         number        input       0.5        x0.9 x1.1    000-02
upload.timeout       time          -           5s         x0.9 x1.1
store.work           time          fitted      5ms        x0.9 x1.1    from the access log
store.delay          time          input       30ms       x0.9 x1.1    000-12
`
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}
}

func TestSensitivityRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--params", "heic_converter.server"},
			`capsim: --params: unknown parameter "heic_converter.server" (capsim sensitivity --list shows them); did you mean "heic_converter.servers"?`},
		{[]string{"--params", "no_such_thing"},
			`capsim: --params: unknown parameter "no_such_thing" (capsim sensitivity --list shows them)`},
		{[]string{"--params", "app.servers,,app.queue"},
			`capsim: --params: expected parameter names separated by commas, or all, got "app.servers,,app.queue"`},
		{[]string{"--params", "app.servers,components.app.servers"},
			``},
		{[]string{"--params", "app.servers,app.servers"},
			`capsim: --params: parameter "app.servers" is listed twice`},
		{[]string{"--design", "v1-original", "--design", "v1-improved", "--params", "heic_converter.servers"},
			`capsim: --params: design v1-original: unknown parameter "heic_converter.servers" (capsim sensitivity --list shows them)`},
		{[]string{"--design", "v9"},
			`capsim: trip.yaml: unknown design "v9" (available: v1-original, v1-improved, queue-wait, async-ai, direct-upload, lock-fix, warm-worker, two-workers, single-trip, paired-trips, same-account-burst, mixed-load, views-only, mixed-sizes, view-spike, read-path)`},
		{[]string{"--delta", "0"},
			`capsim: --delta must be a fraction in (0, 1) or a percentage in (0%, 100%), such as 10% or 0.1, got "0"`},
		{[]string{"--delta", "150%"},
			`capsim: --delta must be a fraction in (0, 1) or a percentage in (0%, 100%), such as 10% or 0.1, got "150%"`},
		// 1 ± 1e-17 is 1: the perturbations would all be the base, and
		// collide as designs given twice (once exit 1, from the sweep).
		{[]string{"--delta", "1e-17"},
			`capsim: --delta 1e-17 moves no value: 1 + 1e-17 is 1 in floating point`},
		{[]string{"--delta", "1e-14%"},
			`capsim: --delta 1e-14% moves no value: 1 + 1e-16 is 1 in floating point`},
	} {
		args := append([]string{"sensitivity", "trip", "--list"}, tc.args...)
		code, _, stderr := run(t, args...)
		if tc.want == "" {
			// A name and a path naming the same parameter list it once.
			if code != 0 {
				t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			}
			continue
		}
		if code != exitUsage || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%v: exit %d\n got %s\nwant %s", tc.args, code, strings.TrimSpace(stderr), tc.want)
		}
	}
}

// The whole output folder and stdout are the same bytes for one worker
// and for several.
func TestSensitivityBytesDoNotDependOnWorkers(t *testing.T) {
	outputs := map[string]map[string][]byte{}
	for _, w := range []string{"1", "3"} {
		dir := t.TempDir()
		code, stdout, stderr := run(t, "sensitivity", "mmck", "--set", "duration=1500s", "--set", "warmup=100s",
			"--multipliers", "0.5,0.75,1", "-r", "2", "--refine", "2", "--params", "customer.work,server.servers",
			"--workers", w, "--out", dir)
		if code != 0 {
			t.Fatalf("workers %s: exit %d: %s", w, code, stderr)
		}
		files := map[string][]byte{"stdout": []byte(strings.ReplaceAll(stdout, dir, "OUT"))}
		for _, name := range []string{"sensitivity.csv", "charts/tornado-base.svg", "charts/tornado-base.png"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = data
		}
		outputs[w] = files
	}
	for name, data := range outputs["1"] {
		if !bytes.Equal(data, outputs["3"][name]) {
			t.Errorf("%s differs between 1 and 3 workers", name)
		}
	}
}

// The sensitivity excerpt in docs/modelling.md is what capsim prints.
func TestDocSensitivityIsWhatCapsimPrints(t *testing.T) {
	block := docBlock(t, "docs/modelling.md", "## Sensitivity", "")
	cmdLine, want, _ := strings.Cut(block, "\n")
	args, ok := strings.CutPrefix(cmdLine, "$ capsim ")
	if !ok {
		t.Fatalf("the block starts with %q", cmdLine)
	}
	argv := append(strings.Fields(args), "--out", t.TempDir())
	code, got, stderr := run(t, argv...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got = got[:strings.LastIndex(got, "\nwrote ")+1]
	if got != want {
		t.Errorf("docs/modelling.md shows:\n%s\ncapsim prints:\n%s", want, got)
	}
}

// sensitivity reports its progress as sweep does, under its own name, and
// --quiet silences it.
func TestSensitivityProgress(t *testing.T) {
	args := []string{"sensitivity", "mmck", "--params", "server.servers", "-r", "1", "--multipliers", "0.5,1", "--refine", "0", "--out", t.TempDir()}
	code, _, stderr := run(t, args...)
	want := `sensitivity mmck: grid 1/6 runs (16%)
sensitivity mmck: grid 2/6 runs (33%)
sensitivity mmck: grid 3/6 runs (50%)
sensitivity mmck: grid 4/6 runs (66%)
sensitivity mmck: grid 5/6 runs (83%)
sensitivity mmck: grid 6/6 runs (100%)
`
	if code != exitOK || stderr != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, stderr, want)
	}
	code, _, stderr = run(t, append(args, "--quiet")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("--quiet: exit %d, stderr %q", code, stderr)
	}
}

// Each side's noise verdict on M/M/4/6, by hand from the CSV: the base's
// interval is (0.5195, 0.6758], 0.1562 wide. Three servers fail in
// (0.3906, 0.5117] and five in (0.7461, 0.8672]: apart from it, and moved
// 0.168 and 0.180, more than its width: beyond. ±3 % on the service time
// moves it 3.2 % each way inside intervals that overlap the base's: within.
// The rows come ranked, beyond the noise first, then by the larger change.
func TestSensitivityJudgesEachSideAgainstTheNoise(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := run(t, "sensitivity", "mmck", "--set", "duration=1500s", "--set", "warmup=100s",
		"-r", "3", "-q", "--delta", "3%", "--params", "customer.work,server.servers", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantTable := `base: first failure 0.60938x (CI 0.5195–0.6758): customer success_rate >= 0.9 at server; 3 runs, not
  sure
parameter      label │ lowered                 │ raised                 │ elasticity │ noise
server.servers -     │ 3       0.44141x -27.6% │ 5      0.78906x +29.5% │      +1.14 │ beyond
customer.work  -     │ x0.97   0.62891x  +3.2% │ x1.03  0.58984x  -3.2% │      -1.07 │ within
`
	if !strings.Contains(stdout, wantTable) {
		t.Errorf("stdout:\n%s\nwant it to hold:\n%s", stdout, wantTable)
	}
	data, err := os.ReadFile(filepath.Join(dir, "sensitivity.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if !strings.HasSuffix(lines[0], ",slo,component,failure_stage,noise,base_replications,base_stopped,replications,stopped") {
		t.Errorf("header %s: want noise, then how far the searches went, as the last columns", lines[0])
	}
	var got []string
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		got = append(got, strings.Join([]string{f[2], f[7], f[12], f[13], f[14], f[16], f[17], f[18], f[19], f[25]}, " "))
	}
	want := []string{
		"server.servers - 0.609375 0.51953125 0.67578125 0.44140625 0.390625 0.51171875 -0.2756410256 beyond",
		"server.servers + 0.609375 0.51953125 0.67578125 0.7890625 0.74609375 0.8671875 0.2948717949 beyond",
		"customer.work - 0.609375 0.51953125 0.67578125 0.62890625 0.53515625 0.703125 0.03205128205 within",
		"customer.work + 0.609375 0.51953125 0.67578125 0.58984375 0.50390625 0.6640625 -0.03205128205 within",
	}
	golden.CheckLines(t, "rows (parameter side base lo hi first-failure lo hi change noise):\n%s\nwant\n%s", got, want)
}
