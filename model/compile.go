package model

import (
	"strings"

	"capsim/sim"

	"go.yaml.in/yaml/v3"
)

// The compiled form of a scenario: step lists become blocks of ops that the
// runtime interprets, names become indices, distributions are resolved. A
// program is immutable and shared by every run of the same scenario and
// design; per-run state (streams, components, entities) lives in run.

type opcode uint8

const (
	opDelay     opcode = iota // sleep for a draw of dist
	opWork                    // like delay; counted as service
	opAcquire                 // take comp until the enclosing frame ends
	opScope                   // run body in a frame of its own (stage, use)
	opCall                    // run route as a request and wait
	opJob                     // run route as a job
	opAwaitJobs               // wait for the journey's jobs
	opRepeat                  // run body count times
	opFanout                  // run body count times concurrently, limit at once
	opChoose                  // run one of branches
	opPoll                    // call route every T until the journey's jobs are done
	opPollWhile               // poller body: call route every T while the parent's call is open
	opFail                    // fail with probability p
	opLog                     // trace event
	opStage                   // label the rest of the frame
)

type op struct {
	// Fields are ordered hot first and by size, so that an op packs into
	// as few cache lines as it can: the interpreter reads one per step.
	code     opcode
	optional bool
	failFast bool // opFanout: the first failed branch cancels the rest
	async    bool
	session  bool  // use/hold of a balancer: the pick is a session
	leak     bool  // use/hold: never released when its frame fails
	dist     int32 // opDelay, opWork; opAcquire of a component that runs work
	comp     int32 // opAcquire
	body     int32 // opScope, opRepeat, opFanout
	per      int32 // opDelay, opWork: 1 + the attribute the time is multiplied by; 0 = none
	keyAttr  int32 // opAcquire of a lock: attribute index, -1 = the journey's user
	priority int32 // use/hold: 1 + the priority class; 0 = the journey's
	status   int32
	name     int32 // opLog, opStage: index into names
	route    int32 // opCall, opJob, opPoll; opLog: the names index of its since: event, or -1
	timeout  int32 // opCall, opJob: distribution of the caller's patience, or -1
	count    count
	limit    count
	maxPolls int32
	pollBlk  int32 // opCall: block of the poller that runs while the call is open, or -1
	signal   int32
	site     int32 // index into program.sites: the step it was compiled from
	stream   int32 // random stream for opChoose, opFail
	deadline sim.Time
	every    sim.Time
	p        float64
	retry    *retryProg
	branches []branchProg
}

type count struct {
	n    int32
	attr int32 // -1 for a literal
}

type retryProg struct {
	attempts   int32
	backoff    sim.Time
	multiplier float64
	on         []int32
	maxBackoff sim.Time // sim.Never = no cap
	jitter     jitter
	stream     int32 // draws of the jitter
	// throttle: a retry budget per call site (maxTokens 0 = none)
	maxTokens, tokenRatio float64
}

type jitter uint8

const (
	jitterNone jitter = iota
	jitterFull
	jitterEqual
	jitterDecorrelated
)

// maxAttempts bounds a call's tries: far more than any client makes, and
// small enough that a backoff schedule never runs past the clock.
const maxAttempts = 1000

// maxPriority bounds priority classes: a pool keeps a queue per class.
const maxPriority = 9

type branchProg struct {
	weight count64
	body   int32
}

type count64 struct {
	v    float64
	attr int32
}

type block struct {
	ops   []op
	route int32 // the route this block belongs to, -1 for journeys
	// entry is where a frame running this block once starts: the block
	// itself, or, when the block is nothing but a scope (not optional),
	// that scope's body, followed down while the same holds. entryTails
	// counts the scopes skipped. The interpreter would merge each such
	// scope into the frame on its first op (see exec); a frame pushed at
	// the entry starts merged and skips those ops, one per journey of a
	// single use: step. pushFrame's callers start frames there, running
	// entryOps, the entry's ops.
	entry, entryTails int32
	entryOps          []op
}

