package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// run executes capsim in-process with args and returns its exit code and
// streams.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWith(t, IOStreams{}, args...)
}

// runWith is run with the layout of the streams set as given (a terminal,
// a width); it supplies an empty standard input and captures both outputs.
func runWith(t *testing.T, streams IOStreams, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams.In, streams.Out, streams.ErrOut = strings.NewReader(""), &out, &errOut
	code = Main(args, &streams)
	return code, out.String(), errOut.String()
}

// enterCheckExample takes a page's `cd DIR && capsim check …` example (its
// continuation lines joined), changes into DIR under the repository's root
// as a reader would, and returns the command's words from "capsim" on, so
// that a test runs the example exactly as the page shows it.
func enterCheckExample(t *testing.T, block string) []string {
	t.Helper()
	line := strings.ReplaceAll(strings.TrimSpace(block), "\\\n", "")
	dir, cmd, ok := strings.Cut(line, " && ")
	if !ok || !strings.HasPrefix(dir, "cd ") {
		t.Fatalf("the example is not `cd DIR && capsim check …`: %q", line)
	}
	t.Chdir(filepath.Join(repoRoot, strings.TrimPrefix(dir, "cd ")))
	args := shellWords(cmd)
	if len(args) < 2 || args[0] != "capsim" || args[1] != "check" {
		t.Fatalf("the example runs %q, not capsim check", cmd)
	}
	return args
}

// runWritingFile runs capsim with args, the last of them a flag naming a
// file to write, given a file called name in a fresh folder, and returns
// that file's path; a failure ends the test.
func runWritingFile(t *testing.T, name string, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if code, _, stderr := run(t, append(args, path)...); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	return path
}

// runInto runs the command base with --out out and then extra, and
// returns what it printed; a failure ends the test, naming extra.
func runInto(t *testing.T, base []string, out string, extra ...string) string {
	t.Helper()
	args := append(append(append([]string{}, base...), "--out", out), extra...)
	code, stdout, stderr := run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", extra, code, stderr)
	}
	return stdout
}

// runShards runs every shard I/n of rounds 0 to rounds-1 of the command in
// args, one process each, into the folder shards; a failure ends the test.
func runShards(t *testing.T, args []string, shards string, rounds, n int) {
	t.Helper()
	for r := range rounds {
		for i := range n {
			shard := []string{"--round", strconv.Itoa(r), "--shard", strconv.Itoa(i) + "/" + strconv.Itoa(n), "--out", shards}
			if code, _, stderr := run(t, append(append([]string{}, args...), shard...)...); code != 0 {
				t.Fatalf("round %d shard %d: exit %d: %s", r, i, code, stderr)
			}
		}
	}
}

// singleRunTree runs the command in args in one process into DIR/single and
// returns the files it wrote, the bytes a sharded run's merge must match.
func singleRunTree(t *testing.T, dir string, args []string) map[string][]byte {
	t.Helper()
	single := filepath.Join(dir, "single")
	if code, _, stderr := run(t, append(args, "--out", single)...); code != 0 {
		t.Fatalf("single: exit %d: %s", code, stderr)
	}
	return readTree(t, single)
}

// readCSVRows reads a whole CSV file the command wrote, its header first.
func readCSVRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
