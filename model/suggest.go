package model

import (
	"fmt"
	"strings"
)

// Nearest returns the name of known fewest single-character edits from
// typed (EditDistance), if fewer than limit: the name a typo most likely
// meant. Of names equally near, the first is returned; "" when none is
// near enough. The model's "did you mean" for unknown keys, missing
// names and sensitivity's parameters is chosen by it; names typed on the
// command line and in sweep.designs by DidYouMean, which lists ties.
func Nearest(typed string, known []string, limit int) string {
	best, bestDist := "", limit
	for _, k := range known {
		if d := EditDistance(typed, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// EditDistance counts the insertions, deletions, substitutions and swaps
// of adjacent characters (runes, not bytes) that turn a into b: the
// optimal string alignment distance, in which a swap is one typing slip
// and costs one edit (Levenshtein's would count it as two). Every "did you
// mean" of capsim, the model's and the command line's, measures by it.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// suggestDistance is how many single-character edits a typed name may be
// from a known one and still be suggested: enough for a dropped, doubled
// or swapped letter (tirp, v1-improvd), not so many that a short name
// suggests every other short name.
const suggestDistance = 2

// suggestNames returns the known names nearest typed, within suggestDistance
// edits (case aside, so TRIP finds trip) or starting with it, in known's order.
func suggestNames(typed string, known []string) []string {
	t := strings.ToLower(typed)
	if t == "" {
		return nil
	}
	best, out := suggestDistance+1, []string(nil)
	for _, k := range known {
		if k == typed {
			continue
		}
		kl := strings.ToLower(k)
		d := EditDistance(t, kl)
		if d > suggestDistance && strings.HasPrefix(kl, t) {
			d = suggestDistance
		}
		switch {
		case d > suggestDistance:
		case d < best:
			best, out = d, []string{k}
		case d == best:
			out = append(out, k)
		}
	}
	return out
}

// DidYouMean is the hint appended to an error about typed: empty when no
// known name is near it.
func DidYouMean(typed string, known []string) string {
	names := suggestNames(typed, known)
	if len(names) == 0 {
		return ""
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return "; did you mean " + strings.Join(quoted, " or ") + "?"
}
