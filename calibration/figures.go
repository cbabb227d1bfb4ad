package calibration

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"capsim/sim"
	"capsim/sim/human"
)

// Figures are summary statistics of one measurement, durations in seconds.
// A NaN field was not given; use NewFigures to start from all-NaN.
type Figures struct {
	Mean, P50, P90, P95, P99 float64
	Min, Max                 float64
	SD                       float64
	CV                       float64 // dimensionless
	Value                    float64 // a single known value: a constant
	// Count is the number of values summarised, 0 when unknown.
	Count int
	// Family, when not empty, restricts the fit to one family: lognormal,
	// gamma, exponential, normal, constant or uniform.
	Family string
	// Ref says where the figures come from ("FIGURES 000-30", "k6 summary
	// http_req_duration{expected_response:true}").
	Ref string
}

// NewFigures returns Figures with no figure given.
func NewFigures() Figures {
	nan := math.NaN()
	return Figures{Mean: nan, P50: nan, P90: nan, P95: nan, P99: nan, Min: nan, Max: nan, SD: nan, CV: nan, Value: nan}
}

func has(v float64) bool { return !math.IsNaN(v) }

// figureFields lists the figures in the order they are printed, with how
// each prints.
func (f Figures) fields() []struct {
	name     string
	v        float64
	duration bool
} {
	return []struct {
		name     string
		v        float64
		duration bool
	}{
		{"value", f.Value, true}, {"mean", f.Mean, true}, {"p50", f.P50, true}, {"p90", f.P90, true},
		{"p95", f.P95, true}, {"p99", f.P99, true}, {"sd", f.SD, true}, {"cv", f.CV, false},
		{"min", f.Min, true}, {"max", f.Max, true},
	}
}

// String lists the given figures as "mean=0.56s p95=0.9s".
func (f Figures) String() string {
	var parts []string
	for _, x := range f.fields() {
		if has(x.v) {
			parts = append(parts, figure(x.name, x.v, x.duration))
		}
	}
	return strings.Join(parts, " ")
}

func figure(name string, v float64, duration bool) string {
	if duration {
		return name + "=" + human.Significant(v, 6) + "s"
	}
	return name + "=" + human.Significant(v, 6)
}

// SummaryCandidate is one distribution built from some of the figures.
type SummaryCandidate struct {
	Dist sim.Dist
	// Uses lists the figures the distribution was built from.
	Uses string
	// Err says why these figures admit no distribution of the family.
	Err error
}

// SummaryFit is the outcome of FitFigures.
type SummaryFit struct {
	Figures Figures
	// Candidates lists the distributions the figures allow, in order of
	// preference; infeasible ones come last with Err set.
	Candidates []SummaryCandidate
	Chosen     *SummaryCandidate
	RunnerUp   *SummaryCandidate
	Warnings   []Warning
}

// disagreement is the relative difference between a given figure and the
// chosen distribution's beyond which they are reported as disagreeing: the
// figures then describe a shape the family cannot take, and which of them
// the simulation honours matters.
const disagreement = 0.15

