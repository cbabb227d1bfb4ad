package model

import (
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

// The parameters a sensitivity perturbs are read off the scenario: what
// each value is, how it is labelled, and one entry for a value written
// once however many paths reach it.
const paramsScenario = `name: p
include: [fit.yaml]
duration: 60s
distributions:
  unused: 1s
components:
  app: {kind: pool, servers: 4, queue: 2} # 000-12
  # assumption: a 30 s wait_timeout, the library's default
  db:
    kind: pool
    servers: 2
    wait_timeout: 30s
journeys:
  visit:
    rate: 1/s
    attributes: {photos: 10, share: 0.5}
    steps:
      - &upload
        call: upload
        timeout: 5s # assumption: a client's patience
      - *upload
      - repeat: photos
        steps: [{delay: 2s}]
routes:
  upload:
    steps:
      - use: app
        work: service
      - choose:
          - weight: 3 # fitted: from the access log
            steps: [{use: db, work: "gamma(mean=20ms, cv=1)"}]
          - weight: 1
            steps: [{work: 1ms}]
    on_failure:
      - use: app
        work: 5ms # assumption: writing the error response
`

func TestParamsOfAScenario(t *testing.T) {
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(paramsScenario)}, "fit.yaml": {Data: []byte(fit)}}
	got := paramLines(t, fsys, "s.yaml", LoadOptions{}, func(p Param) string {
		mean := ""
		if !math.IsNaN(p.Mean) {
			mean = fmt.Sprintf(" mean=%g", p.Mean)
		}
		return fmt.Sprintf("%s %s %s %s min=%d%s [%s] %s", p.Name, p.Path, p.Kind, p.Value, p.Min, mean, p.Label, p.Note)
	})
	want := []string{
		"service distributions.service distribution lognormal(mean=0.5s, cv=0.3) min=0 mean=0.5 [fitted] mean=0.5s cv=0.3",
		"app.servers components.app.servers count 4 min=1 [input] 000-12",
		"app.queue components.app.queue count 2 min=0 [input] 000-12",
		// The comment on its own line above db: heads its block.
		"db.servers components.db.servers count 2 min=1 [assumption] a 30 s wait_timeout, the library's default",
		"db.wait_timeout components.db.wait_timeout time 30s min=0 mean=30 [assumption] a 30 s wait_timeout, the library's default",
		"visit.photos journeys.visit.attributes.photos count 10 min=0 [] ",
		"visit.share journeys.visit.attributes.share number 0.5 min=0 [] ",
		"visit.timeout journeys.visit.steps.0.timeout time 5s min=0 mean=5 [assumption] a client's patience",
		"visit.delay journeys.visit.steps.2.steps.0.delay time 2s min=0 mean=2 [] ",
		"upload.choose.0.weight routes.upload.steps.1.choose.0.weight weight 3 min=0 [fitted] from the access log",
		"upload.choose.0.work routes.upload.steps.1.choose.0.steps.0.work time gamma(mean=20ms, cv=1) min=0 mean=0.02 [] ",
		"upload.choose.1.work routes.upload.steps.1.choose.1.steps.0.work time 1ms min=0 mean=0.001 [] ",
		"upload.on_failure.work routes.upload.on_failure.0.work time 5ms min=0 mean=0.005 [assumption] writing the error response",
	}
	checkParamLines(t, got, want)
}

// A value given a range is listed with the range's ends, even at a point
// value of 0 that no factor could move, so a sensitivity can take it to
// the ends the scenario declares.
func TestParamsCarryTheirRanges(t *testing.T) {
	const src = `name: r
duration: 60s
components:
  cpu: {kind: cpu, cores: 2, switch_cost: {triangular: [0, 0, 0.05]}} # assumption: no figure
  db:
    kind: pool
    servers: {range: [1, 3]} # assumption: the pool size is not given
    wait_timeout: {triangular: [20s, 50s, 90s]} # assumption: a driver's default
journeys:
  visit:
    rate: 1/s
    steps: [{use: db, work: 10ms}, {use: cpu, work: 5ms}]
`
	got := paramLines(t, fstest.MapFS{"s.yaml": {Data: []byte(src)}}, "s.yaml", LoadOptions{}, func(p Param) string {
		return fmt.Sprintf("%s %s %s [%s..%s]", p.Name, p.Kind, p.Value, p.Lo, p.Hi)
	})
	want := []string{
		"cpu.cores number 2 [..]",
		"cpu.switch_cost number 0 [0..0.05]",
		"db.servers count 2 [1..3]",
		"db.wait_timeout time 50s [20s..90s]",
		"visit.0.work time 10ms [..]",
		"visit.1.work time 5ms [..]",
	}
	checkParamLines(t, got, want)
}

