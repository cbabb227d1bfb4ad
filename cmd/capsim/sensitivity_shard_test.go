package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sensShardBase is a small mmck analysis of two parameters with two
// refinement rounds: rounds 0 to 2.
var sensShardBase = []string{"sensitivity", "mmck", "--set", "duration=1500s", "--set", "warmup=100s",
	"--multipliers", "0.5,0.75,1", "-r", "2", "--refine", "2", "--params", "customer.work,server.servers", "--quiet"}

func sensitivityTo(t *testing.T, out string, extra ...string) string {
	t.Helper()
	return strings.ReplaceAll(runInto(t, sensShardBase, out, extra...), out, "OUT")
}

// An analysis split into shards round by round, each shard run on its
// own and the lot merged, writes the same sensitivity.csv and charts and
// prints the same table as the analysis run in one process.
func TestShardedSensitivityMergesToTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	single := filepath.Join(dir, "single")
	wantOut := sensitivityTo(t, single)
	want := readTree(t, single)
	if _, ok := want["sensitivity.csv"]; !ok {
		t.Fatalf("the single run wrote no sensitivity.csv: %v", want)
	}
	for _, n := range []int{2, 3} {
		shards := filepath.Join(dir, "shards"+strconv.Itoa(n))
		for r := range 3 {
			for i := range n {
				got := sensitivityTo(t, shards, "--round", strconv.Itoa(r), "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
				prefix := "wrote OUT/round-" + strconv.Itoa(r) + "-shard-" + strconv.Itoa(i) + "-of-" + strconv.Itoa(n) + ".gob: "
				if !strings.HasPrefix(got, prefix) || !strings.HasSuffix(got, " of round "+strconv.Itoa(r)+" of 2\n") {
					t.Errorf("shard %d/%d of round %d printed %q", i, n, r, got)
				}
			}
		}
		merged := filepath.Join(dir, "merged"+strconv.Itoa(n))
		gotOut := sensitivityTo(t, merged, "--merge", shards)
		if gotOut != wantOut {
			t.Errorf("%d shards: stdout\n%s\nsingle process:\n%s", n, gotOut, wantOut)
		}
		sameTree(t, want, readTree(t, merged), strconv.Itoa(n)+" shards")
	}
}

// A merge, or a later round, refuses a set of shards that is incomplete
// or made by another analysis or by a sweep, with exit code 2 and a
// message naming what is wrong; so do the flags in the wrong places.
func TestShardedSensitivityFailsWell(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	for r := range 3 {
		for i := range 3 {
			sensitivityTo(t, shards, "--round", strconv.Itoa(r), "--shard", strconv.Itoa(i)+"/3")
		}
	}
	try := func(args ...string) (int, string) {
		t.Helper()
		code, stdout, stderr := run(t, args...)
		if stdout != "" {
			t.Errorf("%v: stdout %q", args, stdout)
		}
		return code, stderr
	}
	with := func(extra ...string) []string {
		return append(append([]string{}, sensShardBase...), extra...)
	}
	first := filepath.Join(shards, "round-0-shard-0-of-3.gob")
	other := " was made by a different sweep (scenario, designs, multipliers, replications, seed, --set, --refine, --section or capsim version differ); merge with the flags the shards ran with\n"

	// Another perturbation (--delta), other parameters, a sweep's shards.
	code, stderr := try(append(with("--merge", shards, "--out", filepath.Join(dir, "x")), "--delta", "20%")...)
	if code != exitUsage || stderr != "capsim: --merge: "+first+other {
		t.Errorf("other delta: exit %d, %q", code, stderr)
	}
	code, stderr = try(append(with("--merge", shards, "--out", filepath.Join(dir, "x")), "--params", "customer.work")...)
	if code != exitUsage || stderr != "capsim: --merge: "+first+other {
		t.Errorf("other params: exit %d, %q", code, stderr)
	}
	sweepShards := filepath.Join(dir, "sweep")
	if code, _, stderr := run(t, "sweep", "mmck", "--set", "duration=1500s", "--set", "warmup=100s", "--multipliers", "0.5,0.75,1",
		"-r", "2", "--refine", "2", "--designs", "base", "--quiet", "--shard", "0/1", "--out", sweepShards); code != 0 {
		t.Fatalf("sweep shard: exit %d: %s", code, stderr)
	}
	code, stderr = try(with("--merge", sweepShards, "--out", filepath.Join(dir, "x"))...)
	if code != exitUsage || stderr != "capsim: --merge: "+filepath.Join(sweepShards, "round-0-shard-0-of-1.gob")+other {
		t.Errorf("a sweep's shards: exit %d, %q", code, stderr)
	}

	// A shard whose job failed leaves no file.
	if err := os.Remove(filepath.Join(shards, "round-1-shard-2-of-3.gob")); err != nil {
		t.Fatal(err)
	}
	code, stderr = try(with("--merge", shards, "--out", filepath.Join(dir, "x"))...)
	if code != exitUsage || stderr != "capsim: --merge: missing shard 2 of 3 in round 1\n" {
		t.Errorf("missing: exit %d, %q", code, stderr)
	}
	code, stderr = try(with("--round", "2", "--shard", "0/3", "--out", shards)...)
	if code != exitUsage || stderr != "capsim: --round 2: missing shard 2 of 3 in round 1\n" {
		t.Errorf("a round before its predecessor is complete: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("a refused merge left an output folder: %v", err)
	}

	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--shard", "3/3"}, "capsim: --shard: the index must be between 0 and COUNT-1 and COUNT between 1 and 1000000, got \"3/3\"\n"},
		{[]string{"--shard", "0/3", "--round", "3", "--out", shards}, "capsim: --round: this sensitivity has rounds 0 to 2 (--refine 2), got 3\n"},
		{[]string{"--round", "1", "--out", shards}, "capsim: --round goes with --shard: a round is split into shards\n"},
		{[]string{"--shard", "0/3", "--merge", shards, "--out", shards}, "capsim: --shard and --merge go to different steps: run the shards, then merge them\n"},
		{[]string{"--merge", filepath.Join(dir, "none"), "--out", filepath.Join(dir, "x")}, "capsim: --merge " + filepath.Join(dir, "none") + ": no such file or directory\n"},
	} {
		if code, stderr := try(with(c.extra...)...); code != exitUsage || stderr != c.want {
			t.Errorf("%v: exit %d, %q\nwant %q", c.extra, code, stderr, c.want)
		}
	}
}
