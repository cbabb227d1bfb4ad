package model

import (
	"slices"
	"strings"
	"testing"
)

// Every measure an observation can take is named in docs/observations.md
// under its subject, and the page names none that it cannot take.
func TestEveryObservableMeasureIsDocumented(t *testing.T) {
	page := string(mustReadFile(t, "../docs/observations.md"))
	start := strings.Index(page, "## Measures")
	end := strings.Index(page, "## Rules for what an observation says")
	if start < 0 || end < start {
		t.Fatal("docs/observations.md has no Measures section")
	}
	sections := map[string]string{}
	rest := page[start:end]
	for _, s := range []struct{ subject, head, next string }{
		{"journey", "A journey:", "A route:"},
		{"route", "A route:", "A component:"},
		{"component", "A component:", ""},
	} {
		i := strings.Index(rest, s.head)
		j := len(rest)
		if s.next != "" {
			j = strings.Index(rest, s.next)
		}
		if i < 0 || j < i {
			t.Fatalf("no section %q", s.head)
		}
		sections[s.subject] = rest[i:j]
	}
	for subject, text := range sections {
		keys := ObservedMeasures(subject)
		for _, k := range keys {
			if !strings.Contains(text, "`"+k+"`") {
				t.Errorf("a %s's measure %s is not named in docs/observations.md", subject, k)
			}
		}
		parts := strings.Split(text, "`")
		for i := 1; i < len(parts); i += 2 { // the text between backquotes
			field := parts[i]
			if strings.ContainsAny(field, " .=:/|") || field == "stage" || field == "window" {
				continue
			}
			if !slices.Contains(keys, field) {
				t.Errorf("docs/observations.md names %s under a %s, which an observation of one cannot take", field, subject)
			}
		}
	}
}
