package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sensSure is M/M/4/6 with ±3 % on the service time and one refinement
// round (a resolution of 1/16): at 3 replications no search is sure.
var sensSure = []string{"sensitivity", "mmck", "--set", "duration=1500s", "--set", "warmup=100s", "-r", "3", "-q",
	"--delta", "3%", "--params", "customer.work", "--refine", "1", "--wide"}

func sensitivityRun(t *testing.T, out string, extra ...string) (stdout string, csv []string) {
	t.Helper()
	code, stdout, stderr := run(t, append(append(append([]string{}, sensSure...), "--out", out), extra...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", extra, code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "sensitivity.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(stdout, out, "OUT"), strings.Split(strings.TrimSpace(string(data)), "\n")
}

// csvColumns picks the named columns of every row after the header.
func csvColumns(t *testing.T, lines []string, names ...string) []string {
	t.Helper()
	var idx []int
	for _, n := range names {
		i := strings.Index(","+lines[0]+",", ","+n+",")
		if i < 0 {
			t.Fatalf("no column %s in %s", n, lines[0])
		}
		idx = append(idx, strings.Count(lines[0][:i], ","))
	}
	var out []string
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		var row []string
		for _, i := range idx {
			row = append(row, f[i])
		}
		out = append(out, strings.Join(row, " "))
	}
	return out
}

// At 3 replications the base's interval is (0.5, 0.6875] and the service
// time lowered fails at 0.6875x, inside it: within the noise, and no
// search sure. --until-sure --max-replications 24 judges every verdict
// at 1 − 0.05/4 (looks at 3, 6, 12, 24): the base settles at 12
// replications to (0.5625, 0.625], each side at 6, and the lowered side's
// 0.6875x, out of that interval by its width, is beyond the noise.
func TestSensitivityUntilSureSettlesEverySearch(t *testing.T) {
	dir := t.TempDir()
	stdout, csv := sensitivityRun(t, filepath.Join(dir, "fixed"))
	wantFixed := `base: first failure 0.625x (CI 0.5–0.6875): customer success_rate >= 0.9 at server; 3 runs, not sure
parameter     label │ lowered                │ raised           │ elasticity │ noise  │  runs
customer.work -     │ x0.97   0.6875x +10.0% │ x1.03  0.625x 0% │      -1.59 │ within │ 3?/3?
`
	if !strings.Contains(stdout, wantFixed) {
		t.Errorf("-r 3: stdout\n%s\nwant it to hold\n%s", stdout, wantFixed)
	}
	cols := []string{"side", "base_ci_low", "base_ci_high", "ci_low", "ci_high", "noise", "base_replications", "base_stopped", "replications", "stopped"}
	if got, want := strings.Join(csvColumns(t, csv, cols...), "\n"),
		"- 0.5 0.6875 0.5 0.75 within 3 unsure 3 unsure\n+ 0.5 0.6875 0.5 0.6875 within 3 unsure 3 unsure"; got != want {
		t.Errorf("-r 3: rows (%s)\n%s\nwant\n%s", strings.Join(cols, " "), got, want)
	}

	stdout, csv = sensitivityRun(t, filepath.Join(dir, "sure"), "--until-sure", "--max-replications", "24")
	wantSure := `seed: 1   replications: 3 until sure, at most 24 (every verdict at 98.75 %)   delta: ±3%   multipliers: 0.25,0.5,0.75,1,1.25,1.5

base: first failure 0.625x (CI 0.5625–0.625): customer success_rate >= 0.9 at server; 12 runs, sure
parameter     label │ lowered                │ raised           │ elasticity │ noise  │ runs
customer.work -     │ x0.97   0.6875x +10.0% │ x1.03  0.625x 0% │      -1.59 │ beyond │  6/6
`
	if !strings.HasPrefix(stdout, wantSure) {
		t.Errorf("--until-sure: stdout\n%s\nwant it to start\n%s", stdout, wantSure)
	}
	if got, want := strings.Join(csvColumns(t, csv, cols...), "\n"),
		"- 0.5625 0.625 0.625 0.6875 beyond 12 sure 6 sure\n+ 0.5625 0.625 0.5625 0.625 within 12 sure 6 sure"; got != want {
		t.Errorf("--until-sure: rows (%s)\n%s\nwant\n%s", strings.Join(cols, " "), got, want)
	}

	// A cap too low to settle the base's search says so.
	stdout, csv = sensitivityRun(t, filepath.Join(dir, "cap"), "--until-sure", "--max-replications", "6")
	if want := "; 6 runs, not sure at --max-replications\n"; !strings.Contains(stdout, want) {
		t.Errorf("--max-replications 6: stdout\n%s\nwant it to hold %q", stdout, want)
	}
	if got := csvColumns(t, csv, "base_replications", "base_stopped"); got[0] != "6 cap" {
		t.Errorf("--max-replications 6: base %v, want 6 cap", got)
	}
}

// With --until-sure the output folder and stdout are the same bytes for
// one worker and for two.
func TestSensitivityUntilSureBytesDoNotDependOnWorkers(t *testing.T) {
	dir := t.TempDir()
	var trees []map[string][]byte
	var outs []string
	for _, w := range []int{1, 2} {
		out := filepath.Join(dir, strconv.Itoa(w))
		stdout, _ := sensitivityRun(t, out, "--until-sure", "--max-replications", "24", "--workers", strconv.Itoa(w))
		trees, outs = append(trees, readTree(t, out)), append(outs, stdout)
	}
	if outs[0] != outs[1] {
		t.Errorf("stdout at 1 worker:\n%s\nat 2:\n%s", outs[0], outs[1])
	}
	sameTree(t, trees[0], trees[1], "--until-sure at 2 workers")
}

func TestSensitivityUntilSureRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-replications", "24"}, "capsim: --max-replications goes with --until-sure"},
		{[]string{"--until-sure", "--max-replications", "2"}, "capsim: --max-replications must be between the replications (3) and 10000, got 2"},
		{[]string{"--until-sure", "--max-replications", "10001"}, "capsim: --max-replications must be between the replications (3) and 10000, got 10001"},
	} {
		code, _, stderr := run(t, append(append(append([]string{}, sensSure...), "--out", t.TempDir()), tc.args...)...)
		if code != exitUsage || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%v: exit %d\n got %s\nwant %s", tc.args, code, strings.TrimSpace(stderr), tc.want)
		}
	}
}

