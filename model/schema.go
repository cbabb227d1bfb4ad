package model

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The scenario schema: plain data decoded from YAML. Runtime components are
// built from it by the compiler; nothing here holds simulation state.

// Scenario is one system under one set of assumptions.
type Scenario struct {
	Name          string           `yaml:"name"`
	Description   string           `yaml:"description"`
	Include       []string         `yaml:"include"`
	Duration      Duration         `yaml:"duration" bound:"(0,time]"`                                                                                  // arrivals happen in [0, duration)
	Drain         Duration         `yaml:"drain" bound:"[0,time]" zero:"no extra time: journeys still running when arrivals stop count as unfinished"` // extra time for journeys in flight; unset = until all finish
	Warmup        Duration         `yaml:"warmup" bound:"[0,time]"`                                                                                    // statistics start here
	Arrivals      string           `yaml:"arrivals"`                                                                                                   // even | poisson (default)
	Distributions Named[DistEntry] `yaml:"distributions" bound:"[0,time]"`
	Components    Named[Component] `yaml:"components"`
	Journeys      Named[Journey]   `yaml:"journeys"`
	Routes        Named[Route]     `yaml:"routes"`
	SLOs          []SLO            `yaml:"slos"`
	Recovery      *RecoverySpec    `yaml:"recovery"` // the verdict on recovery after a spike
	Limits        Limits           `yaml:"limits"`
	Sweep         SweepDefaults    `yaml:"sweep"`
	Designs       Named[Raw]       `yaml:"designs"`
	Figures       Raw              `yaml:"figures"` // provenance notes, not interpreted
	// Observations are outcomes measured on the real system, which a
	// hindcast holds the model to (observe.go).
	Observations []Observation `yaml:"observations"`
}

// Journey is what one user does, start to end: the unit of success.
type Journey struct {
	Description string `yaml:"description"`
	Rate        *Rate  `yaml:"rate" bound:"[0,rate]" zero:"no arrivals"` // open workload: journeys started per unit time at multiplier 1
	// Stages make the open workload's rate change over time: each ramps
	// linearly from the rate before it (rate, default 0) to its target.
	Stages []Stage `yaml:"stages" nonempty:"remove stages:, or give at least one, such as {target: 10/s, duration: 1m}"`
	// RepeatEvery repeats the stages with this period, from start: a
	// daily shape.
	RepeatEvery *Duration `yaml:"repeat_every" bound:"(0,time]"`
	// Wave makes the open workload's rate follow a sine around rate (see
	// wave.go).
	Wave     *Wave     `yaml:"wave"`
	Clients  *int      `yaml:"clients" bound:"[0,clients]" zero:"none at the start, to ramp from with stages"` // closed workload: concurrent users, each looping; with stages, the count they ramp from
	Think    *DistRef  `yaml:"think" bound:"[0,time]"`                                                         // closed workload: pause between a client's journeys
	Arrivals string    `yaml:"arrivals"`                                                                       // even | poisson; default from the scenario
	Start    *Duration `yaml:"start" bound:"[0,time]"`                                                         // first arrival
	Stop     *Duration `yaml:"stop" bound:"(0,time]"`                                                          // no arrival at or after it; default the duration
	Count    *int      `yaml:"count" bound:"[1,count]"`                                                        // stop after this many journeys
	Users    *int      `yaml:"users" bound:"[1,count]"`                                                        // distinct user keys, reused in turn; unset = one per journey
	// Scaled false: the load multiplier leaves its rate, stages and
	// clients as written (a health check, a background sampler).
	Scaled     *bool            `yaml:"scaled"`
	Priority   *int             `yaml:"priority" bound:"[0,9]"` // the class its waits at pools and semaphores take, unless a step says
	Attributes Named[Attribute] `yaml:"attributes" bound:"(-inf,inf)"`
	Steps      []Step           `yaml:"steps"`

	Node *yaml.Node `yaml:"-"`
}

