package main

import (
	"fmt"
	"strings"
)

// suggestDistance is how many single-character edits a typed name may be
// from a known one and still be suggested: enough for a dropped, doubled
// or swapped letter (tirp, v1-improvd), not so many that a short name
// suggests every other short name.
const suggestDistance = 2

// suggest returns the known names nearest typed, within suggestDistance
// edits (case aside, so TRIP finds trip) or starting with it, in known's order.
func suggest(typed string, known []string) []string {
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
		d := editDistance(t, kl)
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

// didYouMean is the hint appended to an error about typed: empty when no
// known name is near it.
func didYouMean(typed string, known []string) string {
	names := suggest(typed, known)
	if len(names) == 0 {
		return ""
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return "; did you mean " + strings.Join(quoted, " or ") + "?"
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of adjacent characters that turn a into b (optimal string alignment):
// a swap is one typing slip, so it costs one edit. It is the command
// line's measure; the model's messages use model.Nearest, whose
// Levenshtein distance counts a swap as two.
func editDistance(a, b string) int {
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
