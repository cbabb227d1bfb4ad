package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"capsim/sim"
	"capsim/sim/human"
)

// Result is everything one run measured. It is plain data: the CLI prints
// it, sweeps flatten it into metrics.
type Result struct {
	Scenario   string            `json:"scenario"`
	Design     string            `json:"design"`
	Multiplier float64           `json:"multiplier"`
	Seed       uint64            `json:"seed"`
	SimTime    float64           `json:"sim_time_s"`
	Events     uint64            `json:"events"`
	Broken     *Broken           `json:"broken,omitempty"`
	Journeys   []JourneyResult   `json:"journeys"`
	Routes     []RouteResult     `json:"routes"`
	Components []ComponentResult `json:"components"`
	SLOs       []SLOResult       `json:"slos"`
	Tolerated  int64             `json:"tolerated_failures"`
	Series     *TimeSeries       `json:"series,omitempty"`
	Recovery   *RecoveryResult   `json:"recovery,omitempty"`
	// Drain is nil when a guard stopped the run before its arrivals
	// ended. The JSON carries it inside "overload", where one was found.
	Drain *DrainResult `json:"-"`
}

// Broken says which guard stopped a run that ran away.
type Broken struct {
	Guard     string  `json:"guard"`
	Component string  `json:"component,omitempty"`
	At        float64 `json:"at_s"`
	Detail    string  `json:"detail"`
}

func (b *Broken) String() string {
	s := fmt.Sprintf("stopped by guard %s at %s", b.Guard, human.Seconds(b.At))
	if b.Component != "" {
		s += " at component " + b.Component
	}
	return s + ": " + b.Detail
}

// Num is a float that encodes NaN (no observations) as JSON null.
type Num float64

func (n Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(float64(n), 'g', -1, 64)), nil
}

// Latency summarises a tally in seconds.
type Latency struct {
	N    int64 `json:"n"`
	Mean Num   `json:"mean_s"`
	P50  Num   `json:"p50_s"`
	P95  Num   `json:"p95_s"`
	P99  Num   `json:"p99_s"`
	Max  Num   `json:"max_s"`
}

func latencyOf(t *sim.Tally) Latency {
	return Latency{N: t.N(), Mean: Num(t.Mean()), P50: Num(t.Quantile(0.5)), P95: Num(t.Quantile(0.95)),
		P99: Num(t.Quantile(0.99)), Max: Num(t.Max())}
}

// JourneyResult is what users saw.
type JourneyResult struct {
	Name            string  `json:"name"`
	Started         int64   `json:"started"`
	Succeeded       int64   `json:"succeeded"`
	Failed          int64   `json:"failed"`
	Unfinished      int64   `json:"unfinished"` // still in flight when the run ended
	SuccessRate     Num     `json:"success_rate"`
	Requests        int64   `json:"http_requests"`
	RequestFailures int64   `json:"http_failures"`
	HTTPFailureRate Num     `json:"http_failure_rate"`
	Latency         Latency `json:"latency"` // of succeeded journeys
	// LatencyAll is of every journey that ended, whatever its status, as
	// its user saw it: a journey that failed counts to the moment it
	// failed (a client's timeout, not the end of the work it abandoned).
	LatencyAll Latency       `json:"latency_all"`
	Stages     []StageResult `json:"failure_stages"`
}

// StageResult counts failures attributed to one stage (and component).
type StageResult struct {
	Stage     string `json:"failure_stage"`
	Component string `json:"component,omitempty"`
	Count     int64  `json:"count"`
}

// RouteResult is what a request type saw, as the server logs it.
type RouteResult struct {
	Name        string  `json:"name"`
	Calls       int64   `json:"calls"`
	Failures    int64   `json:"failures"`
	FailureRate Num     `json:"failure_rate"`
	Latency     Latency `json:"latency"` // of every call, as the server timed it
	// LatencyAll is of every call and job as its caller saw it: to its
	// status, or to the moment the caller stopped waiting for it.
	LatencyAll Latency       `json:"latency_all"`
	Statuses   []StatusCount `json:"statuses"`
	// Orphaned counts calls and jobs that ended after their caller had
	// given up (a timeout): work the service did for no one.
	Orphaned int64 `json:"orphaned,omitempty"`
	// OrphanedSeconds sums, over those, how long each worked on after
	// its caller gave up.
	OrphanedSeconds float64 `json:"orphaned_s,omitempty"`
}

