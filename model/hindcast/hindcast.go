// Package hindcast holds a scenario to what was measured on the real
// system: it runs every observation of the scenario (model.Observation)
// under its design, load and settings, with replications on common random
// numbers, and judges each by a stated rule: a two-sided Fisher exact test
// for k of n counted events, and for a value or a reported range whether
// it lies within the band 95 % of single simulated runs fall in (a real
// measurement is one run, not a mean of many). Each observation also gets
// its implausibility, |observed − simulated| over the square root of the
// observation's variance, the simulation's and a stated model
// discrepancy, which a fit (fit.go) scores parameter values by.
//
// It runs models and returns values; it never prints, and knows nothing
// of the command line or of files.
package hindcast

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/sim"
)

// Level is the confidence of every test and interval: 95 %.
const Level = 0.95

// Plausible is the implausibility below which an observation is taken to
// be consistent with the model: the three-sigma rule of history matching,
// which holds for any unimodal distribution with at least 95 % of its
// mass (Pukelsheim's rule).
const Plausible = 3.0

// MaxReplications bounds the runs per observation.
const MaxReplications = 10_000

// Variant builds the scenario an observation was measured under: base
// settings applied to the base scenario before the design (values of the
// system every design inherits, such as a fit's point), its design
// (designs joined with +), then its own path=value settings (the test's
// conditions).
type Variant func(design string, base, sets []string) (*model.Loaded, *model.Compiled, error)

// Config says what to hindcast and how.
type Config struct {
	// Base is the scenario as written: its observations are judged.
	Base *model.Loaded
	// Load builds each observation's variant.
	Load Variant
	// BaseSets are applied to the base scenario of every variant,
	// before its design: a fit's parameter values, or a what-if.
	BaseSets []string
	// Only keeps the observations with these ids; empty: all.
	Only []string
	// Replications per observation (seeds Seed .. Seed+Replications-1).
	Replications int
	// Until, when above Replications, judges every observation by looks:
	// at Replications runs, then doubling up to Until (the sweep's
	// schedule, sweep.LookSchedule), each observation given more runs
	// only while its verdict is not sure, and every verdict's sureness
	// judged at the schedule's corrected level. 0: Replications only.
	Until int
	Seed  uint64
	// Workers run replications in parallel; 0 means GOMAXPROCS. The
	// result does not depend on it.
	Workers int
	// Budget, when set, is shared with a sweep running beside the
	// hindcast: each run takes a core from it after the sweep's runs.
	Budget *sweep.Budget
	// Progress, when set, is told of each finished run.
	Progress func(done, total int)
}

// Judged is one observation, simulated and judged.
type Judged struct {
	Index int // in the scenario's observations
	Obs   model.Observation
	Runs  int
	// Observed is the observation's value; ObsLo and ObsHi the band the
	// real figure lies in (equal to it for a count).
	Observed, ObsLo, ObsHi float64
	// Simulated is the mean over runs (for a count, the pooled share
	// K/N); Lo and Hi its interval: for a count the Wilson interval of
	// K/N, for a value the band 95 % of single runs fall in.
	Simulated, Lo, Hi float64
	K, N              int64 // counted measures: events and trials over all runs
	// Measured counts the runs that measured the value at all (a p95 of
	// no succeeded journeys is not a value).
	Measured int
	// Rule says how the verdict was reached, in words; P is the Fisher
	// test's p-value for a count, NaN otherwise.
	Rule string
	P    float64
	// Implausibility is |observed − simulated| / √(V_obs + V_sim + V_md).
	Implausibility float64
	Agrees         bool
	// Sure says the verdict holds at the report's level whatever the
	// runs' sampling error (see sure.go); Stop says why the runs stopped
	// at Runs: sure, unsure at the fixed replications, or cap.
	Sure bool
	Stop sweep.Stop
}

// Role says what the observation is to the model: a prediction it must
// make, a figure a parameter was fitted to, or a known exception.
func (j *Judged) Role() string {
	switch {
	case j.Obs.Exception != "":
		return "exception"
	case j.Obs.Fitted != "":
		return "fitted"
	}
	return "prediction"
}

// Report is a hindcast's outcome.
type Report struct {
	Scenario     string
	Replications int
	// Until is Config.Until (0 without); Looks how many times an
	// observation could be judged, and Level the confidence its
	// sureness is judged at (Level with one look). Runs counts every run
	// made, over all groups and looks.
	Until, Looks int
	Level        float64
	Runs         int
	Seed         uint64
	Items        []Judged
}

// Schedule is the looks the report's observations were judged at.
func (r *Report) Schedule() sweep.LookSchedule {
	return sweep.LookSchedule{First: r.Replications, Until: r.Until}
}

