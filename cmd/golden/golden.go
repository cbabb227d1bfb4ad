// Package golden compares test output with files checked in under testdata,
// and rewrites those files when the tests run with -update:
//
//	go test ./... -update
//
// Only commit a regenerated golden whose change you understand.
//
// Goldens pin exact bytes on the architecture CI runs on. The tests print
// numbers to a precision that absorbs the last-bit differences fused
// multiply-add can make on others, rather than keeping a golden per
// architecture.
//
// CheckLines compares lines of output with the lines wanted, and TableKeys
// reads the keys a reference page's table lists, for the tests that hold
// such tables to the registries in the code.
//
// Only tests import it. It sits under cmd/ because it writes files, which
// code under sim/, model/ and plots/ may not do, and because an internal
// package would be hidden from the tests of the other top-level
// directories. Packages with no golden files import it for its flag alone,
// so that every package accepts -update.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files (only commit them if you understand why they changed)")

// Updating says whether the tests run with -update: a test that keeps
// generated text inside a larger file (a table in a page) rewrites its
// part itself.
func Updating() bool { return *update }

// Check compares got with the golden file at path and fails t when they
// differ, naming the first line that does and writing got to path+".got"
// for a full diff. With -update it writes got to path instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	gotPath := path + ".got"
	if *update {
		if err := writeFile(path, got); err != nil {
			t.Fatal(err)
		}
		os.Remove(gotPath)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if bytes.Equal(got, want) {
		os.Remove(gotPath) // a mismatch fixed since
		return
	}
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Errorf("output differs from %s, and could not be kept: %v\n%s", path, err, firstDifference(want, got))
		return
	}
	t.Errorf("output differs from %s (all of it is in %s; go test -update accepts it)\n%s", path, gotPath, firstDifference(want, got))
}

// CheckBelow is Check of the part of the file at path below marker, for
// a page whose text above marker is written by hand: that text is kept as
// it stands, and got is what must follow the marker.
func CheckBelow(t testing.TB, path, marker string, got []byte) {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
		return
	}
	above, _, ok := strings.Cut(string(page), marker)
	if !ok {
		t.Fatalf("%s has no line %q", path, strings.TrimSpace(marker))
		return
	}
	Check(t, path, append([]byte(above+marker), got...))
}

// TableKeys returns the keys a Markdown table of the file at path lists:
// the backquoted name that opens each row's first cell, without its
// backquotes or any value after the name, of the table whose header line
// starts with header. Tests hold the reference pages' tables to the code's
// registries with it.
func TableKeys(t testing.TB, path, header string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
		return nil
	}
	var rows []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, header):
			in = true
		case in && !strings.HasPrefix(line, "|"):
			return rows
		case in:
			if m := tableKey.FindStringSubmatch(line); m != nil {
				rows = append(rows, m[1])
			}
		}
	}
	return rows
}

var tableKey = regexp.MustCompile("^\\| `([a-z_]+)")

// CheckLines fails the test unless the lines got are the lines want,
// reporting both, each joined by newlines, through format (which takes
// got's text, then want's).
func CheckLines(t testing.TB, format string, got, want []string) {
	t.Helper()
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf(format, g, w)
	}
}

// firstDifference describes the first line where got departs from want.
func firstDifference(want, got []byte) string {
	w := bytes.SplitAfter(want, []byte("\n"))
	g := bytes.SplitAfter(got, []byte("\n"))
	i := 0
	for i < len(w) && i < len(g) && bytes.Equal(w[i], g[i]) {
		i++
	}
	return fmt.Sprintf("line %d:\n  got  %s\n  want %s", i+1, lineAt(g, i), lineAt(w, i))
}

// lineAt quotes line i, so that a difference in spaces or a missing final
// newline shows.
func lineAt(lines [][]byte, i int) string {
	if i >= len(lines) || len(lines[i]) == 0 {
		return "the end of the file"
	}
	return fmt.Sprintf("%q", lines[i])
}

// writeFile replaces path in one rename, so that a test in another package
// reading the same golden while this one is rewritten never sees half of it.
func writeFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