// Route is what a request does inside a service.
type Route struct {
	Description string `yaml:"description"`
	// Cancellable: the route's work stops when its caller gives up (its
	// timeout fires, or a fail-fast fan-out cancels it), as a handler that
	// watches its request's context does. By default a caller giving up
	// does not cancel anything: the callee works on, orphaned.
	Cancellable bool `yaml:"cancellable"`
	// IgnoresDeadline: a caller's deadline is not passed to the route, as
	// a remote service that is not told of it (no deadline header) works
	// on after its caller's budget is spent. The caller still stops
	// waiting at its deadline; the route goes on, orphaned unless
	// cancellable.
	IgnoresDeadline bool `yaml:"ignores_deadline"`
	// OnDeadline is what the route does with a deadline that reaches it:
	// cut (the default: every wait and work inside stops at it), check
	// (the step under way runs to its end and the route stops before its
	// next step, as a handler that reads its context's deadline between
	// steps does; its caller fails at the deadline) or ignore (the same
	// as ignores_deadline).
	OnDeadline string `yaml:"on_deadline"`
	Steps      []Step `yaml:"steps"`
	// OnFailure are steps run when the route's steps fail, before the
	// failure reaches its caller, as a handler writes its error response:
	// the route still fails with the status of the first failure.
	OnFailure []Step `yaml:"on_failure"`

	Node *yaml.Node `yaml:"-"`
}

// Step is one instruction. Exactly one verb is set; the other fields
// modify it.
type Step struct {
	// verbs
	Delay  *DistRef `yaml:"delay" bound:"[0,time]"`                                // wait, holding what is held
	Work   *DistRef `yaml:"work" bound:"[0,time]"`                                 // service time (alone, or inside use)
	Use    string   `yaml:"use"`                                                   // acquire a component for work/steps, then release
	Hold   string   `yaml:"hold"`                                                  // acquire until the enclosing route or block ends
	Call   string   `yaml:"call"`                                                  // run a route as a request and wait for its status
	Job    string   `yaml:"job"`                                                   // run a route as a job (own job id), awaited unless async
	Await  string   `yaml:"await"`                                                 // await: jobs — wait until the journey's jobs are done; fails as the first unreported failed async job did
	Repeat *Count   `yaml:"repeat" bound:"[0,count]" zero:"the steps are skipped"` // run steps N times
	Fanout *Count   `yaml:"fanout" bound:"[1,count]"`                              // run steps N times concurrently and join
	Choose []Branch `yaml:"choose"`                                                // run one branch, picked by weight
	Poll   *Poll    `yaml:"poll"`                                                  // call a route every T until a condition
	Fail   *Fail    `yaml:"fail"`                                                  // fail with a probability (downstream errors)
	Log    string   `yaml:"log"`                                                   // emit a trace event (after the step when combined)
	Stage  string   `yaml:"stage"`                                                 // label for failure attribution
	// Since names the log: event, earlier in the same journey, that this
	// step's log: event is timed from (default: the one before it in the
	// same request or job).
	Since string `yaml:"since"`

	// modifiers
	Steps []Step `yaml:"steps"`
	Limit *Count `yaml:"limit" bound:"[1,count]"` // fanout: at most this many at once
	// fanout: the first failed branch fails the step at once and cancels
	// the others and those not started, as a shared context does;
	// default: every branch runs to its end and the step then fails.
	FailFast bool      `yaml:"fail_fast"`
	Timeout  *DistRef  `yaml:"timeout" bound:"(0,time]"`  // call/job: give up waiting after this (a distribution: each caller's patience)
	Deadline *Duration `yaml:"deadline" bound:"(0,time]"` // call: absolute budget passed down to every stage
	Retry    *Retry    `yaml:"retry"`                     // call: retry on failure statuses
	Async    bool      `yaml:"async"`                     // job: continue at once
	Key      string    `yaml:"key"`                       // use/hold of a lock: attribute naming the key
	Signal   string    `yaml:"signal"`                    // call: report failures to this adaptive bucket
	Status   *int      `yaml:"status" bound:"[400,599]"`  // work/delay: status when the step fails by deadline
	Per      string    `yaml:"per"`                       // work/delay: the time is per unit of this attribute (work: 300ms, per: photos)
	Priority *int      `yaml:"priority" bound:"[0,9]"`    // use/hold of a pool or semaphore: the class it waits in; higher first
	Optional bool      `yaml:"optional"`                  // a failure of this step is tolerated: the next step runs
	// use/hold of a balancer: the pick is a session, counted in the
	// replica's session counter (which least_sessions and hybrid read)
	// from the pick until its release.
	Session bool `yaml:"session"`
	// use/hold: when the step's frame ends by a failure, what it holds is
	// never released (a response body not consumed on an error path keeps
	// its connection). Leaked slots are counted per component.
	Leak bool `yaml:"leak_on_failure"`

	Node *yaml.Node `yaml:"-"` // position, for errors found after decoding
}

// Branch is one alternative of a choose step.
type Branch struct {
	Weight Weight `yaml:"weight" bound:"[0,inf)" zero:"the branch is never taken"`
	Steps  []Step `yaml:"steps"`
}