// Counts says how many observations agree, of those that count (every
// one but the known exceptions), and how many exceptions there are.
func (r *Report) Counts() (agree, counted, exceptions int) {
	for i := range r.Items {
		if r.Items[i].Obs.Exception != "" {
			exceptions++
			continue
		}
		counted++
		if r.Items[i].Agrees {
			agree++
		}
	}
	return agree, counted, exceptions
}

// Disagreeing lists the ids of the observations that count and disagree.
func (r *Report) Disagreeing() []string {
	var ids []string
	for i := range r.Items {
		if it := &r.Items[i]; it.Obs.Exception == "" && !it.Agrees {
			ids = append(ids, it.Obs.ID)
		}
	}
	return ids
}

// Summary is the one-line agreement: "the model agrees with 9 of 11
// observations (disagree: 000-116, 000-117); 1 known exception".
func (r *Report) Summary() string {
	agree, counted, exc := r.Counts()
	s := fmt.Sprintf("the model agrees with %d of %d observations", agree, counted)
	if d := r.Disagreeing(); len(d) > 0 {
		s += " (disagree: " + strings.Join(d, ", ") + ")"
	}
	switch exc {
	case 0:
	case 1:
		s += "; 1 known exception"
	default:
		s += fmt.Sprintf("; %d known exceptions", exc)
	}
	return s
}

// group is the observations measured under one variant and load: they
// share their runs.
type group struct {
	design string
	sets   []string // the observation's own
	mult   float64
	step   sim.Time // series sampling, when an observation reads one
	obs    []int    // indexes into the scenario's observations
	prog   *model.Compiled
	loaded *model.Loaded // the scenario under the design and sets, for checks
	runs   []*model.Result
}

// ErrUnknownObservation is wrapped by the error for an id Only names that
// the scenario has no observation of.
var ErrUnknownObservation = errors.New("no observation")

// ErrListedTwice is wrapped by the error for an id Only names twice.
var ErrListedTwice = errors.New("listed twice")

// ErrNoObservations is returned for a scenario without observations.
var ErrNoObservations = errors.New("the scenario has no observations: add an observations: section (see docs/observations.md)")

// ErrOnlyExceptions is returned when every observation to fit has an
// exception: the model knowingly does not reproduce any of them, so none
// can rule a point out.
var ErrOnlyExceptions = errors.New("no observation to fit: every one selected has an exception: (the model knowingly does not reproduce it)")

// Run simulates and judges the observations.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Replications < 2 || cfg.Replications > MaxReplications {
		return nil, fmt.Errorf("replications must be between 2 and %d, got %d", MaxReplications, cfg.Replications)
	}
	if cfg.Until != 0 && (cfg.Until < cfg.Replications || cfg.Until > MaxReplications) {
		return nil, fmt.Errorf("the replication cap must be between the replications (%d) and %d, got %d", cfg.Replications, MaxReplications, cfg.Until)
	}
	obs, err := cfg.Base.Observations()
	if err != nil {
		return nil, err
	}
	if err := checkOnly(obs, cfg.Only); err != nil {
		return nil, err
	}
	groups, err := plan(cfg, obs)
	if err != nil {
		return nil, err
	}
	sched := sweep.LookSchedule{First: cfg.Replications, Until: cfg.Until}
	rep := &Report{Scenario: cfg.Base.Scenario.Name, Replications: cfg.Replications, Until: cfg.Until,
		Looks: sched.Looks(), Level: sched.Level(Level), Seed: cfg.Seed}
	// Each look runs every group that still has an observation not sure
	// up to the look's count, and judges those observations on the
	// group's first runs: an observation settled at an earlier look keeps
	// the verdict of its runs, whatever its group runs after for others.
	pending := make([][]int, len(groups))
	for gi, g := range groups {
		pending[gi] = g.obs
	}
	var prog progress
	for k := range sched.Looks() {
		target := sched.Target(k)
		var work []*group
		for gi, g := range groups {
			if len(pending[gi]) > 0 {
				work = append(work, g)
			}
		}
		if len(work) == 0 {
			break
		}
		if err := simulate(ctx, cfg, work, target, &prog); err != nil {
			return nil, err
		}
		last := k == sched.Looks()-1
		for gi, g := range groups {
			var still []int
			for _, i := range pending[gi] {
				j := Judge(i, obs[i], g.runs, rep.Level)
				if !j.Sure && !last {
					still = append(still, i)
					continue
				}
				j.Stop = sched.StopOf(j.Sure)
				rep.Items = append(rep.Items, j)
			}
			pending[gi] = still
		}
	}
	rep.Runs = prog.total
	slices.SortFunc(rep.Items, func(a, b Judged) int { return a.Index - b.Index })
	return rep, nil
}

