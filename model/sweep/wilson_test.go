package sweep

import (
	"math"
	"testing"
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
	c := &Cell{Metrics: []Stat{
		{Metric: "journey.trip.started_count", Summary: point(8)},
		{Metric: "journey.trip.succeeded_count", Summary: point(7)},
		{Metric: "journey.trip.journey_success_rate", Summary: point(0.875)},
		{Metric: "journey.trip.journey_failure_rate", Summary: point(0.125)},
		{Metric: "journey.trip.p95_s", Summary: point(3)},
		{Metric: "component.db.offered_count", Summary: point(10)},
		{Metric: "component.db.rejected_count", Summary: point(0)},
		{Metric: "component.db.timed_out_count", Summary: point(0)},
		{Metric: "component.db.rejection_rate", Summary: Summary{N: 5, Mean: 0, Lo: -0.01, Hi: 0.01}},
	}}
	c.index = indexStats(c.Metrics)
	got := func(name string) Summary {
		s, _ := c.Stat(name)
		return c.rateInterval(Stat{Metric: name, Summary: s})
	}
	s := got("journey.trip.journey_success_rate")
	if math.Abs(s.Lo-0.7389) > 1e-4 || math.Abs(s.Hi-0.9454) > 1e-4 || s.Trials != 40 || s.Mean != 0.875 {
		t.Errorf("success rate %+v", s)
	}
	f := got("journey.trip.journey_failure_rate")
	if math.Abs(f.Lo-(1-0.9454)) > 1e-4 || math.Abs(f.Hi-(1-0.7389)) > 1e-4 {
		t.Errorf("failure rate %+v", f)
	}
	if r := got("component.db.rejection_rate"); r.Lo != 0 || r.Hi < 0.07 || r.Trials != 50 {
		t.Errorf("rejection rate %+v: want [0, Wilson(0, 50) high]", r)
	}
	if p := got("journey.trip.p95_s"); p.Lo != 3 || p.Hi != 3 || p.Trials != 0 {
		t.Errorf("a time is not a rate: %+v", p)
	}
}