type journeyProg struct {
	name     string
	rate     float64 // per second at multiplier 1
	clients  int
	closed   bool  // a closed workload: clients loop, with think between journeys
	unscaled bool  // the load multiplier leaves it as written
	think    int32 // dist index or -1
	even     bool
	start    sim.Time
	stop     sim.Time // no arrival at or after it
	count    int64    // 0 = unlimited
	users    int64
	profile  []segment  // stages of the rate (or clients) over time; nil = constant
	period   float64    // seconds after which the profile repeats; 0 = never
	wave     waveProg   // a sinusoidal rate; period 0 = none
	priority int        // the class of its waits at pools, unless a step says
	attrs    []float64  // by attribute index; NaN when not set
	draws    []attrDraw // attributes drawn per journey
	body     int32
	// entryOps and entryTails are those of body's block (see block), kept
	// here as well: a journey's start reads them beside the rest of its
	// type, without a lookup in the program's blocks per journey.
	entryOps   []op
	entryTails int32
}

type routeProg struct {
	name        string
	body        int32
	cancellable bool         // its work stops when its caller gives up
	onDeadline  deadlineMode // what it does with a deadline that reaches it
	onFailure   int32        // the block run when its steps fail; -1: none
}

type program struct {
	sc         *Scenario
	design     string
	blocks     []block
	journeys   []journeyProg
	routes     []routeProg
	comps      []compProg
	dists      []sim.Dist
	distName   []string // stream of each distribution: its name, or its first use site
	streams    []string // stream names by index: one per draw site
	names      []string // stage labels and log events
	routeLabel []int32  // names index of each route's name: the stage of an unlabelled failure
	attrs      []string
	sites      []string // key paths of steps, for messages; 0 is none
	limits     limitsProg
	duration   sim.Time
	drain      sim.Time // sim.Never = until idle
	warmup     sim.Time
	slos       []SLO
	recovery   *recoveryProg // nil: no recovery verdict
	sloJourney []int         // the journey index of each SLO, or -1
	priorities bool          // some journey or step gives a priority class
}

type limitsProg struct {
	inFlight int
	queue    int
	events   uint64
	time     sim.Time
	// instantOps bounds the ops run at one instant of simulated time.
	instantOps int64
}

// Default guards: generous enough for every scenario in the library far
// past its first failure, small enough that a runaway stops within seconds
// and a run's memory stays bounded whatever the multiplier. An entity in
// flight (a journey, a request, a fan-out branch) costs about 500 bytes, so
// DefaultMaxInFlight bounds a run's entities near 50 MB.
const (
	DefaultMaxInFlight = 100_000
	DefaultMaxQueue    = 100_000
	DefaultMaxEvents   = 500_000_000 // about a minute of simulation here
	// DefaultMaxStepsPerInstant is far above what any real burst runs at
	// one instant (a hundred thousand clients starting at once run a few
	// hundred thousand), and is reached in about a second by a loop of
	// steps that take no time.
	DefaultMaxStepsPerInstant = 20_000_000
)

// Compiled is a scenario ready to run any number of times.
type Compiled struct {
	prog *program
	// Name and Design identify the scenario for outputs.
	Name   string
	Design string
}

type compiler struct {
	reserved float64 // bytes set aside for what the scenario's numbers size (budget.go)
	l        *Loaded
	sc       *Scenario
	p        *program
	errs     ErrorList
	compIdx  map[string]int32
	routeIdx map[string]int32
	nameIdx  map[string]int32
	attrIdx  map[string]int32
	distIdx  map[string]int32
	visiting map[int32]bool // routes on the current call path, to refuse recursion
	// siteNodes are the steps of program.sites, for positions.
	siteNodes []*yaml.Node
	site      int32 // the step being compiled
	callPath  []int32
	// logNames are the scenario's log: events; sinceRefs the since: keys
	// to check against them once all are known.
	logNames  map[string]bool
	sinceRefs []sinceRef
}

func (c *compiler) fail(n *yaml.Node, path, format string, args ...any) {
	if n == nil && c.l != nil {
		n = nodeAt(c.l.root, path)
	}
	c.errs = append(c.errs, c.l.pos.errAt(n, path, format, args...))
}