// checkOnly refuses a scenario without observations and an id in only
// that names none of them.
func checkOnly(obs []model.Observation, only []string) error {
	if len(obs) == 0 {
		return ErrNoObservations
	}
	for i, id := range only {
		if slices.Contains(only[:i], id) {
			// As a parameter listed twice is: the second says nothing the
			// first did not, and may be a typo for another id.
			return fmt.Errorf("observation %q is %w", id, ErrListedTwice)
		}
		if !slices.ContainsFunc(obs, func(o model.Observation) bool { return o.ID == id }) {
			var ids []string
			for _, o := range obs {
				ids = append(ids, o.ID)
			}
			return fmt.Errorf("%w %q (the scenario has %s)", ErrUnknownObservation, id, strings.Join(ids, ", "))
		}
	}
	return nil
}

// progress counts the runs across looks: the total grows as each look
// plans its runs.
type progress struct{ done, total int }

// plan groups the observations by variant and load and builds each
// variant once.
func plan(cfg Config, obs []model.Observation) ([]*group, error) {
	var groups []*group
	for i, o := range obs {
		if len(cfg.Only) > 0 && !slices.Contains(cfg.Only, o.ID) {
			continue
		}
		sets := o.Set
		k := slices.IndexFunc(groups, func(g *group) bool {
			return g.design == o.Design && g.mult == o.Load() && slices.Equal(g.sets, sets)
		})
		if k >= 0 {
			// Checked against the variant as the group's first was: an
			// observation of a journey the scenario lacks once ran, and
			// read as a disagreement of the model.
			if err := cfg.Base.CheckObserved(i, groups[k].loaded); err != nil {
				return nil, err
			}
			groups[k].obs = append(groups[k].obs, i)
			if st := o.SeriesStep(); st > 0 && (groups[k].step == 0 || st < groups[k].step) {
				groups[k].step = st
			}
			continue
		}
		l, c, err := cfg.Load(o.Design, cfg.BaseSets, sets)
		if err != nil {
			key := "design"
			if o.Design == "" || len(o.Set) > 0 {
				key = "set"
			}
			var list model.ErrorList
			var one *model.Error
			if errors.As(err, &list) || errors.As(err, &one) {
				// Already placed in the file the problem is in.
				return nil, fmt.Errorf("observation %s: %w", o.ID, err)
			}
			return nil, cfg.Base.ObservationError(i, key, err)
		}
		if err := cfg.Base.CheckObserved(i, l); err != nil {
			return nil, err
		}
		if err := l.CheckMultiplier(o.Load()); err != nil {
			return nil, cfg.Base.ObservationError(i, "multiplier", err)
		}
		groups = append(groups, &group{design: o.Design, sets: sets, mult: o.Load(), step: o.SeriesStep(), obs: []int{i}, prog: c, loaded: l})
	}
	return groups, nil
}

