package sweepreport

import (
	"regexp"
	"testing"

	"capsim/model"
)

// The diagram beside the verdict outlines in red the component the sweep
// names as failing, and only it.
func TestDiagramOutlinesTheFailingComponent(t *testing.T) {
	res, journeys := smallSweep(t)
	graphs := map[string]model.Graph{}
	for _, d := range res.Designs {
		graphs[d] = model.Graph{Scenario: "mmck", Design: d, Components: []model.GraphComponent{{Name: "server", Kind: "pool", Replicas: 1}}}
	}
	files, err := Build(res, Options{Journeys: journeys, Graphs: graphs})
	if err != nil {
		t.Fatal(err)
	}
	var svg []byte
	for _, f := range files {
		if f.Name == "diagram.svg" {
			svg = f.Data
		}
	}
	want := ""
	for _, o := range rankOutcomes(res) {
		if o.ff.Found {
			want = o.ff.Component
			break
		}
	}
	if want == "" || svg == nil {
		t.Fatalf("no failing component (%q) or no diagram.svg (%d bytes)", want, len(svg))
	}
	red := regexp.MustCompile(`stroke="#d62728" stroke-width="3.5"/><text [^>]*>([^<]*)<`).FindAllSubmatch(svg, -1)
	if len(red) != 1 || string(red[0][1]) != want {
		t.Errorf("red outlines %q, want one on %q", red, want)
	}
	if !regexp.MustCompile(`util \d+ %`).Match(svg) {
		t.Errorf("the failing design's loads are not on the diagram")
	}
}
