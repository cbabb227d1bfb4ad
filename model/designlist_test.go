package model

import (
	"slices"
	"testing"
)

// --designs all is the scenario's designs, in its order; base joins only
// when there are none, and otherwise by name.
func TestChooseDesignsAll(t *testing.T) {
	cases := []struct {
		spec      string
		available []string
		want      []string
	}{
		{"all", []string{"small", "large"}, []string{"small", "large"}},
		{"all", nil, []string{"base"}},
		{"base,large", []string{"small", "large"}, []string{"base", "large"}},
		{"large+small, small", []string{"small", "large"}, []string{"large+small", "small"}},
	}
	for _, c := range cases {
		got, err := ChooseDesigns(c.spec, c.available)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ChooseDesigns(%q, %q) = %q, %v; want %q", c.spec, c.available, got, err, c.want)
		}
	}
	if _, err := ChooseDesigns("base+small", []string{"small"}); err == nil || err.Error() != `unknown design "base" in "base+small" (available to compose: small)` {
		t.Errorf("base+small: %v", err)
	}
}
