package hindcast

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"capsim/model"
)

// Fitting to outcomes is history matching: the ranges of the parameters
// left to fit are explored with a space-filling design (a Latin hypercube,
// seeded), every point is hindcast on the same random numbers, and a point
// is ruled out as soon as one observation's implausibility reaches
// Plausible. What is left is the region of values under which every
// observation is plausible; a second wave fills the box that region spans
// (a little wider), where the answer's edges are decided. The region, not
// a best point, is the result: it becomes the parameters' uncertainty.

// FitConfig says what to fit.
type FitConfig struct {
	Hindcast Config
	// Params are the values to fit, each with its range (a scenario's
	// {range: …} or {triangular: …}: only the ends are used).
	Params []model.Uncertain
	// Points per wave; Waves after the first refine inside the region.
	Points, Waves int
	// Seed draws the design's points.
	Seed uint64
	// Progress, when set, is told of each point hindcast.
	Progress func(done, total int)
}

// FitPoint is one point of the design, hindcast.
type FitPoint struct {
	Wave   int
	Values []float64 // in each parameter's unit (seconds for a time)
	Sets   []string  // the same as path=value
	// Implausibility per scored observation, in FitResult.Observations'
	// order; Worst indexes the largest.
	Implausibility []float64
	Worst          int
	Max            float64
	Plausible      bool
}

// FitResult is a fit's outcome.
type FitResult struct {
	Params       []model.Uncertain
	Observations []model.Observation // the scored ones: every one but the exceptions
	Points       []FitPoint
	// Region is, per parameter, the least and greatest value of a
	// plausible point; NaN when no point is plausible.
	Region [][2]float64
	// RuledOut counts, per observation, the points it ruled out as the
	// most implausible observation there.
	RuledOut []int
	// Conflicts lists pairs of observations each plausible somewhere but
	// never both at one point: a finding about the model's structure.
	Conflicts [][2]int
	// Never lists observations plausible at no point at all.
	Never []int
}

// MaxFitPoints bounds the points of one wave.
const MaxFitPoints = 10_000

// Fit explores the parameters' ranges and returns the plausible region.
func Fit(ctx context.Context, cfg FitConfig) (*FitResult, error) {
	if len(cfg.Params) == 0 {
		return nil, fmt.Errorf("nothing to fit: no parameter with a range")
	}
	if cfg.Points < 2 || cfg.Points > MaxFitPoints {
		return nil, fmt.Errorf("points per wave must be between 2 and %d, got %d", MaxFitPoints, cfg.Points)
	}
	if cfg.Waves < 0 || cfg.Waves > 10 {
		return nil, fmt.Errorf("refinement waves must be between 0 and 10, got %d", cfg.Waves)
	}
	for _, p := range cfg.Params {
		if !(p.Form == "range" || p.Form == "triangular") {
			return nil, fmt.Errorf("%s: only a {range: …} or {triangular: …} value can be fitted", p.Path)
		}
	}
	obs, err := cfg.Hindcast.Base.Observations()
	if err != nil {
		return nil, err
	}
	if err := checkOnly(obs, cfg.Hindcast.Only); err != nil {
		return nil, err
	}
	res := &FitResult{Params: cfg.Params}
	var scored []int // indexes into the scenario's observations
	for i, o := range obs {
		if o.Exception == "" && (len(cfg.Hindcast.Only) == 0 || slices.Contains(cfg.Hindcast.Only, o.ID)) {
			scored = append(scored, i)
			res.Observations = append(res.Observations, o)
		}
	}
	if len(scored) == 0 {
		return nil, ErrOnlyExceptions
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6669745f706f696e)) // "fit_poin"
	lo := make([]float64, len(cfg.Params))
	hi := make([]float64, len(cfg.Params))
	for k, p := range cfg.Params {
		lo[k], hi[k] = p.Lo, p.Hi
	}
	total := cfg.Points * (1 + cfg.Waves)
	seen := map[string]bool{}
	for wave := 0; wave <= cfg.Waves; wave++ {
		pts := latinHypercube(rng, cfg.Points, lo, hi)
		for i, v := range pts {
			if cfg.Progress != nil {
				// Points of the design tried so far, a rounded-together
				// one included: the count only goes up.
				cfg.Progress(wave*cfg.Points+i, total)
			}
			pt := FitPoint{Wave: wave, Values: v}
			for k, p := range cfg.Params {
				pt.Values[k] = snap(p, v[k])
				pt.Sets = append(pt.Sets, p.Path+"="+formatValue(p, pt.Values[k]))
			}
			key := strings.Join(pt.Sets, " ")
			if seen[key] {
				continue // a whole-number parameter rounds points together
			}
			seen[key] = true
			hc := cfg.Hindcast
			hc.BaseSets = append(slices.Clone(cfg.Hindcast.BaseSets), pt.Sets...)
			hc.Progress = nil
			rep, err := Run(ctx, hc)
			if err != nil {
				return nil, fmt.Errorf("at %s: %w", key, err)
			}
			for _, i := range scored {
				for _, it := range rep.Items {
					if it.Index == i {
						pt.Implausibility = append(pt.Implausibility, it.Implausibility)
					}
				}
			}
			pt.Worst = 0
			for q, v := range pt.Implausibility {
				if v > pt.Implausibility[pt.Worst] {
					pt.Worst = q
				}
			}
			pt.Max = pt.Implausibility[pt.Worst]
			pt.Plausible = pt.Max < Plausible
			res.Points = append(res.Points, pt)
		}
		if cfg.Progress != nil {
			cfg.Progress((wave+1)*cfg.Points, total)
		}
		// The next wave fills the box the plausible points span, one
		// stratum wider on each side; with none, the box of the best
		// tenth of the points, to look closer where the model comes
		// nearest.
		box := plausibleBox(res.Points, len(cfg.Params))
		if box == nil {
			box = bestBox(res.Points, len(cfg.Params))
		}
		for k := range cfg.Params {
			w := (hi[k] - lo[k]) / float64(cfg.Points)
			lo[k] = max(cfg.Params[k].Lo, box[k][0]-w)
			hi[k] = min(cfg.Params[k].Hi, box[k][1]+w)
		}
	}
	res.summarise()
	return res, nil
}

