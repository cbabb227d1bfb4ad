package main

import (
	"bytes"
	"path/filepath"
	"testing"
)

// A sweep split into shards, run separately and merged, writes the same
// bytes as the sweep run in one process: every file of the output folder.
func TestShardedSweepMergesToTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	base := []string{"sweep", "trip", "--designs", "v1-original,v1-improved", "--multipliers", "1,2,3", "--replications", "3", "--refine", "2"}
	sweepTo := func(out string, extra ...string) string {
		args := append(append(append([]string{}, base...), "--out", out), extra...)
		code, stdout, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		return stdout
	}
	single := filepath.Join(dir, "single")
	sweepTo(single)
	for i := range 3 {
		sweepTo(filepath.Join(dir, "shards"), "--shard", []string{"0/3", "1/3", "2/3"}[i])
	}
	merged := filepath.Join(dir, "merged")
	sweepTo(merged, "--merge", filepath.Join(dir, "shards"))

	want, got := readTree(t, single), readTree(t, merged)
	if len(want) != len(got) {
		t.Fatalf("merged folder has %d files, single %d", len(got), len(want))
	}
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s differs between the merged and the single-process sweep", name)
		}
	}

	// Merging shards of another sweep, or an incomplete set, is refused.
	code, _, stderr := run(t, append(append([]string{}, base[:len(base)-4]...), "--replications", "4", "--refine", "2",
		"--merge", filepath.Join(dir, "shards"), "--out", filepath.Join(dir, "x"))...)
	if code != exitUsage || !bytes.Contains([]byte(stderr), []byte("was made by a different sweep")) {
		t.Errorf("other sweep: exit %d, %s", code, stderr)
	}
	code, _, stderr = run(t, append(append([]string{}, base...), "--merge", filepath.Join(dir, "shards", "shard-0-of-3.gob"),
		"--merge", filepath.Join(dir, "shards", "shard-2-of-3.gob"), "--out", filepath.Join(dir, "x"))...)
	if code != exitUsage || stderr != "capsim: --merge: missing shard 1 of 3\n" {
		t.Errorf("incomplete: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, "sweep", "mmck", "--shard", "3/3")
	if code != exitUsage || stderr != "capsim: --shard: the index must be between 0 and COUNT-1 and COUNT between 1 and 1000000, got \"3/3\"\n" {
		t.Errorf("bad shard: exit %d, %q", code, stderr)
	}
}
