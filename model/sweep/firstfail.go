package sweep

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"capsim/model"
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
	// grid and the refinement points.
	Tried []*Cell

	// With parameter draws (Design.Draws), Draws is the number of
	// replications, each with its own draw of the uncertain parameters;
	// PerRun[r] is replication r's own first failure, the smallest
	// multiplier tried at which its run broke an SLO (NaN when it held
	// over the range). After Result.TakeParamIntervals, PSD is the
	// standard deviation of the per-replication change the draws made to
	// the first failure, and PLo, PHi the 95 % interval that includes the
	// parameters' uncertainty (see perrun.go). Without draws Draws is 0
	// and the others NaN.
	Draws         int
	PerRun        []float64
	PSD, PLo, PHi float64

	// Short, when no multiplier below the first failure passed surely
	// (Lo is NaN) because a rate's counts could not clear its bound, says
	// which SLO and how many events it had against how many it would
	// need; nil otherwise.
	Short *CountShort
}

// CountShort is a rate SLO whose pooled counts cannot show it met, even
// with every event favourable: 20 journeys all succeeding leave a
// success rate's Wilson interval reaching down to 84 %, so they cannot
// show success_rate >= 0.99.
type CountShort struct {
	SLO     string `json:"slo"`
	Counted string `json:"counted"` // what Trials counts: journeys, requests, calls
	Trials  int64  `json:"trials"`  // the events counted, over every replication
	Needed  int64  `json:"needed"`  // the fewest that, all favourable, would clear the bound
}

// trialsToClear is the fewest trials whose Wilson interval, with every
// trial favourable, lies wholly on the good side of b: for a bound from
// below (success_rate >= b) the interval with all successes starts at
// n/(n+z²), so n >= z²·b/(1−b); for one from above (failure_rate <= b)
// with none it ends at z²/(n+z²), so n >= z²·(1−b)/b.
func trialsToClear(b model.Threshold, z float64) int64 {
	z2 := z * z
	good, bad := b.Value, 1-b.Value
	if b.Op == "<=" || b.Op == "<" {
		good, bad = bad, good
	}
	if !(bad > 0) || !(good > 0) {
		return 0
	}
	return int64(math.Ceil(z2 * good / bad))
}

// DefaultSection is how many multipliers a refinement round tries inside
// each bracket when Config.Section is not set. Three points cut a bracket
// into quarters, so two rounds resolve what four bisection steps did, in
// half as many rounds.
const DefaultSection = 3

func (c *Config) section() int {
	if c.Section <= 0 {
		return DefaultSection
	}
	return c.Section
}

// Rounds is how many rounds of shards follow the grid (round 0): the
// search's (SearchRounds), then with Until one round per look after the
// first and, with time series, one for the series at the estimates the
// looks moved. A shard runs one round; a round reads every round before it.
func (c *Config) Rounds() int {
	r := c.SearchRounds()
	if looks := c.Looks(); looks > 1 {
		r += looks - 1
		if c.SeriesStep > 0 {
			r++
		}
	}
	return r
}

// SearchRounds is how many rounds of shards the first-failure search
// has after the grid: the Refine rounds of refinement. The time series
// runs, whose multipliers are known only once the grid is judged, belong
// to the last of them; with no refinement they are a round of their own
// (seriesRound) that the merge runs itself, one run per failing design, so
// that a sharded sweep with --refine 0 is the grid's shards and a merge,
// not a second round of shards waiting for the first to say which few
// runs it holds.
func (c *Config) SearchRounds() int { return c.Refine }

// seriesRound is the round whose plan holds the series runs, 0 when none
// are asked for.
func (c *Config) seriesRound() int {
	if c.SeriesStep <= 0 {
		return 0
	}
	return max(c.Refine, 1)
}

// standing is what a design's tried multipliers say so far, as indices
// into them (ascending), -1 where nothing qualifies: est is the smallest
// multiplier that breaks an SLO, lo the highest below it that clearly
// passes, hi the lowest at or above it that clearly fails.
type standing struct {
	est, lo, hi int
}

