package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"capsim/model"
)

// Result is what a sweep found.
type Result struct {
	Scenario     string
	Designs      []string
	Multipliers  []float64
	Replications int
	Seed         uint64
	// Cells holds one cell per design and grid multiplier, design-major:
	// Cells[d*len(Multipliers)+m].
	Cells []*Cell
	// Compare holds, for every design after the first and every grid
	// multiplier, the paired differences design − first design of each
	// metric both measure, (d-1)-major like Cells.
	Compare       []*Comparison
	FirstFailures []FirstFailure // one per design, in design order
	Series        []SeriesRun    // one per design that failed, when asked for
	// Runs counts every run the sweep made: grid, refinement, series and
	// the looks of Config.Until.
	Runs int
	// Precision says what the looks did, with Config.Until; nil without.
	Precision *Precision
}

// Cell is one design at one multiplier, over its replications.
type Cell struct {
	Design     string
	Multiplier float64
	Runs       int
	Broken     int // runs stopped by a guard
	// Guards counts the runs each guard stopped, most frequent first.
	Guards  []GuardCount
	Metrics []Stat
	SLOs    []SLOStat
	// Failures are the failed journeys by (journey, stage, component),
	// summed over the replications, most frequent first.
	Failures []StageCount
	Verdict  Verdict
	// RunFailed[r] says replication r's own run broke an SLO (its value,
	// not the mean's) or was stopped by a guard.
	RunFailed []bool

	index statIndex // position in Metrics by key
}

// Stat returns the summary of the metric key over the cell's
// replications, and whether the cell's design measures it at all.
func (c *Cell) Stat(key model.MetricKey) (Summary, bool) { return c.index.find(c.Metrics, key) }

// Overloaded counts the cell's runs whose overload the default drain hid
// (the run measure overloaded_count: a backlog at a component at capacity
// that ended after the arrivals stopped); 0 when none was.
func (c *Cell) Overloaded() int {
	s, ok := c.Stat(model.Overloaded.OfRun())
	if !ok || s.N == 0 {
		return 0
	}
	return int(math.Round(s.Mean * float64(s.N)))
}

// Stat is one metric's summary over the replications. Sparse metrics
// (failure stages) count 0 in the replications that did not list them.
type Stat struct {
	Key model.MetricKey
	Summary
}

// SLOStat is one SLO judged on the replications' mean.
type SLOStat struct {
	SLO   string
	Bound model.Threshold
	// Key is the metric the SLO bounds, and All says it bounds it over
	// every journey that ended, as model.SLOResult has them.
	Key     model.MetricKey
	All     bool
	Counted string // what a rate's Trials count, as model.SLOResult has it
	Summary
	Broken bool // the mean violates the bound, or no replication had a value
	Clear  bool // the whole confidence interval is on the same side as the mean
	// Idle: no replication saw traffic for what the SLO names (no
	// journey of it started...): it holds of no values, clearly.
	Idle bool
}

// StageCount counts failed journeys with one failure stage and component.
type StageCount struct {
	Journey, Stage, Component string
	Count                     int64
}

// GuardCount counts runs stopped by one guard at one component (empty
// when the guard is not about a component).
type GuardCount struct {
	Guard, Component string
	Runs             int
}

// Verdict is a cell's standing against the scenario's SLOs.
type Verdict int

const (
	// Pass: every SLO's interval lies on the passing side of its bound,
	// and no run was stopped by a guard.
	Pass Verdict = iota
	// PassUnsure: every SLO's mean passes, but some interval straddles
	// its bound.
	PassUnsure
	// FailUnsure: some SLO's mean fails (or a guard stopped a run), but
	// no failing interval lies wholly beyond its bound.
	FailUnsure
	// Fail: some SLO's interval lies wholly on the failing side, or
	// every run was stopped by a guard.
	Fail
)

// Failed reports whether the cell breaks an SLO on the replications' mean.
func (v Verdict) Failed() bool { return v >= FailUnsure }

// Clear reports whether the confidence intervals settle the verdict.
func (v Verdict) Clear() bool { return v == Pass || v == Fail }

func (v Verdict) String() string {
	return [...]string{"pass", "pass~", "fail~", "fail"}[v]
}

