package hindcast

import (
	"testing"

	"capsim/model/sweep"
)

// Ten runs of mean 100 and standard deviation 10, judged at 95 %: each
// interval takes 2.5 %, so μ lies in 100 ± t(0.9875, 9) · 10/√10 =
// 100 ± 2.685 · 3.162 = [91.51, 108.49] and σ in 10 · √(9/χ²) with χ²
// between 2.220 and 21.03 (the 1.25 % and 98.75 % points with 9
// degrees of freedom): [6.541, 20.14]. With z = 1.960 the band's top end
// lies between 91.51 + 12.82 = 104.33 and 108.49 + 39.47 = 147.96, its
// bottom end between 52.04 and 95.67. The rule's own band of single runs
// is 100 ± t(0.975, 9) · 10 · √1.1 = [76.28, 123.72].
func TestValueSureAgainstHandComputedEnds(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		agrees bool
		sure   bool
		why    string
	}{
		{150, 160, false, true, "above the top end's highest, 147.96: surely missed"},
		{146, 160, false, false, "below 147.96: a wider spread could reach it"},
		{103, 200, true, true, "from below the top end's lowest, 104.33: surely met"},
		{106, 200, true, false, "above 104.33: a narrower spread could miss it"},
		{20, 50, false, true, "below the bottom end's lowest, 52.04: surely missed"},
		{20, 54, false, false, "above 52.04"},
	} {
		j := &Judged{ObsLo: c.lo, ObsHi: c.hi, Agrees: c.agrees}
		if got := valueSure(j, 100, 10, 10, Level); got != c.sure {
			t.Errorf("observed %g-%g: sure %v, want %v (%s)", c.lo, c.hi, got, c.sure, c.why)
		}
	}
}

// Twenty runs doubled up to 320: five looks, every one judged at
// 1 − 0.05/5 = 99 %; the last look's count is the cap even where doubling
// overshoots it.
func TestLookScheduleIsTheSweeps(t *testing.T) {
	s := sweep.LookSchedule{First: 20, Until: 320}
	var targets []int
	for k := range s.Looks() {
		targets = append(targets, s.Target(k))
	}
	if len(targets) != 5 || targets[4] != 320 || targets[1] != 40 || s.Level(Level) != 0.99 {
		t.Errorf("looks at %v, level %g; want 20, 40, 80, 160, 320 at 0.99", targets, s.Level(Level))
	}
	if odd := (sweep.LookSchedule{First: 5, Until: 12}); odd.Looks() != 3 || odd.Target(2) != 12 {
		t.Errorf("5 up to 12: %d looks, the last at %d; want 3, at 12", odd.Looks(), odd.Target(2))
	}
	if one := (sweep.LookSchedule{First: 20}); one.Looks() != 1 || one.Level(Level) != Level ||
		one.StopOf(false) != sweep.Unsure || s.StopOf(false) != sweep.Capped || s.StopOf(true) != sweep.Sure {
		t.Errorf("without a cap: %d looks at %g, stops %s/%s", one.Looks(), one.Level(Level), one.StopOf(false), s.StopOf(false))
	}
}
