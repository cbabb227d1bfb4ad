package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command's exit code for each kind of outcome is the one docs/cli.md
// gives: 0 done, 1 I/O (a path that cannot be written), 2 bad usage or bad
// input (a flag, a scenario or a data file that needs fixing).
func TestExitCodesFollowTheTable(t *testing.T) {
	dir := t.TempDir()
	aFile := filepath.Join(dir, "file")
	junk := filepath.Join(dir, "junk.csv")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(junk, []byte("junk,,\nx,y,z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unwritable := filepath.Join(aFile, "sub") // under a file: no folder can be made there
	shop := "testdata/check/shop.yaml"
	recorded := "--set duration=240s --multiplier 2 --access testdata/check/recorded/access.log.gz " +
		"--app testdata/check/recorded/app.jsonl.gz --app testdata/check/recorded/client.jsonl.gz"
	cases := []struct {
		kind string
		args string
		want int
	}{
		{"success", "run mm1 --set duration=60s --set warmup=0s", exitOK},
		{"bad usage", "run mm1 --seed -1", exitUsage},
		{"bad input", "run testdata/bad/negative.yaml", exitUsage},
		{"I/O", "run mm1 --set duration=60s --set warmup=0s --trace " + filepath.Join(unwritable, "t.jsonl"), exitError},

		{"success", "sweep mm1 --set duration=60s --set warmup=0s -r 1 --multipliers 1 --refine 0 --out " + filepath.Join(dir, "sweep"), exitOK},
		{"bad usage", "sweep mm1 --replications 0", exitUsage},
		{"bad input", "sweep testdata/bad/negative.yaml", exitUsage},
		{"I/O", "sweep mm1 --set duration=60s --set warmup=0s -r 1 --multipliers 1 --refine 0 --out " + unwritable, exitError},

		{"bad usage", "sensitivity --delat 5%", exitUsage},
		{"bad input", "sensitivity testdata/bad/negative.yaml", exitUsage},
		{"I/O", "sensitivity mm1 --out " + unwritable, exitError},

		{"success", "calibrate testdata/calibrate/app.jsonl --column exec_ms --unit ms", exitOK},
		{"bad usage", "calibrate", exitUsage},
		{"bad input", "calibrate " + junk, exitUsage},
		{"I/O", "calibrate testdata/calibrate/app.jsonl --column exec_ms --unit ms --out " + filepath.Join(unwritable, "f.yaml"), exitError},

		{"success", "check " + shop + " " + recorded, exitOK},
		{"bad usage", "check --replications x", exitUsage},
		{"bad input", "check " + shop + " --app " + junk, exitUsage},
		{"I/O", "check " + shop + " " + recorded + " --out " + unwritable, exitError},

		{"success", "validate mm1", exitOK},
		{"bad usage", "validate", exitUsage},
		{"bad input", "validate testdata/bad/negative.yaml", exitUsage},

		{"success", "scenarios", exitOK},
		{"bad usage", "scenarios shwo", exitUsage},
		{"success", "version", exitOK},
		{"bad usage", "version 2", exitUsage},
		{"success", "completion zsh", exitOK},
		{"bad usage", "completion zsh2", exitUsage},
		{"bad usage", "rnu", exitUsage},
	}
	for _, c := range cases {
		code, _, stderr := run(t, strings.Fields(c.args)...)
		if code != c.want {
			first, _, _ := strings.Cut(stderr, "\n")
			t.Errorf("%s: capsim %s exits %d, want %d (%s)", c.kind, c.args, code, c.want, first)
		}
	}
}
