package sweep

import (
	"math"
	"testing"
)

// Any --multipliers text either parses into a finite, positive, strictly
// increasing grid of bounded size, or is refused with an error.
func FuzzParseMultipliers(f *testing.F) {
	for _, s := range []string{"1,2,3", "1:6:0.5", "3:1", "1:2:0", "0.1:1e9:1e-9", "", ",", "1,,2", "-1", "nan", "1:inf:1", "2,1",
		"1:1e300", "1e7", "1:1000000:1e-3", "9223372036854775807", "1e-320:1e-319"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		grid, err := ParseMultipliers(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if len(grid) == 0 {
			t.Fatalf("%q: empty grid without an error", s)
		}
		for i, m := range grid {
			if !(m > 0) || math.IsInf(m, 0) {
				t.Fatalf("%q: multiplier %v", s, m)
			}
			if i > 0 && !(m > grid[i-1]) {
				t.Fatalf("%q: grid %v not strictly increasing", s, grid)
			}
		}
	})
}

// Any --shard text either parses into an index inside a count within
// MaxRuns, or is refused.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/8", "7/8", "8/8", "1/9223372036854775807", "-1/2", "0/0", "/", "1/1000000", "0/1000001", " 3 / 4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Count < 1 || sh.Count > MaxRuns || sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("%q: shard %+v", s, sh)
		}
	})
}