func standingOf(tried []*Cell) standing {
	st := standing{est: -1, lo: -1, hi: -1}
	st.est = slices.IndexFunc(tried, func(c *Cell) bool { return c.Verdict.Failed() })
	if st.est < 0 {
		return st
	}
	for i := 0; i < st.est; i++ {
		if tried[i].Verdict == Pass {
			st.lo = i
		}
	}
	for i := st.est; i < len(tried); i++ {
		if tried[i].Verdict == Fail {
			st.hi = i
			break
		}
	}
	return st
}

// gaps are the brackets a round refines, each named by the index of its
// upper end (the bracket runs from tried[g-1] to tried[g]): below the
// estimate, where it can still move down; above the interval's low end,
// where a higher clear pass may lie; below its high end, where a lower
// clear failure may. All three are gaps between neighbouring multipliers
// tried, so the points of different gaps never coincide, and a gap two
// searches share is run once.
func (st standing) gaps() []int {
	var gs []int
	if st.est > 0 {
		gs = append(gs, st.est)
	}
	if st.lo >= 0 {
		gs = append(gs, st.lo+1)
	}
	if st.hi > st.est {
		gs = append(gs, st.hi)
	}
	slices.Sort(gs)
	return slices.Compact(gs)
}

// point is one multiplier of one design to run in a round.
type point struct {
	design int
	mult   float64
}

// roundPlan is every run of one round, known before the round starts:
// each refinement point with every replication, then, in the last round,
// replication 0 at each multiplier that can still become a design's first
// failure, sampled as a time series.
type roundPlan struct {
	points []point
	series []point
}

func (p *roundPlan) runs(reps int) int { return len(p.points)*reps + len(p.series) }

// task is run i of the round, in the order a shard's index counts them.
func (p *roundPlan) task(i, reps int) task {
	if i < len(p.points)*reps {
		pt := p.points[i/reps]
		return task{design: pt.design, mult: pt.mult, rep: i % reps, grid: -1, slot: i / reps}
	}
	j := i - len(p.points)*reps
	pt := p.series[j]
	return task{design: pt.design, mult: pt.mult, rep: 0, grid: -1, slot: j, series: true}
}

// plan lays out round r from the multipliers tried so far: a pure
// function of them, so a shard that has read the earlier rounds plans
// the same round as a single machine does.
func (s *sweeper) plan(r int) *roundPlan {
	p := &roundPlan{}
	k := s.cfg.section()
	last := r == s.cfg.seriesRound()
	for d, tried := range s.tried {
		st := standingOf(tried)
		if st.est < 0 && !s.cfg.drawn() {
			continue
		}
		est := math.Inf(1)
		if st.est >= 0 {
			est = tried[st.est].Multiplier
		}
		var below []float64 // this round's points under the estimate
		if r <= s.cfg.Refine {
			gaps := st.gaps()
			if s.cfg.drawn() {
				gaps = append(gaps, perRunGaps(tried, s.cfg.Replications)...)
				slices.Sort(gaps)
				gaps = slices.Compact(gaps)
			}
			for _, g := range gaps {
				a, b := tried[g-1].Multiplier, tried[g].Multiplier
				prev := a
				for i := 1; i <= k; i++ {
					// Rounded as every multiplier is printed; a bracket
					// narrower than that precision yields fewer points.
					m := roundSig(a + (b-a)*float64(i)/float64(k+1))
					if prev < m && m < b {
						p.points = append(p.points, point{d, m})
						if m < est {
							below = append(below, m)
						}
						prev = m
					}
				}
			}
		}
		if last && st.est >= 0 {
			// The estimate ends at the lowest of this round's points below
			// it that breaks an SLO, or stays where it is.
			for _, m := range below {
				p.series = append(p.series, point{d, m})
			}
			p.series = append(p.series, point{d, est})
		}
	}
	return p
}

// roundAcc gathers one round's outcomes as they are consumed.
type roundAcc struct {
	plan   *roundPlan
	cells  []*cellAcc
	series []*model.TimeSeries
}

