package scenarios_test

import (
	"testing"

	"capsim/model"
	"capsim/scenarios"
)

// Every parameter of a scenario built from a source (one that carries
// observations) says where its value comes from: input, fitted or
// assumption. The parameters are the kinds' own keys (model.Params reads
// them from the specs), so a key a kind gains is held to this too. The
// base is held here, and every value a design's overlay writes, loaded
// as that design: such a value is labelled by the overlay's own comments
// (model.Param.Design), never by the base's for the value it replaces.
func TestEverySeedParameterIsLabelled(t *testing.T) {
	t.Parallel()
	seen, overlaid := 0, 0
	for _, name := range scenarios.List() {
		file := scenarios.File(name)
		base, err := model.Load(scenarios.FS(), file, model.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(base.Scenario.Observations) == 0 {
			continue
		}
		seen++
		for _, p := range base.Params() {
			if p.Label == "" {
				t.Errorf("%s:%d: %s (%s) has no input:, fitted: or assumption: label", p.File, p.Line, p.Name, p.Path)
			}
		}
		for _, design := range base.Scenario.Designs.Names() {
			l, err := model.Load(scenarios.FS(), file, model.LoadOptions{Design: design})
			if err != nil {
				t.Fatalf("%s, design %s: %v", name, design, err)
			}
			for _, p := range l.Params() {
				if p.Design == "" {
					continue
				}
				overlaid++
				if p.Label == "" {
					t.Errorf("%s:%d: design %s: %s = %s has no input:, fitted: or assumption: label",
						p.File, p.Line, design, p.Path, p.Value)
				}
			}
		}
	}
	if seen < 4 {
		t.Errorf("%d scenarios with observations, want the 4 seed scenarios", seen)
	}
	// The designs' overlays write this many parameters; fewer would mean
	// the overlays' values went unseen and unchecked.
	if overlaid < 60 {
		t.Errorf("%d parameters written by designs, want at least 60", overlaid)
	}
}
