package model_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
)

var withInclude = scenarioSrc("inc", "60s", "include: [cal/fit.yaml]\n",
	"  app: {kind: pool, servers: 1}\n", `  visit:
    rate: 1/s
    steps: [{use: app, work: service}]
`)

// Errors and Sources name the files under the display name the caller
// gives, the included file beside it, and Sources holds the very bytes
// read.
func TestLoadUsesTheDisplayName(t *testing.T) {
	fit := []byte("distributions:\n  service: exponential(mean=0.5s)\n")
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(withInclude)}, "cal/fit.yaml": {Data: fit}}
	display := filepath.Join("typed", "dir", "s.yaml")
	l, err := model.Load(fsys, "s.yaml", model.LoadOptions{DisplayName: display})
	if err != nil {
		t.Fatal(err)
	}
	src := l.Sources()
	if len(src) != 2 || src[0].Name != display || src[1].Name != filepath.Join("typed", "dir", "cal", "fit.yaml") ||
		src[0].Data == nil || !bytes.Equal(src[0].Data, []byte(withInclude)) || !bytes.Equal(src[1].Data, fit) {
		t.Fatalf("sources %+v", src)
	}

	fsys["cal/fit.yaml"] = &fstest.MapFile{Data: []byte("distributions:\n  service: exponential(mean=-1s)\n")}
	_, err = model.Load(fsys, "s.yaml", model.LoadOptions{DisplayName: display})
	if err == nil || !strings.HasPrefix(err.Error(), filepath.Join("typed", "dir", "cal", "fit.yaml")+":2:12: ") {
		t.Fatalf("error %v", err)
	}
	_, err = model.Load(fsys, "s.yaml", model.LoadOptions{DisplayName: display, Design: "nosuch"})
	if err == nil || !strings.HasPrefix(err.Error(), display+": unknown design") {
		t.Fatalf("error %v", err)
	}
	_, err = model.Load(fsys, "s.yaml", model.LoadOptions{Design: "nosuch"})
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml: unknown design") {
		t.Fatalf("without a display name: error %v", err)
	}
}

// A file compile reads, an empirical distribution's data, is a source too.
func TestSourcesIncludeEmpiricalData(t *testing.T) {
	scenario := strings.Replace(withInclude, "include: [cal/fit.yaml]\n", "distributions:\n  service: empirical(file=times.csv)\n", 1)
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(scenario)}, "times.csv": {Data: []byte("0.1\n0.2\n")}}
	l, err := model.Load(fsys, "s.yaml", model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Compile(); err != nil {
		t.Fatal(err)
	}
	src := l.Sources()
	if len(src) != 2 || src[0].Name != "s.yaml" || src[1].Name != "times.csv" || string(src[1].Data) != "0.1\n0.2\n" {
		t.Fatalf("sources %+v", src)
	}
}

// A document reads each file once: loads and compiles after the files
// changed on disk still see the bytes first read, and the document's
// Sources list every file any of them read, the scenario first, then by
// name.
func TestDocumentReadsEachFileOnce(t *testing.T) {
	fit := "distributions:\n  service: exponential(mean=0.5s)\n"
	scenario := strings.Replace(withInclude, "steps: [{use: app, work: service}]",
		"steps: [{use: app, work: service}, {use: app, work: zeta}]", 1) +
		"designs:\n  measured:\n    distributions: {zeta: empirical(file=times.csv)}\n"
	scenario = strings.Replace(scenario, "include: [cal/fit.yaml]\n", "include: [cal/fit.yaml]\ndistributions:\n  zeta: 1s\n", 1)
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(scenario)}, "cal/fit.yaml": {Data: []byte(fit)}, "times.csv": {Data: []byte("0.1\n0.2\n")}}
	doc, err := model.Parse(fsys, "s.yaml", model.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compile := func(design string) *model.Loaded {
		t.Helper()
		l, err := doc.Load(model.LoadOptions{Design: design})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Compile(); err != nil {
			t.Fatal(err)
		}
		return l
	}
	base := compile("")
	first := compile("measured")
	fsys["s.yaml"] = &fstest.MapFile{Data: []byte("garbage: [")}
	fsys["cal/fit.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(fit, "0.5s", "-1s", 1))}
	fsys["times.csv"] = &fstest.MapFile{Data: []byte("nonsense\n-1\n")}
	again := compile("measured")
	if src := base.Sources(); len(src) != 2 || src[1].Name != "cal/fit.yaml" {
		t.Fatalf("the base's sources %+v", src)
	}
	for _, l := range []*model.Loaded{first, again} {
		src := l.Sources()
		if len(src) != 3 || src[0].Name != "s.yaml" || src[1].Name != "cal/fit.yaml" || src[2].Name != "times.csv" ||
			string(src[1].Data) != fit || string(src[2].Data) != "0.1\n0.2\n" {
			t.Fatalf("sources %+v", src)
		}
	}
	src := doc.Sources()
	if len(src) != 3 || src[0].Name != "s.yaml" || string(src[0].Data) != scenario || src[1].Name != "cal/fit.yaml" || src[2].Name != "times.csv" {
		t.Fatalf("the document's sources %+v", src)
	}
}
