package model

import "go.yaml.in/yaml/v3"

// The scenario schema: plain data decoded from YAML. Runtime components are
// built from it by the compiler; nothing here holds simulation state.

// Scenario is one system under one set of assumptions.
type Scenario struct {
	Name          string           `yaml:"name"`
	Description   string           `yaml:"description"`
	Include       []string         `yaml:"include"`
	Duration      Duration         `yaml:"duration"` // arrivals happen in [0, duration)
	Drain         Duration         `yaml:"drain"`    // extra time for journeys in flight; unset = until all finish
	Warmup        Duration         `yaml:"warmup"`   // statistics start here
	Arrivals      string           `yaml:"arrivals"` // even | poisson (default)
	Distributions Named[DistEntry] `yaml:"distributions"`
	Components    Named[Component] `yaml:"components"`
	Journeys      Named[Journey]   `yaml:"journeys"`
	Routes        Named[Route]     `yaml:"routes"`
	SLOs          []SLO            `yaml:"slos"`
	Limits        Limits           `yaml:"limits"`
	Sweep         SweepDefaults    `yaml:"sweep"`
	Designs       Named[Raw]       `yaml:"designs"`
	Figures       Raw              `yaml:"figures"` // provenance notes, not interpreted
}

// DistEntry is a named distribution, with optional provenance.
type DistEntry struct {
	Dist   DistRef
	Source Raw
}

// Component is one part that holds or limits work. Which keys apply depends
// on Kind; the compiler rejects keys that do not.
type Component struct {
	Kind string `yaml:"kind"` // pool | semaphore | lock | bucket | worker | balancer | cpu
	// cpu: cores shared by every work step running on it at once, each at
	// min(1, cores/n) of a core (processor sharing): more work in flight
	// slows all of it instead of queueing.
	Cores       *float64  `yaml:"cores"`
	Description string    `yaml:"description"`
	Servers     *int      `yaml:"servers"`      // pool
	Permits     *int      `yaml:"permits"`      // semaphore
	Queue       *int      `yaml:"queue"`        // pool, semaphore, worker: waiting room; unset = unbounded
	Admit       *int      `yaml:"admit"`        // pool: at most this many in service + waiting
	WhenFull    string    `yaml:"when_full"`    // pool: reject (default) | caller_runs
	WaitTimeout *Duration `yaml:"wait_timeout"` // pool, semaphore, lock: longest wait before failing
	Status      *int      `yaml:"status"`       // status of a refusal or timeout
	Key         string    `yaml:"key"`          // lock: attribute that names the key (default user)
	Rate        *Rate     `yaml:"rate"`         // bucket: refill rate
	Burst       *float64  `yaml:"burst"`        // bucket: capacity in tokens
	MaxWait     *Duration `yaml:"max_wait"`     // bucket: longest wait for a token
	Adapt       *Adapt    `yaml:"adapt"`        // bucket: adaptive refill
	Instances   *int      `yaml:"instances"`    // worker: at most
	Min         *int      `yaml:"min_instances"`
	ColdStart   *DistRef  `yaml:"cold_start"`
	WarmStart   *DistRef  `yaml:"warm_start"`
	IdleStop    *Duration `yaml:"idle_stop"`
	// bucket: what a caller whose wait for a token would pass max_wait
	// does. at_once (default): it is refused at once. after_max_wait: it
	// waits max_wait (or what its deadline leaves) for nothing, then is
	// refused, as a client polling a shared bucket until its budget runs out.
	Refuse string `yaml:"refuse"`
	// Any kind but balancer: one copy of the component per replica of the
	// named balancer. A use or hold reaches the copy of the replica that
	// the balancer picked for the request (in the journey or in any caller
	// up the call chain); using it elsewhere is an error. Each copy is
	// reported on its own as name[i].
	Behind string `yaml:"behind"`
	// balancer: spreads requests over replicas. Taken by use (for the
	// nested work/steps) or hold (for the rest of the block); every
	// component behind it is then reached on the picked replica.
	Replicas *int   `yaml:"replicas"`
	Policy   string `yaml:"policy"` // round_robin (default) | least_request | least_sessions | least_load | hybrid
	// balancer: the component behind it whose busy share (busy / capacity)
	// each replica reports as its load. least_load and hybrid need it; it
	// also says when a pick is overloaded (the replica had no free
	// capacity at that moment).
	Load        string    `yaml:"load"`
	ReportEvery *Duration `yaml:"report_every"` // balancer: report interval of sessions and load; unset = the balancer sees them live
	TTL         *Duration `yaml:"ttl"`          // balancer: a report older than this is ignored and picks fall back to least_request
	ReportGap   *Span     `yaml:"report_gap"`   // balancer: reports due in [from, to) are lost (a partition)
	Target      *float64  `yaml:"target"`       // balancer, hybrid: load to fill replicas up to (default 0.7)
	Safety      *float64  `yaml:"safety"`       // balancer, hybrid: share of the spare capacity offered per report (default 0.5)
	MaxSessions *int      `yaml:"max_sessions"` // balancer, hybrid: static session slots per replica
	// balancer: how a replica's session counter is decremented when a
	// session ends by failure (a dropped or timed-out session): once
	// (correct), never (missing_decrement) or twice (double_decrement).
	Counter string `yaml:"counter"`
	Source  Raw    `yaml:"source"`

	Node *yaml.Node `yaml:"-"`
}