// simulate runs every group's replications up to target on the
// workers, replication r on seed Seed+r, keeping the runs it has; each
// run's result lands in its own slot, so the outcome does not depend on
// the order the runs finish in.
func simulate(ctx context.Context, cfg Config, groups []*group, target int, prog *progress) error {
	type task struct{ g, rep int }
	var tasks []task
	for gi, g := range groups {
		from := len(g.runs)
		g.runs = append(g.runs, make([]*model.Result, target-from)...)
		for r := from; r < target; r++ {
			tasks = append(tasks, task{gi, r})
		}
	}
	prog.total += len(tasks)
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan task)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range min(workers, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				if cfg.Budget != nil {
					if cfg.Budget.Acquire(ctx, false) != nil {
						continue // cancelled: drain the feed, which stops
					}
				}
				g := groups[t.g]
				res, err := g.prog.Run(model.RunOptions{Multiplier: g.mult, Seed: cfg.Seed + uint64(t.rep), SeriesStep: g.step,
					Interrupted: func() bool { return ctx.Err() != nil }})
				if cfg.Budget != nil {
					cfg.Budget.Release()
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("observation %s, seed %d: %w", cfg.Base.Scenario.Observations[g.obs[0]].ID, cfg.Seed+uint64(t.rep), err)
					cancel()
				}
				g.runs[t.rep] = res
				prog.done++
				if cfg.Progress != nil {
					cfg.Progress(prog.done, prog.total)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, t := range tasks {
		select {
		case next <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, g := range groups {
		for _, r := range g.runs {
			if r.Broken != nil {
				return fmt.Errorf("observation %s: run at seed %d %s", cfg.Base.Scenario.Observations[g.obs[0]].ID, r.Seed, r.Broken)
			}
		}
	}
	return nil
}

// Judge simulates nothing: it judges observation o (index i) against the
// runs of its variant, and whether the verdict is sure at level.
func Judge(i int, o model.Observation, runs []*model.Result, level float64) Judged {
	j := Judged{Index: i, Obs: o, Runs: len(runs), P: math.NaN()}
	j.Observed, j.ObsLo, j.ObsHi = o.Observed()
	m := o.MeasureOf()
	disc := o.DiscrepancyAmount()
	if m.Counted() && o.Count != nil {
		judgeCount(&j, m, runs, disc, level)
		return j
	}
	judgeValue(&j, m, runs, disc, level)
	return j
}

// judgeCount compares k of n observed with K of N simulated.
func judgeCount(j *Judged, m *model.ObservedMeasure, runs []*model.Result, disc, level float64) {
	shares := make([]float64, 0, len(runs))
	for _, r := range runs {
		k, n := m.Counts(r, &j.Obs)
		j.K += k
		j.N += n
		if n > 0 {
			shares = append(shares, float64(k)/float64(n))
		}
	}
	j.Measured = len(shares)
	k, n := j.Obs.Count.K, j.Obs.Count.N
	if j.N == 0 {
		j.Simulated, j.Lo, j.Hi = math.NaN(), math.NaN(), math.NaN()
		j.Implausibility = math.Inf(1)
		j.Rule = "nothing counted"
		return
	}
	j.Simulated = float64(j.K) / float64(j.N)
	j.Lo, j.Hi = sweep.Wilson(float64(j.K), float64(j.N))
	j.P = FisherExact(k, n-k, j.K, j.N-j.K)
	j.Agrees = j.P >= 1-Level
	j.Rule = "Fisher p " + formatP(j.P)
	// The pooled share's binomial variance for each side, or the spread
	// between runs where that is larger (journeys of one run share its
	// queues, and are not independent trials).
	pool := float64(k+j.K) / float64(n+j.N)
	vObs := pool * (1 - pool) / float64(n)
	vSim := pool * (1 - pool) / float64(j.N)
	if len(shares) > 1 {
		vSim = max(vSim, stat.Variance(shares, nil)/float64(len(shares)))
	}
	j.Implausibility = implausibility(j.Observed-j.Simulated, vObs+vSim+disc*disc)
	j.Sure = countSure(j, shares, level)
}

// judgeValue compares a value, or a reported range, with the band single
// runs fall in.
func judgeValue(j *Judged, m *model.ObservedMeasure, runs []*model.Result, disc, level float64) {
	var xs []float64
	for _, r := range runs {
		var x float64
		if m.Counted() {
			k, n := m.Counts(r, &j.Obs)
			x = math.NaN()
			if n > 0 {
				x = float64(k) / float64(n)
			}
		} else {
			x = m.Value(r, &j.Obs)
		}
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
	}
	j.Measured = len(xs)
	if len(xs) < 2 {
		j.Simulated, j.Lo, j.Hi = math.NaN(), math.NaN(), math.NaN()
		if len(xs) == 1 {
			j.Simulated = xs[0]
		}
		j.Implausibility = math.Inf(1)
		j.Rule = fmt.Sprintf("measured in %d of %d runs", len(xs), len(runs))
		return
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	nr := float64(len(xs))
	half := tQuantile(len(xs)-1) * sd * math.Sqrt(1+1/nr)
	j.Simulated = mean
	j.Lo, j.Hi = m.Unit.Clamp(mean-half, mean+half)
	j.Agrees = j.Lo <= j.ObsHi && j.ObsLo <= j.Hi
	// The rule in a few words: the band of single runs meets the
	// reported range, the value with its tolerance, or the value.
	switch {
	case j.Obs.Between != nil:
		j.Rule = "range vs runs"
	case j.Obs.Tolerance != nil:
		j.Rule = "band vs runs"
	default:
		j.Rule = "value vs runs"
	}
	// The reported band as a 95 % interval of the real figure, and the
	// runs' spread as the simulator's own variance at these values.
	z := distuv.UnitNormal.Quantile(1 - (1-Level)/2)
	vObs := math.Pow((j.ObsHi-j.ObsLo)/2/z, 2)
	vSim := sd * sd * (1 + 1/nr)
	j.Implausibility = implausibility(j.Observed-j.Simulated, vObs+vSim+disc*disc)
	j.Sure = valueSure(j, mean, sd, len(xs), level)
}

func implausibility(d, v float64) float64 {
	switch {
	case d == 0:
		return 0
	case v <= 0:
		return math.Inf(1)
	}
	return math.Abs(d) / math.Sqrt(v)
}

func tQuantile(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-Level)/2)
}

func formatP(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return fmt.Sprintf("%.2g", p)
}
