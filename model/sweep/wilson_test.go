package sweep

import (
	"math"
	"testing"

	"capsim/model"
)

// Wilson's interval against values worked by hand from its formula
// (z = 1.959964): 35 of 40 is [0.7389, 0.9454]; 0 of 20 starts at 0 and
// reaches z²/(n+z²).
func TestWilsonMatchesTheFormula(t *testing.T) {
	cases := []struct{ k, n, lo, hi float64 }{
		{35, 40, 0.7389, 0.9454},
		{0, 20, 0, 3.8415 / (20 + 3.8415)},
		{20, 20, 20 / (20 + 3.8415), 1},
	}
	for _, c := range cases {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 1e-4 || math.Abs(hi-c.hi) > 1e-4 {
			t.Errorf("Wilson(%g, %g) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no trials: [%g, %g]", lo, hi)
	}
}

// Five replications that each saw 7 of 8 journeys succeed have no spread,
// yet 35 of 40 cannot pin the rate to a point: the rate's interval is the
// Wilson interval of the pooled counts, the trials are counted, and the
// same widening never pushes a rate past 1.
func TestRateIntervalFromCounts(t *testing.T) {
	point := func(v float64) Summary { return Summary{N: 5, Mean: v, Lo: v, Hi: v} }
	s := rateInterval(model.JourneySuccessRate, point(0.875), [2]int64{35, 40})
	if math.Abs(s.Lo-0.7389) > 1e-4 || math.Abs(s.Hi-0.9454) > 1e-4 || s.Trials != 40 || s.Mean != 0.875 {
		t.Errorf("success rate %+v", s)
	}
	f := rateInterval(model.JourneyFailureRate, point(0.125), [2]int64{5, 40})
	if math.Abs(f.Lo-(1-0.9454)) > 1e-4 || math.Abs(f.Hi-(1-0.7389)) > 1e-4 {
		t.Errorf("failure rate %+v", f)
	}
	if r := rateInterval(model.RejectionRate, Summary{N: 5, Mean: 0, Lo: -0.01, Hi: 0.01}, [2]int64{0, 50}); r.Lo != 0 || r.Hi < 0.07 || r.Trials != 50 {
		t.Errorf("rejection rate %+v: want [0, Wilson(0, 50) high]", r)
	}
	if p := rateInterval(model.JourneyP95, point(3), [2]int64{0, 0}); p.Lo != 3 || p.Hi != 3 || p.Trials != 0 {
		t.Errorf("a time is not a rate: %+v", p)
	}
}

// A cell pools the counts each run's rate carries: five runs of 7 in 8
// give the interval of 35 in 40, and the counts of journeys that did not
// succeed for the failure rate.
func TestCellPoolsTheRunsCounts(t *testing.T) {
	d := &designAcc{name: "x"}
	s := &sweeper{designs: []*designAcc{d}}
	c := newCellAcc("x", 1)
	for rep := 0; rep < 5; rep++ {
		ms := []model.Metric{
			{Key: model.JourneyStarted.Of("trip"), Value: 8},
			{Key: model.JourneySuccessRate.Of("trip"), Value: 0.875, K: 7, N: 8},
			{Key: model.JourneyFailureRate.Of("trip"), Value: 0.125, K: 1, N: 8},
		}
		if err := d.register(ms); err != nil {
			t.Fatal(err)
		}
		c.add(d, &outcome{metrics: ms, rep: rep})
	}
	cell := s.finishCell(c)
	succ, _ := cell.Stat(model.JourneySuccessRate.Of("trip"))
	if math.Abs(succ.Lo-0.7389) > 1e-4 || math.Abs(succ.Hi-0.9454) > 1e-4 || succ.Trials != 40 {
		t.Errorf("success rate %+v", succ)
	}
	fail, _ := cell.Stat(model.JourneyFailureRate.Of("trip"))
	if math.Abs(fail.Lo-(1-0.9454)) > 1e-4 || fail.Trials != 40 {
		t.Errorf("failure rate %+v", fail)
	}
	if st, _ := cell.Stat(model.JourneyStarted.Of("trip")); st.Trials != 0 {
		t.Errorf("a count is not a rate: %+v", st)
	}
}

// Newcombe's hybrid score interval against his own worked example
// (Newcombe 1998, Statistics in Medicine 17:873, table II, method 10):
// 56 of 70 less 48 of 80 is 0.2000 in [0.0524, 0.3339].
func TestNewcombeMatchesThePublishedExample(t *testing.T) {
	lo, hi := newcombe(56, 70, 48, 80, zLevel)
	if math.Abs(lo-0.0524) > 1e-4 || math.Abs(hi-0.3339) > 1e-4 {
		t.Errorf("newcombe(56/70 − 48/80) = [%.4f, %.4f], want [0.0524, 0.3339]", lo, hi)
	}
}

// Five replications in which the baseline lost exactly one of 8 journeys
// and the design none differ by 12.5 points in each: the paired interval
// is that point, but 40 of 40 against 35 of 40 leave the difference in
// [+1.26, +26.1] points (Wilson: [0.9124, 1] and [0.7389, 0.9454]). A
// time is no rate and keeps its paired interval, and a wide paired
// interval is kept.
func TestPairedRateDifferenceCannotClaimMoreThanItsCounts(t *testing.T) {
	point := Summary{N: 5, Mean: 0.125, Lo: 0.125, Hi: 0.125}
	s := differenceInterval(model.JourneySuccessRate, point, [2]int64{40, 40}, [2]int64{35, 40})
	wantLo := 0.125 - math.Hypot(1-0.91240, 0.94540-0.875)
	wantHi := 0.125 + (0.875 - 0.73887)
	if math.Abs(s.Lo-wantLo) > 1e-4 || math.Abs(s.Hi-wantHi) > 1e-4 || s.Mean != 0.125 {
		t.Errorf("difference %+v, want [%.4f, %.4f]", s, wantLo, wantHi)
	}
	wide := Summary{N: 5, Mean: 0.125, Lo: -0.5, Hi: 0.75}
	if w := differenceInterval(model.JourneySuccessRate, wide, [2]int64{40, 40}, [2]int64{35, 40}); w.Lo != -0.5 || w.Hi != 0.75 {
		t.Errorf("a wider paired interval was narrowed: %+v", w)
	}
	if p := differenceInterval(model.JourneyP95, point, [2]int64{0, 0}, [2]int64{0, 0}); p != point {
		t.Errorf("a time is not a rate: %+v", p)
	}
}
