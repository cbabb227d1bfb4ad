package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// Fuzz targets for everything that parses user input. The property is the
// same for all: any input either loads (and then compiles and runs within
// its guards) or is refused with an error — never a panic, never a hang.
// Seeds live in the f.Add calls and under testdata/fuzz; a crash found by
// `go test -fuzz` lands there too and becomes a regression test.

const fuzzBase = `name: f
duration: 1m
components:
  app: {kind: pool, servers: 2, queue: 3}
  lk: {kind: lock, wait_timeout: 1s}
  b: {kind: bucket, rate: 5/s, max_wait: 100ms}
  w: {kind: worker, instances: 1, cold_start: 1s, idle_stop: 10s}
journeys:
  visit:
    rate: 60/m
    attributes: {n: 3}
    steps:
      - call: r
        timeout: 2s
        retry: {attempts: 2, backoff: 100ms}
      - fanout: n
        limit: 2
        steps: [{use: b}]
routes:
  r:
    steps:
      - hold: app
      - use: lk
        work: exponential(mean=10ms)
      - job: j
  j:
    steps: [{use: w, work: 50ms}]
`

// guarded keeps a fuzzed run small whatever the input asks for.
var guarded = []string{"limits.max_events=20000", "limits.max_in_flight=2000", "limits.max_time=2h"}

