package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file is the one vocabulary of what a run measures. Each measure
// says, once, what it is called in the CSVs, what it is measured of (the
// run, a journey, a route, a component or a balancer's replica), its
// unit, whether it is a rate of counted events and of which, the SLO key
// that bounds it, and how it is read from a result. Metrics lists a
// run's values by it, SLOs are evaluated through it (sloMeasures), and a
// sweep, its shards and its report find what they need by it, never by
// taking a name apart. Component kinds declare their own measures in
// their kind files (kindDef.measures).

// Subject is what a measure is measured of.
type Subject uint8

const (
	// SubjectRun is the run as a whole: broken_count.
	SubjectRun Subject = iota
	SubjectJourney
	SubjectRoute
	SubjectComponent
	// SubjectReplica is one replica behind a balancer. Its metrics are
	// listed, and written in the CSVs, among the balancer's, as those of
	// component <balancer>.replica.<i>.
	SubjectReplica
)

var subjectNames = [...]string{"run", "journey", "route", "component", "replica"}

func (s Subject) String() string {
	if int(s) < len(subjectNames) {
		return subjectNames[s]
	}
	return "subject(" + strconv.Itoa(int(s)) + ")"
}

// Kind is the subject as the CSVs' kind column writes it: a replica is a
// component there.
func (s Subject) Kind() string {
	if s == SubjectReplica {
		return "component"
	}
	return s.String()
}

// Unit is what a measure's value is in. A metric's name ends in its
// unit's suffix, so a column of values never needs a legend.
type Unit uint8

const (
	UnitNone      Unit = iota
	UnitSeconds        // _s
	UnitFraction       // _rate: a fraction between 0 and 1, not per second
	UnitCount          // _count: a number of things, or a time-average number
	UnitPerSecond      // _per_s: events per second
	UnitRatio          // _ratio: a quotient of like quantities, 1 = equal
	unitsEnd           // one past the last unit
	firstUnit     = UnitSeconds
)

var unitSuffixes = [...]string{"", "_s", "_rate", "_count", "_per_s", "_ratio"}

var unitWords = [...]string{"", "seconds", "fraction of 1 (not per second)", "number of things, or a time-average number",
	"events per second", "quotient of like quantities, 1 = equal"}

// Suffix is how the name of a measure in this unit ends.
func (u Unit) Suffix() string {
	if u < unitsEnd {
		return unitSuffixes[u]
	}
	return ""
}

// Words says what a value in this unit is, for a reader of the CSVs.
func (u Unit) Words() string {
	if u < unitsEnd {
		return unitWords[u]
	}
	return ""
}

// Clamp keeps an interval within the values a measure in this unit can
// take: a fraction lies in [0, 1], and durations, counts, rates per
// second and ratios of like quantities are never negative. A symmetric
// interval about a mean near a bound (a utilisation of 49 % ± 78 points)
// reaches past it, where no run can fall. A NaN end stays NaN.
func (u Unit) Clamp(lo, hi float64) (float64, float64) {
	floor, ceil := math.Inf(-1), math.Inf(1)
	switch u {
	case UnitFraction:
		floor, ceil = 0, 1
	case UnitSeconds, UnitCount, UnitPerSecond, UnitRatio:
		floor = 0
	}
	if lo < floor {
		lo = floor
	}
	if hi > ceil {
		hi = ceil
	}
	return lo, hi
}

// Units lists every unit a measure may have, in the order above.
func Units() []Unit {
	var out []Unit
	for u := firstUnit; u < unitsEnd; u++ {
		out = append(out, u)
	}
	return out
}

// Measure is one quantity of the vocabulary. Measures compare equal when
// they are the same measure; the zero Measure is none, and answers every
// question with a zero value.
type Measure struct{ d *measureDef }

