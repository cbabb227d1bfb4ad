package model

import (
	"math"
	"sort"
	"strings"
)

// Metric is one number a run measured, named for tidy tables: one row per
// (run, metric) in a sweep's runs.csv.
//
// Names are snake_case, dot-separated from the general to the particular,
// and end in their unit, so a column of values never needs a legend:
//
//	_s      seconds
//	_rate   a fraction between 0 and 1 (not per second)
//	_count  a number of things, or a time-average number of things
//	_per_s  events per second
//	_ratio  a quotient of two like quantities (1 = equal)
//
// In the order Metrics returns them:
//
//	broken_count                          1 when a guard stopped the run, else 0
//	slos_broken_count                     SLOs the run did not meet
//	recovered_rate                        with recovery: only, 1 when the run
//	                                      was back within the margin after the
//	                                      spike, else 0
//	recovery_s                            with recovery: only, seconds from the
//	                                      spike's end to the first window back;
//	                                      NaN when it did not recover
//	journey.<j>.started_count             journeys started after the warm-up
//	journey.<j>.succeeded_count
//	journey.<j>.failed_count
//	journey.<j>.unfinished_count          still in flight when the run ended
//	journey.<j>.journey_success_rate      succeeded / started: what users saw
//	journey.<j>.journey_failure_rate      1 - journey_success_rate
//	journey.<j>.http_requests_count       requests the journey's client made
//	journey.<j>.http_failures_count       of those, answered with a status >= 400
//	journey.<j>.http_failure_rate         what an HTTP dashboard saw
//	journey.<j>.mean_s, .p50_s, .p95_s, .p99_s
//	                                      duration of the succeeded journeys
//	journey.<j>.failed_at.<stage>_count   journeys that ended unsuccessfully at
//	                                      failure_stage <stage> ("unfinished" for
//	                                      those still in flight); sparse
//	route.<r>.calls_count, .failures_count, .failure_rate
//	route.<r>.mean_s, .p50_s, .p95_s, .p99_s
//	                                      server-side latency of every call
//	route.<r>.orphaned_count              calls and jobs that ended after their
//	                                      caller gave up; sparse
//	component.<c>.utilisation_rate        time-average busy / capacity
//	component.<c>.mean_busy_count         time-average servers, permits, held
//	                                      locks, worker instances or active
//	                                      connections in use
//	component.<c>.peak_busy_count         most in use at once
//	component.<c>.mean_queue_count        time-average waiters
//	component.<c>.peak_queue_count        most waiters at once
//	component.<c>.offered_count, .rejected_count, .timed_out_count
//	component.<c>.rejection_rate          (rejected + timed out) / offered
//	component.<c>.mean_wait_s, .p95_wait_s
//	component.<c>.cold_starts_count       workers only
//	component.<c>.scale_ups_count         autoscaled workers only: syncs that
//	                                      raised the instance count
//	component.<c>.scale_downs_count       autoscaled workers only
//	component.<c>.mean_running_count      autoscaled workers only: time-average
//	                                      instances running, idle ones included
//	component.<c>.peak_running_count      autoscaled workers only
//	component.<c>.rate_steps_count        buckets only: adaptive refill steps down
//	component.<c>.final_refill_per_s      buckets only: refill rate at the end
//	component.<c>.mean_open_count         connections only: time-average open
//	                                      connections, idle ones included
//	component.<c>.peak_open_count         connections only
//	component.<c>.connects_count          connections only: connections opened
//	component.<c>.reuses_count            connections only: uses of an idle one
//	component.<c>.picks_count             balancers only: requests routed
//	component.<c>.overloaded_rate         balancers only: share of picks sent
//	                                      to a replica with no free capacity
//	component.<c>.session_overloaded_rate balancers only: the same share among
//	                                      session picks
//	component.<c>.session_imbalance_ratio balancers only: the busiest replica's
//	                                      mean sessions over the average's
//	component.<c>.fallback_picks_count    balancers only
//	component.<c>.replica.<i>.picks_count, .mean_sessions_count, .peak_sessions_count
//	                                      balancers only, per replica from 0
//	component.<c>.leaked_count            holds never given back; sparse
//	component.<c>.balked_count            pools and semaphores with balk: went
//	                                      away at the queue they saw; sparse
//
// <j>, <r> and <c> are the journey, route and component names of the
// scenario, in the order it lists them. A name may itself contain dots: the
// kind is before the first dot and the measure after the last one (after
// ".failed_at." for stage counts); ParseMetricName takes a name apart so.
//
// A value is NaN when nothing was observed (a rate of zero calls, a
// percentile of no journeys). Percentiles come from the run's bounded-error
// histograms (see sim.Tally).
type Metric struct {
	Name  string
	Value float64
	// Sparse metrics are listed only when non-zero: a failure stage that
	// never failed in a run is absent from it, and counts as 0.
	Sparse bool
}

// MetricName is a metric's name taken apart: journey.checkout.p95_s is
// the measure p95_s of the entity checkout of kind journey.
type MetricName struct {
	Kind    string // journey, route or component; "" for the run's own, such as broken_count
	Entity  string // the journey's, route's or component's name
	Measure string // the last part, e.g. p95_s; failed_at.<stage>_count for a stage count
	Stage   string // for a stage count, the failure stage it counts; else ""
}

