//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"capsim/model"
)

// Only regular files are read, and at most model.MaxFileSize of one: a
// device would be read until memory runs out and a named pipe would block
// forever. The files a scenario names stay inside its folder, symlinks
// resolved.
func TestOnlyRegularFilesInsideTheFolderAreRead(t *testing.T) {
	dir := t.TempDir()
	scenario := func(name, extra, work string) string {
		p := filepath.Join(dir, name)
		src := "name: s\nduration: 1h\n" + extra + "components:\n  app: {kind: pool, servers: 1}\n" +
			"journeys:\n  j:\n    rate: 1/h\n    steps: [{use: app, work: " + work + "}]\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))
	must(os.Symlink("/dev/urandom", filepath.Join(dir, "random.csv")))
	must(os.MkdirAll(filepath.Join(dir, "fits"), 0o755))
	must(os.Symlink("../../../../../../../../etc", filepath.Join(dir, "fits", "etc")))
	big, err := os.Create(filepath.Join(dir, "big.yaml"))
	must(err)
	must(big.Truncate(model.MaxFileSize + 1))
	must(big.Close())
	const rule = "a scenario names its files by relative paths inside its folder, and a symlink among them must lead inside it too"
	regular := ", not a regular file; capsim reads scenarios and the files they name only from regular files"
	cases := []struct{ arg, want string }{
		{"/dev/zero", "/dev/zero: a device" + regular},
		{filepath.Join(dir, "fifo.yaml"), dir + "/fifo.yaml: a named pipe" + regular},
		{filepath.Join(dir, "big.yaml"), dir + "/big.yaml: larger than 64 MB, the most capsim reads of a scenario or a file it names"},
		{scenario("pipe_include.yaml", "include: [pipe.yaml]\n", "1s"), dir + "/pipe_include.yaml:3:11: include[0]: cannot read pipe.yaml: a named pipe" + regular},
		{scenario("zero_include.yaml", "include: [zero.yaml]\n", "1s"), dir + "/zero_include.yaml:3:11: include[0]: cannot read zero.yaml: the symlink zero.yaml leads to /dev/zero, outside the scenario's folder; " + rule},
		{scenario("random.yaml", "", "empirical(file=random.csv)"), dir + "/random.yaml:8:13: journeys.j.steps[0].work: empirical: cannot read random.csv: the symlink random.csv leads to /dev/urandom, outside the scenario's folder; " + rule},
		{scenario("passwd.yaml", "include: [fits/etc/passwd]\n", "1s"), dir + "/passwd.yaml:3:11: include[0]: cannot read fits/etc/passwd: the symlink fits/etc leads to ../../../../../../../../etc, outside the scenario's folder; " + rule},
		{"testdata/hostile/include_outside.yaml", "testdata/hostile/include_outside.yaml:3:11: include[0]: ../calibration.yaml is outside the scenario's folder; " + rule},
		{"testdata/hostile/include_absolute.yaml", "testdata/hostile/include_absolute.yaml:4:5: include[0]: /etc/passwd is an absolute path; " + rule},
		{"testdata/hostile/empirical_outside.yaml", "testdata/hostile/empirical_outside.yaml:8:30: journeys.j.steps[0].work: empirical: data/../../x.csv is outside the scenario's folder; " + rule},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.arg), func(t *testing.T) {
			code, stdout, stderr := run(t, "run", tc.arg)
			if code != exitUsage || stdout != "" || stderr != "capsim: "+tc.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\ncapsim: %s", code, stdout, stderr, tc.want)
			}
		})
	}
	// The other commands that read files: calibrate reads a pipe (a log
	// through <(zcat ...)) but no device; figures and shards are files.
	pipe := filepath.Join(dir, "pipe.yaml")
	others := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"calibrate", "/dev/zero", "--column", "value", "--name", "x"}, exitUsage, "cannot read /dev/zero: a device, not a file or a pipe"},
		{[]string{"calibrate", "figures", "/dev/zero"}, exitUsage, "cannot read /dev/zero: a device, not a regular file"},
		{[]string{"calibrate", "figures", pipe}, exitUsage, "cannot read " + pipe + ": a named pipe, not a regular file"},
		{[]string{"sweep", "mmck", "--merge", pipe, "--out", filepath.Join(dir, "out")}, exitUsage, "--merge: cannot read " + pipe + ": a named pipe, not a regular file"},
		// check reads each log twice (for doubled lines, then its records):
		// a device never ended and a pipe blocked, past an interrupt.
		{[]string{"check", "testdata/check/shop.yaml", "--app", "/dev/zero"}, exitUsage, "cannot read /dev/zero: a device, not a regular file"},
		{[]string{"check", "testdata/check/shop.yaml", "--access", pipe}, exitUsage, "cannot read " + pipe + ": a named pipe, not a regular file"},
		{[]string{"check", "testdata/check/shop.yaml", "--app", dir}, exitUsage, "cannot read " + dir + ": a folder, not a regular file"},
	}
	for _, tc := range others {
		code, _, stderr := run(t, tc.args...)
		if code != tc.code || stderr != "capsim: "+tc.want+"\n" {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant:\ncapsim: %s", tc.args, code, stderr, tc.want)
		}
	}
}

