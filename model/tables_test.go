package model

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// The vocabulary lives in one table each (component kinds, step verbs,
// SLO measures, distribution forms); these tests hold the tables, the
// schema and the README's reference to each other.

// readme returns the README's rows of the table whose header starts with
// header, each row's first cell without its backquotes and value.
func readmeRows(t *testing.T, header string) []string {
	t.Helper()
	data := mustReadFile(t, "../README.md")
	var rows []string
	in := false
	cell := regexp.MustCompile("^\\| `([a-z_]+)")
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, header):
			in = true
		case in && !strings.HasPrefix(line, "|"):
			return rows
		case in:
			if m := cell.FindStringSubmatch(line); m != nil {
				rows = append(rows, m[1])
			}
		}
	}
	return rows
}

func TestEveryKindIsDocumentedAndDecodes(t *testing.T) {
	documented := readmeRows(t, "| kind | keys | behaviour |")
	if len(documented) != len(kinds) {
		t.Fatalf("README documents kinds %v; the registry has %d", documented, len(kinds))
	}
	for i, k := range kinds {
		if documented[i] != k.name {
			t.Errorf("README kind %d is %q, registry has %q", i, documented[i], k.name)
		}
		if _, ok := k.newSpec().(kindSpec); !ok || len(specKeys(k)) == 0 {
			t.Errorf("kind %s has no spec keys", k.name)
		}
		for _, key := range specKeys(k) {
			if strings.Contains(key, ".") || key == "" {
				t.Errorf("kind %s: bad key %q", k.name, key)
			}
		}
	}
}

func TestEveryVerbIsAStepFieldAndDocumented(t *testing.T) {
	documented := readmeRows(t, "| verb | meaning | modifiers |")
	want := append(strings.Split(verbKeys(verbTable, " "), " "), "log", "stage")
	if strings.Join(documented, " ") != strings.Join(want, " ") {
		t.Errorf("README verbs %v, table %v", documented, want)
	}
	for _, v := range verbTable {
		if _, ok := stepField[v.key]; !ok {
			t.Errorf("verb %s has no Step field", v.key)
		}
		for _, m := range v.modifiers {
			if _, ok := stepField[m]; !ok {
				t.Errorf("verb %s: modifier %s has no Step field", v.key, m)
			}
		}
	}
	for _, m := range stepModifiers {
		if _, ok := stepField[m]; !ok {
			t.Errorf("modifier %s has no Step field", m)
		}
	}
}

func TestEverySLOMeasureIsAField(t *testing.T) {
	for _, m := range sloMeasures {
		if _, ok := sloField[m.key]; !ok {
			t.Errorf("measure %s has no SLO field", m.key)
		}
		if m.journey == nil && m.route == nil && m.component == nil {
			t.Errorf("measure %s applies to nothing", m.key)
		}
	}
}

func TestAnSLOMeasureOnTheWrongSubject(t *testing.T) {
	src := `name: s
duration: 1s
components:
  app: {kind: pool, servers: 1}
journeys:
  j: {rate: 1/s, steps: [{use: app, work: 1s}]}
slos:
  - {component: app, p95: "<= 1s"}
`
	l, err := LoadBytes(nil, "s.yaml", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Compile()
	want := `s.yaml:8:27: slos[0].p95: p95 does not apply to a component SLO (it takes rejection_rate, utilisation)`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestEveryDistributionFormBuilds(t *testing.T) {
	for _, f := range distForms {
		if f.build == nil {
			if f.family != "empirical" {
				t.Errorf("%s(%v) has no constructor", f.family, f.params)
			}
			continue
		}
		v := map[string]float64{}
		for _, p := range f.params {
			v[p] = 1
		}
		v["p95"], v["max"], v["cv"] = 2, 2, 0.5
		if _, err := f.build(v); err != nil {
			t.Errorf("%s(%v): %v", f.family, f.params, err)
		}
	}
}

func TestAChoiceOfZeroWeightsIsRefused(t *testing.T) {
	src := `name: z
duration: 1s
journeys:
  j:
    rate: 1/s
    attributes: {share: 0}
    steps:
      - choose:
          - {weight: share, steps: [{delay: 1s}]}
          - {weight: 0, steps: [{delay: 2s}]}
`
	l, err := LoadBytes(nil, "z.yaml", []byte(src), LoadOptions{})
	if err == nil {
		_, err = l.Compile()
	}
	want := `z.yaml:4:3: journeys.j: a step chooses among branches whose weights are all 0 for journey j: nothing to choose`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// A component behind a balancer used where no pick of it encloses the
// step is refused when compiling, naming the step, not found at run time.
func TestABehindComponentUsedOutsideAPick(t *testing.T) {
	src := `name: b
duration: 1s
components:
  lb: {kind: balancer, replicas: 2}
  db: {kind: pool, servers: 1, behind: lb}
journeys:
  j:
    rate: 1/s
    steps:
      - use: lb
        steps: [{call: q}]
      - call: q
routes:
  q:
    steps: [{use: db, work: 1s}]
`
	l, err := LoadBytes(nil, "b.yaml", []byte(src), LoadOptions{})
	if err == nil {
		_, err = l.Compile()
	}
	want := `b.yaml:15:13: routes.q.steps[0]: uses db, which is behind balancer lb, outside any use or hold of lb: no replica is picked there`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// A value in an empirical file past the clock's reach is refused like a
// duration written in the scenario, naming the file's line.
func TestAnEmpiricalValuePastTheClockIsRefused(t *testing.T) {
	fsys := fstest.MapFS{"times.csv": {Data: []byte("1.5\n4e12\n")}}
	src := `name: e
duration: 1s
journeys:
  j: {rate: 1/s, steps: [{delay: "empirical(file=times.csv)"}]}
`
	l, err := LoadBytes(fsys, "e.yaml", []byte(src), LoadOptions{})
	if err == nil {
		_, err = l.Compile()
	}
	want := "e.yaml:4:26: journeys.j.steps[0].delay: empirical: times.csv:2: 4e12 seconds is more than 100 years, the longest time capsim simulates"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
