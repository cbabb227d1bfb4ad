package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refusal is a calibrate command that must stop with a message naming what
// to change, and the exit code of bad input.
type refusal struct {
	name  string
	files map[string]string // written into the test's folder first
	args  []string          // run in that folder
	code  int
	want  string // standard error, whole
	tail  bool   // want is the end of standard error
}

func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			code, _, stderr := run(t, c.args...)
			if code != c.code || stderr != c.want && !(c.tail && strings.HasSuffix(stderr, c.want)) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, c.code, c.want)
			}
		})
	}
}

const refuseApp = `{"time":"2026-11-30T09:00:00.000Z","event":"batch_originals_saved","request_id":"r1","photos":3}
{"time":"2026-11-30T09:00:02.000Z","event":"result_persist","request_id":"r1","hold_ms":40}
{"time":"2026-11-30T09:00:03.000Z","event":"batch_originals_saved","request_id":"r2","photos":1}
{"time":"2026-11-30T09:00:04.500Z","event":"result_persist","request_id":"r2","hold_ms":35}
`

const refuseSplit = `  upload:
    from: app
    key: request_id
    pairs: {from: batch_originals_saved, to: result_persist}
    expr: to.time - from.time
    per: from.photos
`

// TestCalibratePlanSplitNamesClash: an entry split per item writes
// NAME_base and NAME_per_item; another entry of either name would replace
// one of them in the fragment.
func TestCalibratePlanSplitNamesClash(t *testing.T) {
	head := "sources:\n  app: {file: app.jsonl}\nmeasured:\n"
	base := "  upload_base: {from: app, where: event == result_persist, expr: hold_ms}\n"
	checkRefusals(t, []refusal{
		{name: "after", files: map[string]string{"app.jsonl": refuseApp, "p.yaml": head + refuseSplit + base},
			args: []string{"calibrate", "plan", "p.yaml", "--out", "-"}, code: exitUsage,
			want: "capsim: p.yaml:10:3: upload_base is listed twice: upload (line 4) has per:, which writes upload_base and upload_per_item\n"},
		{name: "before", files: map[string]string{"app.jsonl": refuseApp, "p.yaml": head + base + refuseSplit},
			args: []string{"calibrate", "plan", "p.yaml", "--out", "-"}, code: exitUsage,
			want: "capsim: p.yaml:5:3: upload: per: writes upload_base and upload_per_item, but upload_base is listed at line 4\n"},
		{name: "figures", files: map[string]string{"app.jsonl": refuseApp, "p.yaml": "figures:\n  upload_per_item: {mean: 0.5s, source: x}\n" + head + refuseSplit},
			args: []string{"calibrate", "plan", "p.yaml", "--out", "-"}, code: exitUsage,
			want: "capsim: p.yaml:6:3: upload: per: writes upload_base and upload_per_item, but upload_per_item is listed at line 2\n"},
	})
}

const refuseCSV = "latency_ms,count\n12,1\n15,2\n9,1\n"

// TestCalibrateExprNoValuesSaysWhy: an expression that gives no value
// says why, at the flag or the plan line that states it, as bad input.
func TestCalibrateExprNoValuesSaysWhy(t *testing.T) {
	files := map[string]string{"good.csv": refuseCSV, "app.jsonl": refuseApp,
		"p.yaml": "sources:\n  app: {file: app.jsonl}\nmeasured:\n  x: {from: app, where: event == result_persist, expr: hold_ms / 0}\n"}
	expr := func(e string) []string { return []string{"calibrate", "good.csv", "--expr", e, "--name", "x"} }
	checkRefusals(t, []refusal{
		{name: "zero", files: files, args: expr("latency_ms/0"), code: exitUsage,
			want: "capsim: --expr: no values: 3 records read, filter none; 3 rejected, the first at good.csv:2: division by zero\n"},
		{name: "negative", files: files, args: expr("latency_ms-1000"), code: exitUsage,
			want: "capsim: --expr: no values: 3 records read, filter none; 3 rejected, the first at good.csv:2: value -0.988s is negative beyond the rounding of its fields (0s)\n"},
		{name: "time", files: files, args: expr("time"), code: exitUsage,
			want: "capsim: --expr: time: no record of good.csv has a timestamp\n"},
		{name: "field", files: files, args: expr("nothere"), code: exitUsage,
			want: "capsim: --expr: no field nothere in good.csv (fields: latency_ms, count)\n"},
		{name: "unit", files: files, args: expr("latency_ms + count"), code: exitUsage,
			want: "capsim: --expr: the unit of count is not in its name: give --unit\n"},
		{name: "plan", files: files, args: []string{"calibrate", "plan", "p.yaml"}, code: exitUsage,
			want: "capsim: p.yaml:4: x: no values: 2 records read, filter event == result_persist; 2 rejected, the first at app.jsonl:2: division by zero\n"},
		{name: "plan field", files: map[string]string{"app.jsonl": refuseApp,
			"p.yaml": "sources:\n  app: {file: app.jsonl}\nmeasured:\n  x: {from: app, expr: hold_ms + nothere}\n"},
			args: []string{"calibrate", "plan", "p.yaml"}, code: exitUsage,
			want: "capsim: p.yaml:4: x: no field nothere in app.jsonl (fields: event, photos, request_id, time, hold_ms)\n"},
	})
}