// Outputs are committed whole and never replace what they must not: a
// sweep's folder is swapped in as one set (no file of an earlier sweep
// stays), a folder with other files or one another sweep holds is refused,
// a trace replaces neither a device, a symlink nor an input, and the
// temporaries a killed capsim left are cleaned on the next run.
func TestOutputsAreCommittedWholeAndInPlace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	sweep := func(extra ...string) (int, string) {
		t.Helper()
		args := append([]string{"sweep", "testdata/hostile/two_designs.yaml", "-r", "2", "-m", "1,2", "--refine", "0", "--out", out}, extra...)
		code, _, stderr := run(t, args...)
		return code, stderr
	}
	exists := func(name string) bool {
		_, err := os.Lstat(name)
		return err == nil
	}
	// A killed sweep's staging folder and a killed run's temporary file.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, ".out.tmp-123", "charts"), 0o755))
	must(os.WriteFile(filepath.Join(dir, ".real.jsonl.tmp-456"), []byte("half"), 0o644))

	if code, stderr := sweep(); code != 0 || !exists(filepath.Join(out, "compare.csv")) || exists(filepath.Join(dir, ".out.tmp-123")) {
		t.Fatalf("first sweep: exit %d, %s; compare.csv %v, stale staging folder left %v", code, stderr,
			exists(filepath.Join(out, "compare.csv")), exists(filepath.Join(dir, ".out.tmp-123")))
	}
	// A temporary a killed sweep left inside the folder goes with it.
	must(os.WriteFile(filepath.Join(out, ".runs.csv.tmp-789"), []byte("half"), 0o644))
	if code, stderr := sweep("--designs", "big"); code != 0 || exists(filepath.Join(out, "compare.csv")) || exists(filepath.Join(out, ".runs.csv.tmp-789")) {
		t.Errorf("one-design sweep: exit %d, %s; the earlier sweep's compare.csv left: %v", code, stderr, exists(filepath.Join(out, "compare.csv")))
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("folder mode %v, %v; want 0755", st.Mode(), err)
	}

	// The lock file goes when the sweep ends; one held by another sweep
	// refuses this one.
	if exists(filepath.Join(dir, ".out.lock")) {
		t.Errorf("the sweep left its lock file behind")
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".out.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	must(err)
	must(syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))
	code, stderr := sweep()
	want := "capsim: --out " + out + ": another sweep is writing this folder (it holds " + filepath.Join(dir, ".out.lock") + "); wait for it, or choose another --out\n"
	if code != exitUsage || stderr != want {
		t.Errorf("locked: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	lock.Close()

	must(os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644))
	code, stderr = sweep()
	want = "capsim: --out " + out + " holds files a sweep does not write (notes.txt); a sweep replaces its folder whole, so name a new or empty folder, or one a sweep wrote\n"
	if code != exitUsage || stderr != want || !exists(filepath.Join(out, "notes.txt")) {
		t.Errorf("foreign file: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}

	// Names that look like a sweep's are no sign of one: a folder
	// without the marker a sweep writes is not replaced.
	mine := filepath.Join(dir, "mine")
	must(os.MkdirAll(filepath.Join(mine, "charts"), 0o755))
	must(os.WriteFile(filepath.Join(mine, "runs.csv"), []byte("my own"), 0o644))
	code, _, stderr = run(t, "sweep", "testdata/hostile/two_designs.yaml", "-r", "2", "--refine", "0", "--out", mine)
	want = "capsim: --out " + mine + " is a folder capsim did not write (it has no .capsim-output); a sweep replaces its folder whole, so name a new or empty folder, or one a sweep wrote\n"
	if data, _ := os.ReadFile(filepath.Join(mine, "runs.csv")); code != exitUsage || stderr != want || string(data) != "my own" {
		t.Errorf("a look-alike folder: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	// A commit killed between its two renames leaves the old folder set
	// aside and none in its place: the next command puts it back rather
	// than deleting the only copy.
	must(os.Remove(filepath.Join(out, "notes.txt")))
	aside := filepath.Join(dir, ".out.tmp-999.old")
	must(os.Rename(out, aside))
	removeStale(out)
	if !exists(filepath.Join(out, "runs.csv")) || exists(aside) {
		t.Errorf("the folder set aside was not put back: runs.csv %v, aside left %v", exists(filepath.Join(out, "runs.csv")), exists(aside))
	}

	// The folder capsim runs in is never replaced.
	wd, _ := os.Getwd()
	code, _, stderr = run(t, "sweep", "testdata/hostile/two_designs.yaml", "-r", "2", "--out", ".")
	if want := "capsim: --out . is the folder capsim runs in, or holds it; a sweep replaces its folder whole, so name a folder of its own\n"; code != exitUsage || stderr != want {
		t.Errorf("--out .: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(wd); err != nil {
		t.Fatalf("the working folder is gone: %v", err)
	}

	// A name too long for the staging folder fails before any run, and
	// the folder of that name, if any, stays as it was.
	long := filepath.Join(dir, strings.Repeat("x", 250))
	code, _, stderr = run(t, "sweep", "testdata/hostile/two_designs.yaml", "-r", "2", "--out", long)
	want = "capsim: --out " + long + ": cannot write in " + dir + ": file name too long\n"
	if code != exitError || stderr != want {
		t.Errorf("long name: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}

	trace := []string{"run", "testdata/hostile/two_designs.yaml", "--trace"}
	real := filepath.Join(dir, "real.jsonl")
	link := filepath.Join(dir, "trace.jsonl")
	must(os.WriteFile(real, nil, 0o644))
	must(os.Symlink("real.jsonl", link))
	if code, _, stderr := run(t, append(trace, link)...); code != 0 {
		t.Fatalf("symlink: exit %d, %s", code, stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v, %v", st.Mode(), err)
	}
	if st, err := os.Stat(real); err != nil || st.Size() == 0 {
		t.Errorf("the file the symlink names was not written: %v", err)
	}
	if exists(filepath.Join(dir, ".real.jsonl.tmp-456")) {
		t.Errorf("a stale temporary of the trace was left")
	}
	if code, _, stderr := run(t, append(trace, os.DevNull)...); code != 0 {
		t.Errorf("%s: exit %d, %s", os.DevNull, code, stderr)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Errorf("%s is no longer a device: %v, %v", os.DevNull, st.Mode(), err)
	}
	for _, tc := range []struct{ target, want string }{
		{"testdata/hostile/two_designs.yaml", "--trace testdata/hostile/two_designs.yaml: it is testdata/hostile/two_designs.yaml, an input of this command; name another file"},
		{"./testdata/hostile/../hostile/two_designs.yaml", "--trace ./testdata/hostile/../hostile/two_designs.yaml: it is testdata/hostile/two_designs.yaml, an input of this command; name another file"},
		{dir, "cannot write " + dir + ": it is a folder; name a file"},
	} {
		code, _, stderr := run(t, append(trace, tc.target)...)
		if want := "capsim: " + tc.want + "\n"; code == 0 || stderr != want {
			t.Errorf("--trace %s: exit %d, stderr:\n%s\nwant:\n%s", tc.target, code, stderr, want)
		}
	}
	if data, _ := os.ReadFile("testdata/hostile/two_designs.yaml"); !strings.HasPrefix(string(data), "name: two\n") {
		t.Errorf("the scenario was overwritten")
	}
	// calibrate's fragment is updated in place, but never over an input.
	figures := "testdata/hostile/figures_huge_cv.yaml"
	code, _, stderr = run(t, "calibrate", "figures", figures, "--out", figures)
	if want := "capsim: --out " + figures + ": it is " + figures + ", an input of this command; name another file\n"; code != exitUsage || stderr != want {
		t.Errorf("calibrate --out: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// An interrupt that comes while a sweep writes its files leaves the
// earlier folder as it was and exits 130: the user asked to stop.
func TestAnInterruptDuringTheWriteKeepsTheOldFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"sweep", "testdata/hostile/two_designs.yaml", "-r", "2", "-m", "1", "--refine", "0", "--out", out}
	if code, _, stderr := run(t, args...); code != 0 {
		t.Fatalf("first sweep: exit %d, %s", code, stderr)
	}
	before, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
	interrupted.Store(true)
	defer interrupted.Store(false)
	code, _, stderr := run(t, append(args[:len(args)-4], "-m", "2", "--out", out)...)
	after, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
	if code != exitInterrupt || !strings.HasSuffix(stderr, "\ncapsim: interrupted; "+out+" left as it was\n") || string(after) != string(before) {
		t.Errorf("exit %d, stderr %q; summary.csv kept: %v", code, stderr, string(after) == string(before))
	}
}

// calibrate reads a pipe (a log through <(zcat ...)) once: telling a k6
// summary apart from values once read it to its end, and the fit then
// found it empty ("is empty", exit 2), or blocked on a named pipe's open.
func TestCalibrateReadsAPipeOnce(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("latency_ms\n120\n80\n95\n110\n")
	w.Close()
	// The path a process substitution gives: each open is the same pipe.
	name := fmt.Sprintf("/dev/fd/%d", r.Fd())
	code, stdout, stderr := run(t, "calibrate", name, "--out", "-")
	if code != exitOK || !strings.Contains(stdout, "n: 4\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and 4 values fitted", code, stdout, stderr)
	}
}