// nodeAt finds the value a dotted path of mapping keys names in the
// document (recovery.window), so that a check made away from the value's
// node still gives its line; nil when the path is not written.
func nodeAt(root *yaml.Node, path string) *yaml.Node {
	n := resolve(root)
	for _, key := range strings.Split(path, ".") {
		v := entry(n, key)
		if v == nil {
			return nil
		}
		n = resolve(v)
	}
	return n
}

// failKey reports a problem with the value of key in mapping n, pointing
// at the value itself when it is there.
func (c *compiler) failKey(n *yaml.Node, key, path, format string, args ...any) {
	c.fail(valueNode(n, key), path, format, args...)
}

// valueNode returns the value of key in mapping n, or n itself.
func valueNode(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	}
	return n
}

func (c *compiler) name(s string) int32 { return intern(c.nameIdx, &c.p.names, s) }

func (c *compiler) attr(s string) int32 { return intern(c.attrIdx, &c.p.attrs, s) }

// intern returns s's index in list, appending s the first time it is
// asked for; idx remembers the indices handed out.
func intern(idx map[string]int32, list *[]string, s string) int32 {
	if i, ok := idx[s]; ok {
		return i
	}
	*list = append(*list, s)
	idx[s] = int32(len(*list) - 1)
	return idx[s]
}

func (c *compiler) stream(name string) int32 {
	c.p.streams = append(c.p.streams, name)
	return int32(len(c.p.streams) - 1)
}

// waveProg is a compiled wave; period 0 is none.
type waveProg struct {
	amplitude, period, phase float64 // phase and period in seconds
}

// segment is a stretch of a profile where the value is linear in time,
// from r0 at t0 to r1 at t1 (seconds from the run's start; per second, or
// clients).
type segment struct {
	t0, t1, r0, r1 float64
}

// attrDraw draws attribute attr of a journey from its choices.
type attrDraw struct {
	attr    int32
	weights []float64 // cumulative, ending at the total
	values  []float64
	stream  int32
}

// values lists what attribute a may take in journey type j.
func (j *journeyProg) values(a int32) []float64 {
	for _, d := range j.draws {
		if d.attr == a {
			return d.values
		}
	}
	return []float64{j.attrs[a]}
}

type recoveryProg struct {
	base                sim.Time // the pre-spike level is measured over [base, from)
	from, after, window sim.Time
	margin              float64
	windows             int // whole windows from after to the end of the arrivals
}

// sinceRef is a since: to check once every log: event is known.
type sinceRef struct {
	node       *yaml.Node
	path, name string
}

// What a route does with a deadline that reaches it (a call's `deadline:`,
// or one its caller was given). The caller always fails at the deadline;
// the modes differ in what the route's own work does then.
type deadlineMode uint8

const (
	// deadlineCut: every wait and work inside ends at the deadline, which
	// gives back what the route holds then.
	deadlineCut deadlineMode = iota
	// deadlineCheck: nothing is cut; the route reads the clock before each
	// step and stops (504) when the deadline has passed, so the step under
	// way runs to its end for nobody.
	deadlineCheck
	// deadlineIgnore: the route is not told of the deadline and works on.
	deadlineIgnore
)

// deadlineModes are the values of a route's on_deadline, by mode.
var deadlineModes = [...]string{deadlineCut: "cut", deadlineCheck: "check", deadlineIgnore: "ignore"}

// The compiled form of a component: what every kind shares, and the
// kind's own compiled part.
type compProg struct {
	name string
	// seedName is the name the component's random streams are derived
	// from: its own, or for a replica's copy name[i] (copy 0 keeps the
	// component's name, so a scenario's draws do not move when it is put
	// behind a balancer of one replica).
	seedName    string
	kind        *kindDef
	prog        kindProg
	status      int32
	waitTimeout int32 // distribution of the longest wait, or -1
	// behind is the balancer this component is copied behind, or -1;
	// copies are the program indices of its copies, one per replica.
	behind int32
	copies []int32
}
