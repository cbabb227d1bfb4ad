package main

import (
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