// The looks of --until-sure are rounds of shards, as the sweep's are:
// the merge prints and writes what one process does, and a round past the
// last is refused naming them.
func TestShardedSensitivityUntilSureMergesToTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	sure := []string{"--until-sure", "--max-replications", "24"}
	single := filepath.Join(dir, "single")
	wantOut, _ := sensitivityRun(t, single, sure...)
	shards := filepath.Join(dir, "shards")
	// 1 refinement round, then 3 looks after the first.
	runShards(t, append(append([]string{}, sensSure...), sure...), shards, 5, 2)
	code, _, stderr := run(t, append(append(append([]string{}, sensSure...), sure...), "--round", "5", "--shard", "0/2", "--out", shards)...)
	if want := "capsim: --round: this sensitivity has rounds 0 to 4 (--refine 1, then 3 looks of --until-sure), got 5\n"; code != exitUsage || stderr != want {
		t.Errorf("round past the last: exit %d, %q", code, stderr)
	}
	merged := filepath.Join(dir, "merged")
	gotOut, _ := sensitivityRun(t, merged, append(sure, "--merge", shards)...)
	if gotOut != wantOut {
		t.Errorf("merged stdout\n%s\nsingle process:\n%s", gotOut, wantOut)
	}
	sameTree(t, readTree(t, single), readTree(t, merged), "--until-sure over 2 shards")
}
