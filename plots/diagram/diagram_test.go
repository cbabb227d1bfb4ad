package diagram_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"testing"

	"capsim/cmd/golden"
	"capsim/model"
	"capsim/plots/diagram"
	"capsim/scenarios"
)

func graphOf(t *testing.T, name string) model.Graph {
	t.Helper()
	l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return c.Graph()
}

func wellFormed(t *testing.T, name string, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s: SVG is not well-formed XML: %v", name, err)
		}
	}
}

// The trip and the one-server queue, drawn as SVG and DOT, byte for byte.
func TestDiagramGolden(t *testing.T) {
	for _, name := range []string{"trip", "mm1"} {
		g := graphOf(t, name)
		svg := diagram.SVG(g, diagram.Options{})
		wellFormed(t, name, svg)
		golden.Check(t, "testdata/"+name+".svg", svg)
		golden.Check(t, "testdata/"+name+".dot", diagram.DOT(g, diagram.Options{}))
		if again := diagram.SVG(graphOf(t, name), diagram.Options{}); !bytes.Equal(again, svg) {
			t.Errorf("%s: a second drawing differs from the first", name)
		}
	}
}

// Every embedded scenario draws; the 38 backends behind realtime-sessions'
// balancer are one node, so the nodes are the declared components.
func TestEveryScenarioDraws(t *testing.T) {
	for _, name := range scenarios.List() {
		g := graphOf(t, name)
		wellFormed(t, name, diagram.SVG(g, diagram.Options{}))
		if len(g.Components) == 0 || len(g.Edges) == 0 {
			t.Errorf("%s: %d components, %d edges", name, len(g.Components), len(g.Edges))
		}
	}
	g := graphOf(t, "realtime-sessions")
	found := false
	for _, c := range g.Components {
		if c.Replicas == 38 {
			found = true
		}
	}
	if !found {
		t.Errorf("realtime-sessions: no component grouped as ×38: %+v", g.Components)
	}
	svg := diagram.SVG(g, diagram.Options{})
	if n := bytes.Count(svg, []byte("<g><rect")); n != len(g.Journeys)+len(g.Routes)+len(g.Components) {
		t.Errorf("realtime-sessions: %d nodes drawn, want %d", n, len(g.Journeys)+len(g.Routes)+len(g.Components))
	}
}

// Loads of replicas are summed into their node, and the highlighted
// component alone has the red outline.
func TestLoadsAndHighlight(t *testing.T) {
	g := model.Graph{Scenario: "s", Components: []model.GraphComponent{{Name: "b", Kind: "pool", Replicas: 2}, {Name: "c", Kind: "pool", Replicas: 1}}}
	svg := string(diagram.SVG(g, diagram.Options{Highlight: "c", Loads: map[string]diagram.Load{
		"b[0]": {Utilisation: 0.5, MeanQueue: 1, Rejected: 3}, "b[1]": {Utilisation: 0.7, MeanQueue: 2, Rejected: 4}, "c": {}}}))
	for _, want := range []string{"b ×2", "util 60 % · queue 3 · 7 rejected", "util 0 % · queue 0<"} {
		if !bytes.Contains([]byte(svg), []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if n := bytes.Count([]byte(svg), []byte(`stroke="#d62728" stroke-width="3.5"`)); n != 1 {
		t.Errorf("%d nodes outlined in red, want 1", n)
	}
}
