package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bare name is an embedded scenario's, and no argument is the embedded
// default, whatever the folder holds; a name that is both an embedded
// scenario and a file here is refused instead of guessed. A file called
// mm1 holding md1's model once ran in place of the embedded mm1 without a
// word, and a folder called trip (a sweep's --out) broke every command
// run without a scenario.
func TestABareNameIsNeverReadFromTheFolderUnasked(t *testing.T) {
	md1, err := os.ReadFile("../../scenarios/md1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mm1"), md1, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "trip"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	short := []string{"--set", "duration=2000s", "--set", "warmup=0s"}

	code, _, stderr := run(t, append([]string{"run", "mm1"}, short...)...)
	want := `capsim: "mm1" is both an embedded scenario and a file here: write ./mm1 for the file, ` +
		"or run from another folder for the embedded one\n"
	if code != 2 || stderr != want {
		t.Errorf("run mm1: exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
	for _, c := range []struct {
		args  []string
		first string
	}{
		{[]string{"run", "./mm1"}, "scenario md1 "},
		{[]string{"run"}, "scenario trip "},
		{[]string{"run", "trip"}, "scenario trip "},
	} {
		code, stdout, stderr := run(t, append(c.args, short...)...)
		if code != 0 || !strings.HasPrefix(stdout, c.first) {
			t.Errorf("%v: exit %d, stdout begins %.40q (stderr %q); want 0, %q", c.args, code, stdout, stderr, c.first)
		}
	}
}