const refuseFragment = `distributions:
  # rerun: capsim calibrate good.csv --name service --out frag.yaml
  service: {dist: constant(5ms)}
  # measured by hand on the staging box
  other: {dist: constant(5ms)} # trailing
`

// TestCalibrateRemoveAndReplace: --remove names entries the fragment has,
// each once; an entry fitted over one of the same name says it replaced it,
// and that the comments written by hand on it are gone.
func TestCalibrateRemoveAndReplace(t *testing.T) {
	files := map[string]string{"frag.yaml": refuseFragment, "good.csv": refuseCSV}
	checkRefusals(t, []refusal{
		{name: "twice", files: files, args: []string{"calibrate", "--out", "frag.yaml", "--remove", "other", "--remove", "other"}, code: exitUsage,
			want: "capsim: --remove other is given twice\n"},
		{name: "missing", files: files, args: []string{"calibrate", "--out", "frag.yaml", "--remove", "nothere"}, code: exitUsage,
			want: "capsim: --remove nothere: frag.yaml has no such entry (it has: service, other)\n"},
		{name: "replaced", files: files, args: []string{"calibrate", "good.csv", "--column", "latency_ms", "--dist", "uniform", "--name", "service", "--out", "frag.yaml"}, code: exitOK, tail: true,
			want: "(want at least 30)\nwrote frag.yaml (service replaced)\n"},
		{name: "commented", files: files, args: []string{"calibrate", "good.csv", "--column", "latency_ms", "--dist", "uniform", "--name", "other", "--out", "frag.yaml"}, code: exitOK, tail: true,
			want: "(want at least 30)\nnote: frag.yaml:5: other replaces the entry of that name, whose comments are not kept\nwrote frag.yaml (other replaced)\n"},
	})
}

// A fragment --out names whose contents do not read is input to correct,
// exit 2 as any input file that does not read (it was 1, as for I/O).
func TestCalibrateRefusesAFragmentThatDoesNotRead(t *testing.T) {
	fit := []string{"calibrate", "good.csv", "--column", "latency_ms", "--name", "x", "--out"}
	checkRefusals(t, []refusal{
		{name: "yaml", files: map[string]string{"bad.yaml": "a: [\n", "good.csv": refuseCSV}, args: append(fit, "bad.yaml"), code: exitUsage, tail: true,
			want: "capsim: bad.yaml: not a calibration fragment: line 1: did not find expected node content\n"},
		{name: "no distributions", files: map[string]string{"bad.yaml": "foo: 1\n", "good.csv": refuseCSV}, args: append(fit, "bad.yaml"), code: exitUsage, tail: true,
			want: "capsim: bad.yaml: not a calibration fragment: no top-level distributions key\n"},
		{name: "two documents", files: map[string]string{"bad.yaml": "distributions: {}\n---\nz: 1\n"}, args: []string{"calibrate", "--out", "bad.yaml", "--remove", "a"}, code: exitUsage,
			want: "capsim: bad.yaml:2:1: a second YAML document starts here; a calibration fragment is one document\n"},
	})
}

// TestCalibrateUnreadableInput: input that is not a file of records, or a
// plan source of a format not told, is a mistake to correct (exit 2), the
// plan's line named.
func TestCalibrateUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"a.txt": "<html>\n1\n",
		"p.yaml":   "sources:\n  a: {file: a.txt}\nmeasured:\n  x: {from: a, expr: v}\n",
		"dir.yaml": "sources:\n  a: {file: " + dir + "}\nmeasured:\n  x: {from: a, expr: v}\n"}
	checkRefusals(t, []refusal{
		{name: "plan format", files: files, args: []string{"calibrate", "plan", "p.yaml"}, code: exitUsage,
			want: "capsim: p.yaml:2: source a: a.txt: format not recognised; give the source a format:\n"},
		{name: "format", files: files, args: []string{"calibrate", "a.txt"}, code: exitUsage,
			want: "capsim: a.txt: format not recognised; pass --format\n"},
		{name: "folder", files: files, args: []string{"calibrate", dir}, code: exitUsage,
			want: "capsim: cannot read " + dir + ": a folder, not a file or a pipe\n"},
		{name: "plan folder", files: files, args: []string{"calibrate", "plan", "dir.yaml"}, code: exitUsage,
			want: "capsim: dir.yaml:2: source a: cannot read " + dir + ": a folder, not a file or a pipe\n"},
		{name: "stdin twice", files: files, args: []string{"calibrate", "-", "-"}, code: exitUsage,
			want: "capsim: - is given twice: standard input can be read once\n"},
		{name: "stdin twice joined", files: files, args: []string{"calibrate", "a=-", "b=-", "--expr", "a.x - b.y", "--name", "x"}, code: exitUsage,
			want: "capsim: - is given twice: standard input can be read once\n"},
	})
}
