//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// An --out through a symlink that leads nowhere is refused before any run:
// the staged folder could not be renamed over the symlink, so the sweep
// would run to the end and then fail. A symlink to a folder is followed:
// the folder is replaced, the symlink stays.
func TestSweepOutThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	names := func() []string {
		entries, err := os.ReadDir(dir)
		must(err)
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		return got
	}
	sweep := func(out string) (int, string, string) {
		return run(t, "sweep", "mmc", "--multipliers", "1", "--replications", "1", "--refine", "0", "--out", out, "-q")
	}
	dangling := filepath.Join(dir, "dangling")
	chain := filepath.Join(dir, "chain")
	loop := filepath.Join(dir, "loop")
	must(os.Symlink("nowhere", dangling))
	must(os.Symlink("dangling", chain))
	must(os.Symlink("loop2", loop))
	must(os.Symlink("loop", filepath.Join(dir, "loop2")))
	before := names()
	for _, c := range []struct{ out, want string }{
		{dangling, "--out " + dangling + ": the symlink " + dangling + " leads to " + filepath.Join(dir, "nowhere") +
			", which does not exist; create that folder, or name another --out"},
		{chain, "--out " + chain + ": the symlink " + chain + " leads to " + filepath.Join(dir, "nowhere") +
			", which does not exist; create that folder, or name another --out"},
		{filepath.Join(dangling, "sub"), "--out " + filepath.Join(dangling, "sub") + ": the symlink " + dangling + " leads to " +
			filepath.Join(dir, "nowhere") + ", which does not exist; create that folder, or name another --out"},
		{loop, "--out " + loop + ": the symlink " + loop + " leads nowhere: too many levels of symbolic links; name a folder, or a symlink to one"},
	} {
		code, stdout, stderr := sweep(c.out)
		if want := "capsim: " + c.want + "\n"; code != exitUsage || stdout != "" || stderr != want {
			t.Errorf("--out %s: exit %d, stdout %q, stderr:\n%s\nwant exit %d, stderr:\n%s", c.out, code, stdout, stderr, exitUsage, want)
		}
	}
	if got := names(); !slices.Equal(got, before) {
		t.Errorf("the refused sweeps left %v, want %v", got, before)
	}

	// Twice into a symlink to a folder: the second replaces the first's
	// folder, and the symlink still names it.
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	must(os.Mkdir(real, 0o755))
	must(os.Symlink("real", link))
	for i := range 2 {
		if code, _, stderr := sweep(link); code != exitOK {
			t.Fatalf("sweep %d into a symlink to a folder: exit %d, %s", i+1, code, stderr)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("sweep %d replaced the symlink: %v", i+1, err)
		}
		if dest, _ := os.Readlink(link); dest != "real" {
			t.Errorf("sweep %d: the symlink leads to %s, want real", i+1, dest)
		}
		if _, err := os.Stat(filepath.Join(real, "runs.csv")); err != nil {
			t.Errorf("sweep %d: %v", i+1, err)
		}
	}
	want := append(slices.Clone(before), "link", "real")
	slices.Sort(want)
	if got := names(); !slices.Equal(got, want) {
		t.Errorf("the sweeps left %v, want %v", got, want)
	}
}
