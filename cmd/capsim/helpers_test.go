package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
