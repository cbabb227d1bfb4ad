package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capsim/cmd/golden"
)

const planData = "testdata/calibrate/"

// TestCalibratePlanGolden runs a plan by its content and by the plan
// subcommand: the fragment on standard output alone (--out -) is the
// golden's bytes, and a second run gives the same bytes.
func TestCalibratePlanGolden(t *testing.T) {
	t.Parallel()
	var first string
	for i, args := range [][]string{{planData + "plan.yaml", "--out", "-"}, {planData + "plan.yaml", "--out", "-"}} {
		stdout, stderr, err := calibrate(t, "", args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		if i == 0 {
			first = stdout
			golden.Check(t, planData+"plan.golden.yaml", []byte(stdout))
			golden.Check(t, planData+"plan.golden.stderr", []byte(stderr))
		} else if stdout != first {
			t.Errorf("the second run differs:\n%s", stdout)
		}
	}
	// What standard output holds is a fragment a scenario includes.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "frag.yaml"), []byte(first), 0o644)
	scenario := filepath.Join(dir, "s.yaml")
	os.WriteFile(scenario, []byte("name: s\ninclude: [frag.yaml]\nduration: 60s\ncomponents:\n  app: {kind: pool, servers: 2}\njourneys:\n  upload:\n    rate: 0.01/s\n    steps:\n      - use: app\n        work: s3_save\n      - delay: derivative_overhead\n      - delay: per_sleep\n"), 0o644)
	if code, vout, verr := run(t, "validate", scenario); code != exitOK {
		t.Errorf("the plan's fragment does not validate: exit %d\n%s%s", code, vout, verr)
	}
	stdout, _, err := calibrate(t, "", "plan", planData+"plan.yaml", "--out", "-")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(first, "calibrate "+planData, "calibrate plan "+planData); stdout != want {
		t.Errorf("calibrate plan differs from calibrate PLAN:\n%s", stdout)
	}
}

// TestCalibratePlanRefusesOtherFlags: a plan states its filters itself, so
// a flag that would filter or choose is an error, not ignored.
func TestCalibratePlanRefusesOtherFlags(t *testing.T) {
	t.Parallel()
	_, _, err := calibrate(t, "", planData+"plan.yaml", "--status", "200", "--dist", "gamma")
	want := planData + "plan.yaml is a calibration plan, which states its own sources, filters and families: --dist, --status do not apply (only --out)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestCalibrateRemoveAndInlineEmpirical fits an empirical distribution into
// a fragment beside an input CSV of the entry's name, which must survive
// untouched, loads the fragment in a scenario, then removes the entry.
func TestCalibrateRemoveAndInlineEmpirical(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input := filepath.Join(dir, "upload_batch.csv")
	data, err := os.ReadFile(calData + "latencies.csv")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(input, data, 0o644)
	frag := filepath.Join(dir, "calibration.yaml")
	for _, args := range [][]string{
		{input, "--column", "latency_ms", "--dist", "empirical", "--name", "upload_batch", "--out", frag},
		{input, "--column", "latency_ms", "--dist", "uniform", "--name", "upload_range", "--out", frag},
	} {
		if _, stderr, err := calibrate(t, "", args...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
	}
	if after, _ := os.ReadFile(input); string(after) != string(data) {
		t.Fatal("the input CSV was changed")
	}
	scenario := filepath.Join(dir, "s.yaml")
	os.WriteFile(scenario, []byte("name: s\ninclude: [calibration.yaml]\nduration: 60s\ncomponents:\n  app: {kind: pool, servers: 2}\njourneys:\n  upload:\n    rate: 0.01/s\n    steps:\n      - use: app\n        work: upload_batch\n      - delay: upload_range\n"), 0o644)
	if code := Main([]string{"validate", scenario}, &IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}); code != exitOK {
		t.Fatalf("the fragment with inline values does not validate: exit %d", code)
	}
	fragText, _ := os.ReadFile(frag)
	if !strings.Contains(string(fragText), "\n    dist: uniform(34.712s, ") {
		t.Errorf("no uniform entry:\n%s", fragText)
	}
	_, stderr, err := calibrate(t, "", "--out", frag, "--remove", "upload_batch")
	if err != nil || stderr != "wrote "+frag+" (removed upload_batch)\n" {
		t.Fatalf("remove: %v\n%s", err, stderr)
	}
	got, _ := os.ReadFile(frag)
	if strings.Contains(string(got), "\n  upload_batch:") || !strings.Contains(string(got), "\n  upload_range:") {
		t.Errorf("after removing upload_batch:\n%s", got)
	}
	_, _, err = calibrate(t, "", "--out", frag, "--remove", "upload_batch")
	if want := "--remove upload_batch: " + frag + " has no such entry (it has: upload_range)"; err == nil || err.Error() != want {
		t.Errorf("removing it again: %v, want %s", err, want)
	}
}

// TestCalibrateExprFlags states plans of one entry with flags: a pair of
// events split per photo gives the plan's entries, and two files named
// ALIAS=FILE are joined on --join-key.
func TestCalibrateExprFlags(t *testing.T) {
	t.Parallel()
	stdout, stderr, err := calibrate(t, "", planData+"app.jsonl", "--pairs", "batch_originals_saved:result_persist",
		"--expr", "to.time - from.time", "--per", "from.photos", "--name", "upload", "--out", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"\n  upload_base:\n    dist: gamma(shape=2, scale=0.0833333s)\n", "\n  upload_per_item:\n    dist: constant(1.25s)\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("fragment lacks %q:\n%s", want, stdout)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "driver.jsonl"), []byte(`{"request_id":"a","duration_ms":12.5}
{"request_id":"b","duration_ms":20}
{"request_id":"c","duration_ms":9}
`), 0o644)
	os.WriteFile(filepath.Join(dir, "app.jsonl"), []byte(`{"event":"done","request_id":"b","handler_ms":18}
{"event":"done","request_id":"a","handler_ms":10}
`), 0o644)
	stdout, stderr, err = calibrate(t, "", "driver="+filepath.Join(dir, "driver.jsonl"), "app="+filepath.Join(dir, "app.jsonl"),
		"--expr", "driver.duration_ms - app.handler_ms", "--where", "app.event == done", "--name", "overhead", "--dist", "empirical", "--out", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "\n    dist: empirical(0.002s, 0.0025s)\n") || !strings.Contains(stderr, "note: 1 request_id values of driver found no partner in the other sources\n") {
		t.Errorf("stdout\n%s\nstderr\n%s", stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a.jsonl", "--where", "x == 1"}, "--where, --pairs and --per go with --expr, the value to fit"},
		{[]string{"a.jsonl", "--expr", "x_ms", "--status", "200", "--name", "x"}, "--expr selects records with --where: --status do not apply"},
		{[]string{"a.jsonl", "--expr", "x_ms"}, "--expr needs --name, the entry's name in the fragment"},
		{[]string{"a.jsonl", "b.jsonl", "--expr", "x_ms", "--name", "x"}, "joining several files, name each: ALIAS=FILE (got a.jsonl)"},
		{[]string{"a=a.jsonl", "b=b.jsonl", "--expr", "x_ms", "--name", "x"}, `field "x_ms" must name its record: a.x_ms or b.x_ms`},
		{[]string{"a.jsonl", "--expr", "x_ms +", "--name", "x"}, `--expr: expression "x_ms +", at column 7: expected a number, a field or ( but found end of expression`},
		{[]string{"a.jsonl", "--expr", "x_ms", "--pairs", "a", "--name", "x"}, `--pairs must be FROM:TO, got "a"`},
	} {
		_, _, err := calibrate(t, "", c.args...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v:\n got %v\nwant %s", c.args, err, c.want)
		}
	}
}

// TestCalibratePlanReplacesTheFragment: a plan is its fragment's whole
// source, so --out FILE is replaced (a stale entry goes), and writing it
// twice gives the same bytes as --out -.
func TestCalibratePlanReplacesTheFragment(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "calibration.yaml")
	os.WriteFile(out, []byte("distributions:\n  stale: {dist: constant(1s)}\n"), 0o644)
	want, _, err := calibrate(t, "", planData+"plan.yaml", "--out", "-")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, stderr, err := calibrate(t, "", planData+"plan.yaml", "--out", out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(stderr, "\nwrote "+out+" (5 entries of "+planData+"plan.yaml)\n") {
			t.Errorf("stderr ends:\n%s", stderr[max(0, len(stderr)-200):])
		}
		got, _ := os.ReadFile(out)
		if string(got) != strings.ReplaceAll(want, "--out -", "--out "+out) {
			t.Errorf("fragment:\n%s", got)
		}
	}
}

// A plan's fragment never replaces the plan or one of its sources.
func TestCalibratePlanRefusesToWriteOverItsInputs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"plan.yaml", "app.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", "calibrate", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan := filepath.Join(dir, "plan.yaml")
	before, _ := os.ReadFile(plan)
	for _, out := range []string{plan, filepath.Join(dir, "app.jsonl")} {
		code, _, stderr := run(t, "calibrate", plan, "--out", out)
		after, _ := os.ReadFile(plan)
		if code != exitUsage || !strings.Contains(stderr, "an input of this command; name another file") || string(after) != string(before) {
			t.Errorf("--out %s: exit %d, %s", out, code, stderr)
		}
	}
}

// Warnings come ranked, after the tables: what changes a fit first, the
// lattice of whole milliseconds folded into one line for all the entries
// on it. testdata/calibrate/quantised.csv holds 600 requests drawn from
// known families and rounded to 1 ms; its step column mixes two groups.
func TestCalibrateWarningsRanked(t *testing.T) {
	t.Parallel()
	const folded = "values are quantised to 1ms; goodness-of-fit tests are not meaningful at this resolution"
	for plan, want := range map[string][]string{
		// Each family is right on the lattice: one line, where there were a
		// poor fit and a lattice note per entry.
		"quantised_plan.yaml": {"warning: 3 entries: " + folded},
		"two_groups_plan.yaml": {
			"warning: step: the values form two groups, 450 around 0.004955s and 150 around 0.04468s (Ashman's D = 10.7 on their logarithms): no single family describes both; split them by a field (route, status, size) and fit each",
			"warning: step: the chosen lognormal is 0.266 from the data even rounded to their 1ms lattice (KS), above the 5% critical value 0.0554 for 600 values: no family fits well; consider the empirical distribution",
			"warning: 2 entries: " + folded,
		},
	} {
		_, stderr, err := calibrate(t, "", planData+plan)
		if err != nil {
			t.Fatalf("%s: %v\n%s", plan, err, stderr)
		}
		tables, warnings, _ := strings.Cut(stderr, "\nwarning: ")
		if strings.Contains(tables, "warning: ") || !strings.HasSuffix(tables, "\n") {
			t.Errorf("%s: a warning before the tables' end, or no blank line before the warnings:\n%s", plan, stderr)
		}
		got := strings.Split(strings.TrimSpace("warning: "+warnings), "\n")
		if last := got[len(got)-1]; !strings.HasPrefix(last, "no fragment written") {
			t.Errorf("%s: the warnings end with %q, not the note that no fragment was written", plan, last)
		}
		got = got[:len(got)-1]
		golden.CheckLines(t, plan+": warnings\n%s\nwant\n%s", got, want)
	}
}

// The ranked warnings docs/modelling.md shows are those of
// testdata/calibrate/two_groups_plan.yaml.
func TestModellingRankedWarningsExample(t *testing.T) {
	_, stderr, err := calibrate(t, "", planData+"two_groups_plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "warning: ") {
			got = append(got, line)
		}
	}
	shown := docBlock(t, "docs/modelling.md", "## Calibration", "text")
	if want := strings.Join(got, "\n") + "\n"; shown != want {
		t.Errorf("docs/modelling.md shows\n%s\ncapsim prints\n%s", shown, want)
	}
}