// measureDef defines a measure. One reader is set, the one of its
// subject (none for FailedAt, which Metrics counts from the journey's
// stages); a reader that returns false leaves the measure out of that
// result's metrics (a worker without autoscaling has no scale_ups_count).
type measureDef struct {
	name    string // the CSVs' measure column; ends in unit's suffix
	subject Subject
	unit    Unit
	// slo is the SLO key that bounds it ("" when none can).
	slo string
	// sparse measures are listed only when non-zero.
	sparse bool
	// flag measures are 1 in a run where something happened (it broke,
	// it was overloaded) and 0 in others: over runs their mean is a share
	// of runs, which no interval takes past 1.
	flag bool
	// perStage: one value per failure stage, named
	// <name less its unit>.<stage><unit> (failed_at.<stage>_count).
	perStage bool
	// k and n, for a rate of counted events, are the measures of the
	// same subject it counts: the sum of k (with complement, n less that
	// sum) out of n. counted names what n counts, for messages.
	k          []Measure
	n          Measure
	complement bool
	counted    string

	run       func(*Result) (float64, bool)
	journey   func(*JourneyResult) float64
	route     func(*RouteResult) float64
	component func(*ComponentResult) (float64, bool)
	replica   func(*ReplicaResult) float64
	// ofAll, for a duration of succeeded journeys or of calls as the
	// server timed them, is the same duration of every journey or call as
	// its client saw it (JourneyResult.LatencyAll, RouteResult.LatencyAll):
	// what an SLO with of: all bounds.
	ofAll Measure
}

// vocabulary holds every measure, core and kinds' alike, in the order a
// result lists them: the run's, a journey's, a route's, a component's
// (every kind's own after the common ones, kind by kind); byName finds
// one by subject and name. Both are made from the lists that define the
// order, so they are ready before anything reads them.
var vocabulary, byName = collect()

func collect() ([]*measureDef, map[Subject]map[string]*measureDef) {
	var all []*measureDef
	index := map[Subject]map[string]*measureDef{}
	addAll := func(ms []Measure) {
		for _, m := range ms {
			if index[m.d.subject][m.d.name] != nil {
				continue // a kind may share a measure with another
			}
			if index[m.d.subject] == nil {
				index[m.d.subject] = map[string]*measureDef{}
			}
			index[m.d.subject][m.d.name] = m.d
			all = append(all, m.d)
		}
	}
	addAll(runMeasures)
	addAll(journeyMeasures)
	addAll(routeMeasures)
	addAll(componentMeasures)
	for _, k := range kinds {
		addAll(k.measures)
	}
	addAll(componentTail)
	return all, index
}

func define(d measureDef) Measure { return Measure{&d} }

// MeasureNamed is the measure of subject s that the CSVs call name, and
// false when there is none: how a shard's record, which names its
// measures, finds them again.
func MeasureNamed(s Subject, name string) (Measure, bool) {
	d, ok := byName[s][name]
	return Measure{d}, ok
}

// Measures lists every measure of the vocabulary, core and kinds' alike.
func Measures() []Measure {
	out := make([]Measure, len(vocabulary))
	for i, d := range vocabulary {
		out[i] = Measure{d}
	}
	return out
}

// Name is the measure as the CSVs' measure column writes it: p95_s,
// journey_success_rate, failed_at_count.
func (m Measure) Name() string {
	if m.d == nil {
		return ""
	}
	return m.d.name
}

func (m Measure) String() string { return m.Subject().String() + " " + m.Name() }

// Subject is what the measure is measured of.
func (m Measure) Subject() Subject {
	if m.d == nil {
		return SubjectRun
	}
	return m.d.subject
}

// Unit is what the measure's value is in; UnitNone for no measure.
func (m Measure) Unit() Unit {
	if m.d == nil {
		return UnitNone
	}
	return m.d.unit
}

// Clamp keeps an interval of m over runs within the values m can take:
// its unit's (see Unit.Clamp), and at most 1 for a flag, 1 or 0 in
// each run.
func (m Measure) Clamp(lo, hi float64) (float64, float64) {
	lo, hi = m.Unit().Clamp(lo, hi)
	if m.d != nil && m.d.flag && hi > 1 {
		hi = 1
	}
	return lo, hi
}