func (r *FitResult) summarise() {
	r.Region = make([][2]float64, len(r.Params))
	for k := range r.Region {
		r.Region[k] = [2]float64{math.NaN(), math.NaN()}
	}
	if box := plausibleBox(r.Points, len(r.Params)); box != nil {
		copy(r.Region, box)
	}
	r.RuledOut = make([]int, len(r.Observations))
	somewhere := make([]bool, len(r.Observations))
	for _, p := range r.Points {
		if !p.Plausible {
			r.RuledOut[p.Worst]++
		}
		for q, v := range p.Implausibility {
			if v < Plausible {
				somewhere[q] = true
			}
		}
	}
	for a := range r.Observations {
		if !somewhere[a] {
			r.Never = append(r.Never, a)
			continue
		}
		for b := a + 1; b < len(r.Observations); b++ {
			if !somewhere[b] {
				continue
			}
			together := slices.ContainsFunc(r.Points, func(p FitPoint) bool {
				return p.Implausibility[a] < Plausible && p.Implausibility[b] < Plausible
			})
			if !together {
				r.Conflicts = append(r.Conflicts, [2]int{a, b})
			}
		}
	}
}

// Plausible counts the plausible points.
func (r *FitResult) Plausible() int {
	n := 0
	for _, p := range r.Points {
		if p.Plausible {
			n++
		}
	}
	return n
}

// RangeSets writes the region as overrides that give each parameter the
// region as its range: what sweep --uncertainty and sensitivity then draw
// from. Empty when no point is plausible.
func (r *FitResult) RangeSets() []string {
	if r.Plausible() == 0 {
		return nil
	}
	var sets []string
	for k, p := range r.Params {
		lo, hi := formatValue(p, r.Region[k][0]), formatValue(p, r.Region[k][1])
		if lo == hi {
			sets = append(sets, p.Path+"="+lo) // one value: nothing to draw
			continue
		}
		sets = append(sets, fmt.Sprintf("%s={range: [%s, %s]}", p.Path, lo, hi))
	}
	return sets
}

// latinHypercube draws n points in the box [lo, hi]: each parameter's
// range cut into n strata, each stratum used once, in a random pairing.
func latinHypercube(rng *rand.Rand, n int, lo, hi []float64) [][]float64 {
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, len(lo))
	}
	for k := range lo {
		perm := rng.Perm(n)
		for i := range pts {
			u := (float64(perm[i]) + rng.Float64()) / float64(n)
			pts[i][k] = lo[k] + u*(hi[k]-lo[k])
		}
	}
	return pts
}

// snap keeps a whole-number parameter whole.
func snap(p model.Uncertain, v float64) float64 {
	if p.Count {
		return math.Round(v)
	}
	return v
}

func formatValue(p model.Uncertain, v float64) string {
	switch {
	case p.Count:
		return fmt.Sprint(int64(math.Round(v)))
	case p.Time:
		return fmt.Sprintf("%.6gs", v)
	}
	return fmt.Sprintf("%.6g", v)
}

func plausibleBox(pts []FitPoint, d int) [][2]float64 {
	var box [][2]float64
	for _, p := range pts {
		if !p.Plausible {
			continue
		}
		if box == nil {
			box = make([][2]float64, d)
			for k := range box {
				box[k] = [2]float64{p.Values[k], p.Values[k]}
			}
		}
		for k := range box {
			box[k][0] = min(box[k][0], p.Values[k])
			box[k][1] = max(box[k][1], p.Values[k])
		}
	}
	return box
}

func bestBox(pts []FitPoint, d int) [][2]float64 {
	sorted := slices.Clone(pts)
	slices.SortStableFunc(sorted, func(a, b FitPoint) int { return cmpFloat(a.Max, b.Max) })
	keep := sorted[:max(1, len(sorted)/10)]
	box := make([][2]float64, d)
	for k := range box {
		box[k] = [2]float64{math.Inf(1), math.Inf(-1)}
		for _, p := range keep {
			box[k][0] = min(box[k][0], p.Values[k])
			box[k][1] = max(box[k][1], p.Values[k])
		}
	}
	return box
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
