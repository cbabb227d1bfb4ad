package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"capsim/sim"
	"go.yaml.in/yaml/v3"
)

// Observations are what was measured on the real system: the outcomes a
// scenario must reproduce, not the timings it was calibrated from. Each
// names the design and the load it was measured under, one measure of one
// journey, route or component, the value with its count or spread, and
// its source. A hindcast runs each under the model and judges it; a fit
// searches the fitted parameters' ranges for values under which every
// observation is plausible. This file holds the language and the table of
// what can be observed; judging lives with the runs (package hindcast).

// Observation is one measured outcome.
type Observation struct {
	ID   string `yaml:"id"`   // the source figure, e.g. 000-116; unique in the scenario
	What string `yaml:"what"` // the figure in words
	// Design is the design it was measured under (designs joined with +
	// as on the command line); empty: the base.
	Design string `yaml:"design"`
	// Multiplier is the load it was measured at; default 1.
	Multiplier *float64 `yaml:"multiplier" bound:"(0,multiplier]"`
	// Set overrides what the measurement's test changed (its length, its
	// window), path=value as --set takes them, after the design.
	Set       []string `yaml:"set"`
	Journey   string   `yaml:"journey"`
	Route     string   `yaml:"route"`
	Component string   `yaml:"component"`
	Measure   string   `yaml:"measure"`
	Stage     string   `yaml:"stage"` // measure failed_at: the failure_stage counted
	// Window is, for measure busiest, the length of the window whose mean
	// is read: a dashboard's busiest minute.
	Window *Duration `yaml:"window" bound:"(0,time]"`
	// Exactly one of Count, Value and Between says what was seen.
	Count   *ObservedCount `yaml:"count" bound:"[1,observed]"` // k of n events: "6/6"
	Value   *Quantity      `yaml:"value" bound:"[0,inf)"`      // one value: 29.43s, 0.54%, 193
	Between []Quantity     `yaml:"between" bound:"[0,inf)"`    // a reported range: [166s, 179s]
	// Tolerance is how far from Value the real figure may lie: a
	// percentage of it (20%) or an amount in its unit (5s); default 0.
	Tolerance *Quantity `yaml:"tolerance" bound:"[0,inf)"`
	// Discrepancy is the model discrepancy a fit allows on this
	// observation, in the same forms as Tolerance: what the model is
	// known not to represent, stated rather than tuned away.
	Discrepancy *Quantity `yaml:"discrepancy" bound:"[0,inf)"`
	// Fitted names the parameter chosen to reproduce this observation: it
	// is then no prediction, and a hindcast says so.
	Fitted string `yaml:"fitted"`
	// Exception says why the model knowingly does not reproduce it: the
	// observation is run and shown, and counted apart.
	Exception string `yaml:"exception"`

	Node *yaml.Node `yaml:"-"`
}

// ObservedCount is k events of n: "6/6", "4/8".
type ObservedCount struct{ K, N int64 }

// MaxObservedCount bounds an observed count: no measurement counts more.
const MaxObservedCount = 1_000_000_000

func (c *ObservedCount) parseScalar(s string) error {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, kerr := strconv.ParseInt(strings.TrimSpace(ks), 10, 64)
	n, nerr := strconv.ParseInt(strings.TrimSpace(ns), 10, 64)
	switch {
	case !ok || kerr != nil || nerr != nil:
		return fmt.Errorf("expected a count of events out of a total such as 4/8, got %q", s)
	case n < 1 || n > MaxObservedCount:
		return fmt.Errorf("the total of count %q must be between 1 and %d", s, MaxObservedCount)
	case k < 0 || k > n:
		return fmt.Errorf("the count of %q must be between 0 and its total %d", s, n)
	}
	*c = ObservedCount{K: k, N: n}
	return nil
}

// ObservedUnit names the unit of an observed value for a reader: a
// number of things, a time, or a share.
func ObservedUnit(u Unit) string {
	switch u {
	case UnitSeconds:
		return "time"
	case UnitFraction:
		return "share"
	}
	return "number"
}

// Quantity is an observed number with its unit: a duration (29.43s, 9m)
// is seconds, a percentage (0.54%) a fraction, a plain number (193, 0.5)
// either a number or a fraction, as the measure reads it.
type Quantity struct {
	V       float64
	Unit    Unit
	Percent bool // written as a percentage
	Text    string
}

