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