// Comparison is one design's paired differences with the first design at
// one multiplier: for each metric, the mean over replications of
// (value of Design − value of Baseline) in the same replication, with its
// 95 % interval (for a rate of counted events, no narrower than its
// counts allow: see differenceInterval). An interval that excludes 0 is
// a difference the replications support.
type Comparison struct {
	Design, Baseline string
	Multiplier       float64
	Diffs            []Stat

	index statIndex // position in Diffs by key
}

// Diff returns the paired difference of the metric key, and whether both
// designs measure it.
func (c *Comparison) Diff(key model.MetricKey) (Summary, bool) { return c.index.find(c.Diffs, key) }

// statIndex maps a metric key to its position in a list of stats.
type statIndex map[model.MetricKey]int

// indexStats maps each stat's metric key to its position.
func indexStats(stats []Stat) statIndex {
	index := make(statIndex, len(stats))
	for i, st := range stats {
		index[st.Key] = i
	}
	return index
}

// find returns the summary of key in stats, the list the index was made
// of, and whether the list has it.
func (index statIndex) find(stats []Stat, key model.MetricKey) (Summary, bool) {
	i, ok := index[key]
	if !ok {
		return Summary{}, false
	}
	return stats[i].Summary, true
}

// SeriesRun is the time series of one run at a design's first failure.
type SeriesRun struct {
	Design     string
	Multiplier float64
	Seed       uint64
	Series     *model.TimeSeries
}

type stageCount struct {
	journey, stage, component string
	n                         int64
}

// designAcc knows the metrics one design's runs produce: the fixed ones
// every run lists, in order, and the sparse ones seen so far, each placed
// after the fixed metric it followed (its journey's last).
type designAcc struct {
	name      string
	fixed     []model.MetricKey
	index     map[model.MetricKey]int
	sparse    map[model.MetricKey]int // key → anchor: index of the fixed metric before it
	baseIndex []int                   // per fixed metric, its index in design 0's, or -1
	// listed counts the sparse keys the design's summarised grid cells
	// list: fewer than sparse holds means a cell lacks one.
	listed int
}

func (d *designAcc) register(ms []model.Metric) error {
	if d.fixed == nil {
		d.index = map[model.MetricKey]int{}
		d.sparse = map[model.MetricKey]int{}
		for _, m := range ms {
			if !m.Sparse {
				d.index[m.Key] = len(d.fixed)
				d.fixed = append(d.fixed, m.Key)
			}
		}
	}
	i := 0
	for _, m := range ms {
		if !m.Sparse {
			if i >= len(d.fixed) || d.fixed[i] != m.Key {
				return fmt.Errorf("sweep: design %s: runs list different metrics (%s)", d.name, m.Key.Name())
			}
			i++
			continue
		}
		if _, ok := d.sparse[m.Key]; !ok {
			d.sparse[m.Key] = i - 1
		}
	}
	if i != len(d.fixed) {
		return fmt.Errorf("sweep: design %s: runs list different metrics", d.name)
	}
	return nil
}

func (d *designAcc) fixedIndex(key model.MetricKey) int {
	if i, ok := d.index[key]; ok {
		return i
	}
	return -1
}

// order returns every metric of the design in output order: the sparse
// ones after the same fixed metric in the order of their names, as
// summary.csv lists them.
func (d *designAcc) order() []model.MetricKey {
	type sp struct {
		key    model.MetricKey
		name   string
		anchor int
	}
	var sparse []sp
	for k, a := range d.sparse {
		sparse = append(sparse, sp{k, k.Name(), a})
	}
	slices.SortFunc(sparse, func(a, b sp) int {
		return cmp.Or(cmp.Compare(a.anchor, b.anchor), cmp.Compare(a.name, b.name))
	})
	out := make([]model.MetricKey, 0, len(d.fixed)+len(sparse))
	k := 0
	for ; k < len(sparse) && sparse[k].anchor < 0; k++ {
		out = append(out, sparse[k].key)
	}
	for i, n := range d.fixed {
		out = append(out, n)
		for ; k < len(sparse) && sparse[k].anchor == i; k++ {
			out = append(out, sparse[k].key)
		}
	}
	return out
}

