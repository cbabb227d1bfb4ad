package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"capsim/model/sweep"
)

// readCSV reads a table as maps from column to value.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	rows := readCSVRows(t, path)
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// holds applies an SLO's bound as written in the CSVs.
func holds(op string, bound, v float64) bool {
	switch op {
	case "<=":
		return v <= bound
	case "<":
		return v < bound
	case ">=":
		return v >= bound
	case ">":
		return v > bound
	}
	return false
}

// Every verdict, and every first failure with its interval, rebuilds
// from verdicts.csv and first_failure.csv alone, by the rules
// docs/sweep.md states; --json says the same.
func TestSweepVerdictsRebuildFromCSVs(t *testing.T) {
	out := t.TempDir()
	js := filepath.Join(t.TempDir(), "summary.json")
	code, _, stderr := run(t, "sweep", "trip", "--designs", "v1-original,v1-improved", "--multipliers", "1,2,3",
		"--replications", "3", "--refine", "1", "--until-sure", "--max-replications", "6", "--hindcast-replications", "0",
		"--out", out, "--json", js, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type cell struct {
		mult    float64
		verdict string
	}
	cells := map[string][]cell{}
	var order []string
	rows := readCSV(t, filepath.Join(out, "verdicts.csv"))
	for i := 0; i < len(rows); {
		r := rows[i]
		design, mult := r["design"], num(t, r["multiplier"])
		n, stopped := num(t, r["n"]), num(t, r["runs_stopped"])
		anyBroken, allClear, clearFail := false, true, false
		for ; i < len(rows) && rows[i]["design"] == design && num(t, rows[i]["multiplier"]) == mult; i++ {
			s := rows[i]
			b, v, lo, hi := num(t, s["slo_bound"]), num(t, s["value"]), num(t, s["ci_low"]), num(t, s["ci_high"])
			broken := math.IsNaN(v) || !holds(s["slo_op"], b, v)
			clear := math.IsNaN(v) || !math.IsNaN(lo) && holds(s["slo_op"], b, lo) == !broken && holds(s["slo_op"], b, hi) == !broken
			if strconv.FormatBool(broken) != s["broken"] || strconv.FormatBool(clear) != s["clear"] {
				t.Errorf("%s %gx %s: broken %v clear %v, the row says %s %s", design, mult, s["slo"], broken, clear, s["broken"], s["clear"])
			}
			anyBroken, allClear, clearFail = anyBroken || broken, allClear && clear, clearFail || broken && clear
		}
		v := "pass~"
		switch {
		case clearFail || n > 0 && stopped == n:
			v = "fail"
		case anyBroken || stopped > 0:
			v = "fail~"
		case allClear:
			v = "pass"
		}
		if v != r["verdict"] {
			t.Errorf("%s %gx: rebuilt verdict %s, the CSV says %s", design, mult, v, r["verdict"])
		}
		if !slices.Contains(order, design) {
			order = append(order, design)
		}
		cells[design] = append(cells[design], cell{mult, v})
	}
	var doc sweep.Export
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	ffs := readCSV(t, filepath.Join(out, "first_failure.csv"))
	if len(ffs) != len(order) || len(doc.Designs) != len(order) {
		t.Fatalf("%d first failures, %d designs in JSON, %d in verdicts.csv", len(ffs), len(doc.Designs), len(order))
	}
	for i, ff := range ffs {
		cs := cells[ff["design"]]
		est, lo, hi := math.NaN(), math.NaN(), math.NaN()
		for _, c := range cs {
			if math.IsNaN(est) && (c.verdict == "fail" || c.verdict == "fail~") {
				est = c.mult
			}
		}
		for _, c := range cs {
			if c.mult < est && c.verdict == "pass" {
				lo = c.mult
			}
			if c.mult >= est && c.verdict == "fail" && math.IsNaN(hi) {
				hi = c.mult
			}
		}
		want := map[bool]string{true: "true", false: "false"}
		if got := num(t, ff["first_failure_multiplier"]); got != est && !(math.IsNaN(got) && math.IsNaN(est)) {
			t.Errorf("%s: first failure %v, rebuilt %v", ff["design"], got, est)
		}
		if ff["status"] == "held" {
			if !math.IsNaN(est) || ff["ci_low"] != "" || ff["ci_high"] != "" {
				t.Errorf("%s held, but rebuilt %v, CSV %q–%q", ff["design"], est, ff["ci_low"], ff["ci_high"])
			}
		} else if ff["ci_low_known"] != want[!math.IsNaN(lo)] || !math.IsNaN(lo) && num(t, ff["ci_low"]) != lo || math.IsNaN(lo) && ff["ci_low"] != "0" {
			t.Errorf("%s: ci_low %s (known %s), rebuilt %v", ff["design"], ff["ci_low"], ff["ci_low_known"], lo)
		}
		if ff["status"] != "held" && (ff["ci_high_known"] != want[!math.IsNaN(hi)] || !math.IsNaN(hi) && num(t, ff["ci_high"]) != hi || math.IsNaN(hi) && ff["ci_high"] != "inf") {
			t.Errorf("%s: ci_high %s (known %s), rebuilt %v", ff["design"], ff["ci_high"], ff["ci_high_known"], hi)
		}
		var tried []string
		for _, c := range cs {
			tried = append(tried, sweep.FormatMultiplier(c.mult))
		}
		if got := ff["multipliers_tried"]; got != joinSpace(tried) {
			t.Errorf("%s: multipliers_tried %q, verdicts.csv has %q", ff["design"], got, joinSpace(tried))
		}
		d := doc.Designs[i]
		if d.Design != ff["design"] || d.RankText != ff["rank"] || len(d.Cells) != len(cs) {
			t.Errorf("JSON design %s rank %s cells %d; CSV %s rank %s cells %d", d.Design, d.RankText, len(d.Cells), ff["design"], ff["rank"], len(cs))
		}
		if d.Broken != nil && (d.Broken.Measure != ff["slo_measure"] || d.Broken.Metric != ff["slo_metric"]) {
			t.Errorf("JSON SLO %s %s, CSV %s %s", d.Broken.Measure, d.Broken.Metric, ff["slo_measure"], ff["slo_metric"])
		}
	}
	if doc.UntilSure == nil || doc.UntilSure.Looks != 2 || doc.VerdictLevel != 1-0.05/2 {
		t.Errorf("JSON until_sure %+v, verdict level %v", doc.UntilSure, doc.VerdictLevel)
	}
}

func joinSpace(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// --require fails only when the named design breaks an SLO at or below
// its multiplier; --fail-on-slo alone fails on any design anywhere.
func TestSweepRequireExitCodes(t *testing.T) {
	args := []string{"sweep", "trip", "--designs", "v1-original,v1-improved", "--multipliers", "1,2", "--replications", "2",
		"--refine", "0", "--hindcast-replications", "0", "-q"}
	cases := []struct {
		extra []string
		code  int
	}{
		{[]string{"--require", "v1-original@1.5"}, 0},
		{[]string{"--require", "v1-original@2"}, exitSLOFailed},
		{[]string{"--require", "v1-improved@2"}, 0},
		{[]string{"--fail-on-slo"}, exitSLOFailed},
		{nil, 0},
	}
	for _, c := range cases {
		a := append(append(slices.Clone(args), "--out", t.TempDir()), c.extra...)
		code, _, stderr := run(t, a...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.extra, code, c.code, stderr)
		}
	}
}

// A --require whose multiplier no load can have is refused before the
// sweep, with the bound every multiplier flag is held to.
func TestSweepRequireRefusesMultiplier(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"v1-improved@abc", `capsim: --require "v1-improved@abc": the multiplier must be a number, got "abc"` + "\n"},
		{"v1-improved@0", `capsim: --require "v1-improved@0": a load multiplier must be > 0 and at most 1e+06, got 0` + "\n"},
		{"v1-improved@1e9x", `capsim: --require "v1-improved@1e9x": a load multiplier must be > 0 and at most 1e+06, got 1e+09` + "\n"},
	} {
		code, _, stderr := run(t, "sweep", "trip", "--designs", "v1-improved", "--require", c.spec, "--out", t.TempDir(), "-q")
		if code != exitUsage || stderr != c.want {
			t.Errorf("--require %s: exit %d, stderr %q; want exit %d, %q", c.spec, code, stderr, exitUsage, c.want)
		}
	}
}

