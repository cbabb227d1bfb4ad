package model

import (
	"strings"
	"testing"

	"capsim/cmd/golden"
)

// The vocabulary lives in one table each (component kinds, step verbs,
// SLO measures, distribution forms); these tests hold the tables, the
// schema and the README's reference to each other.

func TestEveryKindIsDocumentedAndDecodes(t *testing.T) {
	documented := golden.TableKeys(t, "../README.md", "| kind | keys | behaviour |")
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
	documented := golden.TableKeys(t, "../README.md", "| verb | meaning | modifiers |")
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
