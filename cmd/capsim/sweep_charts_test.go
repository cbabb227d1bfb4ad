package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The trip's own sweep draws 35 chart files: the 43 charts it drew once,
// less the stage charts of four designs whose failures match
// v1-improved's to the journey, and the failure rates of the three routes
// that fail (the six that never do are named as flat), with each of the
// nine components' charts in one file (16 charts: utilisation and peak
// queue side by side, nginx and app having no queue chart). None of them is drawn twice, and
// those left out are named on their lines.
func TestTripReportDrawsEachChartOnce(t *testing.T) {
	slowTests(t)
	out := t.TempDir()
	if code, _, stderr := run(t, "sweep", "trip", "--out", out, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	svgs, err := filepath.Glob(filepath.Join(out, "charts", "*.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if len(svgs) != 35 {
		t.Errorf("%d chart files, want 35", len(svgs))
	}
	seen := map[[32]byte]string{}
	for _, f := range svgs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if first, ok := seen[h]; ok {
			t.Errorf("%s has the bytes of %s", filepath.Base(f), filepath.Base(first))
		}
		seen[h] = f
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- flat at every load: view\\_session journey success (100%), view\\_session journey vs HTTP failure rate (0%), " +
			"route trip\\_analysis failure rate (0%), route trip\\_status failure rate (0%), route trip\\_view failure rate (0%), " +
			"route presign\\_batch failure rate (0%), route register\\_batch failure rate (0%), route finalize\\_trip failure rate (0%), " +
			"nginx peak queue (0), app peak queue (0), user\\_stats peak queue (0)\n",
		"- nothing measured: user\\_stats utilisation\n",
		"- drawn once: failure stages of async-ai (the same as failure stages of v1-improved), " +
			"failure stages of lock-fix (the same as failure stages of v1-improved), " +
			"failure stages of warm-worker (the same as failure stages of v1-improved), " +
			"failure stages of two-workers (the same as failure stages of v1-improved)\n",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