// StatusCount counts calls that ended with one status.
type StatusCount struct {
	Status int32 `json:"status"`
	Count  int64 `json:"count"`
}

// ComponentResult is one component's load.
type ComponentResult struct {
	Name        string  `json:"name"`
	Kind        string  `json:"kind"`
	Capacity    float64 `json:"capacity"`    // servers, permits, instances; 0 when not a count
	Utilisation Num     `json:"utilisation"` // mean busy / capacity
	MeanBusy    Num     `json:"mean_busy"`
	MeanQueue   Num     `json:"mean_queue"`
	PeakQueue   float64 `json:"peak_queue"`
	Offered     int64   `json:"offered"`
	Delayed     int64   `json:"delayed"` // served only after waiting
	Rejected    int64   `json:"rejected"`
	Balked      int64   `json:"balked,omitempty"` // went away at the queue they saw (pools and semaphores with balk)
	TimedOut    int64   `json:"timed_out"`
	Wait        Latency `json:"wait"`
	ColdStarts  int64   `json:"cold_starts,omitempty"`
	RateSteps   int64   `json:"rate_steps,omitempty"`
	FinalRate   Num     `json:"final_rate,omitempty"`
	// MeanOpen and PeakOpen are a connections table's open connections,
	// idle ones included (its busy figures count the active ones);
	// Connects and Reuses count the uses that opened a connection and
	// those that took an idle one.
	MeanOpen Num     `json:"mean_open,omitempty"`
	PeakOpen float64 `json:"peak_open,omitempty"`
	Connects int64   `json:"connects,omitempty"`
	Reuses   int64   `json:"reuses,omitempty"`
	// PeakBusy is the most servers, permits, held keys or instances in use
	// at once.
	PeakBusy float64 `json:"peak_busy,omitempty"`
	// Leaked counts holds never released because their step failed with
	// leak_on_failure set.
	Leaked int64 `json:"leaked,omitempty"`
	// UsefulBusy is a cpu's mean cores' worth of work done: MeanBusy less
	// the time lost to switch_cost.
	UsefulBusy Num             `json:"useful_busy,omitempty"`
	Balancer   *BalancerResult `json:"balancer,omitempty"`
	// Autoscale is an autoscaled worker's scaling (see kind_worker.go).
	Autoscale *AutoscaleResult `json:"autoscale,omitempty"`
}

// SLOResult is one objective checked against the run.
type SLOResult struct {
	SLO   string `json:"slo"`
	Value Num    `json:"value"`
	Met   bool   `json:"met"`
	// Idle: what the SLO names saw no traffic in the run (no journey of
	// it started, no call of the route was made, nothing was offered to
	// the component), so Value measures nothing and the SLO holds as a
	// bound on no values does, Met unless the run stopped. A journey that
	// started and never ended is not idle: its SLO on times is broken.
	Idle bool `json:"idle,omitempty"`
	// Bound is the threshold Value was checked against, so that a sweep
	// can judge the mean of Value over replications by the same rule.
	Bound Threshold `json:"-"`
	// Key is the metric the SLO bounds: its measure (whose SLOKey is the
	// SLO's key, p95 or success_rate, and whose unit is Value's) of the
	// journey, route or component it names. SLO is this put in words,
	// with the bound and any window. With All, the SLO bounds the same
	// measure of every journey that ended, whatever its status (of: all),
	// which no metric lists.
	Key MetricKey `json:"-"`
	All bool      `json:"-"`
	// Count and Trials, for a rate of counted events (success_rate,
	// failure_rate, http_failure_rate, rejection_rate, not in windows):
	// the events counted and out of how many, so that a sweep can bound
	// the rate by its counts as well as by its spread between runs.
	// Both 0 for every other SLO. Counted names what Trials counts:
	// journeys, requests, calls or requests offered.
	Count, Trials int64  `json:"-"`
	Counted       string `json:"-"`
}

