package sweepreport

import (
	"testing"

	"capsim/model/sweep"
)

// A cell's interval cut at 0 (a rare count's t interval [-0.3, 0.7] about
// 0.2, kept to [0, 0.7]) prints the wider side, ± 250 %, not the ± 175 %
// that half its clipped width would claim; a symmetric one is as before.
func TestRelCIReadsTheWiderSide(t *testing.T) {
	for _, c := range []struct {
		s    sweep.Summary
		want string
	}{
		{sweep.Summary{N: 5, Mean: 0.2, Lo: 0, Hi: 0.7}, " ± 250%"},
		{sweep.Summary{N: 5, Mean: 2, Lo: 1.9, Hi: 2.1}, " ± 5.0%"},
	} {
		if got := relCI(c.s); got != c.want {
			t.Errorf("relCI(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}
