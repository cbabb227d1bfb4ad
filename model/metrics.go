package model

import "sort"

// Metric is one number a run measured, known by its key (a measure of the
// vocabulary in measure.go, of the run, a journey, a route, a component or
// a balancer's replica) and named for tidy tables: one row per (run,
// metric) in a sweep's runs.csv.
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
//	overloaded_count                      1 when the run's overload diagnostic
//	                                      fired: a backlog at a component at
//	                                      capacity ended in the drain; sparse
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
//	journey.<j>.all_mean_s, .all_p50_s, .all_p95_s, .all_p99_s
//	                                      duration of every journey that ended,
//	                                      whatever its status, to when it ended
//	journey.<j>.failed_at.<stage>_count   journeys that ended unsuccessfully at
//	                                      failure_stage <stage> ("unfinished" for
//	                                      those still in flight); sparse
//	route.<r>.calls_count, .failures_count, .failure_rate
//	route.<r>.mean_s, .p50_s, .p95_s, .p99_s
//	                                      server-side latency of every call
//	route.<r>.all_mean_s, .all_p50_s, .all_p95_s, .all_p99_s
//	                                      every call and job as its caller saw
//	                                      it: to its status, or to when the
//	                                      caller stopped waiting (a timeout)
//	route.<r>.orphaned_count              calls and jobs that ended after their
//	                                      caller gave up; sparse
//	route.<r>.orphaned_work_s             seconds they worked on after it did;
//	                                      sparse
//	component.<c>.capacity_count          servers, permits, instances, cores
//	                                      or connections (NaN for a lock)
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
//	component.<c>.useful_busy_count       cpus only: mean cores' worth of work
//	                                      done, busy less switching
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
// scenario, in the order it lists them. A name may itself contain dots:
// a metric is known by its key (MetricKey), and its name is only written,
// never taken apart.
//
// A value is NaN when nothing was observed (a rate of zero calls, a
// percentile of no journeys). Percentiles come from the run's bounded-error
// histograms (see sim.Tally).
type Metric struct {
	Key   MetricKey
	Value float64
	// Sparse metrics are listed only when non-zero: a failure stage that
	// never failed in a run is absent from it, and counts as 0.
	Sparse bool
	// K and N, for a rate of counted events (Key.Measure.Rate), are the
	// events the run counted and out of how many: a sweep pools them over
	// replications. Both 0 for every other metric.
	K, N int64
}

// Name is the metric's name, as the CSVs write it.
func (m Metric) Name() string { return m.Key.Name() }

// Metrics flattens the result into metrics, in a stable order: the same
// scenario and design always list the same non-sparse metrics in the same
// order, and the sparse stage counts of a journey follow its other metrics
// sorted by stage.
func (r *Result) Metrics() []Metric {
	var out []Metric
	// add lists m's value unless the subject lacks it, or it is sparse
	// and zero; a counted rate carries its counts.
	add := func(key MetricKey, v float64, ok bool, read func(Measure) (float64, bool)) {
		m := key.Measure
		if !ok || m.Sparse() && v == 0 {
			return
		}
		met := Metric{Key: key, Value: v, Sparse: m.Sparse()}
		if read != nil {
			met.K, met.N, _ = m.counts(read)
		}
		out = append(out, met)
	}
	for _, m := range runMeasures {
		v, ok := m.d.run(r)
		add(m.OfRun(), v, ok, nil)
	}

	for i := range r.Journeys {
		j := &r.Journeys[i]
		read := func(m Measure) (float64, bool) { return m.journeyValue(j) }
		for _, m := range journeyMeasures {
			if m.PerStage() {
				continue
			}
			v, ok := read(m)
			add(m.Of(j.Name), v, ok, read)
		}
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
			add(FailedAt.OfStage(j.Name, s), float64(byStage[s]), true, nil)
		}
	}

	for i := range r.Routes {
		rt := &r.Routes[i]
		read := func(m Measure) (float64, bool) { return m.routeValue(rt) }
		for _, m := range routeMeasures {
			v, ok := read(m)
			add(m.Of(rt.Name), v, ok, read)
		}
	}

	for i := range r.Components {
		c := &r.Components[i]
		read := func(m Measure) (float64, bool) { return m.componentValue(c) }
		var own []Measure
		if kd := kindNamed(c.Kind); kd != nil {
			own = kd.measures
		}
		for _, list := range [][]Measure{componentMeasures, own} {
			for _, m := range list {
				if m.Subject() == SubjectComponent {
					v, ok := read(m)
					add(m.Of(c.Name), v, ok, read)
				}
			}
		}
		if c.Balancer != nil {
			for ri := range c.Balancer.Replicas {
				rr := &c.Balancer.Replicas[ri]
				for _, m := range own {
					if m.Subject() == SubjectReplica && m.d.replica != nil {
						add(m.OfReplica(c.Name, ri), m.d.replica(rr), true, nil)
					}
				}
			}
		}
		for _, m := range componentTail {
			v, ok := read(m)
			add(m.Of(c.Name), v, ok, read)
		}
	}
	return out
}
