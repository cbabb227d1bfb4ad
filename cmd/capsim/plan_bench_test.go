package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// The planning of a command compiles every design, perturbation and
// parameter draw before the first run; these measure it on trip.

func BenchmarkPlanSweepUncertainty(b *testing.B) {
	for b.Loop() {
		opts := &sweepOptions{scenarioFlags: scenarioFlags{Scenario: "trip", Seed: 1}, Designs: defaultDesigns,
			Multipliers: defaultMultipliers, Replications: defaultReplications, Workers: 1, Refine: defaultRefine, Section: defaultSection,
			Uncertainty: true, set: map[string]bool{}}
		if _, err := planSweep(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// A shard too small to hold more than one run: the analysis is planned in
// full, one run made.
func BenchmarkPlanSensitivity(b *testing.B) {
	out := filepath.Join(b.TempDir(), "shards")
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		if code := Main([]string{"sensitivity", "trip", "-q", "--workers", "1", "--shard", "1/100000", "--out", out},
			&IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
