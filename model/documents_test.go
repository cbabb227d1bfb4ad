package model_test

import (
	"testing"
	"testing/fstest"

	"capsim/model"
)

// A file holds one YAML document. Whatever follows the first, after a ---
// or a ..., is refused at the line it starts on: the parser would drop it
// without a word, design, correction or typo alike.
func TestASecondDocumentIsRefused(t *testing.T) {
	base := scenarioSrc("s", "1s", "", "  app: {kind: pool, servers: 1}\n",
		"  j: {rate: 1/s, steps: [{use: app, work: 1ms}]}\n")
	for _, c := range []struct{ tail, want string }{
		{"---\nname: other\n", "s.yaml:7:1: a second YAML document starts here; a scenario is one document"},
		{"---\n", "s.yaml:7:1: a second YAML document starts here; a scenario is one document"},
		{"--- {a: [\n", "s.yaml:7:1: a second YAML document starts here; a scenario is one document"},
		{"...\n\n# more\njunk: [\n", "s.yaml:10:1: a second YAML document starts here; a scenario is one document"},
		{"...\n--- \nname: other\n", "s.yaml:8:1: a second YAML document starts here; a scenario is one document"},
		{"...\n", ""},
		{"...\n# the end\n", ""},
	} {
		if got := compileErrorText("s.yaml", base+c.tail); got != c.want {
			t.Errorf("after %q:\ngot  %s\nwant %s", c.tail, got, c.want)
		}
	}
	// A document marker before the scenario is the start of its one document.
	if got := compileErrorText("s.yaml", "---\n"+base); got != "" {
		t.Errorf("a leading ---: got %s", got)
	}
}

