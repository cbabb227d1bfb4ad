// Package check compares a simulated run with a recorded one: per route and
// per stage the distribution of times (Kolmogorov–Smirnov distance, mean
// and p95 with 95 % intervals), per journey the success rate and the
// failure stages, per route the HTTP failure rate, each line with a
// verdict and the rule that gave it.
//
// It reads the recorded side from logs with calibration's readers and
// takes the simulated side as plain numbers: it never knows the model, so
// the same comparison holds for any two recordings.
package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Timings are the times of one route or stage, in seconds, and for a
// route how many of its requests failed (status >= 400).
type Timings struct {
	Values []float64
	Total  int // requests seen (with a status); 0 when not counted
	Failed int
}

// Outcome counts how a journey's runs ended.
type Outcome struct {
	Ended, Succeeded int
	// Stages counts the failures by the stage they were attributed to.
	Stages map[string]int
}

// Run is one side of the comparison.
type Run struct {
	// Source names the access logs a recorded run's route times come
	// from: nginx or k6.
	Source string
	// Unmatched counts a recorded run's requests that no route's pattern
	// selects: requests of routes the model does not have.
	Unmatched int
	Routes    map[string]*Timings
	Stages    map[string]*Timings
	Journeys  map[string]*Outcome
}

// NewRun returns an empty Run.
func NewRun() *Run {
	return &Run{Routes: map[string]*Timings{}, Stages: map[string]*Timings{}, Journeys: map[string]*Outcome{}}
}

// Route returns the timings of route name, creating them.
func (r *Run) Route(name string) *Timings { return get(r.Routes, name) }

// Stage returns the timings of stage name, creating them.
func (r *Run) Stage(name string) *Timings { return get(r.Stages, name) }

// Journey returns the outcomes of journey name, creating them.
func (r *Run) Journey(name string) *Outcome {
	o := r.Journeys[name]
	if o == nil {
		o = &Outcome{Stages: map[string]int{}}
		r.Journeys[name] = o
	}
	return o
}

func get(m map[string]*Timings, name string) *Timings {
	t := m[name]
	if t == nil {
		t = &Timings{}
		m[name] = t
	}
	return t
}

// Rules are the thresholds of the verdicts.
type Rules struct {
	// Alpha is the significance level of the KS and proportion tests
	// (default 0.001: with dozens of lines, one in a thousand passes a
	// right model by chance).
	Alpha float64
	// Tolerance is the relative difference of mean or p95 that matters
	// (default 0.10): a test that tells two samples apart fails the line
	// only when they differ by more than this.
	Tolerance float64
	// RateTolerance is the absolute difference of a rate that matters
	// (default 0.01, one percentage point).
	RateTolerance float64
	// MinValues is the fewest values on each side for a timing verdict
	// (default 20); with fewer the line reads "few" and does not fail.
	MinValues int
	// Resolution is the granularity the KS test sees times at (default
	// 1 ms, what nginx logs): a model's exact 0 and a log's 2 µs of
	// scheduling are the same time, not two distributions.
	Resolution float64
}

func (r Rules) withDefaults() Rules {
	if r.Alpha == 0 {
		r.Alpha = 0.001
	}
	if r.Tolerance == 0 {
		r.Tolerance = 0.10
	}
	if r.RateTolerance == 0 {
		r.RateTolerance = 0.01
	}
	if r.MinValues == 0 {
		r.MinValues = 20
	}
	if r.Resolution == 0 {
		r.Resolution = 0.001
	}
	return r
}

// Unmatched names the line of the recorded requests no route selects.
const Unmatched = "*unmatched*"

// Verdicts.
const (
	Pass = "pass"
	Fail = "FAIL"
	Few  = "few"
)

// Estimate is a statistic with its 95 % interval.
type Estimate struct{ Value, Low, High float64 }

// TimingLine compares the times of one route or stage.
type TimingLine struct {
	Kind, Name, Source    string // route | stage; the route or event; nginx, k6 or applog
	NRecorded, NSimulated int
	Mean, P95             [2]Estimate // recorded, simulated
	KS, KSCritical        float64
	Verdict, Why          string
	// Recorded and Simulated are the values, sorted, for a QQ plot.
	Recorded, Simulated []float64
}

// RateLine compares one rate: a journey's success rate, its share failing
// at a stage, or a route's HTTP failure rate.
type RateLine struct {
	Kind, Name, Measure   string // journey | route; name; success_rate, failed_at:STAGE, http_failure_rate
	NRecorded, NSimulated int
	Rate                  [2]Estimate
	Z                     float64
	Verdict, Why          string
}

// Report is a whole comparison.
type Report struct {
	Rules   Rules
	Timings []TimingLine
	Rates   []RateLine
}

