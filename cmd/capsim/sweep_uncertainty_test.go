package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// --uncertainty on a scenario that declares nothing uncertain is a usage
// error naming what to declare.
func TestSweepUncertaintyRefusals(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := sweepCLI(t, false, append(shortMMcK, "--uncertainty", "--out", out, "-q")...)
	if code != exitUsage || !strings.Contains(stderr, "--uncertainty: no design of the scenario declares an uncertain value") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "sensitivity.csv")
	os.WriteFile(bad, []byte("a,b\n"), 0o644)
	code, _, stderr = sweepCLI(t, false, append(shortMMcK, "--hinges", bad, "--out", out, "-q")...)
	if code != exitUsage || !strings.Contains(stderr, `--hinges `+bad+`: line 1: no column "design"`) {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// A range given on the command line is drawn: the first-failure line and
// first_failure.csv carry both intervals, and the manifest names what was
// drawn. The grid runs and the intervals of the replications' noise are
// those of the same sweep without --uncertainty.
func TestSweepUncertaintyOutputs(t *testing.T) {
	dir := t.TempDir()
	args := append(shortMMcK, "--set", "components.server.servers={range: [3, 5]}", "-q")
	code, plain, stderr := sweepCLI(t, false, append(args, "--out", filepath.Join(dir, "plain"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, drawn, stderr := sweepCLI(t, false, append(args, "--uncertainty", "--out", filepath.Join(dir, "drawn"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(drawn, "; with parameters ") || strings.Contains(plain, "with parameters") {
		t.Errorf("stdout without and with --uncertainty:\n%s\n%s", plain, drawn)
	}
	for _, f := range []string{"runs.csv", "summary.csv"} {
		a, _ := os.ReadFile(filepath.Join(dir, "plain", f))
		b, _ := os.ReadFile(filepath.Join(dir, "drawn", f))
		if string(a) != string(b) || len(a) == 0 {
			t.Errorf("%s differs with --uncertainty", f)
		}
	}
	ff, _ := os.ReadFile(filepath.Join(dir, "drawn", "first_failure.csv"))
	if !strings.HasSuffix(strings.SplitN(string(ff), "\n", 2)[0], ",verdict_level,multipliers_tried,param_draws,param_sd,param_ci_low,param_ci_high") {
		t.Errorf("first_failure.csv:\n%s", ff)
	}
	m, _ := os.ReadFile(filepath.Join(dir, "drawn", "manifest.json"))
	if !strings.Contains(string(m), `"uncertain": [
    "components.server.servers"
  ]`) {
		t.Errorf("manifest:\n%s", m)
	}
}

// --uncertainty splits over machines like the rest of the sweep: each
// shard makes its share of both sweeps (round-… and uncertainty-round-…
// files), and the merge writes the bytes of the sweep run in one process,
// the intervals with parameter uncertainty included. A merge given only
// the first sweep's shards names the files it lacks.
func TestShardedSweepUncertaintyMergesToTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	args := append(append([]string{}, shardBase...), "--uncertainty", "-q")
	want := singleRunTree(t, dir, args)
	if !strings.Contains(string(want["first_failure.csv"]), ",param_draws,") {
		t.Fatalf("first_failure.csv has no parameter interval:\n%s", want["first_failure.csv"])
	}
	shards := filepath.Join(dir, "shards")
	for r := range 3 {
		for i := range 2 {
			code, stdout, stderr := run(t, append(args, "--round", strconv.Itoa(r), "--shard", strconv.Itoa(i)+"/2", "--out", shards)...)
			if code != 0 || !strings.Contains(stdout, "uncertainty-round-"+strconv.Itoa(r)+"-shard-"+strconv.Itoa(i)+"-of-2.gob") {
				t.Fatalf("round %d shard %d: exit %d: %s%s", r, i, code, stdout, stderr)
			}
		}
	}
	merged := filepath.Join(dir, "merged")
	if code, _, stderr := run(t, append(args, "--merge", shards, "--out", merged)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	sameTree(t, want, readTree(t, merged), "--uncertainty over 2 shards")

	only := filepath.Join(dir, "only")
	os.MkdirAll(only, 0o755)
	files, _ := filepath.Glob(filepath.Join(shards, "round-*.gob"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(only, filepath.Base(f)), data, 0o644)
	}
	code, _, stderr := run(t, append(args, "--merge", only, "--out", filepath.Join(dir, "x"))...)
	if want := "capsim: --merge " + only + ": the folder holds no uncertainty-round-*-shard-*-of-*.gob file\n"; code != exitUsage || stderr != want {
		t.Errorf("merge without the second sweep's shards: exit %d, %q, want %q", code, stderr, want)
	}
}
