package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// # Replications until the verdicts are sure
//
// With Config.Until above Config.Replications, the sweep does not stop
// at the grid and its refinement: it looks again at every cell (one
// design at one multiplier tried) whose verdict is unclear and could
// still move the design's first failure or an end of its interval, and
// gives each such cell more replications, doubling its count at each
// look (R, 2R, 4R, … up to Until), until its verdict is clear or the
// cap is reached. Replication r always runs with seed Seed+r, so a cell
// extended from 5 to 10 replications holds the first 5 unchanged.
//
// Looking repeatedly at the same cell and stopping as soon as its
// interval clears the bound would, at 95 % per look, err more often than
// 5 %. The rule keeps its stated confidence by Bonferroni's inequality
// over the looks: with K looks possible per cell (the count of distinct
// replication counts R, 2R, … Until), every verdict of the sweep — at
// every look, and of every cell, extended or not — is judged by
// intervals at confidence 1 − 0.05/K, so the chance that any look of a
// cell errs is at most 0.05, as one look at 95 % is. Doubling keeps K
// small (7 looks from 5 to 320 replications: every verdict at 99.29 %).
//
// Which cells are looked at: for a design that broke an SLO, the cells
// tried strictly above the interval's low end (the highest clear pass
// below the estimate) and at or below its high end (the lowest clear
// failure at or above it; every cell above the low end when there is
// none); for a design that held, every cell. A cell outside that window
// cannot move the answer, and keeps its verdict, unclear or not. The
// extra replications feed the cells' verdicts and, on the grid, their
// metrics (summary.csv's n) and runs.csv's rows (after the other rows);
// they do not enter compare.csv, whose pairs stay the first Replications.

// Looks is how many times the sweep may judge one cell: 1 without
// Until, else the number of distinct replication counts R, 2R, 4R, …,
// Until.
func (c *Config) Looks() int {
	if c.Until <= c.Replications || c.Replications < 1 {
		return 1
	}
	k := 1
	for n := c.Replications; n < c.Until; n *= 2 {
		k++
	}
	return k
}

// VerdictLevel is the confidence at which every verdict of the sweep is
// judged: Level, or with Until the Bonferroni share of its error per look,
// 1 − (1−Level)/Looks.
func (c *Config) VerdictLevel() float64 {
	return 1 - (1-Level)/float64(c.Looks())
}

func (s *sweeper) level() float64 { return s.cfg.VerdictLevel() }

// lookTarget is the replication count of look k (0 the first).
func (c *Config) lookTarget(k int) int {
	n := c.Replications
	for range k {
		n *= 2
		if n >= c.Until {
			return c.Until
		}
	}
	return n
}

func (c *Config) checkUntil() error {
	if c.Until <= 0 {
		return nil
	}
	switch {
	case c.Until < c.Replications || c.Until > MaxReplications:
		return fmt.Errorf("sweep: the replication cap must be between the replications (%d) and %d, got %d", c.Replications, MaxReplications, c.Until)
	case c.From != nil:
		return errors.New("sweep: replications until sure run on one machine: they do not go with shards")
	case c.drawn():
		return errors.New("sweep: replications until sure do not go with parameter draws")
	}
	return nil
}

// lookWindow says which of a design's tried cells can still move its
// answer: those above the interval's low end and at or below its high
// end; every cell when the design has not broken an SLO.
func lookWindow(tried []*Cell) (from, to int) {
	st := standingOf(tried)
	if st.est < 0 {
		return 0, len(tried) - 1
	}
	from, to = st.lo+1, len(tried)-1
	if st.hi >= 0 {
		to = st.hi
	}
	return from, to
}

// extension is one cell given more replications at a look.
type extension struct {
	pt       point
	from, to int // replications from..to-1 are run
	grid     int // grid index, or -1
	base     int // index of its first run in the look's task list
}