// Failed counts the lines whose verdict is FAIL.
func (r *Report) Failed() int {
	n := 0
	for _, l := range r.Timings {
		if l.Verdict == Fail {
			n++
		}
	}
	for _, l := range r.Rates {
		if l.Verdict == Fail {
			n++
		}
	}
	return n
}

// Compare sets the recorded run against the simulated one. source names
// where the recorded route times come from (nginx, k6). Lines come in a
// fixed order: routes, stages and journeys by name.
func Compare(rec, sim *Run, source string, rules Rules) *Report {
	rules = rules.withDefaults()
	rep := &Report{Rules: rules}
	for _, name := range union(rec.Routes, sim.Routes) {
		rep.Timings = append(rep.Timings, compareTimes("route", name, source, get(rec.Routes, name), get(sim.Routes, name), rules))
	}
	if rec.Unmatched > 0 {
		rep.Timings = append(rep.Timings, TimingLine{Kind: "route", Name: Unmatched, Source: source, NRecorded: rec.Unmatched,
			Mean: [2]Estimate{meanCI(nil), meanCI(nil)}, P95: [2]Estimate{meanCI(nil), meanCI(nil)}, Verdict: Fail,
			Why: fmt.Sprintf("%d recorded requests match no route's pattern (a route ROUTE's pattern is /ROUTE unless --route ROUTE=PATTERN gives another)", rec.Unmatched)})
	}
	for _, name := range union(rec.Stages, sim.Stages) {
		rep.Timings = append(rep.Timings, compareTimes("stage", name, "applog", get(rec.Stages, name), get(sim.Stages, name), rules))
	}
	for _, name := range union(rec.Journeys, sim.Journeys) {
		r, s := rec.Journey(name), sim.Journey(name)
		rep.Rates = append(rep.Rates, compareRate("journey", name, "success_rate", r.Succeeded, r.Ended, s.Succeeded, s.Ended, rules))
		for _, st := range union(r.Stages, s.Stages) {
			rep.Rates = append(rep.Rates, compareRate("journey", name, "failed_at:"+st, r.Stages[st], r.Ended, s.Stages[st], s.Ended, rules))
		}
	}
	for _, name := range union(rec.Routes, sim.Routes) {
		r, s := get(rec.Routes, name), get(sim.Routes, name)
		if r.Total == 0 && s.Total == 0 {
			continue
		}
		rep.Rates = append(rep.Rates, compareRate("route", name, "http_failure_rate", r.Failed, r.Total, s.Failed, s.Total, rules))
	}
	return rep
}

