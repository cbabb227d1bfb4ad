package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's examples are executed, so they stay true: the first run's
// printed summary is capsim's output byte for byte, and the scenario shown
// in the language section loads, compiles and runs with its design.
func readmeBlock(t *testing.T, after, fence string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, after)
	if i < 0 {
		t.Fatalf("README has no %q", after)
	}
	s = s[i:]
	start := strings.Index(s, "```"+fence+"\n")
	if start < 0 {
		t.Fatalf("README has no ```%s block after %q", fence, after)
	}
	s = s[start+len("```"+fence+"\n"):]
	return s[:strings.Index(s, "```")]
}

func TestReadmeFirstRunIsWhatCapsimPrints(t *testing.T) {
	block := readmeBlock(t, "## A first run", "")
	cmdLine, want, _ := strings.Cut(block, "\n")
	if cmdLine != "$ capsim run mmc" {
		t.Fatalf("the block starts with %q", cmdLine)
	}
	code, got, _ := run(t, "run", "mmc")
	if code != 0 || got != want {
		t.Errorf("README shows:\n%s\ncapsim prints:\n%s", want, got)
	}
}

func TestReadmeScenarioRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(path, []byte(readmeBlock(t, "## The scenario language", "yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "validate", path); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "run", path, "--design", "bigger-db")
	if code != 0 || !strings.Contains(stdout, "checkout") {
		t.Fatalf("run: exit %d: %s%s", code, stdout, stderr)
	}
}