func (q *Quantity) parseScalar(s string) error {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("expected a percentage such as 0.54%%, got %q", s)
		}
		*q = Quantity{V: v / 100, Unit: UnitFraction, Percent: true, Text: s}
		return nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("expected a finite number >= 0, got %q", s)
		}
		*q = Quantity{V: v, Unit: UnitCount, Text: s}
		return nil
	}
	t, err := parseDuration(s)
	if err != nil {
		return fmt.Errorf("expected a number, a percentage (0.54%%) or a duration (29.43s), got %q", s)
	}
	*q = Quantity{V: t.Seconds(), Unit: UnitSeconds, Text: s}
	return nil
}

// ObservedMeasure is one thing an observation can measure: its key, the
// subject it applies to, its unit, and how to read it from one run. A
// counted measure is a share of counted events, read as k of n so that a
// count can be compared with a count.
type ObservedMeasure struct {
	Key     string
	Subject string // journey, route or component
	Unit    Unit
	// Counted measures give k of n; the others a value (NaN: nothing
	// measured in that run).
	Counts func(res *Result, o *Observation) (k, n int64)
	Value  func(res *Result, o *Observation) float64
	// Series says the measure reads the run's time series, which a run
	// then samples (SeriesStep).
	Series bool
	// Measure is the vocabulary's measure the row reads; none for a
	// measure of an observation's own.
	Measure Measure
}

// Counted says whether the measure is a share of counted events.
func (m *ObservedMeasure) Counted() bool { return m.Counts != nil }

// observedMeasures is the one table of what an observation can measure.
// Most rows are the vocabulary's measures (measure.go) of a journey, a
// route or a component, read as a run's metrics are: each under its SLO
// key, or else its name less its unit's suffix (success_rate, p95, calls,
// mean_wait, cold_starts), so a measure a kind adds can be observed as
// soon as it is defined. The rows of ownObserved are an observation's
// alone, and come first.
var observedMeasures = slices.Concat(ownObserved, vocabularyObserved(ownObserved))

// ownObserved are the measures no run's metrics list: a share of one
// failure stage, the longest duration, and a window of the time series.
var ownObserved = []ObservedMeasure{
	// Journeys that ended unsuccessfully at one failure_stage, of those
	// started: "4 of 8 trips at derivative_create".
	{Key: "failed_at", Subject: "journey", Unit: UnitFraction, Counts: func(r *Result, o *Observation) (int64, int64) {
		j := journeyOf(r, o)
		var k int64
		for _, s := range j.Stages {
			if s.Stage == o.Stage {
				k += s.Count
			}
		}
		return k, j.Started
	}},
	{Key: "max", Subject: "journey", Unit: UnitSeconds, Value: func(r *Result, o *Observation) float64 { return float64(journeyOf(r, o).Latency.Max) }},
	{Key: "max", Subject: "route", Unit: UnitSeconds, Value: func(r *Result, o *Observation) float64 { return float64(routeOf(r, o).Latency.Max) }},
	// The mean in use over the busiest window of the run: servers,
	// permits or cores, as a dashboard's busiest minute shows them.
	{Key: "busiest", Subject: "component", Unit: UnitCount, Series: true, Value: busiestWindow},
}

// vocabularyObserved is a row for every measure of a journey, a route or
// a component that can be read from one result, but those whose key a
// row of own already has.
func vocabularyObserved(own []ObservedMeasure) []ObservedMeasure {
	var out []ObservedMeasure
	taken := map[[2]string]bool{}
	for _, m := range own {
		taken[[2]string{m.Subject, m.Key}] = true
	}
	for _, d := range vocabulary {
		m := Measure{d}
		if m.PerStage() || (d.journey == nil && d.route == nil && d.component == nil) {
			continue
		}
		row := ObservedMeasure{Key: ObservedKey(m), Subject: m.Subject().String(), Unit: m.Unit(), Measure: m}
		if taken[[2]string{row.Subject, row.Key}] {
			continue
		}
		taken[[2]string{row.Subject, row.Key}] = true
		if _, ok := m.Rate(); ok {
			row.Counts = func(r *Result, o *Observation) (int64, int64) {
				k, n, _ := m.counts(readerOf(r, o))
				return k, n
			}
		} else {
			row.Value = func(r *Result, o *Observation) float64 {
				if v, ok := readerOf(r, o)(m); ok {
					return v
				}
				return math.NaN()
			}
		}
		out = append(out, row)
	}
	return out
}

// ObservedKey is how an observation names measure m: its SLO key, or else
// its name less its unit's suffix.
func ObservedKey(m Measure) string {
	if k := m.SLOKey(); k != "" {
		return k
	}
	return strings.TrimSuffix(m.Name(), m.Unit().Suffix())
}

