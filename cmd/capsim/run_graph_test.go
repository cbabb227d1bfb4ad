package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"capsim/model"
	"capsim/plots/diagram"
)

// run --graph draws the run it made: the diagram is the scenario's, with
// the loads of a run at the same multiplier and seed computed apart.
func TestRunGraphCarriesTheRunsLoads(t *testing.T) {
	out := runWritingFile(t, "g.svg", "run", "mmc", "-m", "2", "--seed", "7", "--graph")
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	l, err := loadScenario("mmc", model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(model.RunOptions{Multiplier: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := diagram.SVG(c.Graph(), diagram.Options{Loads: diagram.LoadsOf(res), Caption: "one run at multiplier 2, seed 7"})
	if !bytes.Equal(got, want) {
		t.Errorf("run --graph wrote %d bytes, not the %d of the run's diagram", len(got), len(want))
	}
	if !strings.Contains(string(got), "util 100 %") {
		t.Errorf("an overloaded M/M/c at 2x shows no full utilisation:\n%s", got)
	}
	code, _, stderr := run(t, "run", "mmc", "--graph", out, "--series", out)
	if code != exitUsage || !strings.Contains(stderr, "--graph "+out+": it is the --series file too") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
