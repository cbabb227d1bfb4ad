// Package sweep runs experiments over a scenario: every design at every
// load multiplier of a grid, each replicated with its own seed, and states
// what the replications agree on — means with 95 % confidence intervals,
// paired differences between designs, and the multiplier at which each
// design first breaks an SLO.
//
// Replication r runs with seed Seed+r for every design and multiplier. The
// model draws each source of randomness from a stream named after it, so
// the runs of one replication index see the same traffic (common random
// numbers): comparisons between designs and between multipliers are paired,
// and their differences measure the design or the load, not the dice.
//
// Runs are spread over worker goroutines, each running its own copy of
// the run state against the shared, read-only compiled program; outcomes
// are consumed in one fixed order whatever finishes first, so every output
// byte is the same for any number of workers and any GOMAXPROCS. Per-run
// metrics stream to the runs.csv writer as they are consumed and only
// aggregates stay in memory, which therefore does not grow with the number
// of replications.
//
// # First failure
//
// A multiplier breaks an SLO when the mean of the SLO's value over the
// replications violates its bound (a value undefined in every replication,
// such as the p95 of journeys none of which succeeded, violates it too),
// or when any replication was stopped by a guard. The first-failure
// multiplier of a design is the smallest multiplier tried that breaks an
// SLO.
//
// Its confidence interval inverts the per-multiplier intervals: its low end
// is the highest multiplier tried, below the estimate, at which every SLO's
// 95 % interval lies on the passing side of its bound; its high end is the
// lowest multiplier tried, at or above the estimate, at which some SLO's
// interval lies wholly on the failing side (or every replication broke a
// guard). When the SLO's value changes steadily with load, the true
// crossing lies between the ends with at least the stated confidence (each
// end errs with probability at most 2.5 %); the interval is no narrower
// than the multipliers tried allow. An end is NaN when no multiplier tried
// settles it — with one replication, always.
//
// After the grid (round 0), Refine rounds try more multipliers. Each round
// is planned from what was tried before it alone: for every design, the
// gap below the estimate, the gap above the interval's low end and the gap
// below its high end (those that exist, each once) get Section multipliers
// each, evenly spaced, every replication at each. Because every run of a
// round is known when the round starts, a round split over machines is one
// more batch of independent runs. The last round also re-runs replication
// 0, sampling time series, at every multiplier that can still end up as
// the estimate: the current one and the round's points below it.
package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"capsim/model"
	"capsim/sim"
)

// Design is one variant of the scenario to sweep.
type Design struct {
	Name     string
	Compiled *model.Compiled
	// Draws, when set, holds replication r's program in Draws[r]: the
	// design with that replication's draw of its uncertain parameters
	// (model.DrawSets under seed Seed+r). Every design of a sweep has
	// Draws or none has; with them, each first failure also gets the
	// interval with parameter uncertainty (see perrun.go).
	Draws []*model.Compiled
}

// program is the compiled design replication rep runs. Every draw shares
// the design's structure (journeys, stages, components); only values differ.
func (d *Design) program(rep int) *model.Compiled {
	if d.Draws != nil {
		return d.Draws[rep]
	}
	return d.Compiled
}

// Config is one experiment.
type Config struct {
	Scenario     string // written in the scenario column of every table
	Designs      []Design
	Multipliers  []float64 // ascending and distinct (see ParseMultipliers)
	Replications int
	Seed         uint64 // replication r runs with seed Seed+r
	Workers      int    // goroutines running replications; <= 0 means GOMAXPROCS
	Refine       int    // refinement rounds after the grid
	// Section is how many multipliers a refinement round tries inside
	// each bracket; <= 0 means DefaultSection.
	Section int
	// SeriesStep, when > 0, re-runs replication 0 of each failing design
	// at its first-failure multiplier sampling time series at that step.
	SeriesStep sim.Time
	// Runs, when set, receives runs.csv: its header, then every grid run's
	// metrics as each run is consumed, in the fixed order.
	Runs io.Writer
	// Progress, when set, is called from the goroutine that called Run
	// after every completed run.
	Progress func(Progress)
	// Until, when above Replications, gives the cells whose verdict is
	// unclear more replications, doubling at each look, up to Until, and
	// judges every verdict at VerdictLevel (see precision.go).
	Until int
	// From, when set, supplies the outcomes of every round from the
	// shards of a sweep split over machines instead of running them (for
	// RunShard, those of the rounds before its own).
	From *Shards
	// Budget, when set, is shared with an analysis running beside the
	// sweep: each run takes a core from it, ahead of the other's runs.
	Budget *Budget
}