// Poll calls a route repeatedly.
type Poll struct {
	Call  string   `yaml:"call"`
	Every Duration `yaml:"every" bound:"(0,time]"`
	Until string   `yaml:"until"`                 // response (default when attached to a call) | jobs (fails as the first unreported failed async job did)
	Max   *int     `yaml:"max" bound:"[1,count]"` // give up (fail) after this many polls
}

// Fail makes a step fail at random, as a flaky downstream does.
type Fail struct {
	P      float64 `yaml:"p" bound:"[0,1]" zero:"never fails"`
	Status int     `yaml:"status" bound:"[400,599]"`
}

// Retry repeats a failed call.
type Retry struct {
	Attempts   int      `yaml:"attempts" bound:"[1,attempts]"` // total tries, first included
	Backoff    Duration `yaml:"backoff" bound:"[0,time]" zero:"the next try starts at once"`
	Multiplier float64  `yaml:"multiplier" bound:"[1,inf)"` // backoff growth per try (default 2)
	On         []int    `yaml:"on" bound:"[400,599]"`       // statuses worth retrying (default 429, 503, 504)
	// MaxBackoff caps the backoff before jitter; unset = no cap.
	MaxBackoff *Duration `yaml:"max_backoff" bound:"[0,time]"`
	// Jitter spreads backoffs so that callers refused together do not
	// come back together: none (default), full (uniform in [0, b]), equal
	// (b/2 plus uniform in [0, b/2]) or decorrelated (uniform in
	// [backoff, 3 × the previous sleep], capped), b being the exponential
	// backoff of the try.
	Jitter string `yaml:"jitter"`
	// Throttle is a retry budget per call site, as gRPC's retry
	// throttling: a bucket of max_tokens tokens, one taken by every failed
	// try and token_ratio given back by every success; retries stop while
	// it holds half or less.
	Throttle *Throttle `yaml:"throttle"`
}

// Throttle is a retry budget.
type Throttle struct {
	MaxTokens  float64 `yaml:"max_tokens" bound:"(0,inf)"`
	TokenRatio float64 `yaml:"token_ratio" bound:"(0,inf)"`
}

// SLO is one objective. The subject is a journey, a route or a component;
// each bound present must hold.
type SLO struct {
	Journey         string     `yaml:"journey"`
	Route           string     `yaml:"route"`
	Component       string     `yaml:"component"`
	SuccessRate     *Threshold `yaml:"success_rate" bound:"[0,1]"`
	HTTPFailureRate *Threshold `yaml:"http_failure_rate" bound:"[0,1]"`
	FailureRate     *Threshold `yaml:"failure_rate" bound:"[0,1]"`
	Mean            *Threshold `yaml:"mean" bound:"[0,time]"`
	P50             *Threshold `yaml:"p50" bound:"[0,time]"`
	P95             *Threshold `yaml:"p95" bound:"[0,time]"`
	P99             *Threshold `yaml:"p99" bound:"[0,time]"`
	RejectionRate   *Threshold `yaml:"rejection_rate" bound:"[0,1]"`
	Utilisation     *Threshold `yaml:"utilisation" bound:"[0,1]"`
	// Window makes a journey SLO hold in every window of this length
	// (by the time journeys end, from the warm-up), not only over the run.
	Window *Duration `yaml:"window" bound:"(0,time]"`
	// Of says which journeys mean and percentiles count: succeeded (the
	// default) or all, whatever their status, each timed to when its
	// client stopped waiting, as a load tester reads p95. On a route, all
	// times its calls from the caller's side.
	Of string `yaml:"of"`

	Node *yaml.Node `yaml:"-"`
}

// Limits are the guards that stop a run that has run away.
type Limits struct {
	MaxInFlight *int      `yaml:"max_in_flight" bound:"[1,inf)"` // journeys and requests alive at once
	MaxQueue    *int      `yaml:"max_queue" bound:"[1,inf)"`     // waiters at one component
	MaxEvents   *int64    `yaml:"max_events" bound:"[1,inf)"`
	MaxTime     *Duration `yaml:"max_time" bound:"(0,time]"` // simulated time
	// ops run at one instant without simulated time passing
	MaxStepsPerInstant *int64 `yaml:"max_steps_per_instant" bound:"[1,inf)"`
}

// SweepDefaults are the grid capsim sweep uses when not told otherwise.
type SweepDefaults struct {
	Multipliers  string     `yaml:"multipliers"` // e.g. "1:4:1" or "1,2,3,4"
	Replications *int       `yaml:"replications" bound:"[1,replications]"`
	Designs      string     `yaml:"designs"` // e.g. "all" or "v1-original,v1-improved"
	Node         *yaml.Node `yaml:"-"`
}

