package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder stands in for a test, keeping what Check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...) }
func (r *recorder) Fatal(a ...any)                 { r.errs = append(r.errs, fmt.Sprint(a...)) }

// goldenFile writes a golden file named name holding content in a fresh
// folder, and a recorder to check it with. A test of the comparison is
// skipped under -update, which replaces the comparison.
func goldenFile(t *testing.T, name, content string) (string, *recorder) {
	t.Helper()
	if *update {
		t.Skip("checks the comparison, which -update replaces")
	}
	path := filepath.Join(t.TempDir(), name)
	os.WriteFile(path, []byte(content), 0o644)
	return path, &recorder{TB: t}
}

// A mismatch names the first differing line and keeps the whole output
// beside the golden; a later match removes that file again.
func TestCheckKeepsTheOutputOfAMismatch(t *testing.T) {
	path, r := goldenFile(t, "x.golden", "a\nb\nc\n")
	Check(r, path, []byte("a\nB\nc\n"))
	want := "output differs from " + path + " (all of it is in " + path + ".got; go test -update accepts it)\n" +
		"line 2:\n  got  \"B\\n\"\n  want \"b\\n\""
	if len(r.errs) != 1 || r.errs[0] != want {
		t.Fatalf("reported %q, want %q", r.errs, want)
	}
	if kept, _ := os.ReadFile(path + ".got"); string(kept) != "a\nB\nc\n" {
		t.Errorf(".got holds %q", kept)
	}
	r.errs = nil
	Check(r, path, []byte("a\nb\nc\n"))
	if _, err := os.Stat(path + ".got"); len(r.errs) != 0 || err == nil {
		t.Errorf("a match reported %q and left .got (stat: %v)", r.errs, err)
	}
}

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nc\n", "line 2:\n  got  \"c\\n\"\n  want \"b\\n\""},
		{"a\nb\n", "a\n", "line 2:\n  got  the end of the file\n  want \"b\\n\""},
		{"a\n", "a\nb\n", "line 2:\n  got  \"b\\n\"\n  want the end of the file"},
		{"a\n", "a", "line 1:\n  got  \"a\"\n  want \"a\\n\""},
	} {
		if d := firstDifference([]byte(c.want), []byte(c.got)); d != c.diff {
			t.Errorf("want %q, got %q:\n%s\nexpected:\n%s", c.want, c.got, d, c.diff)
		}
	}
}

// A rewrite leaves no temporary file behind and an ordinary file mode.
func TestWriteFileReplacesInOneStep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	os.WriteFile(path, []byte("old"), 0o600)
	if err := writeFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	data, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if len(entries) != 1 || string(data) != "new" || st.Mode().Perm() != 0o644 {
		t.Errorf("entries %v, content %q, mode %v", entries, data, st.Mode())
	}
	if strings.Contains(entries[0].Name(), ".tmp-") {
		t.Errorf("temporary file left: %s", entries[0].Name())
	}
}

// CheckBelow compares only what follows the marker, so the hand-written
// text above it may change freely; a page without the marker is refused.
func TestCheckBelowKeepsTheTextAboveTheMarker(t *testing.T) {
	path, r := goldenFile(t, "page.md", "by hand\n<!-- below -->\ngenerated\n")
	CheckBelow(r, path, "<!-- below -->\n", []byte("generated\n"))
	CheckBelow(r, path, "<!-- gone -->\n", []byte("generated\n"))
	if want := path + ` has no line "<!-- gone -->"`; len(r.errs) != 1 || r.errs[0] != want {
		t.Errorf("reported %q, want %q", r.errs, want)
	}
}

// TableKeys reads the one table its header names, to its last row, and
// keeps each row's backquoted key without the value written after it.
func TestTableKeysReadsOneTable(t *testing.T) {
	const page = "# Page\n\n| kind | keys |\n| --- | --- |\n| `pool` | servers |\n| `lock: {}` | none |\n" +
		"| not a key | x |\n\nafter\n\n| verb | meaning |\n| --- | --- |\n| `use` | holds |\n"
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	for header, want := range map[string]string{"| kind |": "pool lock", "| verb |": "use"} {
		if got := strings.Join(TableKeys(t, path, header), " "); got != want {
			t.Errorf("table %s: got %q, want %q", header, got, want)
		}
	}
}
