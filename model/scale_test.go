package model

import (
	"math"
	"testing"
	"testing/fstest"
)

// Overrides reach every value, included distributions among them, and
// refuse names that exist nowhere with a message naming what does.

const withCalibration = `name: s
include: [fit.yaml]
duration: 60s
components:
  app: {kind: pool, servers: 2}
journeys:
  upload:
    rate: 1/s
    attributes: {photos: 10}
    steps:
      - use: app
        work: service
      - delay: 2s
        per: photos
designs:
  slower:
    distributions:
      service: exponential(mean=2s)
`

const fit = `distributions:
  service:
    dist: lognormal(mean=0.5s, cv=0.3)
    source: {figures: "mean=0.5s cv=0.3"}
`

func loadCal(t *testing.T, opts LoadOptions) (*Loaded, error) {
	t.Helper()
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(withCalibration)}, "fit.yaml": {Data: []byte(fit)}}
	return Load(fsys, "s.yaml", opts)
}

func serviceMean(t *testing.T, l *Loaded) float64 {
	t.Helper()
	e, ok := l.Scenario.Distributions.Get("service")
	if !ok {
		t.Fatal("no distribution service")
	}
	return e.Dist.Dist.Mean()
}

func TestSetReplacesAnIncludedDistribution(t *testing.T) {
	l, err := loadCal(t, LoadOptions{Sets: []string{"distributions.service=exponential(mean=3s)"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := serviceMean(t, l); got != 3 {
		t.Errorf("mean after --set = %g, want 3", got)
	}
	if n := len(l.Scenario.Distributions.Items); n != 1 {
		t.Errorf("%d distributions, want the one, replaced", n)
	}
	if _, err := l.Compile(); err != nil {
		t.Fatal(err)
	}
}

func TestDesignReplacesAnIncludedDistribution(t *testing.T) {
	l, err := loadCal(t, LoadOptions{Design: "slower"})
	if err != nil {
		t.Fatal(err)
	}
	if got := serviceMean(t, l); got != 2 {
		t.Errorf("mean under the design = %g, want 2", got)
	}
}

func TestScenarioRedefiningAnIncludedNameIsRefused(t *testing.T) {
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(withCalibration + "distributions:\n  service: 1s\n")}, "fit.yaml": {Data: []byte(fit)}}
	_, err := Load(fsys, "s.yaml", LoadOptions{})
	want := "fit.yaml:2:3: distributions.service: defined both in the scenario (line 20) and in fit.yaml"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// Scaling keeps the shape: the mean moves by the factor, the CV stays.
func TestScaleKeepsTheShape(t *testing.T) {
	base, err := loadCal(t, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := loadCal(t, LoadOptions{Scales: []string{"distributions.service=1.1", "journeys.upload.steps.1.delay=1.5", "components.app.servers=1.5"}})
	if err != nil {
		t.Fatal(err)
	}
	b, s := base.Scenario.Distributions.Items[0].Value.Dist.Dist, l.Scenario.Distributions.Items[0].Value.Dist.Dist
	if math.Abs(s.Mean()/b.Mean()-1.1) > 1e-12 || math.Abs(s.CV()-b.CV()) > 1e-12 {
		t.Errorf("scaled mean ratio %g (want 1.1), cv %g (want %g)", s.Mean()/b.Mean(), s.CV(), b.CV())
	}
	j, _ := l.Scenario.Journeys.Get("upload")
	if got := j.Steps[1].Delay.Dist.Mean(); got != 3 {
		t.Errorf("scaled delay %g s, want 3", got)
	}
	if n, _ := findNode(l.root, []string{"components", "app", "servers"}); n == nil || n.Value != "3" {
		t.Errorf("scaled servers %v, want 3", n)
	}
	if _, err := l.Compile(); err != nil {
		t.Fatal(err)
	}
}

func TestOverrideErrors(t *testing.T) {
	for _, tc := range []struct {
		opts LoadOptions
		want string
	}{
		{LoadOptions{Sets: []string{"distributions.servce=1s"}},
			`--set distributions.servce=1s: no distribution "servce" in the scenario or its includes; did you mean "service"?`},
		{LoadOptions{Scales: []string{"distributions.nothing=1.1"}},
			`--scale distributions.nothing=1.1: no distribution "nothing" in the scenario or its includes (defined: service)`},
		{LoadOptions{Sets: []string{"journeys.upload.attributes.photo=3"}},
			`--set journeys.upload.attributes.photo=3: no attribute "photo" in journey upload; did you mean "photos"?`},
		{LoadOptions{Scales: []string{"components.app.servers=1.1"}},
			`--scale components.app.servers=1.1: components.app.servers: 2 is a whole number and 2 × 1.1 = 2.2 is not; give the new value with --set`},
		{LoadOptions{Scales: []string{"journeys.upload.steps.0.work=2"}},
			`--scale journeys.upload.steps.0.work=2: journeys.upload.steps.0.work: names the distribution service: scale distributions.service (every use of it) instead`},
		{LoadOptions{Scales: []string{"components.app.servers=-1"}},
			`--scale components.app.servers=-1: the factor must be a number > 0, got "-1"`},
		{LoadOptions{Scales: []string{"components.db.servers=2"}},
			`--scale components.db.servers=2: no such key components.db in the scenario`},
	} {
		_, err := loadCal(t, tc.opts)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v:\n got %v\nwant %s", tc.opts, err, tc.want)
		}
	}
}

// A key the schema has but the scenario left out is made by --set.
func TestSetMakesAMissingSchemaMap(t *testing.T) {
	l, err := loadCal(t, LoadOptions{Sets: []string{"limits.max_queue=7"}})
	if err != nil {
		t.Fatal(err)
	}
	if q := l.Scenario.Limits.MaxQueue; q == nil || *q != 7 {
		t.Errorf("limits.max_queue = %v, want 7", q)
	}
}