// decodeNode reads the sweep defaults and checks the grid they write with
// the reader capsim sweep uses, so that validate refuses at its line a
// grid the sweep would refuse only once it starts.
func (s *SweepDefaults) decodeNode(d *decoder, n *yaml.Node, path string) {
	before := len(d.errs)
	d.decodeStruct(n, reflect.ValueOf(s).Elem(), path)
	if len(d.errs) > before || s.Multipliers == "" {
		return
	}
	if _, err := ParseMultipliers(s.Multipliers); err != nil {
		d.fail(entry(n, "multipliers"), joinPath(path, "multipliers"), "%v", err)
	}
}

// Span is a window of simulated time.
type Span struct {
	From Duration `yaml:"from" bound:"[0,time]"`
	To   Duration `yaml:"to" bound:"(0,time]"`
}

// Attribute is one attribute: a number, or {choose: [{weight, value}]}.
type Attribute struct {
	Value  float64
	Choose []AttrChoice
}

// AttrChoice is one possible value of a drawn attribute.
type AttrChoice struct {
	Weight float64 `yaml:"weight"`
	Value  float64 `yaml:"value"`
}

func (a *Attribute) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.MappingNode {
		var spec struct {
			Choose []AttrChoice `yaml:"choose"`
		}
		d.decode(n, reflect.ValueOf(&spec).Elem(), path)
		if len(spec.Choose) == 0 {
			d.fail(n, path, "a drawn attribute needs choose: [{weight, value}, ...] with at least one choice")
			return
		}
		total := 0.0
		for i, c := range spec.Choose {
			if !(c.Weight >= 0) {
				d.fail(n, fmt.Sprintf("%s.choose[%d].weight", path, i), "a weight must be >= 0, got %g", c.Weight)
			}
			total += c.Weight
		}
		if total <= 0 {
			d.fail(n, path+".choose", "the weights must not all be 0")
		}
		a.Choose = spec.Choose
		return
	}
	d.decode(n, reflect.ValueOf(&a.Value).Elem(), path)
}

// Wave is a journey's sinusoidal rate.
type Wave struct {
	Amplitude *float64  `yaml:"amplitude" bound:"[0,1]" zero:"a constant rate"`
	Period    *Duration `yaml:"period" bound:"(0,time]"`
	Phase     *Duration `yaml:"phase" bound:"[0,time]" zero:"the default: the rate rises through rate at t = 0"`
}

// Stage is one step of a load profile.
type Stage struct {
	Target   StageTarget `yaml:"target" bound:"[0,rate]" zero:"arrivals stop"`                      // at the stage's end, at multiplier 1
	Duration Duration    `yaml:"duration" bound:"[0,time]" zero:"a step to the target, not a ramp"` // of the linear ramp to target; 0 = a step
}

// StageTarget is a stage's target: a rate (80/s) for an open workload, a
// whole number of clients (50) for a closed one.
type StageTarget struct {
	Rate    Rate
	Clients int
	IsCount bool // written as a number of clients
	Set     bool
}

func (t *StageTarget) parseScalar(s string) error {
	if strings.Contains(s, "/") {
		var r Rate
		if err := r.parseScalar(s); err != nil {
			return err
		}
		*t = StageTarget{Rate: r, Set: true}
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > MaxClients {
		return fmt.Errorf("expected a rate such as 80/s (an open workload) or a whole number of clients from 0 to %d such as 50 (a closed workload), got %q", MaxClients, s)
	}
	*t = StageTarget{Clients: n, IsCount: true, Set: true}
	return nil
}

// value is the target as the profile holds it: arrivals per second, or
// clients.
func (t StageTarget) value() float64 {
	if t.IsCount {
		return float64(t.Clients)
	}
	return t.Rate.PerSecond
}

// RecoverySpec is the scenario's recovery: key. From and After default to
// the rise to and the end of the highest stage target of the journeys
// with stages.
type RecoverySpec struct {
	From   *Duration `yaml:"from" bound:"(0,time]"`   // the spike starts: the pre-spike level is measured before it
	After  *Duration `yaml:"after" bound:"(0,time]"`  // the spike ends: recovery is measured from here
	Margin *Share    `yaml:"margin" bound:"[0,inf)"`  // how far above the pre-spike level is still back; default 10%
	Window *Duration `yaml:"window" bound:"(0,time]"` // measuring window; default 10s
	// Baseline is how long before From the pre-spike level is measured
	// over; default all of it from the warm-up on. A level that takes a
	// while to settle at the start (connections opening) wants it.
	Baseline *Duration `yaml:"baseline" bound:"(0,time]"`
}