// Adapt lowers a token bucket's refill rate on overload signals.
type Adapt struct {
	Rates   []Rate   `yaml:"rates"`   // lower rates, stepped through in order
	Signals *int     `yaml:"signals"` // signals within window that trigger a step (default 1)
	Window  Duration `yaml:"window"`
	Recover Duration `yaml:"recover"` // quiet time before stepping back up; unset = never
	On      []int    `yaml:"on"`      // statuses of signalled calls that count (default 429, 504)
}

// Journey is what one user does, start to end: the unit of success.
type Journey struct {
	Description string         `yaml:"description"`
	Rate        *Rate          `yaml:"rate"`     // open workload: journeys started per unit time at multiplier 1
	Clients     *int           `yaml:"clients"`  // closed workload: concurrent users, each looping
	Think       *DistRef       `yaml:"think"`    // closed workload: pause between a client's journeys
	Arrivals    string         `yaml:"arrivals"` // even | poisson; default from the scenario
	Start       *Duration      `yaml:"start"`    // first arrival
	Count       *int           `yaml:"count"`    // stop after this many journeys
	Users       *int           `yaml:"users"`    // distinct user keys, reused in turn; unset = one per journey
	Attributes  Named[float64] `yaml:"attributes"`
	Steps       []Step         `yaml:"steps"`

	Node *yaml.Node `yaml:"-"`
}

// Route is what a request does inside a service.
type Route struct {
	Description string `yaml:"description"`
	Steps       []Step `yaml:"steps"`
}