// untilSure runs the looks after the first and re-judges the cells they
// extend; it returns the runs it made and the cells still unclear in
// the windows when it stopped.
func (s *sweeper) untilSure(ctx context.Context, res *Result) error {
	cfg := s.cfg
	if cfg.Until <= cfg.Replications {
		return nil
	}
	nm := len(cfg.Multipliers)
	gridIndex := func(d int, m float64) int {
		i, ok := slices.BinarySearch(cfg.Multipliers, m)
		if !ok {
			return -1
		}
		return i
	}
	for k := 1; k < cfg.Looks(); k++ {
		target := cfg.lookTarget(k)
		var exts []extension
		n := 0
		for d, tried := range s.tried {
			from, to := lookWindow(tried)
			for i := from; i <= to; i++ {
				c := tried[i]
				if c.Verdict.Clear() || c.Runs >= target {
					continue
				}
				e := extension{pt: point{d, c.Multiplier}, from: c.Runs, to: target, grid: gridIndex(d, c.Multiplier), base: n}
				exts = append(exts, e)
				n += e.to - e.from
			}
		}
		if n == 0 {
			break
		}
		taskAt := func(i int) task {
			j, _ := slices.BinarySearchFunc(exts, i, func(e extension, i int) int {
				if i < e.base {
					return 1
				}
				if i >= e.base+e.to-e.from {
					return -1
				}
				return 0
			})
			e := exts[j]
			return task{design: e.pt.design, mult: e.pt.mult, rep: e.from + i - e.base, grid: e.grid}
		}
		s.total += n
		s.extra += n
		consume := func(t task, out *outcome) error {
			acc := s.accs[point{t.design, t.mult}]
			out.rep = t.rep
			if t.grid >= 0 {
				if out.rows != nil {
					if _, err := cfg.Runs.Write(out.rows); err != nil {
						return fmt.Errorf("writing runs: %w", err)
					}
				}
				da := s.designs[t.design]
				if err := da.register(out.metrics); err != nil {
					return err
				}
				acc.add(da, out)
				return nil
			}
			acc.add(nil, out)
			return nil
		}
		if err := s.execute(ctx, "until sure", n, taskAt, consume); err != nil {
			return err
		}
		for _, e := range exts {
			var c *Cell
			if e.grid >= 0 {
				c = s.finishCell(s.accs[e.pt])
				res.Cells[e.pt.design*nm+e.grid] = c
			} else {
				c = s.accs[e.pt].judge(s.level())
			}
			tr := s.tried[e.pt.design]
			at, _ := slices.BinarySearchFunc(tr, c.Multiplier, func(x *Cell, m float64) int { return cmp.Compare(x.Multiplier, m) })
			tr[at] = c
		}
		s.looks = k + 1
	}
	return s.seriesAtEstimates(ctx)
}

// seriesAtEstimates samples the time series of replication 0 at each
// design's first failure that the looks moved to a multiplier without
// one.
func (s *sweeper) seriesAtEstimates(ctx context.Context) error {
	if s.cfg.SeriesStep <= 0 {
		return nil
	}
	var pts []point
	for d, tried := range s.tried {
		st := standingOf(tried)
		if st.est < 0 {
			continue
		}
		pt := point{d, tried[st.est].Multiplier}
		if _, ok := s.candidates[pt]; !ok {
			pts = append(pts, pt)
		}
	}
	if len(pts) == 0 {
		return nil
	}
	s.total += len(pts)
	return s.execute(ctx, "until sure", len(pts), func(i int) task {
		return task{design: pts[i].design, mult: pts[i].mult, rep: 0, grid: -1, slot: i, series: true}
	}, func(t task, out *outcome) error {
		s.candidates[point{t.design, t.mult}] = out.series
		return nil
	})
}

// Precision is what the looks of a sweep with Config.Until did.
type Precision struct {
	// Until is the cap on a cell's replications; Looks the looks a cell
	// could have, and Level the confidence of every verdict.
	Until, Looks int
	Level        float64
	// LooksMade is how many looks ran (1: the grid and refinement only),
	// Runs the runs all rounds made, Extra those the looks added.
	LooksMade, Runs, Extra int
	// Unsure lists, per design in design order, the cells whose verdict
	// stayed unclear inside the window that could move the answer.
	Unsure []UnsureCell
}

// UnsureCell is a cell whose verdict stayed unclear.
type UnsureCell struct {
	Design     string
	Multiplier float64
	Runs       int
	Verdict    Verdict
}

// precision fills res.Precision once the first failures are known.
func (s *sweeper) precision(res *Result) {
	p := &Precision{Until: s.cfg.Until, Looks: s.cfg.Looks(), Level: s.level(), LooksMade: max(1, s.looks),
		Runs: s.total, Extra: s.extra}
	for d, tried := range s.tried {
		from, to := lookWindow(tried)
		for i := from; i <= to && i < len(tried); i++ {
			if c := tried[i]; !c.Verdict.Clear() {
				p.Unsure = append(p.Unsure, UnsureCell{Design: s.cfg.Designs[d].Name, Multiplier: c.Multiplier, Runs: c.Runs, Verdict: c.Verdict})
			}
		}
	}
	res.Precision = p
}

// FormatLevel writes a confidence level as a percentage with the digits
// it needs, rounded down: 95, 99.28.
func FormatLevel(level float64) string {
	v := 100 * level
	for digits := 0; digits < 4; digits++ {
		p := math.Pow(10, float64(digits))
		if math.Abs(math.Round(v*p)/p-v) < 1e-9 {
			return fmt.Sprintf("%.*f", digits, v)
		}
	}
	return fmt.Sprintf("%.2f", math.Floor(v*100)/100)
}
