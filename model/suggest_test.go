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