// Progress tells how far a sweep has got.
type Progress struct {
	Phase       string // "grid", "refine" or "merge"
	Done, Total int    // runs; Total grows when refinement is planned
}

// task is one run to make.
type task struct {
	design int
	mult   float64
	rep    int
	grid   int // grid index, or -1 off the grid
	slot   int // which refinement point or series run of its round
	series bool
}

// outcome is what a run leaves for the aggregates: its metrics and the
// few details first-failure needs, never the whole result.
type outcome struct {
	metrics []model.Metric
	slos    []model.SLOResult
	broken  *model.Broken
	fails   []stageCount
	rows    []byte // runs.csv rows, formatted by the worker
	series  *model.TimeSeries
	rep     int // the replication, set when consumed
}

type sweeper struct {
	cfg     Config
	workers int
	done    int
	total   int
	grid    []*cellAcc // design-major
	designs []*designAcc
	compare []*cellAcc // (design-1)-major; paired differences with design 0
	base    []float64  // design 0's fixed metrics in the current (multiplier, replication)
	// tried holds each design's cells so far, grid and refinement points,
	// by ascending multiplier.
	tried [][]*Cell
	// candidates are the last round's time series, by design and
	// multiplier, until the final estimates pick theirs.
	candidates map[point]*model.TimeSeries
	// stages are each design's failure stages by journey, written in
	// runs.csv as a zero where a run counted none; read-only once made.
	stages []map[string][]string
	// accs holds every tried cell's accumulator, grid and refinement, by
	// design and multiplier, for the looks to extend.
	accs  map[point]*cellAcc
	looks int // looks made, with Config.Until
	extra int // runs the looks added
}

// Run runs the experiment. It returns ctx's error, and has written only
// whole rows, when ctx is done before the end.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.From != nil {
		if err := cfg.From.Check(cfg.Rounds()); err != nil {
			return nil, err
		}
	}
	s := newSweeper(cfg)
	if cfg.Runs != nil {
		if _, err := io.WriteString(cfg.Runs, runsHeader); err != nil {
			return nil, err
		}
	}
	res, err := s.gridRound(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.refineRounds(ctx, max(cfg.SearchRounds(), cfg.seriesRound())); err != nil {
		return nil, err
	}
	if err := s.untilSure(ctx, res); err != nil {
		return nil, err
	}
	s.firstFailures(res)
	res.Runs = s.total
	if cfg.Until > cfg.Replications {
		s.precision(res)
	}
	return res, nil
}

func newSweeper(cfg Config) *sweeper {
	s := &sweeper{cfg: cfg, workers: cfg.Workers, candidates: map[point]*model.TimeSeries{}, accs: map[point]*cellAcc{}}
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	nd := len(cfg.Designs)
	for d := range cfg.Designs {
		s.designs = append(s.designs, &designAcc{name: cfg.Designs[d].Name})
		s.stages = append(s.stages, cfg.Designs[d].program(0).FailureStages())
		for m := range cfg.Multipliers {
			c := newCellAcc(cfg.Designs[d].Name, cfg.Multipliers[m])
			s.grid = append(s.grid, c)
			s.accs[point{d, cfg.Multipliers[m]}] = c
		}
	}
	for d := 1; d < nd; d++ {
		for m := range cfg.Multipliers {
			s.compare = append(s.compare, newCellAcc(cfg.Designs[d].Name, cfg.Multipliers[m]))
		}
	}
	return s
}

