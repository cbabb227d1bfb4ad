package sweep

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
)

// FirstFailure is where one design first breaks an SLO (see the package
// documentation for the definitions).
type FirstFailure struct {
	Design string
	// Found is false when no multiplier tried broke an SLO: the design
	// held over the whole range, and the other fields are empty.
	Found bool
	// Multiplier is the smallest multiplier found to break an SLO.
	Multiplier float64
	// Lo and Hi bound the failure point with the package's confidence; NaN
	// where no multiplier tried settles that end.
	Lo, Hi float64
	// BelowRange says the lowest grid multiplier already broke an SLO: the
	// failure point is at or below Multiplier.
	BelowRange bool
	// SLO names the SLOs broken at Multiplier ("; "-separated), or the
	// guard that stopped runs there when no SLO's mean is broken.
	SLO string
	// Stage and Component are the most frequent failure_stage and
	// component of the journeys that failed at Multiplier; when a guard
	// stopped the runs and no failure names a component, Component is the
	// guard's.
	Stage, Component string
	// Tried lists every multiplier run for this design, ascending: the
	// grid and the bisection points.
	Tried []*Cell
}

// search is one bisection over a design's multipliers: lo and hi are
// tried multipliers on either side of what it looks for, and toHigh says
// on which side a midpoint with a given verdict falls.
type search struct {
	design int
	lo, hi float64
	toHigh func(Verdict) bool
	mid    float64
	cell   *cellAcc
	ff     *FirstFailure
}

func (s *sweeper) firstFailures(ctx context.Context, res *Result) ([]FirstFailure, error) {
	nm := len(s.cfg.Multipliers)
	ffs := make([]FirstFailure, len(s.cfg.Designs))
	var main []*search
	for d, des := range s.cfg.Designs {
		cells := res.Cells[d*nm : (d+1)*nm]
		ff := &ffs[d]
		*ff = FirstFailure{Design: des.Name, Multiplier: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Tried: slices.Clone(cells)}
		first := slices.IndexFunc(cells, func(c *Cell) bool { return c.Verdict.Failed() })
		if first < 0 {
			continue
		}
		ff.Found = true
		ff.Multiplier = cells[first].Multiplier
		if first == 0 {
			ff.BelowRange = true
			continue
		}
		main = append(main, &search{design: d, lo: cells[first-1].Multiplier, hi: cells[first].Multiplier,
			toHigh: Verdict.Failed, ff: ff})
	}
	if err := s.bisect(ctx, main); err != nil {
		return nil, err
	}
	for _, sr := range main {
		sr.ff.Multiplier = sr.hi
	}

	// The interval's ends are searched the same way: the highest multiplier
	// that clearly passes, below the estimate, and the lowest that clearly
	// fails, at or above it. Each starts from the tried multipliers that
	// bracket it.
	var ends []*search
	for d := range ffs {
		ff := &ffs[d]
		if !ff.Found {
			continue
		}
		sortTried(ff)
		lo, hi := math.NaN(), math.NaN()
		for _, c := range ff.Tried {
			if c.Multiplier < ff.Multiplier && c.Verdict == Pass {
				lo = c.Multiplier
			}
		}
		for _, c := range ff.Tried {
			if c.Multiplier > lo && c.Verdict != Pass {
				hi = c.Multiplier
				break
			}
		}
		if !math.IsNaN(lo) && !math.IsNaN(hi) {
			ends = append(ends, &search{design: d, lo: lo, hi: hi, toHigh: func(v Verdict) bool { return v != Pass }, ff: ff})
		}
		lo, hi = math.NaN(), math.NaN()
		for _, c := range ff.Tried {
			if c.Multiplier >= ff.Multiplier && c.Verdict == Fail {
				hi = c.Multiplier
				break
			}
		}
		for _, c := range ff.Tried {
			if c.Multiplier < hi && c.Verdict != Fail {
				lo = c.Multiplier
			}
		}
		if !math.IsNaN(lo) && !math.IsNaN(hi) && hi > ff.Multiplier {
			ends = append(ends, &search{design: d, lo: lo, hi: hi, toHigh: func(v Verdict) bool { return v == Fail }, ff: ff})
		}
	}
	if err := s.bisect(ctx, ends); err != nil {
		return nil, err
	}

	for i := range ffs {
		ff := &ffs[i]
		sortTried(ff)
		if ff.Found {
			ff.explain()
		}
	}
	return ffs, nil
}