// FitFigures turns summary figures into a distribution through the closed
// forms of package sim, by the first rule that applies:
//
//	value                → constant
//	min, max (and no other figure) → uniform(min, max)
//	mean, p95            → lognormal(mean, p95), else gamma(mean, p95)
//	p50, p95             → lognormal(p50, p95)
//	mean, cv (or sd)     → lognormal(mean, cv), else gamma(mean, cv)
//	mean alone           → constant(mean), with a warning: one figure says
//	                       nothing of the spread
//
// A mean and a p95 come first because they are what dashboards report and
// because the mean fixes the load a stage puts on a resource. Figures.Family
// restricts the rules to one family (exponential needs a mean, normal a
// mean with sd or cv). Figures not used are compared with the chosen
// distribution, and a disagreement beyond 15% is a warning.
func FitFigures(f Figures) (*SummaryFit, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	cv := f.CV
	if !has(cv) && has(f.SD) && has(f.Mean) && f.Mean > 0 {
		cv = f.SD / f.Mean
	}
	type rule struct {
		family string
		uses   []string
		ok     bool
		build  func() (sim.Dist, error)
		// fallback rules apply only when no earlier rule applied: they
		// ignore the spread, so they must not stand in for spread figures
		// that admit no distribution.
		fallback bool
	}
	onlyRange := has(f.Min) && has(f.Max) && !has(f.Mean) && !has(f.P50) && !has(f.P95) && !has(cv) && !has(f.Value)
	sdOrCV := "cv"
	if !has(f.CV) {
		sdOrCV = "sd"
	}
	rules := []rule{
		{FamilyConstant, []string{"value"}, has(f.Value), func() (sim.Dist, error) { return safeConstant(f.Value) }, false},
		{FamilyUniform, []string{"min", "max"}, onlyRange || f.Family == FamilyUniform && has(f.Min) && has(f.Max),
			func() (sim.Dist, error) { return sim.Uniform(f.Min, f.Max) }, false},
		{FamilyLogNormal, []string{"mean", "p95"}, has(f.Mean) && has(f.P95), func() (sim.Dist, error) { return sim.LogNormalMeanP95(f.Mean, f.P95) }, false},
		{FamilyGamma, []string{"mean", "p95"}, has(f.Mean) && has(f.P95), func() (sim.Dist, error) { return sim.GammaMeanP95(f.Mean, f.P95) }, false},
		{FamilyLogNormal, []string{"p50", "p95"}, has(f.P50) && has(f.P95), func() (sim.Dist, error) { return sim.LogNormalP50P95(f.P50, f.P95) }, false},
		{FamilyLogNormal, []string{"mean", sdOrCV}, has(f.Mean) && has(cv), func() (sim.Dist, error) { return sim.LogNormalMeanCV(f.Mean, cv) }, false},
		{FamilyGamma, []string{"mean", sdOrCV}, has(f.Mean) && has(cv), func() (sim.Dist, error) { return sim.GammaMeanCV(f.Mean, cv) }, false},
		{FamilyNormal, []string{"mean", sdOrCV}, f.Family == FamilyNormal && has(f.Mean) && has(cv), func() (sim.Dist, error) { return sim.Normal(f.Mean, cv*f.Mean) }, false},
		{FamilyExponential, []string{"mean"}, f.Family == FamilyExponential && has(f.Mean), func() (sim.Dist, error) { return sim.Exponential(f.Mean) }, false},
		{FamilyConstant, []string{"mean"}, has(f.Mean), func() (sim.Dist, error) { return safeConstant(f.Mean) }, true},
		{FamilyConstant, []string{"p50"}, has(f.P50), func() (sim.Dist, error) { return safeConstant(f.P50) }, true},
	}
	fit := &SummaryFit{Figures: f}
	var failed []SummaryCandidate
	for _, r := range rules {
		if !r.ok || f.Family != "" && r.family != f.Family || r.fallback && len(fit.Candidates)+len(failed) > 0 {
			continue
		}
		uses := make([]string, len(r.uses))
		for i, u := range r.uses {
			uses[i] = figureByName(f, u, cv)
		}
		c := SummaryCandidate{Uses: strings.Join(uses, " ")}
		d, err := r.build()
		if err == nil && !(d.Mean() < math.MaxFloat64 && d.CV() < math.MaxFloat64) { // NaN too
			err = fmt.Errorf("%s: the figures give no finite mean and cv", r.family)
		}
		if err != nil {
			c.Err = err
			failed = append(failed, c)
			continue
		}
		c.Dist = roundDist(d)
		fit.Candidates = append(fit.Candidates, c)
	}
	nFeasible := len(fit.Candidates)
	fit.Candidates = append(fit.Candidates, failed...)
	if nFeasible == 0 {
		if len(failed) == 0 {
			if f.Family != "" {
				return nil, fmt.Errorf("figures %s do not determine a %s distribution", f.String(), f.Family)
			}
			return nil, fmt.Errorf("figures %s do not determine a distribution (give mean and p95, p50 and p95, mean and cv, min and max, or a value)", f.String())
		}
		msgs := make([]string, len(failed))
		for i, c := range failed {
			msgs[i] = c.Err.Error()
		}
		return nil, fmt.Errorf("no distribution matches %s: %s", f.String(), strings.Join(msgs, "; "))
	}
	fit.Chosen = &fit.Candidates[0]
	if nFeasible > 1 {
		fit.RunnerUp = &fit.Candidates[1]
	}
	chosen := fit.Chosen
	if strings.HasPrefix(chosen.Dist.String(), FamilyConstant+"(") && !has(f.Value) && f.Family != FamilyConstant {
		fit.Warnings = append(fit.Warnings, warnf(WarnFewFigures,
			"%s says nothing about the spread: a constant is used; add a p95 or a cv if the duration varies", chosen.Uses))
	}
	fit.Warnings = append(fit.Warnings, compareFigures(f, cv, chosen)...)
	return fit, nil
}

func safeConstant(v float64) (sim.Dist, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return sim.Dist{}, fmt.Errorf("constant: value must be finite and >= 0, got %g", v)
	}
	return sim.Constant(v), nil
}

func figureByName(f Figures, name string, cv float64) string {
	for _, x := range f.fields() {
		if x.name == name {
			return figure(x.name, x.v, x.duration)
		}
	}
	if name == "cv" {
		return figure("cv", cv, false)
	}
	return name
}