// Nothing says why an idle SLO measured nothing ("no customer journey
// started in the run"); "" for an SLO that is not idle.
func (s *SLOResult) Nothing() string {
	if !s.Idle {
		return ""
	}
	switch s.Key.Measure.Subject() {
	case SubjectJourney:
		return "no " + s.Key.Entity + " journey started in the run"
	case SubjectRoute:
		return "no call of route " + s.Key.Entity + " was made in the run"
	}
	return "nothing was offered to " + s.Key.Entity + " in the run"
}

// Seconds reports whether Value is a time in seconds; every other
// measure is a fraction.
func (s *SLOResult) Seconds() bool { return s.Key.Measure.Unit() == UnitSeconds }

// TimeSeries holds signals sampled at a fixed step.
type TimeSeries struct {
	Step    float64  `json:"step_s"`
	Signals []Signal `json:"signals"`
	// BusyTime holds, per component that counts what is in use, its
	// busy-seconds so far at each step: the mean in use over any window
	// is a difference of two. Not charted.
	BusyTime []Signal `json:"-"`
}

// Signal is one sampled signal. Its name is <component>.<measure>, or
// journeys_in_flight for the run's own; Component and Measure say the
// same as parts, so nothing takes the name apart. A component's signals
// are busy (servers, permits, held locks, worker instances or active
// connections in use), queue (waiters), rate (a bucket's refill rate),
// sessions (a balancer's open sessions), open (a connections table's
// open connections, idle ones included) and running (an autoscaled
// worker's running instances).
type Signal struct {
	Name      string    `json:"name"`
	Component string    `json:"-"` // "" for journeys_in_flight
	Measure   string    `json:"-"` // journeys_in_flight, busy, queue, ...
	Values    []float64 `json:"values"`
}

// Journey returns the result of the journey called name.
func (r *Result) Journey(name string) (*JourneyResult, bool) {
	for i := range r.Journeys {
		if r.Journeys[i].Name == name {
			return &r.Journeys[i], true
		}
	}
	return nil, false
}

// Route returns the result of the route called name.
func (r *Result) Route(name string) (*RouteResult, bool) {
	for i := range r.Routes {
		if r.Routes[i].Name == name {
			return &r.Routes[i], true
		}
	}
	return nil, false
}

// Component returns the result of the component called name (name[i] for
// a replica's copy of a component behind a balancer).
func (r *Result) Component(name string) (*ComponentResult, bool) {
	for i := range r.Components {
		if r.Components[i].Name == name {
			return &r.Components[i], true
		}
	}
	return nil, false
}

func ratio(a, b int64) Num {
	if b == 0 {
		return Num(math.NaN())
	}
	return Num(float64(a) / float64(b))
}

func (r *run) componentResult(i int, now sim.Time) ComponentResult {
	cp := &r.p.comps[i]
	c := &r.comps[i]
	cr := ComponentResult{Name: cp.name, Kind: cp.kind.reported(), Offered: c.offered, Rejected: c.rejected, TimedOut: c.timedOut, Leaked: c.leaked}
	c.rt.result(r, &cr, now)
	cr.Utilisation = Num(math.NaN())
	if cr.Capacity > 0 {
		cr.Utilisation = cr.MeanBusy / Num(cr.Capacity)
	}
	return cr
}

// JSON encodes the result indented, in field order, NaN as null.
func (r *Result) JSON() ([]byte, error) {
	// An overload is added only where it was found, so the JSON of every
	// other run stays as it was.
	type plain Result
	out := struct {
		*plain
		Overload *Overload `json:"overload,omitempty"`
	}{plain: (*plain)(r)}
	if o, ok := r.overload(); ok {
		out.Overload = &o
	}
	return json.MarshalIndent(out, "", "  ")
}

