package model_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"capsim/model"
)

// docScenario has what a load changes in place: an anchor that an alias
// repeats, a range that becomes its point value, a design overlay and an
// included distribution.
var docScenario = scenarioSrc("doc", "60s", "include: [fit.yaml]\n",
	`  db: &pool {kind: pool, servers: {range: [2, 4]}, queue: 10}
  app: *pool
`,
	`  visit:
    rate: 1/s
    steps: [{use: app, work: service}, {use: db, work: 0.2s}]
designs:
  small-db:
    components: {db: {servers: 1}}
`)

func parseDoc(t *testing.T) *model.Document {
	t.Helper()
	fsys := fstest.MapFS{"fit.yaml": {Data: []byte("distributions:\n  service: exponential(mean=0.5s)\n")}}
	d, err := model.ParseBytes(fsys, "doc.yaml", []byte(docScenario), model.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func overrides(t *testing.T, sets, scales []string) []model.Override {
	t.Helper()
	o, err := model.ParseOverrides(sets, scales)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func pool(t *testing.T, l *model.Loaded, name string) *model.PoolSpec {
	t.Helper()
	c, ok := l.Scenario.Components.Get(name)
	if !ok {
		t.Fatalf("no component %s", name)
	}
	return c.Spec.(*model.PoolSpec)
}

// Loads from one document leave it as parsed: what a design, an override
// or a range's point changes in one load is not seen by the next, nor in
// the override, which serves every load.
func TestLoadsFromADocumentAreIndependent(t *testing.T) {
	d := parseDoc(t)
	ov := overrides(t, []string{"components.db={kind: pool, servers: 6, queue: 1}", "components.db.queue=3"}, []string{"components.app.queue=2"})
	for range 2 {
		l, err := d.Load(model.LoadOptions{Design: "small-db", Overrides: ov})
		if err != nil {
			t.Fatal(err)
		}
		if db, app := pool(t, l, "db"), pool(t, l, "app"); *db.Servers != 6 || *db.Queue != 3 || *app.Servers != 3 || *app.Queue != 20 {
			t.Fatalf("db %d/%d, app %d/%d; want 6/3 and 3/20", *db.Servers, *db.Queue, *app.Servers, *app.Queue)
		}
		base, err := d.Load(model.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if db, app := pool(t, base, "db"), pool(t, base, "app"); *db.Servers != 3 || *db.Queue != 10 || *app.Servers != 3 || *app.Queue != 10 {
			t.Fatalf("base: db %d/%d, app %d/%d; want 3/10 both", *db.Servers, *db.Queue, *app.Servers, *app.Queue)
		}
		if us := base.Uncertain(); len(us) != 1 || us[0].Path != "components.db.servers" {
			t.Fatalf("uncertain %+v", us)
		}
	}
}

// Overrides parsed once load the scenario as their text does, with the
// same messages.
func TestTypedOverridesLoadAsTheirText(t *testing.T) {
	d := parseDoc(t)
	sets := []string{"components.app.servers=5", "distributions.service=exponential(mean=0.7s)"}
	scales := []string{"distributions.service=1.5", "journeys.visit.steps.1.work=2"}
	text, err := d.Load(model.LoadOptions{Design: "small-db", Sets: sets, Scales: scales})
	if err != nil {
		t.Fatal(err)
	}
	typed, err := d.Load(model.LoadOptions{Design: "small-db", Overrides: overrides(t, sets, scales)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(text.Scenario, typed.Scenario) {
		t.Errorf("typed overrides load another scenario than their text")
	}

	for _, tc := range []struct{ sets, scales []string }{
		{[]string{"servers"}, nil},
		{[]string{" =3"}, nil},
		{[]string{"components.app={a: 1, a: 2}"}, nil},
		{[]string{"components.app.servers=[1"}, nil},
		{[]string{"components.nothing.servers=2"}, nil},
		{nil, []string{"components.app.queue=0"}},
		{nil, []string{"components.app.queue"}},
		{nil, []string{"components.app.kind=2"}},
	} {
		_, want := d.Load(model.LoadOptions{Sets: tc.sets, Scales: tc.scales})
		if want == nil {
			t.Fatalf("%q %q loads", tc.sets, tc.scales)
		}
		ov, err := model.ParseOverrides(tc.sets, tc.scales)
		if err == nil {
			_, err = d.Load(model.LoadOptions{Overrides: ov})
		}
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%q %q: got %v, want %v", tc.sets, tc.scales, err, want)
		}
	}
}

// An Override made without ParseSet or ParseScale is refused, not
// applied.
func TestZeroOverrideIsRefused(t *testing.T) {
	d := parseDoc(t)
	for _, o := range []model.Override{{}, {Scale: true}, {Path: "components.app.servers", Value: "3"}} {
		_, err := d.Load(model.LoadOptions{Overrides: []model.Override{o}})
		if err == nil || !strings.Contains(err.Error(), "expected path=") {
			t.Errorf("%+v: error %v", o, err)
		}
	}
}

// Designs load and compile from one document at once, as a sweep's
// planning may.
func TestConcurrentLoadsOfADocument(t *testing.T) {
	fsys := fstest.MapFS{"times.csv": {Data: []byte("0.1\n0.3\n")}}
	src := strings.Replace(docScenario, "include: [fit.yaml]\n", "distributions:\n  service: empirical(file=times.csv)\n", 1)
	d, err := model.ParseBytes(fsys, "doc.yaml", []byte(src), model.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ov := overrides(t, []string{"components.app.queue=4"}, nil)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			design := ""
			if i%2 == 1 {
				design = "small-db"
			}
			l, err := d.Load(model.LoadOptions{Design: design, Overrides: ov})
			if err == nil {
				_, err = l.Compile()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if src := d.Sources(); len(src) != 2 || src[1].Name != "times.csv" {
		t.Errorf("sources %+v", src)
	}
}