// SLOKey is the key of the SLO that bounds the measure (success_rate for
// journey_success_rate, p95 for p95_s), "" when no SLO can.
func (m Measure) SLOKey() string {
	if m.d == nil {
		return ""
	}
	return m.d.slo
}

// Sparse says the measure is listed only where it is not zero.
func (m Measure) Sparse() bool { return m.d != nil && m.d.sparse }

// PerStage says the measure has one value per failure stage.
func (m Measure) PerStage() bool { return m.d != nil && m.d.perStage }

// CountedRate is how a rate of counted events counts: the events, the sum
// of K's values (with Complement, N's value less that sum), out of N's
// value, all of the same subject in the same run.
type CountedRate struct {
	K          []Measure
	Complement bool
	N          Measure
	// Counted names what N counts: journeys, requests, calls or
	// requests offered.
	Counted string
}

// Rate says whether the measure is a rate of counted events, and how it
// counts them.
func (m Measure) Rate() (CountedRate, bool) {
	if m.d == nil || m.d.n.d == nil {
		return CountedRate{}, false
	}
	return CountedRate{K: append([]Measure(nil), m.d.k...), Complement: m.d.complement, N: m.d.n, Counted: m.d.counted}, true
}

// GobEncode writes the measure as its subject (one byte) and its name,
// so a shard file holds no address and reads back into the same measure.
func (m Measure) GobEncode() ([]byte, error) {
	if m.d == nil {
		return nil, nil
	}
	return append([]byte{byte(m.d.subject)}, m.d.name...), nil
}

// GobDecode finds the measure a record names, and refuses one this
// version of capsim does not define.
func (m *Measure) GobDecode(b []byte) error {
	if len(b) == 0 {
		*m = Measure{}
		return nil
	}
	s, name := Subject(b[0]), string(b[1:])
	found, ok := MeasureNamed(s, name)
	if !ok {
		return fmt.Errorf("unknown measure %q of a %s", name, s)
	}
	*m = found
	return nil
}

// MetricKey says which number a metric is: a measure, of which entity,
// and for a per-stage measure which stage, for a replica's which replica.
// Keys compare equal exactly when they name the same number, whatever the
// entities' names hold.
type MetricKey struct {
	Measure Measure
	// Entity is the journey's, route's or component's name (a replica's
	// balancer's); "" for the run's own.
	Entity string
	// Stage is the failure stage a per-stage measure counts; else "".
	Stage string
	// Replica is a replica's index from 0; else 0.
	Replica int
}

// Of is the key of m for the journey, route or component called entity.
func (m Measure) Of(entity string) MetricKey { return MetricKey{Measure: m, Entity: entity} }

// OfRun is the key of the run's own measure m.
func (m Measure) OfRun() MetricKey { return MetricKey{Measure: m} }

// OfStage is the key of per-stage measure m for journey j's stage.
func (m Measure) OfStage(j, stage string) MetricKey {
	return MetricKey{Measure: m, Entity: j, Stage: stage}
}

// OfReplica is the key of replica measure m for replica i of balancer b.
func (m Measure) OfReplica(b string, i int) MetricKey {
	return MetricKey{Measure: m, Entity: b, Replica: i}
}

// Subject is what the metric is measured of.
func (k MetricKey) Subject() Subject { return k.Measure.Subject() }

// EntityName is the entity as the CSVs' name column writes it: a
// replica's is <balancer>.replica.<i>.
func (k MetricKey) EntityName() string {
	if k.Subject() == SubjectReplica {
		return k.Entity + ".replica." + strconv.Itoa(k.Replica)
	}
	return k.Entity
}

// MeasureName is the measure part of the metric's name: the measure's
// name, or for a per-stage measure failed_at.<stage>_count.
func (k MetricKey) MeasureName() string {
	name := k.Measure.Name()
	if !k.Measure.PerStage() {
		return name
	}
	suffix := k.Measure.Unit().Suffix()
	return strings.TrimSuffix(name, suffix) + "." + k.Stage + suffix
}

