package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --uncertainty on a scenario that declares nothing uncertain is a usage
// error naming what to declare; with --shard it is refused.
func TestSweepUncertaintyRefusals(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := sweepCLI(t, false, append(shortMMcK, "--uncertainty", "--out", out, "-q")...)
	if code != exitUsage || !strings.Contains(stderr, "--uncertainty: no design of the scenario declares an uncertain value") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = sweepCLI(t, false, append(shortMMcK, "--uncertainty", "--shard", "0/2", "--out", out, "-q")...)
	if code != exitUsage || !strings.Contains(stderr, "--uncertainty runs a second sweep beside the first, on one machine") {
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