// A component's parameters are its kind's own keys, read from the spec
// the decoder fills: a balancer's target and safety (assumptions the
// realtime-sessions scenario labels) are listed, a status code is not.
func TestParamsComeFromTheKindSpecs(t *testing.T) {
	src := `name: p
duration: 10s
components:
  lb: {kind: balancer, replicas: 4, policy: hybrid, target: 0.7, safety: 0.5}
  db: {kind: pool, servers: 4, behind: lb}
  tokens: {kind: bucket, rate: 10/s, burst: 5, refuse: at_deadline, deadline_status: 503, adapt: {rates: [5/s], signals: 10, window: 5s}}
journeys:
  j:
    rate: 10/s
    steps:
      - use: db
        work: 10ms
`
	l, err := LoadBytes(fstest.MapFS{}, "s.yaml", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ParamKind{}
	for _, p := range l.Params() {
		got[p.Path] = p.Kind
	}
	for path, kind := range map[string]ParamKind{
		"components.lb.replicas": ParamCount, "components.lb.target": ParamNumber,
		"components.lb.safety": ParamNumber, "components.db.servers": ParamCount,
		"components.tokens.burst":         ParamNumber,
		"components.tokens.adapt.signals": ParamCount, "components.tokens.adapt.window": ParamTime,
	} {
		if got[path] != kind {
			t.Errorf("%s: kind %q, want %q", path, got[path], kind)
		}
	}
	if k, ok := got["components.tokens.deadline_status"]; ok {
		t.Errorf("deadline_status is listed as a %s parameter: a status is a name, not a quantity", k)
	}
}

// A value a design's overlay writes is labelled by the overlay's comments
// alone: the base's label belongs to the value the design replaced, so a
// design value without its own label has none, whatever the base said.
const designParamsScenario = `name: d
duration: 60s
components:
  app: {kind: pool, servers: 4, queue: 2} # 000-12
  # assumption: a 30 s wait_timeout, the library's default
  db:
    kind: pool
    servers: 2 # 000-13
    wait_timeout: 30s
journeys:
  visit:
    rate: 1/s
    attributes:
      photos: 10 # 000-14
    steps:
      - call: upload
routes:
  upload:
    steps:
      - use: app
        steps:
          - use: db
            work: 5ms # 000-15
designs:
  bare:
    components:
      app: {servers: 8}
      db: {wait_timeout: 10s}
    journeys:
      visit: {attributes: {photos: 20}}
  labelled:
    components:
      app: {servers: 8} # assumption: twice the pool
      cache: {kind: pool, servers: 3} # 000-40
    journeys:
      visit:
        attributes:
          photos: 20 # fitted: 000-41
    routes:
      upload:
        steps:
          - use: app
            work: 7ms
`

func TestParamsOfADesignAreLabelledByItsOverlay(t *testing.T) {
	fsys := fstest.MapFS{"d.yaml": {Data: []byte(designParamsScenario)}}
	for _, c := range []struct {
		design string
		want   []string
	}{
		{"", []string{
			"components.app.servers 4 d.yaml:4 [input] design=",
			"components.app.queue 2 d.yaml:4 [input] design=",
			"components.db.servers 2 d.yaml:8 [input] design=",
			"components.db.wait_timeout 30s d.yaml:9 [assumption] design=",
			"journeys.visit.attributes.photos 10 d.yaml:14 [input] design=",
			"routes.upload.steps.0.steps.0.work 5ms d.yaml:23 [input] design=",
		}},
		{"bare", []string{
			"components.app.servers 8 d.yaml:27 [] design=bare",
			"components.app.queue 2 d.yaml:4 [input] design=",
			"components.db.servers 2 d.yaml:8 [input] design=",
			"components.db.wait_timeout 10s d.yaml:28 [] design=bare",
			"journeys.visit.attributes.photos 20 d.yaml:30 [] design=bare",
			"routes.upload.steps.0.steps.0.work 5ms d.yaml:23 [input] design=",
		}},
		{"labelled", []string{
			"components.app.servers 8 d.yaml:33 [assumption] design=labelled",
			"components.app.queue 2 d.yaml:4 [input] design=",
			"components.db.servers 2 d.yaml:8 [input] design=",
			"components.db.wait_timeout 30s d.yaml:9 [assumption] design=",
			"components.cache.servers 3 d.yaml:34 [input] design=labelled",
			"journeys.visit.attributes.photos 20 d.yaml:38 [fitted] design=labelled",
			"routes.upload.steps.0.work 7ms d.yaml:43 [] design=labelled",
		}},
		// Designs joined with + merge copies of their overlays: the
		// later one's value is its own, the earlier one's stays the earlier's.
		{"labelled+bare", []string{
			"components.app.servers 8 d.yaml:27 [] design=bare",
			"components.app.queue 2 d.yaml:4 [input] design=",
			"components.db.servers 2 d.yaml:8 [input] design=",
			"components.db.wait_timeout 10s d.yaml:28 [] design=bare",
			"components.cache.servers 3 d.yaml:34 [input] design=labelled",
			"journeys.visit.attributes.photos 20 d.yaml:30 [] design=bare",
			"routes.upload.steps.0.work 7ms d.yaml:43 [] design=labelled",
		}},
	} {
		got := paramLines(t, fsys, "d.yaml", LoadOptions{Design: c.design}, func(p Param) string {
			return fmt.Sprintf("%s %s %s:%d [%s] design=%s", p.Path, p.Value, p.File, p.Line, p.Label, p.Design)
		})
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("design %q:\ngot\n%s\nwant\n%s", c.design, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// paramLines loads the scenario at name in fsys and lists its parameters,
// in order, one a line as line writes each: each test reads the fields it
// is about.
func paramLines(t *testing.T, fsys fs.FS, name string, opts LoadOptions, line func(Param) string) []string {
	t.Helper()
	l, err := Load(fsys, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range l.Params() {
		lines = append(lines, line(p))
	}
	return lines
}

// checkParamLines fails the test where the parameters listed one a line,
// got, are not want, showing both lists whole.
func checkParamLines(t *testing.T, got, want []string) {
	t.Helper()
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("params:\n%s\nwant:\n%s", g, w)
	}
}