// readerOf reads a measure of the observation's subject in r.
func readerOf(r *Result, o *Observation) func(Measure) (float64, bool) {
	switch kind, _ := o.Subject(); kind {
	case "journey":
		j := journeyOf(r, o)
		return func(m Measure) (float64, bool) { return m.journeyValue(j) }
	case "route":
		rt := routeOf(r, o)
		return func(m Measure) (float64, bool) { return m.routeValue(rt) }
	}
	c := componentOf(r, o)
	return func(m Measure) (float64, bool) { return m.componentValue(c) }
}

// ObservedMeasures lists what an observation of subject can measure.
func ObservedMeasures(subject string) []string {
	var keys []string
	for _, m := range observedMeasures {
		if m.Subject == subject {
			keys = append(keys, m.Key)
		}
	}
	return keys
}

// Subject says what the observation is about (journey, route or
// component) and its name.
func (o *Observation) Subject() (kind, name string) {
	switch {
	case o.Journey != "":
		return "journey", o.Journey
	case o.Route != "":
		return "route", o.Route
	}
	return "component", o.Component
}

// Load is the observation's multiplier (1 unless stated).
func (o *Observation) Load() float64 {
	if o.Multiplier == nil {
		return 1
	}
	return *o.Multiplier
}

// MeasureOf returns the observation's measure from the table; the
// observation must have been checked.
func (o *Observation) MeasureOf() *ObservedMeasure {
	kind, _ := o.Subject()
	for i := range observedMeasures {
		if m := &observedMeasures[i]; m.Subject == kind && m.Key == o.Measure {
			return m
		}
	}
	return nil
}

// Observed is the observation's value and the band the real figure lies
// in, in the measure's unit: for a count its share, for a value the value
// less and plus its tolerance, for a reported range its ends.
func (o *Observation) Observed() (v, lo, hi float64) {
	switch {
	case o.Count != nil:
		v = float64(o.Count.K) / float64(o.Count.N)
		return v, v, v
	case o.Value != nil:
		v = o.Value.V
		tol := amount(o.Tolerance, v)
		return v, max(0, v-tol), v + tol
	}
	lo, hi = o.Between[0].V, o.Between[1].V
	return (lo + hi) / 2, lo, hi
}

// DiscrepancyAmount is the stated model discrepancy, in the measure's unit.
func (o *Observation) DiscrepancyAmount() float64 {
	v, _, _ := o.Observed()
	return amount(o.Discrepancy, v)
}

// amount reads a tolerance: a percentage of v, or an amount in v's unit.
func amount(q *Quantity, v float64) float64 {
	switch {
	case q == nil:
		return 0
	case q.Percent:
		return q.V * v
	}
	return q.V
}

// AllJourneys, as an observation's journey, counts every journey's
// events together: what a load tester's summary of all requests reports.
const AllJourneys = "*"

// SeriesStep is the sampling step a run needs for the observation's
// measure: a tenth of its window, at most a second; 0 when the measure
// reads no series.
func (o *Observation) SeriesStep() sim.Time {
	if m := o.MeasureOf(); m == nil || !m.Series || o.Window == nil {
		return 0
	}
	return min(sim.Second, o.Window.T/10)
}

// busiestWindow is the largest mean in use at the component over any
// o.Window of whole sampling steps, from its busy-seconds; NaN when the
// run has none or is shorter than the window.
func busiestWindow(r *Result, o *Observation) float64 {
	if r.Series == nil || o.Window == nil || r.Series.Step <= 0 {
		return math.NaN()
	}
	for _, sg := range r.Series.BusyTime {
		if sg.Component != o.Component {
			continue
		}
		w := o.Window.T.Seconds()
		n := int(math.Round(w / r.Series.Step))
		if n < 1 || n >= len(sg.Values) {
			return math.NaN()
		}
		best := math.Inf(-1)
		for i := n; i < len(sg.Values); i++ {
			best = max(best, (sg.Values[i]-sg.Values[i-n])/(float64(n)*r.Series.Step))
		}
		return best
	}
	return math.NaN()
}

func journeyOf(r *Result, o *Observation) *JourneyResult {
	if o.Journey == AllJourneys {
		all := &JourneyResult{Name: AllJourneys, Latency: Latency{Mean: Num(math.NaN()), P50: Num(math.NaN()), P95: Num(math.NaN()), P99: Num(math.NaN()), Max: Num(math.NaN())}}
		for _, j := range r.Journeys {
			all.Started += j.Started
			all.Succeeded += j.Succeeded
			all.Failed += j.Failed
			all.Unfinished += j.Unfinished
			all.Requests += j.Requests
			all.RequestFailures += j.RequestFailures
			all.Stages = append(all.Stages, j.Stages...)
		}
		return all
	}
	if j, ok := r.Journey(o.Journey); ok {
		return j
	}
	return &JourneyResult{}
}

