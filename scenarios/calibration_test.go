package scenarios

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"capsim/calibration"
)

// TestTripCalibrationIsItsPlan reads trip-figures.yaml as a calibration plan
// and rebuilds the fragment from scratch: it must be trip-calibration.yaml
// byte for byte, so the trip scenario's timings are exactly what their
// figures give, and regenerating the file changes nothing.
func TestTripCalibrationIsItsPlan(t *testing.T) {
	t.Parallel()
	figures, err := os.ReadFile("trip-figures.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("trip-calibration.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !calibration.IsPlan(figures) {
		t.Fatal("trip-figures.yaml is not recognised as a plan")
	}
	p, err := calibration.ReadPlan("trip-figures.yaml", bytes.NewReader(figures))
	if err != nil {
		t.Fatal(err)
	}
	// The command recorded in the fragment is the one its header names.
	sc := bufio.NewScanner(bytes.NewReader(want))
	rerun := ""
	for sc.Scan() {
		if r, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "# rerun: "); ok {
			rerun = r
			break
		}
	}
	fits, err := p.Run(nil, rerun)
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]calibration.Entry, len(fits))
	for i, f := range fits {
		entries[i] = f.Entry
	}
	got, err := calibration.MergeFragment(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the plan gives a different fragment:\n%s", got)
	}
}