func union[V any](a, b map[string]V) []string {
	var names []string
	for k := range a {
		names = append(names, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

func compareTimes(kind, name, source string, rec, sim *Timings, rules Rules) TimingLine {
	r, s := slices.Clone(rec.Values), slices.Clone(sim.Values)
	slices.Sort(r)
	slices.Sort(s)
	l := TimingLine{Kind: kind, Name: name, Source: source, NRecorded: len(r), NSimulated: len(s), Recorded: r, Simulated: s}
	l.Mean = [2]Estimate{meanCI(r), meanCI(s)}
	l.P95 = [2]Estimate{quantileCI(r, 0.95), quantileCI(s, 0.95)}
	switch {
	case len(r) == 0 && len(s) == 0:
		l.Verdict, l.Why = Few, "no values on either side"
		return l
	case len(r) == 0:
		l.Verdict, l.Why = Fail, fmt.Sprintf("the recording has none; the model has %d", len(s))
		return l
	case len(s) == 0:
		l.Verdict, l.Why = Fail, fmt.Sprintf("the model has none; the recording has %d", len(r))
		return l
	}
	l.KS = ksDistance(onGrid(r, rules.Resolution), onGrid(s, rules.Resolution))
	l.KSCritical = ksCritical(len(r), len(s), rules.Alpha)
	if len(r) < rules.MinValues || len(s) < rules.MinValues {
		l.Verdict, l.Why = Few, fmt.Sprintf("fewer than %d values on a side", rules.MinValues)
		return l
	}
	dMean := rel(l.Mean[1].Value, l.Mean[0].Value)
	dP95 := rel(l.P95[1].Value, l.P95[0].Value)
	big := math.Abs(dMean) > rules.Tolerance || math.Abs(dP95) > rules.Tolerance
	apart := l.KS > l.KSCritical
	l.Why = fmt.Sprintf("mean %+.1f%%, p95 %+.1f%% simulated vs recorded (tolerance %.0f%%); KS %.3f vs %.3f at α %g",
		100*dMean, 100*dP95, 100*rules.Tolerance, l.KS, l.KSCritical, rules.Alpha)
	l.Verdict = Pass
	if big && apart {
		l.Verdict = Fail
	}
	return l
}

// rel is a/b − 1, 0 when both are 0.
func rel(a, b float64) float64 {
	if b == 0 {
		if a == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return a/b - 1
}

func compareRate(kind, name, measure string, kr, nr, ks, ns int, rules Rules) RateLine {
	l := RateLine{Kind: kind, Name: name, Measure: measure, NRecorded: nr, NSimulated: ns}
	l.Rate = [2]Estimate{rateCI(kr, nr), rateCI(ks, ns)}
	if nr == 0 || ns == 0 {
		l.Verdict = Fail
		l.Why = fmt.Sprintf("the recording has %d, the model %d", nr, ns)
		if nr == 0 && ns == 0 {
			l.Verdict, l.Why = Few, "none on either side"
		}
		return l
	}
	pr, ps := l.Rate[0].Value, l.Rate[1].Value
	pool := float64(kr+ks) / float64(nr+ns)
	se := math.Sqrt(pool * (1 - pool) * (1/float64(nr) + 1/float64(ns)))
	if se > 0 {
		l.Z = (ps - pr) / se
	}
	zCrit := normalQuantile(1 - rules.Alpha/2)
	l.Why = fmt.Sprintf("%+.2f points simulated vs recorded (tolerance %g); z %.2f vs %.2f at α %g",
		100*(ps-pr), 100*rules.RateTolerance, l.Z, zCrit, rules.Alpha)
	l.Verdict = Pass
	if math.Abs(ps-pr) > rules.RateTolerance && math.Abs(l.Z) > zCrit {
		l.Verdict = Fail
	}
	return l
}

// meanCI is the mean with a normal 95 % interval.
func meanCI(x []float64) Estimate {
	n := float64(len(x))
	if n == 0 {
		return Estimate{math.NaN(), math.NaN(), math.NaN()}
	}
	var sum float64
	for _, v := range x {
		sum += v
	}
	m := sum / n
	if n < 2 {
		return Estimate{m, math.NaN(), math.NaN()}
	}
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	h := 1.96 * math.Sqrt(ss/(n-1)/n)
	return Estimate{m, m - h, m + h}
}

// quantileCI is the q-quantile of sorted x (the order statistic at rank
// ceil(nq)) with the distribution-free 95 % interval from the binomial
// count of values below it, in its normal approximation.
func quantileCI(x []float64, q float64) Estimate {
	n := len(x)
	if n == 0 {
		return Estimate{math.NaN(), math.NaN(), math.NaN()}
	}
	at := func(rank int) float64 { return x[min(max(rank, 1), n)-1] }
	fn := float64(n)
	h := 1.96 * math.Sqrt(fn*q*(1-q))
	e := Estimate{Value: at(int(math.Ceil(fn * q)))}
	e.Low, e.High = math.NaN(), math.NaN()
	if lo, hi := int(math.Floor(fn*q-h)), int(math.Ceil(fn*q+h))+1; lo >= 1 && hi <= n {
		e.Low, e.High = at(lo), at(hi)
	}
	return e
}

// rateCI is k/n with a Wilson 95 % interval.
func rateCI(k, n int) Estimate {
	if n == 0 {
		return Estimate{math.NaN(), math.NaN(), math.NaN()}
	}
	const z = 1.96
	p, fn := float64(k)/float64(n), float64(n)
	d := 1 + z*z/fn
	c := (p + z*z/(2*fn)) / d
	h := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / d
	return Estimate{p, math.Max(0, c-h), math.Min(1, c+h)}
}

// onGrid rounds sorted x to multiples of res, which keeps it sorted.
func onGrid(x []float64, res float64) []float64 {
	g := make([]float64, len(x))
	for i, v := range x {
		g[i] = math.Round(v/res) * res
	}
	return g
}

// ksDistance is the largest gap between the empirical CDFs of sorted a and b.
func ksDistance(a, b []float64) float64 {
	i, j, d := 0, 0, 0.0
	na, nb := float64(len(a)), float64(len(b))
	for i < len(a) && j < len(b) {
		v := min(a[i], b[j])
		for i < len(a) && a[i] <= v {
			i++
		}
		for j < len(b) && b[j] <= v {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/na-float64(j)/nb))
	}
	return d
}

// ksCritical is the two-sample KS distance rejected at level alpha, from
// the asymptotic Kolmogorov distribution: c(α)·√((n+m)/(n·m)) with
// c(α) = √(−ln(α/2)/2).
func ksCritical(n, m int, alpha float64) float64 {
	c := math.Sqrt(-math.Log(alpha/2) / 2)
	return c * math.Sqrt(float64(n+m)/(float64(n)*float64(m)))
}

// normalQuantile is the standard normal inverse CDF.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