func loadCompileRun(t *testing.T, data []byte, sets []string) {
	fsys := fstest.MapFS{"s.yaml": {Data: data}}
	l, err := LoadBytes(fsys, "s.yaml", data, LoadOptions{Sets: sets})
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	if _, err := l.Compile(); err != nil {
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	// A scenario that compiles runs, with our guards on top of its own so
	// that a fuzzed run stays small.
	l2, err := LoadBytes(fsys, "s.yaml", data, LoadOptions{Sets: append(append([]string{}, sets...), guarded...)})
	if err != nil {
		return
	}
	c, err := l2.Compile()
	if err != nil {
		return
	}
	if _, err := c.Run(RunOptions{Seed: 1, Multiplier: 1}); err != nil {
		t.Fatalf("compiled scenario failed to run: %v", err)
	}
}

func FuzzLoad(f *testing.F) {
	// Every scenario in the repository seeds the corpus.
	seeds, _ := filepath.Glob("testdata/*.yaml")
	more, _ := filepath.Glob("../scenarios/*.yaml")
	for _, name := range append(seeds, more...) {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(fuzzBase))
	f.Add([]byte("name: x\nduration: 1h\n"))
	f.Add([]byte("{"))
	f.Add([]byte(strings.Replace(fuzzBase, "servers: 2", "servers: -1", 1)))
	f.Add([]byte(strings.Replace(fuzzBase, "exponential(mean=10ms)", "lognormal(mean=1s, p95=2s)", 1)))
	f.Add([]byte(fuzzBase + "designs:\n  d:\n    components:\n      app: null\n"))
	// Numbers at and past every bound, and names with the separators
	// metric names use.
	for _, r := range [][2]string{
		{"servers: 2", "servers: 9223372036854775807"},
		{"servers: 2", "servers: 9223372036854775808"},
		{"rate: 60/m", "rate: 1e308/s"},
		{"rate: 60/m", "rate: 1e-300/h"},
		{"rate: 60/m", "clients: 9223372036854775807"},
		{"duration: 1m", "duration: 2562047h"},
		{"duration: 1m", "duration: 876600h"},
		{"exponential(mean=10ms)", "weibull(shape=1e-300, scale=1s)"},
		{"exponential(mean=10ms)", "gamma(mean=1s, cv=1e308)"},
		{"exponential(mean=10ms)", "lognormal(mu=700, sigma=1)"},
		{"attributes: {n: 3}", "attributes: {n: 9223372036854775807}"},
		{"  app:", "  app.replica.0:"},
		{"  visit:", "  visit.failed_at.x:"},
		{"  lk:", "  \"l\\e[2Jk\":"},
		{"name: f", "name: \"f\\nforged line\""},
		{"name: f", "name: f\xff"},
	} {
		f.Add([]byte(strings.Replace(fuzzBase, r[0], r[1], 1)))
	}
	f.Add([]byte(fuzzBase + "limits: {max_events: 0, max_in_flight: -1}\n"))
	// A named distribution by family, a parameter ranged, used in place.
	f.Add([]byte(strings.Replace(fuzzBase, "exponential(mean=10ms)", "svc", 1) +
		"distributions:\n  svc: {family: lognormal, mean: {range: [5ms, 20ms]}, cv: 0.5, shift: 1ms}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		loadCompileRun(t, data, nil)
	})
}

// Designs overlay the base through aliases and merge into each other; any
// file and any design list either loads or is refused, never a panic, and
// within the value budget.
func FuzzDesigns(f *testing.F) {
	f.Add([]byte(fuzzBase+"designs:\n  a: {components: {app: {servers: 1}}}\n  b: {}\n"), "a+b")
	if data, err := os.ReadFile("../cmd/capsim/testdata/hostile/alias_overlay.yaml"); err == nil {
		f.Add(data, "small-db")
	}
	if data, err := os.ReadFile("../cmd/capsim/testdata/hostile/alias_bomb_design.yaml"); err == nil {
		f.Add(data, "a+b")
	}
	f.Add([]byte("a: &a {b: *a}\n"), "x")
	f.Fuzz(func(t *testing.T, data []byte, design string) {
		if _, err := LoadBytes(fstest.MapFS{}, "s.yaml", data, LoadOptions{Design: design}); err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}

func FuzzSet(f *testing.F) {
	f.Add("components.app.servers=5")
	f.Add("journeys.visit.steps.0.timeout=1ms")
	f.Add("components.app=null")
	f.Add("journeys.visit.steps.9=1")
	f.Add("=")
	f.Add("duration={a: [")
	f.Add("components.app.servers=9223372036854775808")
	f.Add("journeys.visit.rate=1e400/s")
	f.Add("duration=2562048h")
	f.Add("components.app.replica.0=1")
	f.Add("journeys.visit.steps.0.stage=\"a\\nb\"")
	f.Add("a.b.c.d.e.f.g.h=1")
	f.Add("limits.max_in_flight=0")
	f.Fuzz(func(t *testing.T, set string) {
		loadCompileRun(t, []byte(fuzzBase), []string{set})
	})
}

func FuzzDuration(f *testing.F) {
	for _, s := range []string{"40s", "3m45s", "1e+06s", "-1s", "60", "", "1.5h", "9999999999h", "1e400s", ".5ms",
		"876600h", "876601h", "2562047h", "9223372036854775807ns", "9223372036854775808ns", "1e-400s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("parseDuration(%q) = %v, negative without an error", s, d)
		}
	})
}

func FuzzDistribution(f *testing.F) {
	for _, s := range []string{"exponential(mean=1s)", "lognormal(mean=0.56s, p95=0.9s)", "gamma(mean=1s, p95=3s)",
		"uniform(1s, 2s)", "empirical(1s, 2s)", "weibull(shape=0.5, scale=1s)", "normal(mean=0s, sd=1s)", "x(", "lognormal(mu=1e308, sigma=1e308)",
		"gamma(mean=1s, cv=1e308)", "gamma(mean=1s, cv=1e-308)", "weibull(shape=1e-300, scale=1s)", "exponential(rate=1e-300/s)",
		"lognormal(mean=1s, cv=1e308)", "empirical(file=../x.csv)", "empirical(file=/etc/passwd)",
		"exponential(mean=1s, shift=2s)", "uniform(1s, 2s, shift=1e9h)", "lognormal(mu=0, sigma=1, shift=99y)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var r DistRef
		if err := r.parseScalar(s); err != nil || r.Ref != "" || r.File != "" {
			return
		}
		// A distribution that parses must sample finite, non-negative values.
		d := r.Dist
		if m := d.Mean(); m < 0 {
			t.Fatalf("%q: negative mean %v", s, m)
		}
	})
}