// gridRound runs (or reads) the grid and summarises it. The grid runs
// multiplier by multiplier, replication by replication, design by design,
// so that the runs a paired difference needs are consumed next to each
// other and only one baseline run is held.
func (s *sweeper) gridRound(ctx context.Context) (*Result, error) {
	cfg := s.cfg
	nm, nr := len(cfg.Multipliers), cfg.Replications
	s.total = cfg.gridRuns()
	var err error
	if cfg.From != nil {
		err = s.read(ctx, 0, s.total, cfg.gridTask, s.withRows(s.consumeGrid))
	} else {
		err = s.execute(ctx, "grid", s.total, cfg.gridTask, s.consumeGrid)
	}
	if err != nil {
		return nil, err
	}
	res := &Result{Scenario: cfg.Scenario, Multipliers: cfg.Multipliers, Replications: nr, Seed: cfg.Seed}
	for _, d := range cfg.Designs {
		res.Designs = append(res.Designs, d.Name)
	}
	for _, c := range s.grid {
		res.Cells = append(res.Cells, s.finishCell(c))
	}
	for _, da := range s.designs {
		da.listed = len(da.sparse)
	}
	for i, c := range s.compare {
		d, m := i/nm+1, i%nm
		res.Compare = append(res.Compare, s.finishCompare(c, s.grid[d*nm+m], s.grid[m]))
	}
	for d := range cfg.Designs {
		s.tried = append(s.tried, slices.Clone(res.Cells[d*nm:(d+1)*nm]))
	}
	return res, nil
}