func routeOf(r *Result, o *Observation) *RouteResult {
	for i := range r.Routes {
		if r.Routes[i].Name == o.Route {
			return &r.Routes[i]
		}
	}
	return &RouteResult{}
}

func componentOf(r *Result, o *Observation) *ComponentResult {
	for i := range r.Components {
		if r.Components[i].Name == o.Component {
			return &r.Components[i]
		}
	}
	return &ComponentResult{}
}

// Observations returns the scenario's observations after checking what can
// be checked without a design: ids, subjects, measures, values and their
// units. Every problem is reported with its position.
func (l *Loaded) Observations() ([]Observation, error) {
	var errs ErrorList
	fail := func(o *Observation, key, path, format string, args ...any) {
		errs = append(errs, l.pos.errAt(valueNode(o.Node, key), path, format, args...))
	}
	seen := map[string]bool{}
	obs := l.Scenario.Observations
	for i := range obs {
		o := &obs[i]
		p := fmt.Sprintf("observations[%d]", i)
		switch {
		case o.ID == "":
			fail(o, "id", p+".id", "an observation needs an id: the source figure it reports, such as 000-116")
		case seen[o.ID]:
			fail(o, "id", p+".id", "observation id %q is used twice", o.ID)
		}
		seen[o.ID] = true
		subjects := 0
		for _, x := range []string{o.Journey, o.Route, o.Component} {
			if x != "" {
				subjects++
			}
		}
		if subjects != 1 {
			fail(o, "", p, "an observation names exactly one of journey, route or component")
			continue
		}
		kind, _ := o.Subject()
		m := o.MeasureOf()
		if m == nil {
			fail(o, "measure", p+".measure", "measure %q does not apply to a %s (it takes %s)", o.Measure, kind, strings.Join(ObservedMeasures(kind), ", "))
			continue
		}
		if o.Journey == AllJourneys && !m.Counted() {
			fail(o, "journey", p+".journey", "journey %q (every journey) takes a share of counted events, not %s", AllJourneys, o.Measure)
		}
		if (m.Series) != (o.Window != nil) {
			if o.Window == nil {
				fail(o, "measure", p+".window", "measure %s needs the window it is the busiest of (window: 1m)", o.Measure)
			} else {
				fail(o, "window", p+".window", "window applies to measure busiest only")
			}
		} else if o.Window != nil && o.Window.T <= 0 {
			fail(o, "window", p+".window", "window must be > 0")
		}
		if (o.Measure == "failed_at") != (o.Stage != "") {
			if o.Stage == "" {
				fail(o, "measure", p+".stage", "measure failed_at needs the stage it counts (stage: derivative_create)")
			} else {
				fail(o, "stage", p+".stage", "stage applies to measure failed_at only")
			}
		}
		if o.Multiplier != nil {
			if err := l.CheckMultiplier(*o.Multiplier); err != nil {
				fail(o, "multiplier", p+".multiplier", "%v", err)
			}
		}
		given := 0
		for _, b := range []bool{o.Count != nil, o.Value != nil, o.Between != nil} {
			if b {
				given++
			}
		}
		if given != 1 {
			fail(o, "", p, "an observation gives exactly one of count (k/n), value or between [low, high]")
			continue
		}
		switch {
		case o.Count != nil && !m.Counted():
			fail(o, "count", p+".count", "%s is not a share of counted events: give its value", o.Measure)
		case o.Count == nil && m.Counted() && o.Tolerance == nil && o.Between == nil:
			// A share given as a value is compared by its tolerance; with
			// none, only an exact match agrees, which a count says better.
			fail(o, "value", p+".value", "%s is a share of counted events: give it as count: k/n, or with a tolerance", o.Measure)
		}
		if o.Tolerance != nil && o.Value == nil {
			fail(o, "tolerance", p+".tolerance", "tolerance applies to a value")
		}
		if o.Between != nil && len(o.Between) != 2 {
			fail(o, "between", p+".between", "between takes two values, [low, high]; got %d", len(o.Between))
			continue
		}
		unitsAgree := true
		for _, q := range []struct {
			key string
			q   *Quantity
		}{{"value", o.Value}, {"between", betweenAt(o, 0)}, {"between", betweenAt(o, 1)}} {
			if q.q != nil {
				if err := checkUnit(m, q.q); err != nil {
					fail(o, q.key, p+"."+q.key, "%v", err)
					unitsAgree = false
				}
			}
		}
		for _, q := range []struct {
			key string
			q   *Quantity
		}{{"tolerance", o.Tolerance}, {"discrepancy", o.Discrepancy}} {
			if q.q != nil && !q.q.Percent {
				if err := checkUnit(m, q.q); err != nil {
					fail(o, q.key, p+"."+q.key, "%v (or give a percentage of the value)", err)
				}
			}
		}
		// Ends in different units are not in order or out of it: 5% is not
		// below 1s, whatever their numbers.
		if unitsAgree && len(o.Between) == 2 && o.Between[0].V > o.Between[1].V {
			fail(o, "between", p+".between", "between [%s, %s]: the low end is above the high end", o.Between[0].Text, o.Between[1].Text)
		}
	}
	if len(errs) > 0 {
		return nil, errs.sorted()
	}
	return obs, nil
}

