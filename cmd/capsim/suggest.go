package main

import (
	"fmt"
	"strings"

	"capsim/model"
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
		d := model.EditDistance(t, kl)
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