// Name is the metric's name as the CSVs' metric column and messages
// write it: <kind>.<entity>.<measure>, dot-separated from the general to
// the particular (see Metric), or the measure alone for the run's own.
func (k MetricKey) Name() string {
	if k.Subject() == SubjectRun {
		return k.MeasureName()
	}
	return k.Subject().Kind() + "." + k.EntityName() + "." + k.MeasureName()
}

func (k MetricKey) String() string { return k.Name() }

// The core measures, in the order Metrics lists them.
var (
	BrokenCount = define(measureDef{name: "broken_count", subject: SubjectRun, unit: UnitCount, flag: true,
		run: func(r *Result) (float64, bool) { return b2f(r.Broken != nil), true }})
	SLOsBroken = define(measureDef{name: "slos_broken_count", subject: SubjectRun, unit: UnitCount,
		run: func(r *Result) (float64, bool) {
			unmet := 0
			for _, s := range r.SLOs {
				if !s.Met {
					unmet++
				}
			}
			return float64(unmet), true
		}})
	// Overloaded is 1 when the run's overload diagnostic fires: a backlog
	// built up at a component at capacity and ended in the drain, so its
	// journeys count as succeeded or failed, not unfinished. It is the
	// diagnostic's own test, so a sweep shows what run prints; sparse,
	// as most runs of most designs are not overloaded.
	Overloaded = define(measureDef{name: "overloaded_count", subject: SubjectRun, unit: UnitCount, sparse: true, flag: true,
		run: func(r *Result) (float64, bool) {
			_, ok := r.overload()
			return b2f(ok), true
		}})
	Recovered = define(measureDef{name: "recovered_rate", subject: SubjectRun, unit: UnitFraction,
		run: func(r *Result) (float64, bool) {
			if r.Recovery == nil {
				return 0, false
			}
			return b2f(r.Recovery.Recovered), true
		}})
	RecoverySeconds = define(measureDef{name: "recovery_s", subject: SubjectRun, unit: UnitSeconds,
		run: func(r *Result) (float64, bool) {
			if r.Recovery == nil {
				return 0, false
			}
			return float64(r.Recovery.Seconds), true
		}})

	JourneyStarted = define(measureDef{name: "started_count", subject: SubjectJourney, unit: UnitCount,
		journey: func(j *JourneyResult) float64 { return float64(j.Started) }})
	JourneySucceeded = define(measureDef{name: "succeeded_count", subject: SubjectJourney, unit: UnitCount,
		journey: func(j *JourneyResult) float64 { return float64(j.Succeeded) }})
	JourneyFailed = define(measureDef{name: "failed_count", subject: SubjectJourney, unit: UnitCount,
		journey: func(j *JourneyResult) float64 { return float64(j.Failed) }})
	JourneyUnfinished = define(measureDef{name: "unfinished_count", subject: SubjectJourney, unit: UnitCount,
		journey: func(j *JourneyResult) float64 { return float64(j.Unfinished) }})
	JourneySuccessRate = define(measureDef{name: "journey_success_rate", subject: SubjectJourney, unit: UnitFraction,
		slo: "success_rate", k: []Measure{JourneySucceeded}, n: JourneyStarted, counted: "journeys",
		journey: func(j *JourneyResult) float64 { return float64(j.SuccessRate) }})
	JourneyFailureRate = define(measureDef{name: "journey_failure_rate", subject: SubjectJourney, unit: UnitFraction,
		slo: "failure_rate", k: []Measure{JourneySucceeded}, complement: true, n: JourneyStarted, counted: "journeys",
		journey: func(j *JourneyResult) float64 { return float64(j.FailureRate()) }})
	HTTPRequests = define(measureDef{name: "http_requests_count", subject: SubjectJourney, unit: UnitCount,
		journey: func(j *JourneyResult) float64 { return float64(j.Requests) }})
	HTTPFailures = define(measureDef{name: "http_failures_count", subject: SubjectJourney, unit: UnitCount,
		journey: func(j *JourneyResult) float64 { return float64(j.RequestFailures) }})
	HTTPFailureRate = define(measureDef{name: "http_failure_rate", subject: SubjectJourney, unit: UnitFraction,
		slo: "http_failure_rate", k: []Measure{HTTPFailures}, n: HTTPRequests, counted: "requests",
		journey: func(j *JourneyResult) float64 { return float64(j.HTTPFailureRate) }})
	JourneyMean = define(latencyMeasure(SubjectJourney, "mean_s", "mean", latencyMean, JourneyAllMean))
	JourneyP50  = define(latencyMeasure(SubjectJourney, "p50_s", "p50", latencyP50, JourneyAllP50))
	JourneyP95  = define(latencyMeasure(SubjectJourney, "p95_s", "p95", latencyP95, JourneyAllP95))
	JourneyP99  = define(latencyMeasure(SubjectJourney, "p99_s", "p99", latencyP99, JourneyAllP99))
	// The all_ measures are of every journey that ended, whatever its
	// status, each timed to when it ended: to the client's timeout or
	// deadline when it gave up, however long the service worked on. A
	// load tester's p95 is this one.
	JourneyAllMean = define(allLatencyMeasure(SubjectJourney, "all_mean_s", latencyMean))
	JourneyAllP50  = define(allLatencyMeasure(SubjectJourney, "all_p50_s", latencyP50))
	JourneyAllP95  = define(allLatencyMeasure(SubjectJourney, "all_p95_s", latencyP95))
	JourneyAllP99  = define(allLatencyMeasure(SubjectJourney, "all_p99_s", latencyP99))
	// FailedAt counts the journeys that ended unsuccessfully at a
	// failure_stage ("unfinished" for those still in flight), summed over
	// the components the stage failed at. Metrics lists each stage that
	// counted any, sorted by stage, after the journey's other measures.
	FailedAt = define(measureDef{name: "failed_at_count", subject: SubjectJourney, unit: UnitCount, sparse: true, perStage: true})

	RouteCalls       = define(measureDef{name: "calls_count", subject: SubjectRoute, unit: UnitCount, route: func(r *RouteResult) float64 { return float64(r.Calls) }})
	RouteFailures    = define(measureDef{name: "failures_count", subject: SubjectRoute, unit: UnitCount, route: func(r *RouteResult) float64 { return float64(r.Failures) }})
	RouteFailureRate = define(measureDef{name: "failure_rate", subject: SubjectRoute, unit: UnitFraction,
		slo: "failure_rate", k: []Measure{RouteFailures}, n: RouteCalls, counted: "calls",
		route: func(r *RouteResult) float64 { return float64(r.FailureRate) }})
	RouteMean = define(latencyMeasure(SubjectRoute, "mean_s", "mean", latencyMean, RouteAllMean))
	RouteP50  = define(latencyMeasure(SubjectRoute, "p50_s", "p50", latencyP50, RouteAllP50))
	RouteP95  = define(latencyMeasure(SubjectRoute, "p95_s", "p95", latencyP95, RouteAllP95))
	RouteP99  = define(latencyMeasure(SubjectRoute, "p99_s", "p99", latencyP99, RouteAllP99))
	// A route's all_ measures time every call and job from the caller's
	// side: to its status, or to the moment its caller stopped waiting
	// (a timeout, a deadline, a fail_fast fan-out), where the route's own
	// measures run on to the end of its work.
	RouteAllMean = define(allLatencyMeasure(SubjectRoute, "all_mean_s", latencyMean))
	RouteAllP50  = define(allLatencyMeasure(SubjectRoute, "all_p50_s", latencyP50))
	RouteAllP95  = define(allLatencyMeasure(SubjectRoute, "all_p95_s", latencyP95))
	RouteAllP99  = define(allLatencyMeasure(SubjectRoute, "all_p99_s", latencyP99))
	// RouteOrphaned counts calls and jobs that ended after their caller
	// gave up.
	RouteOrphaned = define(measureDef{name: "orphaned_count", subject: SubjectRoute, unit: UnitCount, sparse: true,
		route: func(r *RouteResult) float64 { return float64(r.Orphaned) }})
	// RouteOrphanedWork sums how long those worked on after their caller
	// gave up: the service's time spent for no one.
	RouteOrphanedWork = define(measureDef{name: "orphaned_work_s", subject: SubjectRoute, unit: UnitSeconds, sparse: true,
		route: func(r *RouteResult) float64 { return r.OrphanedSeconds }})

	// Capacity is what utilisation divides by: servers, permits,
	// instances, cores (not whole: 1.28 cores), the time-average of a
	// scheduled pool's; NaN for a kind without a number (a lock).
	Capacity = define(measureDef{name: "capacity_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) {
			if c.Capacity > 0 {
				return c.Capacity, true
			}
			return math.NaN(), true
		}})
	Utilisation = define(measureDef{name: "utilisation_rate", subject: SubjectComponent, unit: UnitFraction, slo: "utilisation",
		component: func(c *ComponentResult) (float64, bool) { return float64(c.Utilisation), true }})
	MeanBusy = define(measureDef{name: "mean_busy_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.MeanBusy), true }})
	PeakBusy = define(measureDef{name: "peak_busy_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) { return c.passThroughNaN(c.PeakBusy), true }})
	MeanQueue = define(measureDef{name: "mean_queue_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.MeanQueue), true }})
	PeakQueue = define(measureDef{name: "peak_queue_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) { return c.passThroughNaN(c.PeakQueue), true }})
	Offered = define(measureDef{name: "offered_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.Offered), true }})
	Rejected = define(measureDef{name: "rejected_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.Rejected), true }})
	TimedOut = define(measureDef{name: "timed_out_count", subject: SubjectComponent, unit: UnitCount,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.TimedOut), true }})
	RejectionRate = define(measureDef{name: "rejection_rate", subject: SubjectComponent, unit: UnitFraction,
		slo: "rejection_rate", k: []Measure{Rejected, TimedOut}, n: Offered, counted: "requests offered",
		component: func(c *ComponentResult) (float64, bool) { return float64(c.RejectionRate()), true }})
	MeanWait = define(measureDef{name: "mean_wait_s", subject: SubjectComponent, unit: UnitSeconds,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.Wait.Mean), true }})
	P95Wait = define(measureDef{name: "p95_wait_s", subject: SubjectComponent, unit: UnitSeconds,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.Wait.P95), true }})
	// Balked counts those that went away at the queue they saw (pools and
	// semaphores with balk); Leaked the holds never given back. Both
	// follow the kind's own measures.
	Balked = define(measureDef{name: "balked_count", subject: SubjectComponent, unit: UnitCount, sparse: true,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.Balked), true }})
	Leaked = define(measureDef{name: "leaked_count", subject: SubjectComponent, unit: UnitCount, sparse: true,
		component: func(c *ComponentResult) (float64, bool) { return float64(c.Leaked), true }})
)

// The core measures of each subject in the order Metrics lists them; a
// component lists its kind's measures between componentMeasures and
// componentTail.
var (
	runMeasures     = []Measure{BrokenCount, SLOsBroken, Overloaded, Recovered, RecoverySeconds}
	journeyMeasures = []Measure{JourneyStarted, JourneySucceeded, JourneyFailed, JourneyUnfinished,
		JourneySuccessRate, JourneyFailureRate, HTTPRequests, HTTPFailures, HTTPFailureRate,
		JourneyMean, JourneyP50, JourneyP95, JourneyP99,
		JourneyAllMean, JourneyAllP50, JourneyAllP95, JourneyAllP99, FailedAt}
	routeMeasures = []Measure{RouteCalls, RouteFailures, RouteFailureRate, RouteMean, RouteP50, RouteP95, RouteP99,
		RouteAllMean, RouteAllP50, RouteAllP95, RouteAllP99, RouteOrphaned, RouteOrphanedWork}
	componentMeasures = []Measure{Capacity, Utilisation, MeanBusy, PeakBusy, MeanQueue, PeakQueue, Offered, Rejected, TimedOut,
		RejectionRate, MeanWait, P95Wait}
	componentTail = []Measure{Balked, Leaked}
)

func latencyMean(l *Latency) Num { return l.Mean }
func latencyP50(l *Latency) Num  { return l.P50 }
func latencyP95(l *Latency) Num  { return l.P95 }
func latencyP99(l *Latency) Num  { return l.P99 }

// latencyMeasure is a duration of a journey's or a route's, read from its
// latency summary; all is the same duration of every one as its client
// saw it.
func latencyMeasure(s Subject, name, slo string, of func(*Latency) Num, all Measure) measureDef {
	d := measureDef{name: name, subject: s, unit: UnitSeconds, slo: slo, ofAll: all}
	if s == SubjectJourney {
		d.journey = func(j *JourneyResult) float64 { return float64(of(&j.Latency)) }
	} else {
		d.route = func(r *RouteResult) float64 { return float64(of(&r.Latency)) }
	}
	return d
}

// allLatencyMeasure is a duration of a journey's or a route's, read from
// its summary of every journey or call as its client saw it. No SLO key
// names it: an SLO bounds it with of: all.
func allLatencyMeasure(s Subject, name string, of func(*Latency) Num) measureDef {
	d := measureDef{name: name, subject: s, unit: UnitSeconds}
	if s == SubjectJourney {
		d.journey = func(j *JourneyResult) float64 { return float64(of(&j.LatencyAll)) }
	} else {
		d.route = func(r *RouteResult) float64 { return float64(of(&r.LatencyAll)) }
	}
	return d
}

// componentMeasure is a kind's own measure: read(c) gives its value, and
// false where the component does not have it.
func componentMeasure(name string, u Unit, read func(c *ComponentResult) (float64, bool)) Measure {
	return define(measureDef{name: name, subject: SubjectComponent, unit: u, component: read})
}

// replicaMeasure is a measure of each replica behind a balancer.
func replicaMeasure(name string, u Unit, read func(*ReplicaResult) float64) Measure {
	return define(measureDef{name: name, subject: SubjectReplica, unit: u, replica: read})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// passThroughNaN is v, or NaN for a kind that makes callers sleep or
// sends them on: nothing is busy or queued there.
func (c *ComponentResult) passThroughNaN(v float64) float64 {
	if kd := kindNamed(c.Kind); kd != nil && kd.passThrough {
		return math.NaN()
	}
	return v
}

// journeyValue reads measure m of journey j.
func (m Measure) journeyValue(j *JourneyResult) (float64, bool) {
	if m.d == nil || m.d.journey == nil || j == nil {
		return 0, false
	}
	return m.d.journey(j), true
}

func (m Measure) routeValue(r *RouteResult) (float64, bool) {
	if m.d == nil || m.d.route == nil || r == nil {
		return 0, false
	}
	return m.d.route(r), true
}

func (m Measure) componentValue(c *ComponentResult) (float64, bool) {
	if m.d == nil || m.d.component == nil || c == nil {
		return 0, false
	}
	return m.d.component(c)
}

// counts are the events a counted rate counted in one result of its
// subject, and out of how many; read reads a measure of that result.
func (m Measure) counts(read func(Measure) (float64, bool)) (k, n int64, ok bool) {
	if m.d == nil || m.d.n.d == nil {
		return 0, 0, false
	}
	nv, ok := read(m.d.n)
	if !ok {
		return 0, 0, false
	}
	var sum float64
	for _, km := range m.d.k {
		v, ok := read(km)
		if !ok {
			return 0, 0, false
		}
		sum += v
	}
	k, n = int64(sum), int64(nv)
	if m.d.complement {
		k = n - k
	}
	return k, n, true
}