// cellAcc accumulates one cell's runs.
type cellAcc struct {
	design string
	mult   float64
	runs   int
	broken int
	guards []GuardCount
	fixed  []acc
	sparse map[model.MetricKey]*acc
	// counts sums, for each fixed metric that is a rate of counted
	// events, its counts over the runs: [0] the events, [1] the trials.
	counts [][2]int64
	slos   []acc
	sloOf  []model.SLOResult // text and bound of each SLO, from the first run
	// sloCounts sums, for each SLO on a rate of counted events, its
	// counts over the runs: [0] the events, [1] the trials.
	sloCounts [][2]int64
	// sloIdle counts, for each SLO, the runs in which what it names saw
	// no traffic (model.SLOResult.Idle).
	sloIdle []int
	fails   []stageCount
	failed  []bool // by replication: the run broke an SLO or a guard
}

func newCellAcc(design string, mult float64) *cellAcc {
	return &cellAcc{design: design, mult: mult}
}

func (c *cellAcc) add(d *designAcc, out *outcome) {
	c.runs++
	for len(c.failed) <= out.rep {
		c.failed = append(c.failed, false)
	}
	c.failed[out.rep] = out.broken != nil || slices.ContainsFunc(out.slos, func(s model.SLOResult) bool { return !s.Met })
	if out.broken != nil {
		c.broken++
		found := false
		for i := range c.guards {
			if c.guards[i].Guard == out.broken.Guard && c.guards[i].Component == out.broken.Component {
				c.guards[i].Runs++
				found = true
			}
		}
		if !found {
			c.guards = append(c.guards, GuardCount{Guard: out.broken.Guard, Component: out.broken.Component, Runs: 1})
		}
	}
	if d != nil {
		if c.fixed == nil {
			c.fixed = make([]acc, len(d.fixed))
			c.counts = make([][2]int64, len(d.fixed))
			c.sparse = map[model.MetricKey]*acc{}
		}
		i := 0
		for _, m := range out.metrics {
			if m.Sparse {
				a := c.sparse[m.Key]
				if a == nil {
					a = &acc{}
					c.sparse[m.Key] = a
				}
				a.add(m.Value)
				continue
			}
			c.fixed[i].add(m.Value)
			c.counts[i][0] += m.K
			c.counts[i][1] += m.N
			i++
		}
	}
	if c.sloOf == nil {
		c.sloOf = out.slos
		c.slos = make([]acc, len(out.slos))
		c.sloCounts = make([][2]int64, len(out.slos))
		c.sloIdle = make([]int, len(out.slos))
	}
	for i, s := range out.slos {
		if i < len(c.slos) {
			c.slos[i].add(float64(s.Value))
			c.sloCounts[i][0] += s.Count
			c.sloCounts[i][1] += s.Trials
			if s.Idle {
				c.sloIdle[i]++
			}
		}
	}
	for _, f := range out.fails {
		found := false
		for i := range c.fails {
			if c.fails[i].journey == f.journey && c.fails[i].stage == f.stage && c.fails[i].component == f.component {
				c.fails[i].n += f.n
				found = true
				break
			}
		}
		if !found {
			c.fails = append(c.fails, f)
		}
	}
}

// finishCell summarises a grid cell: every metric the design ever listed,
// sparse ones zero where absent.
func (s *sweeper) finishCell(c *cellAcc) *Cell {
	var d *designAcc
	for _, x := range s.designs {
		if x.name == c.design {
			d = x
		}
	}
	out := c.judge(s.level())
	if d == nil || d.fixed == nil {
		return out
	}
	for _, key := range d.order() {
		var a acc
		if i, ok := d.index[key]; ok {
			a = c.fixed[i]
			st := Stat{Key: key, Summary: a.summary()}
			st.Summary = withinUnit(key, rateInterval(key.Measure, st.Summary, c.counts[i]))
			out.Metrics = append(out.Metrics, st)
			continue
		}
		if p := c.sparse[key]; p != nil {
			a = *p
		}
		a = a.withZeros(c.runs - a.n)
		out.Metrics = append(out.Metrics, Stat{Key: key, Summary: withinUnit(key, a.summary())})
	}
	out.index = indexStats(out.Metrics)
	return out
}

