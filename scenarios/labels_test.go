package scenarios_test

import (
	"testing"

	"capsim/model"
	"capsim/scenarios"
)

// Every parameter of a scenario built from a source (one that carries
// observations) says where its value comes from: input, fitted or
// assumption. The parameters are the kinds' own keys (model.Params reads
// them from the specs), so a key a kind gains is held to this too. A
// design's own values are the design under study, labelled by the
// comment above the design, which model.Params does not read yet: the
// base scenario is held here.
func TestEverySeedParameterIsLabelled(t *testing.T) {
	seen := 0
	for _, name := range scenarios.List() {
		base, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(base.Scenario.Observations) == 0 {
			continue
		}
		seen++
		for _, p := range base.Params() {
			if p.Label == "" {
				t.Errorf("%s: %s (%s) has no input:, fitted: or assumption: label", name, p.Name, p.Path)
			}
		}
	}
	if seen < 4 {
		t.Errorf("%d scenarios with observations, want the 4 seed scenarios", seen)
	}
}