func TestASecondDocumentInAnIncludedFileIsRefused(t *testing.T) {
	fsys := fstest.MapFS{"cal.yaml": {Data: []byte("distributions:\n  service: 1ms\n---\ndistributions:\n  service: 2ms\n")}}
	src := scenarioSrc("s", "1s", "include: [cal.yaml]\n", "  app: {kind: pool, servers: 1}\n",
		"  j: {rate: 1/s, steps: [{use: app, work: service}]}\n")
	_, err := model.LoadBytes(fsys, "s.yaml", []byte(src), model.LoadOptions{})
	want := "cal.yaml:3:1: a second YAML document starts here; an included file is one document"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// include: is spliced in when the file is parsed, before any design or
// override applies: one from a design or a --set would change nothing, so
// it is refused, even naming a file that does not exist.
func TestIncludeOnlyAtTheTopOfTheScenario(t *testing.T) {
	fsys := fstest.MapFS{
		"calA.yaml": {Data: []byte("distributions:\n  svc: 100ms\n")},
		"calB.yaml": {Data: []byte("distributions:\n  svc: 900ms\n")},
	}
	src := scenarioSrc("sc", "1s", "include: [calA.yaml]\n", "  app: {kind: pool, servers: 1}\n",
		"  j: {rate: 1/s, steps: [{use: app, work: svc}]}\n") + `designs:
  b: {include: [calB.yaml]}
  gone:
    include: null
`
	why := "include: is read once, at the top of the scenario, before any design or override applies"
	for _, c := range []struct {
		opts model.LoadOptions
		want string
	}{
		{model.LoadOptions{Design: "b"}, `sc.yaml:9:7: include: design "b" cannot include files; ` + why + " (a design may set distributions: itself)"},
		{model.LoadOptions{Design: "gone"}, `sc.yaml:11:5: include: design "gone" cannot include files; ` + why + " (a design may set distributions: itself)"},
		{model.LoadOptions{Sets: []string{"include=[calB.yaml]"}}, "--set include=[calB.yaml]: include: an override cannot include files; " + why + " (set distributions.NAME instead)"},
		{model.LoadOptions{Sets: []string{"include=null"}}, "--set include=null: include: an override cannot include files; " + why + " (set distributions.NAME instead)"},
		{model.LoadOptions{Sets: []string{"include.0=missing.yaml"}}, "--set include.0=missing.yaml: include: an override cannot include files; " + why + " (set distributions.NAME instead)"},
		{model.LoadOptions{Base: mustBaseSets(t, "include=")}, "--base-set include=: include: an override cannot include files; " + why + " (set distributions.NAME instead)"},
	} {
		_, err := model.LoadBytes(fsys, "sc.yaml", []byte(src), c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v:\ngot  %v\nwant %s", c.opts, err, c.want)
		}
	}
}

func mustBaseSets(t *testing.T, sets ...string) []model.Override {
	t.Helper()
	o, err := model.ParseBaseSets(sets)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// base and all are the command line's design names: base the scenario as
// written, all every design. A design of either name could not be told
// from them, so it is refused at its key.
func TestReservedDesignNamesAreRefused(t *testing.T) {
	src := scenarioSrc("d", "1s", "", "  app: {kind: pool, servers: 2}\n",
		"  j: {rate: 1/s, steps: [{use: app, work: 1ms}]}\n") + `designs:
  base: {components: {app: {servers: 1}}}
  all:
    duration: 2s
  basement: {}
`
	want := "d.yaml:8:3: designs.base: the name base is reserved for the scenario without a design, " +
		"as reports, sweep --designs and sensitivity --design call it; rename the design\n" +
		"d.yaml:9:3: designs.all: the name all is reserved: sweep --designs all means every design; rename the design"
	for _, design := range []string{"", "base", "basement"} {
		_, err := model.LoadBytes(fstest.MapFS{}, "d.yaml", []byte(src), model.LoadOptions{Design: design})
		if err == nil || err.Error() != want {
			t.Errorf("design %q:\ngot  %v\nwant %s", design, err, want)
		}
	}
}

// --set and --scale paths separate keys with dots, so a name holding one
// could not be reached by them (components.a.b.servers would look for
// components.a): such a name is refused where it is written, whatever it
// names. Letters are ASCII ones, and the message says so.
func TestNamesHoldNoDot(t *testing.T) {
	dot := func(at, path, name string) string {
		return "n.yaml:" + at + ": " + path + `: name "` + name + `" holds a dot, which separates the keys of a --set or --scale path; use _ or - instead`
	}
	for _, c := range []struct{ src, want string }{
		{scenarioSrc("n", "1s", "", "  'a.b': {kind: pool, servers: {range: [1, 3]}}\n",
			"  j: {rate: 1/s, steps: [{use: a.b, work: 1ms}]}\n"), dot("4:3", "components.a.b", "a.b")},
		{scenarioSrc("n", "1s", "", "  app: {kind: pool, servers: 1}\n",
			"  v1.visit: {rate: 1/s, steps: [{call: r.x}]}\nroutes:\n  r.x: {steps: [{use: app, work: 1ms}]}\n"),
			dot("6:3", "journeys.v1.visit", "v1.visit") + "\n" + dot("8:3", "routes.r.x", "r.x")},
		{scenarioSrc("n", "1s", "distributions:\n  svc.p95: 1ms\n", "  app: {kind: pool, servers: 1}\n",
			"  j:\n    rate: 1/s\n    attributes: {photo.count: 2}\n    steps: [{use: app, work: 1ms}]\n") +
			"designs:\n  v1.1: {}\n",
			dot("4:3", "distributions.svc.p95", "svc.p95") + "\n" + dot("10:18", "journeys.j.attributes.photo.count", "photo.count") +
				"\n" + dot("13:3", "designs.v1.1", "v1.1")},
		{scenarioSrc("n", "1s", "", "  sérveur: {kind: pool, servers: 1}\n",
			"  j: {rate: 1/s, steps: [{use: app, work: 1ms}]}\n"),
			`n.yaml:4:3: components.sérveur: name "sérveur" must start with an ASCII letter and use only ASCII letters, digits and _ - /`},
	} {
		_, err := model.LoadBytes(fstest.MapFS{}, "n.yaml", []byte(c.src), model.LoadOptions{})
		if err == nil || err.Error() != c.want {
			t.Errorf("got  %v\nwant %s", err, c.want)
		}
	}
}

// A value --scale made is the flag's, not the file's: a problem with it
// names the flag, where the file's line would show a value the file does
// not hold. A --set's value is named so already.
func TestProblemsWithAScaledValueNameTheFlag(t *testing.T) {
	src := scenarioSrc("s", "100s", "distributions:\n  svc: {family: gamma, mean: 1s, cv: 0.5}\n",
		"  server: {kind: pool, servers: 2}\n",
		"  j: {rate: 1/s, steps: [{use: server, work: svc}, {delay: &d 1s}, {delay: *d}]}\n")
	century := "is more than 100 years, the longest time capsim simulates"
	for _, c := range []struct {
		opts model.LoadOptions
		want string
	}{
		{model.LoadOptions{Scales: []string{"duration=1e300"}}, "--scale duration=1e300: duration: duration 1e+302s " + century},
		{model.LoadOptions{Scales: []string{"components.server.servers=1e10"}},
			"--scale components.server.servers=1e10: components.server.servers: expected an integer, got the number 2e+10"},
		{model.LoadOptions{Scales: []string{"distributions.svc=1e300"}},
			"--scale distributions.svc=1e300: distributions.svc: gamma: mean: duration 1e+300s " + century},
		// Every alias of a scaled value holds the flag's value too.
		{model.LoadOptions{Scales: []string{"journeys.j.steps.1.delay=1e300"}},
			"--scale journeys.j.steps.1.delay=1e300: journeys.j.steps[1].delay: duration 1e+300s " + century + "\n" +
				"--scale journeys.j.steps.1.delay=1e300: journeys.j.steps[2].delay: duration 1e+300s " + century},
		{model.LoadOptions{Sets: []string{"components.server.servers=1e10"}},
			"--set components.server.servers=1e10: components.server.servers: expected an integer, got the number 1e10"},
	} {
		_, err := model.LoadBytes(fstest.MapFS{}, "s.yaml", []byte(src), c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v:\ngot  %v\nwant %s", c.opts, err, c.want)
		}
	}
}

// A key an empty --set took out is missing because of the flag: a problem
// found where it was says so.
func TestAProblemWhereASetRemovedAKeySaysSo(t *testing.T) {
	src := scenarioSrc("s", "100s", "", "  server: {kind: pool, servers: 2}\n",
		"  j: {rate: 1/s, steps: [{use: server, work: 1ms}]}\n")
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"components.server.servers="}, "s.yaml:4:11: components.server.servers: a pool needs servers " +
			"(how many requests it serves at once); --set components.server.servers= removed servers"},
		{[]string{"journeys.j.rate="}, "s.yaml:6:3: journeys.j: a journey needs rate (e.g. rate: 4/h) or clients " +
			"(e.g. clients: 100); --set journeys.j.rate= removed rate"},
	} {
		_, err := compileNamed("s.yaml", src, model.LoadOptions{Sets: c.sets})
		if err == nil || err.Error() != c.want {
			t.Errorf("%v:\ngot  %v\nwant %s", c.sets, err, c.want)
		}
	}
}