func betweenAt(o *Observation, i int) *Quantity {
	if i < len(o.Between) {
		return &o.Between[i]
	}
	return nil
}

// checkUnit says whether q can be a value of measure m.
func checkUnit(m *ObservedMeasure, q *Quantity) error {
	switch m.Unit {
	case UnitSeconds:
		if q.Unit != UnitSeconds {
			return fmt.Errorf("%s is a time: write %s with a unit, such as 29.43s", m.Key, q.Text)
		}
	case UnitFraction:
		if q.Unit == UnitSeconds {
			return fmt.Errorf("%s is a share, not a time: got %s", m.Key, q.Text)
		}
		if q.V > 1 {
			return fmt.Errorf("%s is a share between 0 and 1 (or 0%% and 100%%), got %s", m.Key, q.Text)
		}
	case UnitCount:
		if q.Unit == UnitSeconds || q.Percent {
			return fmt.Errorf("%s is a number of things, got %s", m.Key, q.Text)
		}
	}
	return nil
}

// CheckObserved reports whether observation i of the base scenario can be
// taken of variant, the scenario under its design and settings: its
// subject and stage must exist there.
func (l *Loaded) CheckObserved(i int, variant *Loaded) error {
	o := &l.Scenario.Observations[i]
	p := fmt.Sprintf("observations[%d]", i)
	kind, name := o.Subject()
	sc := variant.Scenario
	var names []string
	switch kind {
	case "journey":
		names = sc.Journeys.Names()
	case "route":
		names = sc.Routes.Names()
	default:
		names = sc.Components.Names()
	}
	if !slices.Contains(names, name) && !(kind == "journey" && name == AllJourneys) {
		in := "the base scenario"
		if o.Design != "" {
			in = "design " + strconv.Quote(o.Design)
		}
		return l.pos.errAt(valueNode(o.Node, kind), p+"."+kind, "%s has no %s %q (it has %s)", in, kind, name, strings.Join(sortedCopy(names), ", "))
	}
	if w, span := o.Window, sc.Duration.T-sc.Warmup.T; w != nil && w.T > span {
		// Not one whole window is measured: every run would read NaN,
		// and the observation would disagree with a model it never met.
		return l.pos.errAt(valueNode(o.Node, "window"), p+".window",
			"window (%s) is longer than the run measures (%s from the warm-up to the end of the arrivals)", w.T, span)
	}
	if c, ok := sc.Components.Get(name); ok && kind == "component" {
		if m := o.MeasureOf(); m != nil && !measuredBy(m, c.Kind) {
			return l.pos.errAt(valueNode(o.Node, "measure"), p+".measure", "measure %s is not a %s's: component %s is a %s", o.Measure, kindsMeasuring(m), name, c.Kind)
		}
	}
	return nil
}

// measuredBy says whether a component of kind measures m: every
// component measures the common measures, and a kind its own.
func measuredBy(m *ObservedMeasure, kind string) bool {
	if m.Measure == (Measure{}) || slices.Contains(componentMeasures, m.Measure) || slices.Contains(componentTail, m.Measure) {
		return true
	}
	kd := kindNamed(kind)
	return kd != nil && slices.ContainsFunc(kd.measures, func(x Measure) bool { return x.Name() == m.Measure.Name() })
}

// kindsMeasuring names the kinds that measure m, for a message.
func kindsMeasuring(m *ObservedMeasure) string {
	var names []string
	for _, kd := range kinds {
		if measuredBy(m, kd.name) {
			names = append(names, kd.name)
		}
	}
	return strings.Join(names, " or ")
}

// ObservationError places a problem found with observation i (its design,
// its settings) at the observation's key.
func (l *Loaded) ObservationError(i int, key string, err error) error {
	o := &l.Scenario.Observations[i]
	return l.pos.errAt(valueNode(o.Node, key), fmt.Sprintf("observations[%d].%s", i, key), "%v", err)
}
