package sweep

import (
	"bytes"
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

// LookSchedule is when one thing judged on replications (a sweep's cell,
// a hindcast's observation) is looked at: at First replications, then
// doubling, 2·First, 4·First, …, up to Until, each look judged again and
// extended only while its verdict is unclear. Every look of every thing
// is judged at Level(level), so the looks together err no more often
// than one look at level would (Bonferroni's inequality, see above). The
// sweep and the hindcast share it so that their "sure" means one thing.
type LookSchedule struct{ First, Until int }

// Looks is how many times one thing may be judged: 1 with Until at or
// below First, else the number of distinct counts First, 2·First, …, Until.
func (s LookSchedule) Looks() int {
	if s.Until <= s.First || s.First < 1 {
		return 1
	}
	k := 1
	for n := s.First; n < s.Until; n *= 2 {
		k++
	}
	return k
}

// Level is the confidence of every look's verdict: level with one look,
// else the Bonferroni share of its error per look, 1 − (1−level)/Looks.
func (s LookSchedule) Level(level float64) float64 {
	return 1 - (1-level)/float64(s.Looks())
}

// Target is the replication count of look k (0 the first).
func (s LookSchedule) Target(k int) int {
	n := s.First
	for range k {
		n *= 2
		if n >= s.Until {
			return s.Until
		}
	}
	return n
}

// Stop is why a schedule stopped adding replications to one thing: its
// verdict was sure, or it was not at the fixed replications (no cap
// given) or at the cap.
type Stop string

const (
	// Sure: the verdict is clear at the schedule's level.
	Sure Stop = "sure"
	// Unsure: it is not, at the fixed replications (no Until).
	Unsure Stop = "unsure"
	// Capped: it is not, with Until's replications.
	Capped Stop = "cap"
)

// StopOf says why a verdict stopped where it did: sure, else capped when
// the schedule has a cap, else unsure.
func (s LookSchedule) StopOf(sure bool) Stop {
	switch {
	case sure:
		return Sure
	case s.Until > s.First:
		return Capped
	}
	return Unsure
}

func (c *Config) schedule() LookSchedule { return LookSchedule{First: c.Replications, Until: c.Until} }

// Looks is how many times the sweep may judge one cell: 1 without
// Until, else the number of distinct replication counts R, 2R, 4R, …,
// Until.
func (c *Config) Looks() int { return c.schedule().Looks() }

// VerdictLevel is the confidence at which every verdict of the sweep is
// judged: Level, or with Until the Bonferroni share of its error per look,
// 1 − (1−Level)/Looks.
func (c *Config) VerdictLevel() float64 { return c.schedule().Level(Level) }

func (s *sweeper) level() float64 { return s.cfg.VerdictLevel() }

// lookTarget is the replication count of look k (0 the first).
func (c *Config) lookTarget(k int) int { return c.schedule().Target(k) }

func (c *Config) checkUntil() error {
	if c.Until <= 0 {
		return nil
	}
	switch {
	case c.Until < c.Replications || c.Until > MaxReplications:
		return fmt.Errorf("sweep: the replication cap must be between the replications (%d) and %d, got %d", c.Replications, MaxReplications, c.Until)
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

// lookPlan is what look k runs: the cells it extends, n runs in all. It
// is a pure function of the verdicts so far, so a shard that has read the
// rounds before plans the same look as a single machine does.
type lookPlan struct {
	exts []extension
	n    int
}

func (s *sweeper) planLook(k int) lookPlan {
	cfg := s.cfg
	target := cfg.lookTarget(k)
	var p lookPlan
	for d, tried := range s.tried {
		from, to := lookWindow(tried)
		for i := from; i <= to; i++ {
			c := tried[i]
			if c.Verdict.Clear() || c.Runs >= target {
				continue
			}
			grid, ok := slices.BinarySearch(cfg.Multipliers, c.Multiplier)
			if !ok {
				grid = -1
			}
			e := extension{pt: point{d, c.Multiplier}, from: c.Runs, to: target, grid: grid, base: p.n}
			p.exts = append(p.exts, e)
			p.n += e.to - e.from
		}
	}
	return p
}

// task is the look's run i.
func (p lookPlan) task(i int) task {
	j, _ := slices.BinarySearchFunc(p.exts, i, func(e extension, i int) int {
		if i < e.base {
			return 1
		}
		if i >= e.base+e.to-e.from {
			return -1
		}
		return 0
	})
	e := p.exts[j]
	return task{design: e.pt.design, mult: e.pt.mult, rep: e.from + i - e.base, grid: e.grid}
}

// consumeLook adds a look's run to its cell; a grid cell's run also goes
// to runs.csv and the design's metrics.
func (s *sweeper) consumeLook(t task, out *outcome) error {
	acc := s.accs[point{t.design, t.mult}]
	out.rep = t.rep
	if t.grid >= 0 {
		da, err := s.recordGridRun(t, out)
		if err != nil {
			return err
		}
		acc.add(da, out)
		return nil
	}
	acc.add(nil, out)
	return nil
}

// runRound makes round r's n runs, or with shards to merge from reads
// them; a round's runs are counted in s.total either way.
func (s *sweeper) runRound(ctx context.Context, r int, phase string, n int, taskAt func(int) task, consume func(task, *outcome) error) error {
	if s.cfg.From != nil {
		return s.read(ctx, r, n, taskAt, s.withRows(consume))
	}
	s.total += n
	return s.execute(ctx, phase, n, taskAt, consume)
}

// withRows writes a read grid run's runs.csv rows, as a run made here
// writes them, before consume.
func (s *sweeper) withRows(consume func(task, *outcome) error) func(task, *outcome) error {
	if s.cfg.Runs == nil {
		return consume
	}
	return func(t task, out *outcome) error {
		if t.grid >= 0 && !t.series {
			var b bytes.Buffer
			writeRunRows(&b, s.cfg.Scenario, s.cfg.Designs[t.design].Name, t.mult, t.rep, s.seed(t.rep), out.metrics, s.stages[t.design])
			out.rows = b.Bytes()
		}
		return consume(t, out)
	}
}

// finishLook judges again the cells look k extended. A look's grid run
// may count a failure stage no earlier run of its design had: every grid
// cell of that design is then summarised again, not only those the look
// extended, so that each lists the stage (with 0 for its runs) as it
// would had the stage been seen in the grid round.
func (s *sweeper) finishLook(res *Result, k int, p lookPlan) {
	nm := len(s.cfg.Multipliers)
	extended := map[point]bool{}
	for _, e := range p.exts {
		if e.grid >= 0 {
			extended[e.pt] = true
			continue
		}
		s.replaceTried(e.pt.design, s.accs[e.pt].judge(s.level()))
	}
	for d, da := range s.designs {
		grew := len(da.sparse) != da.listed
		da.listed = len(da.sparse)
		for m, mult := range s.cfg.Multipliers {
			if pt := (point{d, mult}); grew || extended[pt] {
				c := s.finishCell(s.accs[pt])
				res.Cells[d*nm+m] = c
				s.replaceTried(d, c)
			}
		}
	}
	if p.n > 0 {
		s.looks = k + 1
	}
	s.extra += p.n
}

// replaceTried puts c in place of the cell at its multiplier among design
// d's tried cells.
func (s *sweeper) replaceTried(d int, c *Cell) {
	tr := s.tried[d]
	at, _ := slices.BinarySearchFunc(tr, c.Multiplier, func(x *Cell, m float64) int { return cmp.Compare(x.Multiplier, m) })
	tr[at] = c
}

// untilSure runs the looks after the first, each its own round, and
// re-judges the cells they extend; then the series at the estimates they
// moved. A look that finds no cell to extend runs nothing, and nor does
// any after it: the cells it passed over were clear.
func (s *sweeper) untilSure(ctx context.Context, res *Result) error {
	return s.looksUpTo(ctx, res, s.cfg.Rounds())
}

// looksUpTo runs (or reads) the rounds after the search up to round
// last: the looks, then the series at the estimates.
func (s *sweeper) looksUpTo(ctx context.Context, res *Result, last int) error {
	cfg := s.cfg
	if cfg.Until <= cfg.Replications {
		return nil
	}
	for k := 1; k < cfg.Looks(); k++ {
		r := cfg.SearchRounds() + k
		if r > last {
			return nil
		}
		p := s.planLook(k)
		if err := s.runRound(ctx, r, "until sure", p.n, p.task, s.consumeLook); err != nil {
			return err
		}
		s.finishLook(res, k, p)
	}
	if r := cfg.SearchRounds() + cfg.Looks(); cfg.SeriesStep > 0 && r <= last {
		pts := s.seriesPoints()
		return s.runRound(ctx, r, "until sure", len(pts), seriesTask(pts), s.consumeSeries)
	}
	return nil
}

// lookRound returns what round r, one after the search, runs: a look's
// plan or the series at the estimates, once the rounds before it are read.
func (s *sweeper) lookRound(ctx context.Context, res *Result, r int) (n int, taskAt func(int) task, err error) {
	if err := s.looksUpTo(ctx, res, r-1); err != nil {
		return 0, nil, err
	}
	if k := r - s.cfg.SearchRounds(); k < s.cfg.Looks() {
		p := s.planLook(k)
		return p.n, p.task, nil
	}
	pts := s.seriesPoints()
	return len(pts), seriesTask(pts), nil
}

// seriesPoints are the design's first failures the looks moved to a
// multiplier whose time series no round sampled: replication 0 samples
// them.
func (s *sweeper) seriesPoints() []point {
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
	return pts
}

func seriesTask(pts []point) func(int) task {
	return func(i int) task {
		return task{design: pts[i].design, mult: pts[i].mult, rep: 0, grid: -1, slot: i, series: true}
	}
}

func (s *sweeper) consumeSeries(t task, out *outcome) error {
	s.candidates[point{t.design, t.mult}] = out.series
	return nil
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

// Settled says how far a first failure's search went: the most
// replications given to a cell that could still move it (the window the
// looks extend in), and whether every such cell's verdict is clear. It
// reads Tried only, so it holds with or without Config.Until: without,
// every cell has Replications and an unclear one is what a look would
// have extended.
func (ff *FirstFailure) Settled() (runs int, sure bool) {
	from, to := lookWindow(ff.Tried)
	sure = true
	for _, c := range ff.Tried[from : to+1] {
		runs = max(runs, c.Runs)
		sure = sure && c.Verdict.Clear()
	}
	return runs, sure
}