// The derived rates of a run, each computed here and nowhere else, so the
// summary, the SLOs and the metrics a sweep aggregates cannot disagree on
// what a rate means.

// FailureRate is the share of started journeys that did not succeed,
// 1 − SuccessRate: failed and unfinished journeys alike, what users saw. It
// is NaN when no journey started.
func (j *JourneyResult) FailureRate() Num {
	if j.Started == 0 {
		return Num(math.NaN())
	}
	return 1 - j.SuccessRate
}

// RejectionRate is the share of the requests offered to the component that
// it turned away, whether refused at once or timed out waiting:
// (Rejected + TimedOut) / Offered. It is NaN when nothing was offered.
func (c *ComponentResult) RejectionRate() Num {
	return ratio(c.Rejected+c.TimedOut, c.Offered)
}

// BalancerResult is what a balancer saw: per replica, the picks it made,
// the sessions held and the load reported.
type BalancerResult struct {
	Policy   string `json:"policy"`
	Picks    int64  `json:"picks"`
	Sessions int64  `json:"session_picks"`
	// Overloaded counts picks sent to a replica whose load component had no
	// free capacity at that moment; OverloadedRate is their share.
	Overloaded     int64 `json:"overloaded_picks"`
	OverloadedRate Num   `json:"overloaded_rate"`
	// SessionOverloaded counts the session picks among them (a session
	// assigned to a replica with no free capacity); SessionOverloadedRate
	// is their share of the session picks.
	SessionOverloaded     int64 `json:"session_overloaded_picks"`
	SessionOverloadedRate Num   `json:"session_overloaded_rate"`
	// SessionImbalance is the largest replica's time-average of sessions
	// held over the mean of all replicas' (1 = perfectly even).
	SessionImbalance Num `json:"session_imbalance"`
	// Fallback counts picks made by least_request because the last report
	// was older than the ttl.
	Fallback int64           `json:"fallback_picks"`
	Replicas []ReplicaResult `json:"replicas"`
}

// ReplicaResult is one replica behind a balancer.
type ReplicaResult struct {
	Picks        int64 `json:"picks"`
	MeanSessions Num   `json:"mean_sessions"`
	PeakSessions int64 `json:"peak_sessions"`
	// Counter is the replica's own session counter at the end, which a
	// buggy decrement makes drift from the sessions it really holds.
	Counter    float64 `json:"session_counter"`
	Overloaded int64   `json:"overloaded_picks"`
}

// AutoscaleResult is what an autoscaled worker's rule did.
type AutoscaleResult struct {
	ScaleUps    int64   `json:"scale_ups"`   // syncs that raised the count
	ScaleDowns  int64   `json:"scale_downs"` // syncs that lowered it
	MeanRunning Num     `json:"mean_running"`
	PeakRunning float64 `json:"peak_running"`
}

// RecoveryResult is the verdict on recovery after the spike.
type RecoveryResult struct {
	From      float64 `json:"from_s"`
	After     float64 `json:"after_s"`
	Window    float64 `json:"window_s"`
	Margin    float64 `json:"margin"`
	Recovered bool    `json:"recovered"`
	// At is the start of the first window back within the margin, and
	// Seconds its time after the spike ended; null when not recovered.
	At      Num `json:"at_s"`
	Seconds Num `json:"seconds_after_spike"`
	// Above is what was still above the margin in the last window, worst
	// first, when the run did not recover.
	Above []RecoveryLevel `json:"above,omitempty"`
}

// RecoveryLevel is one measure against its pre-spike level.
type RecoveryLevel struct {
	Component string  `json:"component,omitempty"`
	Journey   string  `json:"journey,omitempty"`
	Measure   string  `json:"measure"` // mean_queue, mean_open (connections) or p95
	Before    float64 `json:"before"`
	Value     Num     `json:"value"`
}