// check refuses figures that cannot describe a duration.
func (f Figures) check() error {
	for _, x := range f.fields() {
		if has(x.v) && (math.IsInf(x.v, 0) || x.v < 0) {
			return fmt.Errorf("%s must be finite and >= 0, got %g", x.name, x.v)
		}
	}
	if has(f.Min) && has(f.Max) && f.Min > f.Max {
		return fmt.Errorf("min %ss is above max %ss", human.Significant(f.Min, 6), human.Significant(f.Max, 6))
	}
	qs := []struct {
		name string
		v    float64
	}{{"min", f.Min}, {"p50", f.P50}, {"p90", f.P90}, {"p95", f.P95}, {"p99", f.P99}, {"max", f.Max}}
	last := -1
	for i, q := range qs {
		if !has(q.v) {
			continue
		}
		if last >= 0 && q.v < qs[last].v {
			return fmt.Errorf("%s %ss is below %s %ss: quantiles must increase", q.name, human.Significant(q.v, 6), qs[last].name, human.Significant(qs[last].v, 6))
		}
		last = i
	}
	switch f.Family {
	case "", FamilyLogNormal, FamilyGamma, FamilyExponential, FamilyNormal, FamilyConstant, FamilyUniform:
	default:
		return fmt.Errorf("unknown family %q (want lognormal, gamma, exponential, normal, constant or uniform)", f.Family)
	}
	return nil
}

// compareFigures reports the given figures the chosen distribution misses by
// more than the disagreement threshold.
func compareFigures(f Figures, cv float64, c *SummaryCandidate) []Warning {
	d := c.Dist
	checks := []struct {
		name     string
		given    float64
		fitted   float64
		duration bool
	}{
		{"mean", f.Mean, d.Mean(), true},
		{"p50", f.P50, d.Quantile(0.5), true},
		{"p90", f.P90, d.Quantile(0.9), true},
		{"p95", f.P95, d.Quantile(0.95), true},
		{"p99", f.P99, d.Quantile(0.99), true},
		{"cv", cv, d.CV(), false},
	}
	var ws []Warning
	for _, ch := range checks {
		if !has(ch.given) || strings.Contains(" "+c.Uses, " "+ch.name+"=") || ch.given == 0 {
			continue
		}
		if rel := (ch.fitted - ch.given) / ch.given; math.Abs(rel) > disagreement {
			ws = append(ws, warnf(WarnDisagree, "given %s, the chosen %s has %s (%+.0f%%)",
				figure(ch.name, ch.given, ch.duration), c.Dist.String(), figure(ch.name, ch.fitted, ch.duration), 100*rel))
		}
	}
	return ws
}

// distText splits sim's printed form, "lognormal(mu=-0.62, sigma=0.29)" or
// "uniform(36s, 40s)", into family and arguments.
var distText = regexp.MustCompile(`^([a-z]+)\((.*)\)$`)

// SplitDist splits d's printed form into its family and the arguments
// inside the parentheses, "lognormal" and "mu=-0.62, sigma=0.29"; ok is
// false for a form without them.
func SplitDist(d sim.Dist) (family, args string, ok bool) {
	m := distText.FindStringSubmatch(d.String())
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// roundDist returns d with its parameters rounded to six significant
// digits, so that it prints as briefly as the fitted ones. sim.Dist keeps its
// parameters private and prints them exactly, so they are read back from its
// text; a form that cannot be read back is returned unchanged.
func roundDist(d sim.Dist) sim.Dist {
	m := distText.FindStringSubmatch(d.String())
	if m == nil {
		return d
	}
	var args []float64
	for a := range strings.SplitSeq(m[2], ",") {
		a = strings.TrimSpace(a)
		if _, v, ok := strings.Cut(a, "="); ok {
			a = v
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(a, "s"), 64)
		if err != nil {
			return d
		}
		args = append(args, round6(v))
	}
	var (
		r   sim.Dist
		err error
	)
	switch {
	case m[1] == FamilyConstant && len(args) == 1:
		r, err = safeConstant(args[0])
	case m[1] == FamilyUniform && len(args) == 2:
		r, err = sim.Uniform(args[0], args[1])
	case m[1] == FamilyExponential && len(args) == 1:
		r, err = sim.Exponential(args[0])
	case m[1] == FamilyNormal && len(args) == 2:
		r, err = sim.Normal(args[0], args[1])
	case m[1] == FamilyLogNormal && len(args) == 2:
		r, err = sim.LogNormal(args[0], args[1])
	case m[1] == FamilyGamma && len(args) == 2:
		r, err = sim.Gamma(args[0], args[1])
	case m[1] == FamilyWeibull && len(args) == 2:
		r, err = sim.Weibull(args[0], args[1])
	default:
		return d
	}
	if err != nil {
		return d
	}
	return r
}
