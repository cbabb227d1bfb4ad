package main

import (
	"os"
	"path/filepath"
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
			if code != c.code || stderr != c.want {
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