func (c *Config) check() error {
	switch {
	case len(c.Designs) == 0:
		return errors.New("sweep: no designs")
	case len(c.Multipliers) == 0:
		return errors.New("sweep: no multipliers")
	case c.Replications < 1 || c.Replications > MaxReplications:
		return fmt.Errorf("sweep: replications must be between 1 and %d, got %d", MaxReplications, c.Replications)
	case c.Refine < 0 || c.Refine > MaxRefine:
		return fmt.Errorf("sweep: refine must be between 0 and %d, got %d", MaxRefine, c.Refine)
	case c.drawn() && slices.ContainsFunc(c.Designs, func(d Design) bool { return len(d.Draws) != c.Replications }):
		return errors.New("sweep: with parameter draws every design needs one program per replication")
	case len(c.Multipliers) > MaxGrid:
		return fmt.Errorf("sweep: at most %d multipliers, got %d", MaxGrid, len(c.Multipliers))
	case len(c.Designs)*len(c.Multipliers)*c.Replications > MaxRuns:
		return fmt.Errorf("sweep: %d designs × %d multipliers × %d replications are more than %d grid runs",
			len(c.Designs), len(c.Multipliers), c.Replications, MaxRuns)
	}
	for i, m := range c.Multipliers {
		if !(m > 0) || i > 0 && m <= c.Multipliers[i-1] {
			return fmt.Errorf("sweep: multipliers must be > 0, ascending and distinct, got %v", c.Multipliers)
		}
	}
	if err := c.checkUntil(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, d := range c.Designs {
		if seen[d.Name] {
			return fmt.Errorf("sweep: design %q given twice", d.Name)
		}
		seen[d.Name] = true
	}
	return nil
}

// execute runs n tasks on the workers and consumes their outcomes in task
// order. At most a few tasks per worker run ahead of the oldest one not
// yet consumed, which bounds the outcomes waiting for their turn.
func (s *sweeper) execute(ctx context.Context, phase string, n int, taskAt func(int) task, consume func(task, *outcome) error) error {
	if n == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(s.workers, n)
	window := 4 * workers
	type done struct {
		i   int
		out *outcome
		err error
	}
	jobs := make(chan int)
	results := make(chan done, window)
	slots := make(chan struct{}, window)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: no goroutine outlives the call
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		for i := 0; i < n; i++ {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if b := s.cfg.Budget; b != nil {
					if b.Acquire(ctx, true) != nil {
						return
					}
				}
				out, err := s.runTask(ctx, taskAt(i))
				if b := s.cfg.Budget; b != nil {
					b.Release()
				}
				select {
				case results <- done{i, out, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	pending := make(map[int]*outcome, window)
	for next := 0; next < n; {
		select {
		case d := <-results:
			if d.err != nil {
				return d.err
			}
			pending[d.i] = d.out
			for out, ok := pending[next]; ok; out, ok = pending[next] {
				delete(pending, next)
				if err := consume(taskAt(next), out); err != nil {
					return err
				}
				next++
				<-slots
				s.done++
				if s.cfg.Progress != nil {
					s.cfg.Progress(Progress{Phase: phase, Done: s.done, Total: s.total})
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (s *sweeper) seed(rep int) uint64 { return s.cfg.Seed + uint64(rep) }

// runTask makes one run; it is called on worker goroutines and touches
// nothing shared but the read-only compiled program.
func (s *sweeper) runTask(ctx context.Context, t task) (*outcome, error) {
	d := s.cfg.Designs[t.design]
	prog := d.program(t.rep)
	opts := model.RunOptions{Multiplier: t.mult, Seed: s.seed(t.rep),
		Interrupted: func() bool { return ctx.Err() != nil }}
	if t.series {
		opts.SeriesStep = s.cfg.SeriesStep
	}
	res, err := prog.Run(opts)
	if errors.Is(err, model.ErrInterrupted) {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("design %s at multiplier %s, seed %d: %w", d.Name, FormatMultiplier(t.mult), opts.Seed, err)
	}
	out := &outcome{metrics: res.Metrics(), slos: res.SLOs, broken: res.Broken, series: res.Series}
	for _, j := range res.Journeys {
		for _, st := range j.Stages {
			out.fails = append(out.fails, stageCount{journey: j.Name, stage: st.Stage, component: st.Component, n: st.Count})
		}
	}
	if t.grid >= 0 && s.cfg.Runs != nil {
		var b bytes.Buffer
		writeRunRows(&b, s.cfg.Scenario, d.Name, t.mult, t.rep, opts.Seed, out.metrics, s.stages[t.design])
		out.rows = b.Bytes()
	}
	return out, nil
}

// read consumes round r's n outcomes from the shards, in task order.
func (s *sweeper) read(ctx context.Context, r, n int, taskAt func(int) task, consume func(task, *outcome) error) error {
	rs, err := s.cfg.From.round(r, n)
	if err != nil {
		return err
	}
	defer rs.close()
	if r > 0 {
		s.total += n // the grid's runs are counted already
	}
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := rs.next(i)
		if err != nil {
			return err
		}
		if err := consume(taskAt(i), out); err != nil {
			return err
		}
		s.done++
		if s.cfg.Progress != nil {
			s.cfg.Progress(Progress{Phase: "merge", Done: s.done, Total: s.total})
		}
	}
	return nil
}

func (s *sweeper) consumeGrid(t task, out *outcome) error {
	da, err := s.recordGridRun(t, out)
	if err != nil {
		return err
	}
	nm := len(s.cfg.Multipliers)
	out.rep = t.rep
	s.grid[t.design*nm+t.grid].add(da, out)
	s.pair(t, out)
	return nil
}

// recordGridRun writes a grid run's rows to runs.csv and registers the
// metrics it measured with its design, which it returns.
func (s *sweeper) recordGridRun(t task, out *outcome) (*designAcc, error) {
	if out.rows != nil {
		if _, err := s.cfg.Runs.Write(out.rows); err != nil {
			return nil, fmt.Errorf("writing runs: %w", err)
		}
	}
	da := s.designs[t.design]
	if err := da.register(out.metrics); err != nil {
		return nil, err
	}
	return da, nil
}

// pair adds a run's paired differences with design 0's run of the same
// multiplier and replication, consumed just before it.
func (s *sweeper) pair(t task, out *outcome) {
	if len(s.cfg.Designs) < 2 {
		return
	}
	base := s.designs[0]
	if t.design == 0 {
		s.base = s.base[:0]
		for _, m := range out.metrics {
			if !m.Sparse {
				s.base = append(s.base, m.Value)
			}
		}
		return
	}
	da := s.designs[t.design]
	if da.baseIndex == nil {
		da.baseIndex = make([]int, len(da.fixed))
		for i, key := range da.fixed {
			da.baseIndex[i] = base.fixedIndex(key)
		}
	}
	c := s.compare[(t.design-1)*len(s.cfg.Multipliers)+t.grid]
	c.runs++
	i := 0
	for _, m := range out.metrics {
		if m.Sparse {
			continue
		}
		if c.fixed == nil {
			c.fixed = make([]acc, len(da.fixed))
		}
		if j := da.baseIndex[i]; j >= 0 {
			c.fixed[i].add(m.Value - s.base[j])
		}
		i++
	}
}