// Step is one instruction. Exactly one verb is set; the other fields
// modify it.
type Step struct {
	// verbs
	Delay  *DistRef `yaml:"delay"`  // wait, holding what is held
	Work   *DistRef `yaml:"work"`   // service time (alone, or inside use)
	Use    string   `yaml:"use"`    // acquire a component for work/steps, then release
	Hold   string   `yaml:"hold"`   // acquire until the enclosing route or block ends
	Call   string   `yaml:"call"`   // run a route as a request and wait for its status
	Job    string   `yaml:"job"`    // run a route as a job (own job id), awaited unless async
	Await  string   `yaml:"await"`  // await: jobs — wait until the journey's jobs are done; fails as the first unreported failed async job did
	Repeat *Count   `yaml:"repeat"` // run steps N times
	Fanout *Count   `yaml:"fanout"` // run steps N times concurrently and join
	Choose []Branch `yaml:"choose"` // run one branch, picked by weight
	Poll   *Poll    `yaml:"poll"`   // call a route every T until a condition
	Fail   *Fail    `yaml:"fail"`   // fail with a probability (downstream errors)
	Log    string   `yaml:"log"`    // emit a trace event (after the step when combined)
	Stage  string   `yaml:"stage"`  // label for failure attribution

	// modifiers
	Steps    []Step    `yaml:"steps"`
	Limit    *Count    `yaml:"limit"`    // fanout: at most this many at once
	Timeout  *Duration `yaml:"timeout"`  // call/job: give up waiting after this
	Deadline *Duration `yaml:"deadline"` // call: absolute budget passed down to every stage
	Retry    *Retry    `yaml:"retry"`    // call: retry on failure statuses
	Async    bool      `yaml:"async"`    // job: continue at once
	Key      string    `yaml:"key"`      // use/hold of a lock: attribute naming the key
	Signal   string    `yaml:"signal"`   // call: report failures to this adaptive bucket
	Status   *int      `yaml:"status"`   // work/delay: status when the step fails by deadline
	Optional bool      `yaml:"optional"` // a failure of this step is tolerated: the next step runs
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
	Weight Weight `yaml:"weight"`
	Steps  []Step `yaml:"steps"`
}

// Poll calls a route repeatedly.
type Poll struct {
	Call  string   `yaml:"call"`
	Every Duration `yaml:"every"`
	Until string   `yaml:"until"` // response (default when attached to a call) | jobs (fails as the first unreported failed async job did)
	Max   *int     `yaml:"max"`   // give up (fail) after this many polls
}

// Fail makes a step fail at random, as a flaky downstream does.
type Fail struct {
	P      float64 `yaml:"p"`
	Status int     `yaml:"status"`
}

// Retry repeats a failed call.
type Retry struct {
	Attempts   int      `yaml:"attempts"` // total tries, first included
	Backoff    Duration `yaml:"backoff"`
	Multiplier float64  `yaml:"multiplier"` // backoff growth per try (default 2)
	On         []int    `yaml:"on"`         // statuses worth retrying (default 429, 503, 504)
}

// SLO is one objective. The subject is a journey, a route or a component;
// each bound present must hold.
type SLO struct {
	Journey         string     `yaml:"journey"`
	Route           string     `yaml:"route"`
	Component       string     `yaml:"component"`
	SuccessRate     *Threshold `yaml:"success_rate"`
	HTTPFailureRate *Threshold `yaml:"http_failure_rate"`
	FailureRate     *Threshold `yaml:"failure_rate"`
	Mean            *Threshold `yaml:"mean"`
	P50             *Threshold `yaml:"p50"`
	P95             *Threshold `yaml:"p95"`
	P99             *Threshold `yaml:"p99"`
	RejectionRate   *Threshold `yaml:"rejection_rate"`
	Utilisation     *Threshold `yaml:"utilisation"`

	Node *yaml.Node `yaml:"-"`
}

// Limits are the guards that stop a run that has run away.
type Limits struct {
	MaxInFlight *int      `yaml:"max_in_flight"` // journeys and requests alive at once
	MaxQueue    *int      `yaml:"max_queue"`     // waiters at one component
	MaxEvents   *int64    `yaml:"max_events"`
	MaxTime     *Duration `yaml:"max_time"` // simulated time
}

// SweepDefaults are the grid capsim sweep uses when not told otherwise.
type SweepDefaults struct {
	Multipliers  string `yaml:"multipliers"` // e.g. "1:4:1" or "1,2,3,4"
	Replications *int   `yaml:"replications"`
	Designs      string `yaml:"designs"` // e.g. "all" or "v1-original,v1-improved"
}

// Span is a window of simulated time.
type Span struct {
	From Duration `yaml:"from"`
	To   Duration `yaml:"to"`
}
