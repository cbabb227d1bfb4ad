package model

import "testing"

// The edit distance against values worked by hand: kitten → sitting is
// two substitutions and an insertion; a swap of adjacent letters is one
// edit (tirp → trip), where Levenshtein's distance counts two; "ca" →
// "abc" is 3 under optimal string alignment, which edits no substring
// twice (unrestricted Damerau–Levenshtein gives 2); runes count, not bytes.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"kitten", "sitting", 3},
		{"tirp", "trip", 1},
		{"v1-improvd", "v1-improved", 1},
		{"ca", "abc", 3},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"größe", "grösse", 2},
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// The command line's and sweep.designs' names are suggested by one rule:
// a slip of two edits, any case, or a prefix of the name.
func TestSuggest(t *testing.T) {
	cases := []struct {
		typed string
		known []string
		want  string
	}{
		{"tirp", []string{"mm1", "trip"}, `; did you mean "trip"?`},
		{"v1-improvd", []string{"v1-original", "v1-improved"}, `; did you mean "v1-improved"?`},
		{"mm2", []string{"md1", "mm1", "mmc"}, `; did you mean "mm1" or "mmc"?`},
		{"--repl", []string{"--replications", "--refine"}, `; did you mean "--replications"?`},
		{"--al", []string{"--help"}, ""},
		{"TRIP", []string{"trip"}, `; did you mean "trip"?`},
		{"trip", []string{"trip"}, ""},
	}
	for _, c := range cases {
		if got := DidYouMean(c.typed, c.known); got != c.want {
			t.Errorf("DidYouMean(%q, %q) = %q, want %q", c.typed, c.known, got, c.want)
		}
	}
}
