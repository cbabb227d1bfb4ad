package calibration

import (
	"bytes"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"capsim/cmd/golden"
)

func TestReadK6SummaryShapes(t *testing.T) {
	t.Parallel()
	// The three files summarise the same run; only the v1 shape carries
	// p99 and the count.
	uploads := Filter{Route: "/api/trips/*/photos"}
	for _, c := range []struct {
		file, shape string
		p99         bool
	}{
		{"k6-summary-export.json", "summary-export", false},
		{"k6-handle-summary.json", "handleSummary data", false},
		{"k6-summary-v1.json", "summary v1", true},
	} {
		f, err := os.Open(testdata(c.file))
		if err != nil {
			t.Fatal(err)
		}
		fig, err := ReadK6Summary(c.file, f, "", uploads)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		// The uploads' figures, from the same values TestReadTestdata reads
		// out of k6-out.csv: mean 40.591675 s.
		if math.Abs(fig.Mean-40.591675) > 1e-6 || math.Abs(fig.P50-40.498994) > 1e-6 || math.Abs(fig.P95-46.359311) > 1e-6 {
			t.Errorf("%s: mean %.6f p50 %.6f p95 %.6f", c.file, fig.Mean, fig.P50, fig.P95)
		}
		if has(fig.P99) != c.p99 {
			t.Errorf("%s: p99 %v", c.file, fig.P99)
		}
		want := "k6 " + c.shape + " http_req_duration{name:https://api.yeodam.example/api/trips/${}/photos}"
		if fig.Ref != want {
			t.Errorf("%s: ref %q, want %q", c.file, fig.Ref, want)
		}
	}
	f, err := os.Open(testdata("k6-summary-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = ReadK6Summary("k6-summary-v1.json", f, "", Filter{Status: []string{"200"}})
	want := `k6-summary-v1.json: no submetric of http_req_duration matches filter "status=200" (the summary has http_req_duration, http_req_duration{expected_response:true}, http_req_duration{name:https://api.yeodam.example/api/trips/${}/photos})`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	// A submetric named as the error lists it is read, not refused.
	f.Seek(0, 0)
	fig, err := ReadK6Summary("k6-summary-v1.json", f, "http_req_duration{expected_response:true}", Filter{})
	if err != nil || fig.Ref != "k6 summary v1 http_req_duration{expected_response:true}" {
		t.Errorf("submetric by name: %v, ref %q", err, fig.Ref)
	}
}

func TestFitFigures(t *testing.T) {
	t.Parallel()
	fig := func(set func(*Figures)) Figures {
		f := NewFigures()
		set(&f)
		return f
	}
	for _, c := range []struct {
		name     string
		f        Figures
		dist     string
		runnerUp string
		warn     []WarningKind
	}{
		{"mean alone", fig(func(f *Figures) { f.Mean = 0.56 }), "constant(0.56s)", "", []WarningKind{WarnFewFigures}},
		{"range", fig(func(f *Figures) { f.Min, f.Max = 36, 40 }), "uniform(36s, 40s)", "", nil},
		{"value", fig(func(f *Figures) { f.Value = 600 }), "constant(600s)", "", nil},
		{"mean and p95", fig(func(f *Figures) { f.Mean, f.P95 = 0.075, 0.114 }),
			"lognormal(mu=-2.62893, sigma=0.278061)", "gamma(shape=11.8837, scale=0.00631114s)", nil},
		{"p50 and p95", fig(func(f *Figures) { f.P50, f.P95 = 0.5, 0.9 }), "lognormal(mu=-0.693147, sigma=0.357349)", "", nil},
		{"mean and cv", fig(func(f *Figures) { f.Mean, f.CV = 3.9, 0.3 }),
			"lognormal(mu=1.31789, sigma=0.29356)", "gamma(shape=11.1111, scale=0.351s)", nil},
		{"mean and sd", fig(func(f *Figures) { f.Mean, f.SD = 3.9, 1.17 }),
			"lognormal(mu=1.31789, sigma=0.29356)", "gamma(shape=11.1111, scale=0.351s)", nil},
		{"gamma asked for", fig(func(f *Figures) { f.Mean, f.CV, f.Family = 3.9, 0.3, FamilyGamma }), "gamma(shape=11.1111, scale=0.351s)", "", nil},
		{"exponential asked for", fig(func(f *Figures) { f.Mean, f.Family = 1.5, FamilyExponential }), "exponential(mean=1.5s)", "", nil},
		{"normal asked for", fig(func(f *Figures) { f.Mean, f.SD, f.Family = 1, 0.2, FamilyNormal }), "normal(mean=1s, sd=0.2s)", "", nil},
		// p95 = 5 × mean is beyond any lognormal (at most 3.87) but within
		// a gamma's reach (5.8).
		{"p95 beyond lognormal", fig(func(f *Figures) { f.Mean, f.P95 = 1, 5 }), "gamma(shape=0.223499, scale=4.47429s)", "", nil},
		// A mean far from the median that a lognormal with that p95 implies:
		// the figures describe a bimodal mix, and the warning says so.
		{"disagreeing median", fig(func(f *Figures) { f.Mean, f.P50, f.P95 = 29.42, 37.94, 46.10 }),
			"lognormal(mu=3.33652, sigma=0.300507)", "gamma(shape=10.117, scale=2.90798s)", []WarningKind{WarnDisagree}},
	} {
		sf, err := FitFigures(c.f)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := sf.Chosen.Dist.String(); got != c.dist {
			t.Errorf("%s: chosen %s, want %s", c.name, got, c.dist)
		}
		ru := ""
		if sf.RunnerUp != nil {
			ru = sf.RunnerUp.Dist.String()
		}
		if ru != c.runnerUp {
			t.Errorf("%s: runner-up %q, want %q", c.name, ru, c.runnerUp)
		}
		var kinds []WarningKind
		for _, w := range sf.Warnings {
			kinds = append(kinds, w.Kind)
		}
		if !slices.Equal(kinds, c.warn) {
			t.Errorf("%s: warnings %v, want kinds %v", c.name, sf.Warnings, c.warn)
		}
		// Whatever was chosen reproduces the figures it was built from, to
		// the six digits its parameters are rounded to.
		d := sf.Chosen.Dist
		for _, chk := range []struct {
			given, got float64
		}{{c.f.Mean, d.Mean()}, {c.f.P50, d.Quantile(0.5)}, {c.f.P95, d.Quantile(0.95)}} {
			if has(chk.given) && strings.Contains(sf.Chosen.Uses, "=") && math.Abs(chk.got-chk.given) > 1e-4*chk.given && len(c.warn) == 0 {
				t.Errorf("%s: %s gives %g where the figures say %g", c.name, d, chk.got, chk.given)
			}
		}
	}
}

func TestFitFiguresErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		set  func(*Figures)
		want string
	}{
		{func(f *Figures) { f.Mean, f.P95 = 1, 7 }, "no distribution matches mean=1s p95=7s: lognormal: p95/mean must be <= 3.868 (the largest a lognormal allows), got 7; gamma: p95/mean must be <= 5.827 (the largest a gamma allows), got 7"},
		{func(f *Figures) { f.P95 = 1 }, "figures p95=1s do not determine a distribution (give mean and p95, p50 and p95, mean and cv, min and max, or a value)"},
		{func(f *Figures) { f.P50, f.P95 = 2, 1 }, "p95 1s is below p50 2s: quantiles must increase"},
		{func(f *Figures) { f.Mean, f.Family = 1, "pareto" }, `unknown family "pareto" (want lognormal, gamma, exponential, normal, constant or uniform)`},
		{func(f *Figures) { f.Mean, f.Family = 1, FamilyNormal }, "figures mean=1s do not determine a normal distribution"},
		{func(f *Figures) { f.Mean = -1 }, "mean must be finite and >= 0, got -1"},
	} {
		f := NewFigures()
		c.set(&f)
		if _, err := FitFigures(f); err == nil || err.Error() != c.want {
			t.Errorf("FitFigures(%s): error\n got %v\nwant %s", f, err, c.want)
		}
	}
}

