package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shardBase is a small trip sweep with two refinement rounds.
var shardBase = []string{"sweep", "trip", "--designs", "v1-original,v1-improved", "--multipliers", "1,2,3", "--replications", "3", "--refine", "2"}

func sweepTo(t *testing.T, out string, extra ...string) string {
	t.Helper()
	return runInto(t, shardBase, out, extra...)
}

// runRounds runs every shard of rounds 0 to 2 into dir.
func runRounds(t *testing.T, dir string, n int) {
	t.Helper()
	for r := range 3 {
		for i := range n {
			sweepTo(t, dir, "--round", strconv.Itoa(r), "--shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
		}
	}
}

func sameTree(t *testing.T, want, got map[string][]byte, what string) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d files, single %d", what, len(got), len(want))
	}
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s: %s differs from the single-process sweep", what, name)
		}
	}
}

// A sweep split into shards round by round, run separately and merged,
// writes the same bytes as the sweep run in one process: every file of the
// output folder, charts and time series included, whatever the split.
func TestShardedSweepMergesToTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	single := filepath.Join(dir, "single")
	sweepTo(t, single)
	want := readTree(t, single)
	for _, n := range []int{1, 3} {
		shards := filepath.Join(dir, "shards"+strconv.Itoa(n))
		runRounds(t, shards, n)
		merged := filepath.Join(dir, "merged"+strconv.Itoa(n))
		sweepTo(t, merged, "--merge", shards)
		sameTree(t, want, readTree(t, merged), strconv.Itoa(n)+" shards")
	}
	// --png decides only what the merge draws: shards run without it merge
	// with it into the bytes of the single sweep run with it.
	singlePNG := filepath.Join(dir, "single-png")
	sweepTo(t, singlePNG, "--png")
	wantPNG := readTree(t, singlePNG)
	if _, ok := wantPNG["charts/series_v1-original.png"]; !ok {
		t.Fatal("the sweep with --png wrote no charts/series_v1-original.png")
	}
	if _, ok := want["charts/series_v1-original.png"]; ok {
		t.Error("the sweep without --png wrote charts/series_v1-original.png")
	}
	mergedPNG := filepath.Join(dir, "merged-png")
	sweepTo(t, mergedPNG, "--png", "--merge", filepath.Join(dir, "shards3"))
	sameTree(t, wantPNG, readTree(t, mergedPNG), "3 shards, --png")

	// Merging shards of another sweep is refused.
	shards := filepath.Join(dir, "shards3")
	code, _, stderr := run(t, append(append([]string{}, shardBase[:len(shardBase)-4]...), "--replications", "4", "--refine", "2",
		"--merge", shards, "--out", filepath.Join(dir, "x"))...)
	if code != exitUsage || !strings.Contains(stderr, "was made by a different sweep") {
		t.Errorf("other sweep: exit %d, %s", code, stderr)
	}
	code, _, stderr = run(t, "sweep", "mmck", "--shard", "3/3")
	if code != exitUsage || stderr != "capsim: --shard: the index must be between 0 and COUNT-1 and COUNT between 1 and 1000000, got \"3/3\"\n" {
		t.Errorf("bad shard: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, append(append([]string{}, shardBase...), "--shard", "0/3", "--round", "3", "--out", shards)...)
	if code != exitUsage || stderr != "capsim: --round: this sweep has rounds 0 to 2 (--refine 2), got 3\n" {
		t.Errorf("round past the last: exit %d, %q", code, stderr)
	}
}

// A missing or damaged shard is named by index and round, before anything
// runs; running it again, alone, mends the set, and running a finished
// shard again changes nothing.
func TestShardsFailWell(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	runRounds(t, shards, 3)
	merged := filepath.Join(dir, "merged")
	sweepTo(t, merged, "--merge", shards)
	want := readTree(t, merged)
	merge := func() (int, string) {
		code, _, stderr := run(t, append(append([]string{}, shardBase...), "--merge", shards, "--out", filepath.Join(dir, "again"))...)
		return code, stderr
	}

	// A shard whose job failed leaves no file.
	victim := filepath.Join(shards, "round-1-shard-2-of-3.gob")
	if err := os.Remove(victim); err != nil {
		t.Fatal(err)
	}
	if code, stderr := merge(); code != exitUsage || stderr != "capsim: --merge: missing shard 2 of 3 in round 1\n" {
		t.Errorf("missing: exit %d, %q", code, stderr)
	}
	code, _, stderr := run(t, append(append([]string{}, shardBase...), "--round", "2", "--shard", "0/3", "--out", shards)...)
	if code != exitUsage || stderr != "capsim: --round 2: missing shard 2 of 3 in round 1\n" {
		t.Errorf("a round before its predecessor is complete: exit %d, %q", code, stderr)
	}
	sweepTo(t, shards, "--round", "1", "--shard", "2/3")

	// One flipped bit anywhere is refused, naming the file and the shard.
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{len(data) / 2, len(data) - 1} {
		bad := bytes.Clone(data)
		bad[at] ^= 0x10
		if err := os.WriteFile(victim, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr := merge()
		if code != exitUsage || stderr != "capsim: --merge: "+victim+", shard 2/3 of round 1, is damaged: its checksum does not match its contents; run it again\n" {
			t.Errorf("bit %d flipped: exit %d, %q", at, code, stderr)
		}
	}
	if err := os.WriteFile(victim, data[:len(data)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := merge(); code != exitUsage || !strings.HasSuffix(stderr, "is cut short: the shard did not finish; run it again\n") {
		t.Errorf("cut short: exit %d, %q", code, stderr)
	}

	// Rerun alone, and a finished shard rerun: the same bytes, the same merge.
	sweepTo(t, shards, "--round", "1", "--shard", "2/3")
	if got, _ := os.ReadFile(victim); !bytes.Equal(got, data) {
		t.Error("the rerun shard wrote other bytes")
	}
	sweepTo(t, shards, "--round", "0", "--shard", "1/3")
	sweepTo(t, shards, "--round", "2", "--shard", "0/3")
	if code, stderr := merge(); code != 0 {
		t.Fatalf("after the reruns: exit %d, %s", code, stderr)
	}
	sameTree(t, want, readTree(t, filepath.Join(dir, "again")), "after the reruns")
}

// --base-set decides the runs as --set does: shards made with one merge
// only with it.
func TestShardsOfAnotherBaseSetAreRefused(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	base := []string{"sweep", "trip", "--designs", "v1-original", "--multipliers", "1,2", "--replications", "2", "--refine", "1", "-q"}
	with := append(append([]string{}, base...), "--base-set", "components.app.queue=90")
	for _, round := range []string{"0", "1"} {
		if code, _, stderr := run(t, append(with, "--round", round, "--shard", "0/1", "--out", shards)...); code != 0 {
			t.Fatalf("round %s: exit %d: %s", round, code, stderr)
		}
	}
	code, _, stderr := run(t, append(base, "--merge", shards, "--out", filepath.Join(dir, "merged"))...)
	if code != exitUsage || !strings.Contains(stderr, "was made by a different sweep") {
		t.Errorf("merge without the shards' --base-set: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, append(with, "--merge", shards, "--out", filepath.Join(dir, "merged"))...); code != 0 {
		t.Errorf("merge with it: exit %d, %s", code, stderr)
	}
}

// --until-sure splits over machines: each look after the first is a round
// of its own, and one more samples the series at the estimates the looks
// moved; the merge writes the bytes of the sweep run in one process.
func TestShardedUntilSureMergesToTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sweep", "trip", "--designs", "v1-original,v1-improved", "--multipliers", "1,2,3,4", "-r", "3",
		"--refine", "2", "--until-sure", "--max-replications", "24", "-q"}
	want := singleRunTree(t, dir, args)
	if !strings.Contains(string(want["report.md"]), "3 of 3 looks") {
		t.Fatalf("the looks did not all run; report.md:\n%s", want["report.md"])
	}
	shards := filepath.Join(dir, "shards")
	// 2 refinement rounds, 3 looks after the first, their series.
	runShards(t, args, shards, 7, 3)
	code, _, stderr := run(t, append(args, "--round", "7", "--shard", "0/3", "--out", shards)...)
	if want := "capsim: --round: this sweep has rounds 0 to 6 (--refine 2, then 3 looks of --until-sure and their time series), got 7\n"; code != exitUsage || stderr != want {
		t.Errorf("round past the last: exit %d, %q", code, stderr)
	}
	merged := filepath.Join(dir, "merged")
	if code, _, stderr := run(t, append(args, "--merge", shards, "--out", merged)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	sameTree(t, want, readTree(t, merged), "--until-sure over 3 shards")

	// Shards of another cap are another sweep's.
	other := append(append([]string{}, args[:len(args)-3]...), "--max-replications", "48", "-q")
	code, _, stderr = run(t, append(other, "--merge", shards, "--out", filepath.Join(dir, "x"))...)
	if code != exitUsage || !strings.Contains(stderr, "was made by a different sweep") {
		t.Errorf("merge with another cap: exit %d, %s", code, stderr)
	}
}

// The merge runs nothing: the hindcast beside the sweep is judged by
// round 0's shard 0, which writes hindcast.json; a merge without it says
// which shard writes it.
func TestMergeReadsTheHindcastOfShardZero(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	args := []string{"sweep", "trip", "--designs", "v1-original", "--multipliers", "1,2", "-r", "2", "--refine", "1", "-q"}
	for _, round := range []string{"0", "1"} {
		for _, shard := range []string{"0/2", "1/2"} {
			code, stdout, stderr := run(t, append(args, "--round", round, "--shard", shard, "--out", shards)...)
			if code != 0 {
				t.Fatalf("round %s shard %s: exit %d: %s", round, shard, code, stderr)
			}
			if wrote := strings.Contains(stdout, "hindcast.json"); wrote != (round == "0" && shard == "0/2") {
				t.Errorf("round %s shard %s: wrote hindcast.json %v:\n%s", round, shard, wrote, stdout)
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(shards, "hindcast.json"))
	if err != nil || !strings.Contains(string(data), `"summary": "the model agrees with `) {
		t.Fatalf("hindcast.json: %v\n%s", err, data)
	}
	os.Remove(filepath.Join(shards, "hindcast.json"))
	code, _, stderr := run(t, append(args, "--merge", shards, "--out", filepath.Join(dir, "m"))...)
	want := "capsim: --merge: " + filepath.Join(shards, "hindcast.json") + ": no such file or directory; round 0's shard 0 writes it"
	if code != exitUsage || !strings.HasPrefix(stderr, want) {
		t.Errorf("merge without hindcast.json: exit %d, %q, want prefix %q", code, stderr, want)
	}
	if code, _, stderr := run(t, append(args, "--hindcast-replications", "0", "--merge", shards, "--out", filepath.Join(dir, "m"))...); code != 0 {
		t.Errorf("merge without the hindcast: exit %d: %s", code, stderr)
	}
}

// With --refine 0 the sweep has one round of shards, the grid: round 1 is
// refused, and the merge runs the time series of the failing designs
// itself, writing the same bytes as the sweep in one process.
func TestShardedSweepWithoutRefinementIsOneRound(t *testing.T) {
	base := append(append([]string{}, shardBase[:len(shardBase)-1]...), "0")
	dir := t.TempDir()
	single, shards, merged := filepath.Join(dir, "single"), filepath.Join(dir, "shards"), filepath.Join(dir, "merged")
	to := func(out string, extra ...string) (int, string, string) {
		return run(t, append(append(append([]string{}, base...), "--out", out), extra...)...)
	}
	if code, _, stderr := to(single); code != 0 {
		t.Fatalf("single: exit %d: %s", code, stderr)
	}
	for i := range 2 {
		code, stdout, stderr := to(shards, "--round", "0", "--shard", strconv.Itoa(i)+"/2")
		if code != 0 || !strings.Contains(stdout, " runs of round 0 of 0\n") {
			t.Fatalf("shard %d: exit %d: %s%s", i, code, stdout, stderr)
		}
	}
	code, _, stderr := to(shards, "--round", "1", "--shard", "0/2")
	if want := "capsim: --round: this sweep has rounds 0 to 0 (--refine 0), got 1\n"; code != exitUsage || stderr != want {
		t.Errorf("round 1: exit %d, %q, want %q", code, stderr, want)
	}
	if code, _, stderr := to(merged, "--merge", shards); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	want, got := readTree(t, single), readTree(t, merged)
	if _, ok := want["charts/series_v1-original.svg"]; !ok {
		t.Fatalf("the single sweep wrote no time series: the case does not test the series round")
	}
	sameTree(t, want, got, "2 shards, --refine 0")
}