// --until-sure writes the same bytes at any worker count.
func TestSweepUntilSureWorkers(t *testing.T) {
	files := func(workers string) map[string][]byte {
		out := t.TempDir()
		js := filepath.Join(t.TempDir(), "s.json")
		code, stdout, stderr := run(t, "sweep", "trip", "--designs", "v1-original", "--multipliers", "1,2", "--replications", "2",
			"--refine", "1", "--until-sure", "--max-replications", "8", "--workers", workers, "--hindcast-replications", "0",
			"--out", out, "--json", js, "-q")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		m := map[string][]byte{"stdout": bytes.ReplaceAll([]byte(stdout), []byte(out), []byte("OUT"))}
		for _, name := range []string{"runs.csv", "summary.csv", "first_failure.csv", "verdicts.csv"} {
			m[name], _ = os.ReadFile(filepath.Join(out, name))
		}
		m["json"], _ = os.ReadFile(js)
		return m
	}
	one, two := files("1"), files("2")
	for name, data := range one {
		if !bytes.Equal(data, two[name]) {
			t.Errorf("%s differs between 1 and 2 workers", name)
		}
	}
	if !bytes.Contains(one["stdout"], []byte("until sure: ")) {
		t.Errorf("stdout lacks the until-sure note:\n%s", one["stdout"])
	}
}

