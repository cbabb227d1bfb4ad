package main

import (
	"os"
	"path/filepath"
	"testing"

	"capsim/cmd/golden"
)

// The bytes of a small trip sweep are pinned: an unintended change in the
// model's behaviour (event order, stream derivation, a default) shows up
// here as a diff. Numbers are written with 10 significant digits, which
// absorbs the last-bit differences fused multiply-add can make on other
// architectures. Regenerate with -update only when a change is meant to
// move the results, and say so in the commit.
func TestSweepOutputGolden(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "sweep", "trip", "--designs", "v1-original,v1-improved", "--multipliers", "1,2",
		"--replications", "2", "--refine", "0", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"runs.csv", "summary.csv", "first_failure.csv"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, goldenFile("sweep_trip_"+name), data)
	}
}
