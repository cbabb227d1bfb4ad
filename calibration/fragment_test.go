package calibration

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestMergeFragment(t *testing.T) {
	t.Parallel()
	existing := `# hand-written note, kept
distributions:
  # rerun: capsim calibrate old.csv --name a
  a:
    dist: constant(1s)
  b: {dist: constant(2s)}
extra: kept
`
	long := "latency climbs over the recording " + strings.Repeat("and on ", 30) + "until the end"
	got, err := MergeFragment([]byte(existing), []Entry{
		{Name: "a", Dist: "lognormal(mu=3.6, sigma=0.2)", Rerun: "capsim calibrate new.csv --name a", Files: []string{"new.csv"},
			Metric: "column latency_ms", Filter: "route=/api/trips/*/photos status=200", N: 120, KS: 0.0412345, AIC: 512.34, Fitted: true,
			RunnerUp: "gamma(shape=24.1, scale=1.64s)", Warnings: []string{long}},
		{Name: "c", Dist: "uniform(36s, 40s)", Files: []string{"f.yaml"}, Figures: "min=36s max=40s", Ref: "FIGURES 000-37"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `# hand-written note, kept
distributions:
  # rerun: capsim calibrate new.csv --name a
  a:
    dist: lognormal(mu=3.6, sigma=0.2)
    source:
      files: [new.csv]
      metric: "column latency_ms"
      filter: "route=/api/trips/*/photos status=200"
      n: 120
      ks: 0.0412
      aic: 512.3
      runner_up: gamma(shape=24.1, scale=1.64s)
      warnings:
        - "` + long + `"
  b: {dist: constant(2s)}
  c:
    dist: uniform(36s, 40s)
    source:
      files: [f.yaml]
      figures: "min=36s max=40s"
      ref: "FIGURES 000-37"
      warnings: []
extra: kept
`
	if string(got) != want {
		t.Errorf("merged fragment\n%s\nwant\n%s", got, want)
	}
	// The result reads back as plain YAML with the values typed.
	var doc struct {
		Distributions map[string]struct {
			Dist   string
			Source struct {
				N   int
				KS  float64
				AIC float64
			}
		}
	}
	if err := yaml.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	if a := doc.Distributions["a"]; a.Source.N != 120 || a.Source.KS != 0.0412 || a.Source.AIC != 512.3 {
		t.Errorf("read back %+v", a)
	}

	for _, c := range []struct{ in, want string }{
		{"name: trip\n", "not a calibration fragment: no top-level distributions key"},
		{"- a\n", "not a calibration fragment: the top level is not a mapping"},
		{"distributions: [a]\n", "not a calibration fragment: distributions is not a mapping"},
	} {
		if _, err := MergeFragment([]byte(c.in), []Entry{{Name: "x", Dist: "constant(1s)"}}); err == nil || err.Error() != c.want {
			t.Errorf("MergeFragment(%q): %v, want %s", c.in, err, c.want)
		}
	}
}

// A fragment is one YAML document: rewriting one that holds more would
// drop the others, so it is refused, naming the line the second starts on.
func TestAFragmentOfTwoDocumentsIsRefused(t *testing.T) {
	t.Parallel()
	two := "distributions:\n  a: {dist: constant(1s)}\n...\n# b\n---\ndistributions:\n  b: {dist: constant(2s)}\n"
	want := "line 5: a second YAML document starts here; a calibration fragment is one document"
	if _, err := MergeFragment([]byte(two), []Entry{{Name: "c", Dist: "constant(3s)"}}); err == nil || err.Error() != want {
		t.Errorf("MergeFragment: got %v\nwant %s", err, want)
	}
	_, err := RemoveFromFragment([]byte(two), []string{"a"})
	if err == nil || err.Error() != want {
		t.Errorf("RemoveFromFragment: got %v\nwant %s", err, want)
	}
	var sd *SecondDocumentError
	if !errors.As(err, &sd) || sd.In("f.yaml") != "f.yaml:5:1: a second YAML document starts here; a calibration fragment is one document" {
		t.Errorf("In: got %v", err)
	}
	// A fragment of comments alone holds no entry to remove.
	want = "not a calibration fragment: no top-level distributions mapping"
	if _, err := RemoveFromFragment([]byte("# nothing yet\n"), []string{"a"}); err == nil || err.Error() != want {
		t.Errorf("RemoveFromFragment of comments: got %v\nwant %s", err, want)
	}
}