// --json - leaves standard output to the JSON alone.
func TestSweepJSONOnStdout(t *testing.T) {
	code, stdout, stderr := run(t, "sweep", "trip", "--designs", "v1-original", "--multipliers", "1,2", "--replications", "2",
		"--refine", "0", "--json", "-", "--out", t.TempDir(), "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc sweep.Export
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if len(doc.Designs) != 1 || doc.Designs[0].Status != "failed" || doc.Hindcast == nil || doc.Hindcast.Counted == 0 {
		t.Errorf("document %+v", doc)
	}
}

// --json inside the --out folder is refused: the sweep replaces the
// folder whole, so the JSON would take a file's place (runs.csv, the
// folder's marker), or be lost, or stop the next sweep as a file no
// sweep writes.
func TestSweepJSONInsideOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	link := filepath.Join(dir, "l")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	sweepInto := func(out, js string) (int, string) {
		code, _, stderr := run(t, "sweep", "mmc", "--multipliers", "1", "--replications", "1", "--refine", "0",
			"--out", out, "--json", js, "-q")
		return code, stderr
	}
	if code, stderr := sweepInto(out, filepath.Join(dir, "o.json")); code != 0 {
		t.Fatalf("--json beside --out: exit %d: %s", code, stderr)
	}
	before := readTree(t, out)
	for _, c := range [][2]string{
		{out, filepath.Join(out, "runs.csv")},
		{out, filepath.Join(out, ".capsim-output")},
		{out, filepath.Join(out, "a.json")},
		{out, filepath.Join(out, "charts", "a.json")},
		{link, filepath.Join(out, "a.json")},
		{out, filepath.Join(link, "a.json")},
		{out, filepath.Join(dir, "x", "..", "o", "a.json")},
		{filepath.Join(dir, "new"), filepath.Join(dir, "new", "runs.csv")},
	} {
		code, stderr := sweepInto(c[0], c[1])
		want := "capsim: --json " + c[1] + ": it is inside the --out folder " + c[0] +
			", which the sweep replaces whole; name a file outside it\n"
		if code != exitUsage || stderr != want {
			t.Errorf("--out %s --json %s: exit %d, stderr %q; want %d, %q", c[0], c[1], code, stderr, exitUsage, want)
		}
	}
	after := readTree(t, out)
	if len(after) != len(before) {
		t.Errorf("the folder changed: %d files, then %d", len(before), len(after))
	}
	for name, data := range before {
		if !bytes.Equal(after[name], data) {
			t.Errorf("%s changed", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Errorf("a refused sweep wrote its folder")
	}
}
