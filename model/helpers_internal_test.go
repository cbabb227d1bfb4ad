package model

import (
	"os"
	"testing"
)

// Helpers for the tests inside the package, which cannot see those of
// helpers_test.go (package model_test).

// mustReadFile returns what the file at path holds (a document or a
// scenario the tests hold the code to), stopping the test if it cannot be
// read: a missing file is a broken checkout, not what the test is about.
func mustReadFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