func (s *sweeper) newRound(p *roundPlan) *roundAcc {
	ra := &roundAcc{plan: p, series: make([]*model.TimeSeries, len(p.series))}
	for _, pt := range p.points {
		ra.cells = append(ra.cells, newCellAcc(s.cfg.Designs[pt.design].Name, pt.mult))
	}
	return ra
}

func (ra *roundAcc) consume(t task, out *outcome) error {
	if t.series {
		ra.series[t.slot] = out.series
	} else {
		out.rep = t.rep
		ra.cells[t.slot].add(nil, out)
	}
	return nil
}

// finish judges the round's cells and adds them to what each design has
// tried; the series runs wait in s.candidates for the final estimate.
func (s *sweeper) finishRound(ra *roundAcc) {
	for i, pt := range ra.plan.points {
		s.accs[pt] = ra.cells[i]
		c := ra.cells[i].judge(s.level())
		tr := s.tried[pt.design]
		at, _ := slices.BinarySearchFunc(tr, c.Multiplier, func(x *Cell, m float64) int { return cmp.Compare(x.Multiplier, m) })
		s.tried[pt.design] = slices.Insert(tr, at, c)
	}
	for i, pt := range ra.plan.series {
		s.candidates[pt] = ra.series[i]
	}
}

// firstFailures states each design's first failure from everything tried.
func (s *sweeper) firstFailures(res *Result) {
	for d, des := range s.cfg.Designs {
		ff := FirstFailure{Design: des.Name, Multiplier: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Tried: s.tried[d],
			PSD: math.NaN(), PLo: math.NaN(), PHi: math.NaN()}
		st := standingOf(s.tried[d])
		if st.est >= 0 {
			ff.Found = true
			ff.BelowRange = st.est == 0
			ff.Multiplier = s.tried[d][st.est].Multiplier
			ff.explain(s.level())
		}
		if s.cfg.drawn() {
			ff.perRun(s.cfg.Replications)
		}
		if ff.Found {
			if ts, ok := s.candidates[point{d, ff.Multiplier}]; ok {
				res.Series = append(res.Series, SeriesRun{Design: des.Name, Multiplier: ff.Multiplier, Seed: s.seed(0), Series: ts})
			}
		}
		res.FirstFailures = append(res.FirstFailures, ff)
	}
}

// refineRounds runs (or reads from the shards) rounds 1 to upto; a round
// past the shards' (the series round of a sweep without refinement) is
// run here.
func (s *sweeper) refineRounds(ctx context.Context, upto int) error {
	for r := 1; r <= upto; r++ {
		p := s.plan(r)
		ra := s.newRound(p)
		n := p.runs(s.cfg.Replications)
		if s.cfg.From != nil && r <= s.cfg.SearchRounds() {
			if err := s.read(ctx, r, n, func(i int) task { return p.task(i, s.cfg.Replications) }, ra.consume); err != nil {
				return err
			}
		} else {
			s.total += n
			if err := s.execute(ctx, "refine", n, func(i int) task { return p.task(i, s.cfg.Replications) }, ra.consume); err != nil {
				return err
			}
		}
		s.finishRound(ra)
	}
	return nil
}

// explain fills the interval and the names of what broke; level is the
// confidence each cell's verdict was judged at.
func (ff *FirstFailure) explain(level float64) {
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
	if math.IsNaN(ff.Lo) && !ff.BelowRange {
		ff.Short = countShort(ff.Tried, ff.Multiplier, zAt(level))
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

// countShort looks at the last multiplier tried below m that passed
// unsurely for an SLO on a rate whose counts were too few to clear it.
func countShort(tried []*Cell, m float64, z float64) *CountShort {
	for i := len(tried) - 1; i >= 0; i-- {
		c := tried[i]
		if c.Multiplier >= m {
			continue
		}
		if c.Verdict != PassUnsure {
			return nil
		}
		for _, so := range c.SLOs {
			if need := trialsToClear(so.Bound, z); !so.Clear && so.Trials > 0 && so.Trials < need {
				return &CountShort{SLO: so.SLO, Counted: so.Counted, Trials: so.Trials, Needed: need}
			}
		}
		return nil
	}
	return nil
}