// ParseMetricName takes a name from Metrics apart by the rule above. A
// balancer replica's metrics keep their replica in the entity:
// component.lb.replica.0.picks_count is the measure picks_count of
// lb.replica.0.
func ParseMetricName(name string) MetricName {
	kind, rest, ok := strings.Cut(name, ".")
	if !ok {
		return MetricName{Measure: name}
	}
	if kind == "journey" {
		if j, stage, ok := strings.Cut(rest, ".failed_at."); ok {
			return MetricName{Kind: kind, Entity: j, Measure: "failed_at." + stage, Stage: strings.TrimSuffix(stage, "_count")}
		}
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return MetricName{Measure: name}
	}
	return MetricName{Kind: kind, Entity: rest[:i], Measure: rest[i+1:]}
}

// Metrics flattens the result into metrics, in a stable order: the same
// scenario and design always list the same non-sparse metrics in the same
// order, and the sparse stage counts of a journey follow its other metrics
// sorted by stage.
func (r *Result) Metrics() []Metric {
	var out []Metric
	add := func(name string, v float64) { out = append(out, Metric{Name: name, Value: v}) }
	addNum := func(name string, v Num) { add(name, float64(v)) }
	broken := 0.0
	if r.Broken != nil {
		broken = 1
	}
	add("broken_count", broken)
	unmet := 0
	for _, s := range r.SLOs {
		if !s.Met {
			unmet++
		}
	}
	add("slos_broken_count", float64(unmet))
	if v := r.Recovery; v != nil {
		recovered := 0.0
		if v.Recovered {
			recovered = 1
		}
		add("recovered_rate", recovered)
		addNum("recovery_s", v.Seconds)
	}

	for i := range r.Journeys {
		j := &r.Journeys[i]
		p := "journey." + j.Name + "."
		add(p+"started_count", float64(j.Started))
		add(p+"succeeded_count", float64(j.Succeeded))
		add(p+"failed_count", float64(j.Failed))
		add(p+"unfinished_count", float64(j.Unfinished))
		addNum(p+"journey_success_rate", j.SuccessRate)
		addNum(p+"journey_failure_rate", j.FailureRate())
		add(p+"http_requests_count", float64(j.Requests))
		add(p+"http_failures_count", float64(j.RequestFailures))
		addNum(p+"http_failure_rate", j.HTTPFailureRate)
		addLatency(add, p, j.Latency)
		// A stage can fail at several components; the stage count is
		// their sum.
		byStage := map[string]int64{}
		for _, s := range j.Stages {
			byStage[s.Stage] += s.Count
		}
		stages := make([]string, 0, len(byStage))
		for s, n := range byStage {
			if n > 0 {
				stages = append(stages, s)
			}
		}
		sort.Strings(stages)
		for _, s := range stages {
			out = append(out, Metric{Name: p + "failed_at." + s + "_count", Value: float64(byStage[s]), Sparse: true})
		}
	}

	for _, rt := range r.Routes {
		p := "route." + rt.Name + "."
		add(p+"calls_count", float64(rt.Calls))
		add(p+"failures_count", float64(rt.Failures))
		addNum(p+"failure_rate", rt.FailureRate)
		addLatency(add, p, rt.Latency)
		if rt.Orphaned > 0 {
			out = append(out, Metric{Name: p + "orphaned_count", Value: float64(rt.Orphaned), Sparse: true})
		}
	}

	for i := range r.Components {
		c := &r.Components[i]
		p := "component." + c.Name + "."
		addNum(p+"utilisation_rate", c.Utilisation)
		addNum(p+"mean_busy_count", c.MeanBusy)
		kd := kindNamed(c.Kind)
		peakBusy, peak := c.PeakBusy, c.PeakQueue
		if kd != nil && kd.passThrough {
			// It makes callers sleep or sends them on: nothing is busy
			// or queued there.
			peakBusy, peak = math.NaN(), math.NaN()
		}
		add(p+"peak_busy_count", peakBusy)
		addNum(p+"mean_queue_count", c.MeanQueue)
		add(p+"peak_queue_count", peak)
		add(p+"offered_count", float64(c.Offered))
		add(p+"rejected_count", float64(c.Rejected))
		add(p+"timed_out_count", float64(c.TimedOut))
		addNum(p+"rejection_rate", c.RejectionRate())
		addNum(p+"mean_wait_s", c.Wait.Mean)
		addNum(p+"p95_wait_s", c.Wait.P95)
		if kd != nil && kd.extraMetrics != nil {
			kd.extraMetrics(c, func(measure string, v float64) { add(p+measure, v) })
		}
		if c.Balked > 0 {
			out = append(out, Metric{Name: p + "balked_count", Value: float64(c.Balked), Sparse: true})
		}
		if c.Leaked > 0 {
			out = append(out, Metric{Name: p + "leaked_count", Value: float64(c.Leaked), Sparse: true})
		}
	}
	return out
}

func addLatency(add func(string, float64), prefix string, l Latency) {
	add(prefix+"mean_s", float64(l.Mean))
	add(prefix+"p50_s", float64(l.P50))
	add(prefix+"p95_s", float64(l.P95))
	add(prefix+"p99_s", float64(l.P99))
}