// withinUnit keeps a cell's interval within the values its measure can
// take: the t interval about a mean near 0 of a count that most runs
// never see (a rare failure stage) reached below 0, and that of a flag
// most runs raise (overloaded in 4 runs of 5) above 1.
func withinUnit(key model.MetricKey, s Summary) Summary {
	s.Lo, s.Hi = key.Measure.Clamp(s.Lo, s.Hi)
	return s
}

// finishCompare summarises the paired differences c of a design's cell
// with the baseline's cell at the same multiplier.
func (s *sweeper) finishCompare(c, cell, base *cellAcc) *Comparison {
	var d *designAcc
	for _, x := range s.designs {
		if x.name == c.design {
			d = x
		}
	}
	out := &Comparison{Design: c.design, Baseline: s.cfg.Designs[0].Name, Multiplier: c.mult}
	for i, key := range d.fixed {
		j := -1
		if d.baseIndex != nil {
			j = d.baseIndex[i]
		}
		if j < 0 || c.fixed == nil {
			continue
		}
		st := Stat{Key: key, Summary: c.fixed[i].summary()}
		if cell.counts != nil && base.counts != nil {
			st.Summary = differenceInterval(key.Measure, st.Summary, cell.counts[i], base.counts[j])
		}
		out.Diffs = append(out.Diffs, st)
	}
	out.index = indexStats(out.Diffs)
	return out
}

// judge sets the verdict, SLO standings, guards and failure stages of a
// cell, each SLO judged by its interval at confidence level; metrics are
// left to the caller.
func (c *cellAcc) judge(level float64) *Cell {
	out := &Cell{Design: c.design, Multiplier: c.mult, Runs: c.runs, Broken: c.broken, RunFailed: slices.Clone(c.failed)}
	out.Guards = slices.Clone(c.guards)
	slices.SortStableFunc(out.Guards, func(a, b GuardCount) int { return cmp.Compare(b.Runs, a.Runs) })
	anyBroken, allClear, clearFail := false, true, false
	for i, so := range c.sloOf {
		sum := c.slos[i].summaryAt(level)
		if n := c.sloCounts[i][1]; n > 0 && sum.N >= 2 {
			// Judged by the interval the tables show for the same rate:
			// a cell cannot pass clearly on an interval narrower than its
			// counts allow.
			sum = widenByCountsAt(sum, float64(c.sloCounts[i][0]), float64(n), zAt(level))
		}
		st := SLOStat{SLO: so.SLO, Bound: so.Bound, Key: so.Key, All: so.All, Counted: so.Counted, Summary: sum}
		st.Broken, st.Clear = judgeSLO(so.Bound, sum)
		if sum.N == 0 && c.sloIdle[i] == c.runs {
			// No run saw traffic for it: it bounds no values, and no run
			// more would tell otherwise at this load.
			st.Broken, st.Clear, st.Idle = false, true, true
		}
		out.SLOs = append(out.SLOs, st)
		anyBroken = anyBroken || st.Broken
		allClear = allClear && st.Clear
		clearFail = clearFail || st.Broken && st.Clear
	}
	switch {
	case clearFail || c.runs > 0 && c.broken == c.runs:
		out.Verdict = Fail
	case anyBroken || c.broken > 0:
		out.Verdict = FailUnsure
	case allClear:
		out.Verdict = Pass
	default:
		out.Verdict = PassUnsure
	}
	for _, f := range c.fails {
		out.Failures = append(out.Failures, StageCount{Journey: f.journey, Stage: f.stage, Component: f.component, Count: f.n})
	}
	// Most frequent first; ties in the order journeys were first seen
	// failing, which is fixed by the consumption order.
	slices.SortStableFunc(out.Failures, func(a, b StageCount) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

// judgeSLO applies a bound to the mean of an SLO's values and says whether
// the interval settles it. With no values it is broken: the journeys it
// names started and none ended, or ended as it counts them (a judge that
// knows no run saw traffic says otherwise).
func judgeSLO(b model.Threshold, s Summary) (broken, clear bool) {
	if s.N == 0 {
		return true, true
	}
	broken = !b.Holds(s.Mean)
	if s.N < 2 || math.IsNaN(s.Lo) {
		return broken, false
	}
	return broken, b.Holds(s.Lo) == !broken && b.Holds(s.Hi) == !broken
}
