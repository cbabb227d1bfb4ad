//go:build unix

package main

import (
	"os"
	"path/filepath"
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
}