func sortTried(ff *FirstFailure) {
	slices.SortFunc(ff.Tried, func(a, b *Cell) int { return cmp.Compare(a.Multiplier, b.Multiplier) })
}

// bisect runs the searches side by side, Refine steps of one midpoint
// each, every replication at every midpoint.
func (s *sweeper) bisect(ctx context.Context, open []*search) error {
	nr := s.cfg.Replications
	for step := 0; step < s.cfg.Refine && len(open) > 0; step++ {
		// A bracket narrower than the printed precision cannot be split.
		open = slices.DeleteFunc(open, func(sr *search) bool {
			sr.mid = roundSig(sr.lo + (sr.hi-sr.lo)/2)
			return !(sr.lo < sr.mid && sr.mid < sr.hi)
		})
		if len(open) == 0 {
			break
		}
		for _, sr := range open {
			sr.cell = newCellAcc(s.cfg.Designs[sr.design].Name, sr.mid)
		}
		n := len(open) * nr
		s.total += n
		err := s.execute(ctx, "refine", n, func(i int) task {
			sr := open[i/nr]
			return task{design: sr.design, mult: sr.mid, rep: i % nr, grid: -1, slot: i / nr}
		}, func(t task, out *outcome) error {
			open[t.slot].cell.add(nil, out)
			return nil
		})
		if err != nil {
			return err
		}
		for _, sr := range open {
			c := sr.cell.judge()
			sr.ff.Tried = append(sr.ff.Tried, c)
			if sr.toHigh(c.Verdict) {
				sr.hi = sr.mid
			} else {
				sr.lo = sr.mid
			}
		}
	}
	return nil
}

// explain fills the interval and the names of what broke.
func (ff *FirstFailure) explain() {
	var at *Cell
	for _, c := range ff.Tried {
		switch {
		case c.Multiplier < ff.Multiplier && c.Verdict == Pass:
			ff.Lo = c.Multiplier
		case c.Multiplier >= ff.Multiplier && c.Verdict == Fail && math.IsNaN(ff.Hi):
			ff.Hi = c.Multiplier
		}
		if c.Multiplier == ff.Multiplier {
			at = c
		}
	}
	if at == nil {
		return // cannot happen: the estimate is always a multiplier tried
	}
	var slos []string
	for _, so := range at.SLOs {
		if so.Broken {
			slos = append(slos, so.SLO)
		}
	}
	if len(slos) == 0 && len(at.Guards) > 0 {
		g := at.Guards[0]
		slos = append(slos, "run stopped by guard "+g.Guard)
	}
	ff.SLO = strings.Join(slos, "; ")
	if len(at.Failures) > 0 {
		ff.Stage, ff.Component = at.Failures[0].Stage, at.Failures[0].Component
	}
	if ff.Component == "" && len(at.Guards) > 0 {
		ff.Component = at.Guards[0].Component
	}
}

// series re-runs replication 0 of each failing design at its first-failure
// multiplier, sampling its time series.
func (s *sweeper) series(ctx context.Context, res *Result) error {
	var idx []int
	for d, ff := range res.FirstFailures {
		if ff.Found {
			idx = append(idx, d)
		}
	}
	s.total += len(idx)
	return s.execute(ctx, "series", len(idx), func(i int) task {
		d := idx[i]
		return task{design: d, mult: res.FirstFailures[d].Multiplier, rep: 0, grid: -1, series: true}
	}, func(t task, out *outcome) error {
		res.Series = append(res.Series, SeriesRun{Design: s.cfg.Designs[t.design].Name, Multiplier: t.mult, Seed: s.seed(0), Series: out.series})
		return nil
	})
}