func TestReadFiguresErrors(t *testing.T) {
	t.Parallel()
	in := `figures:
  good: {mean: 0.56s}
  no_unit: {mean: 0.56}
  typo: {mean: 1s, p96: 2s}
  impossible: {mean: 1s, p95: 7s}
  good: {mean: 1s}
  "9lives": {mean: 1s}
  s3.save: {mean: 1s}
  _p99: {mean: 1s}
`
	_, err := ReadFigures("f.yaml", strings.NewReader(in))
	want := strings.Join([]string{
		`f.yaml:3:13: no_unit: mean: "0.56" has no unit (write for example 0.56s or 0.56ms)`,
		`f.yaml:4:20: typo: unknown key "p96" (want mean, p50, median, p90, p95, p99, min, max, sd, cv, value, dist, source)`,
		`f.yaml:5:3: impossible: no distribution matches mean=1s p95=7s: lognormal: p95/mean must be <= 3.868 (the largest a lognormal allows), got 7; gamma: p95/mean must be <= 5.827 (the largest a gamma allows), got 7`,
		`f.yaml:6:3: good is listed twice`,
		`f.yaml:7:3: name "9lives" must start with an ASCII letter and use only ASCII letters, digits and _ - /`,
		`f.yaml:8:3: name "s3.save" holds a dot, which separates the keys of a --set or --scale path; use _ or - instead`,
		`f.yaml:9:3: name "_p99" must start with an ASCII letter and use only ASCII letters, digits and _ - /`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	for _, c := range []struct{ in, want string }{
		{"", "f.yaml: empty file; expected a top-level figures: mapping"},
		{"distributions: {}\n", `f.yaml:1:1: unknown top-level key "distributions" (want figures)`},
		{"figures: [a, b]\n", "f.yaml:1:10: figures must be a mapping of names to figures"},
		{"figures: {x: [1s]}\n", "f.yaml:1:14: x: expected a mapping such as {mean: 0.56s, p95: 0.9s}"},
		{"figures: {x: {mean: 1s\n", "f.yaml: line 1: did not find expected ',' or '}'"},
		{"figures: {x: {mean: 1s}}\n---\nfigures: {y: {mean: 2s}}\n", "f.yaml:2:1: a second YAML document starts here; the file is one document"},
		{"figures: {x: {mean: 1s}}\n...\nfigures: [\n", "f.yaml:3:1: a second YAML document starts here; the file is one document"},
	} {
		if _, err := ReadFigures("f.yaml", strings.NewReader(c.in)); err == nil || err.Error() != c.want {
			t.Errorf("ReadFigures(%q): error\n got %v\nwant %s", c.in, err, c.want)
		}
	}
}

// TestFiguresFragmentGolden turns the example figures file into a fragment
// and compares it with figures.golden.yaml: the whole path from figures to
// the YAML a scenario includes.
func TestFiguresFragmentGolden(t *testing.T) {
	t.Parallel()
	const path = "testdata/calibration/figures.yaml"
	nfs, err := ReadFiguresFile(testdata("figures.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for _, nf := range nfs {
		sf, err := FitFigures(nf.Figures)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, EntryFromFigures(nf.Name, []string{path}, sf, "capsim calibrate figures "+path))
	}
	got, err := MergeFragment(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, testdata("figures.golden.yaml"), got)
}

// FuzzFigureInputs feeds arbitrary bytes to the figures-file and summary
// readers: they return figures or errors, never panic, and whatever they
// accept can be fitted and written as a fragment.
func FuzzFigureInputs(f *testing.F) {
	for _, name := range []string{"figures.yaml", "k6-summary-export.json", "k6-handle-summary.json", "k6-summary-v1.json"} {
		b, err := os.ReadFile(testdata(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("figures: {a: {p50: 2s, p95: 1s}, b: {mean: 1s, cv: -1}, c: {min: 1s, max: 1s}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if nfs, err := ReadFigures("fuzz.yaml", bytes.NewReader(data)); err == nil {
			var entries []Entry
			for _, nf := range nfs {
				sf, err := FitFigures(nf.Figures)
				if err != nil {
					t.Fatalf("%s was read but cannot be fitted: %v", nf.Name, err)
				}
				entries = append(entries, EntryFromFigures(nf.Name, []string{"fuzz.yaml"}, sf, ""))
			}
			if _, err := MergeFragment(nil, entries); err != nil {
				t.Fatal(err)
			}
		}
		for _, flt := range []Filter{{}, {Tags: []Tag{{"expected_response", "true"}}}, {Route: "/**"}} {
			if fig, err := ReadK6Summary("fuzz.json", bytes.NewReader(data), "", flt); err == nil {
				FitFigures(fig)
			}
		}
	})
}
