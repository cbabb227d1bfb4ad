package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A null device is a character device but no terminal: progress written
// to 2>/dev/null is not drawn, and neither is progress written to a file.
func TestNullDeviceIsNoTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if isTerminal(null) || isTerminal(file) {
		t.Fatalf("terminal: %s %v, a file %v", os.DevNull, isTerminal(null), isTerminal(file))
	}
}
