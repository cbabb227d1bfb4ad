package model

import (
	"errors"
	"math/rand/v2"

	"capsim/sim"
)

// RunOptions are the knobs of one run.
type RunOptions struct {
	Multiplier float64 // scales every journey rate and closed population (but scaled: false); 0 means 1
	Seed       uint64
	// Trace, when set, receives every traced event in simulated-time order.
	// The event is reused after the call returns.
	Trace func(*TraceEvent)
	// SeriesStep, when > 0, samples in-flight journeys and every component's
	// queue and occupancy at that step for time-series charts.
	SeriesStep sim.Time
	// Interrupted, when set, is polled during the run; once it reports
	// true the run stops and Run returns ErrInterrupted.
	Interrupted func() bool
	// Arrivals, when it names a journey, replaces that journey's arrivals
	// (rate, profile or clients, and the multiplier) with these start
	// times, sorted: a recorded run's journeys replayed.
	Arrivals map[string][]sim.Time
}

// ErrInterrupted is returned by Run when RunOptions.Interrupted stopped it.
var ErrInterrupted = errors.New("run interrupted")

type procKind uint8

const (
	procRoot   procKind = iota // a journey's client
	procCall                   // a request being served
	procJob                    // a job being run
	procBranch                 // one arm of a fan-out
	procPoller                 // polls while its parent's call is open
)

type frame struct {
	// ops are the ops of the block the frame runs, looked up once when the
	// frame starts rather than through the program's blocks on every step.
	ops   []op
	pc    int32
	iter  int32
	n     int32
	stage int32 // stage label in force before this frame
	held  int32 // held resources below this frame
	// tails counts the frames this one stands for besides its own: the
	// frames of scopes that were the last step of their frame, whose place
	// they took (see exec).
	tails    int32
	optional bool // a failure inside ends the frame, not the process
}

type held struct {
	comp int32
	key  int64 // lock key, worker instance, or balancer replica (bit 32: a session)
	leak bool  // not released when its frame ends by a failure
}

type proc struct {
	// Fields are grouped by use and ordered by size, so that a proc packs
	// tightly: the interpreter touches the first ones on every step.
	journey *jrec
	frames  []frame
	held    []held
	id      int32
	seq     uint32 // bumped on every new wait, so stale wake-ups are ignored
	gen     uint32 // bumped on free, so stale references are detected
	stage   int32
	route   int32

	kind      procKind
	waiting   waitKind
	client    bool // requests it makes are what HTTP dashboards count
	waitLeak  bool // the hold awaited is taken with leak_on_failure
	unwinding bool // frames are ending by a failure
	resume    bool // a failure was swallowed while its ops ran: go on
	// running: its ops are running (exec is on the stack for it). A proc's
	// ops never run inside another's: what a step does to another proc
	// (a cancel, a grant, a child's end) reaches it through an event or
	// the ready list, so only a failure of its own, swallowed or sent to
	// its on_failure block, comes back to exec while they run.
	running   bool
	cancelled bool // its caller gave up and it observes that: it only unwinds
	abandoned bool // it found its deadline spent before a step: it only unwinds
	failFast  bool // its fan-out fails at the first failed branch

	deadline sim.Time
	checkAt  sim.Time // the deadline it reads before each step (on_deadline: check)
	start    sim.Time
	// orphanedAt is when its caller gave up on it, if it did.
	orphanedAt sim.Time
	waitKey    int64
	timer      sim.Timer
	waitComp   int32

	parent *proc
	pgen   uint32 // parent's gen at spawn
	pseq   uint32 // parent's wait seq at spawn
	reqID  int64
	jobID  int64

	// children
	pending      int32
	toSpawn      int32
	body         int32 // fan-out body still to spawn
	attempt      int32
	polls        int32
	outcome      int32 // status delivered by the last child
	outStage     int32
	outComp      int32
	callDeadline sim.Time
	awaitedReq   int64 // the request of the call being waited for, for tracing its timeout

	failStage  int32
	failComp   int32
	failStatus int32 // the status p is unwinding with
	// recovering: p runs its route's on_failure block, and ends with
	// failStatus, failStage and failComp whatever the block does.
	recovering bool

	picks []pick // balancer replicas this request was routed to, inherited by callees
	// lastBackoff is the last retry sleep, for decorrelated jitter.
	lastBackoff sim.Time
	// kids are the children it waits for (the call, the job, the fan-out's
	// branches), with their generation at spawn, so that they can be
	// cancelled.
	kids []kid

	nextFree *proc // in the run's free list, while free
}

type kid struct {
	p   *proc
	gen uint32
}

// readyProc is a proc granted a resource, with its wait seq then: a proc
// cancelled before the ready list runs has moved on and is skipped.
type readyProc struct {
	p   *proc
	seq uint32
}

type jrec struct {
	// attrs are the journey's attribute values: its type's, or its own
	// draws (in a buffer of the run's, kept across the record's reuse).
	attrs []float64
	id    int64
	user  int64
	start sim.Time
	// The last request the client made and the last job started: the
	// journey's end names them, as an application logs a journey's outcome
	// in the request that completes it.
	lastReq, lastJob int64
	awaiter          *proc
	typ              int32
	jobs             int32 // pending jobs
	client           int32 // closed workload: which client runs it; -1 for open
	slot             int32
	// procs still referring to the journey. A call whose client gave up,
	// or a job the client did not wait for, can outlive the journey; its
	// record is reused only once nothing refers to it, so such orphans go
	// on seeing their own journey's attributes, user and ids.
	refs int32
	// The first async job that failed, until an await or poll of the
	// journey's jobs reports it: status 0 = none.
	jobFailStatus, jobFailStage, jobFailComp int32
	awaiterSeq                               uint32
	counted                                  bool
	active                                   bool
	nextFree                                 *jrec // in the run's free list, while free
}

type run struct {
	p    *program
	opts RunOptions
	s    *sim.Sim
	mult float64

	draws   []draw // the program's distributions, by index
	streams []*rand.Rand
	arrRng  []*rand.Rand
	// meanGap is each journey's mean time between arrivals in seconds,
	// 1/rate at the run's multiplier: a gap is then a product, where a
	// quotient by the rate would hold up every arrival for a division.
	meanGap []float64
	comps   []compRT

	procs []*proc
	// freeProcs and freeJ are the free procs and journey records, last
	// freed first, linked through their nextFree: a pop is a load, where a
	// slice of ids took a length test, a bounds check and two loads.
	freeProcs *proc
	jrecs     []*jrec
	freeJ     *jrec
	inFlight  int
	active    int // journeys in flight
	arrivals  []int64
	// replay is each journey's RunOptions.Arrivals, nil for one that has
	// none (and for every journey of a run without them).
	replay    [][]sim.Time
	ready     []readyProc // granted during the current event, to run when it ends
	ended     bool        // arrivals over
	exhausted []bool      // journey types that reached their count
	nextReq   int64
	nextJob   int64
	nextJrn   int64

	kArrive, kWake, kTimeout, kWarm, kEnd, kSample, kClient sim.Kind

	// endedAt is when the arrivals ended, endActive the journeys then in
	// flight and drainedAt when the last of them ended (-1 while some are).
	endedAt, drainedAt sim.Time
	endActive          int

	// ramps are the closed journeys' populations over time, nil for
	// journeys without stages; kRamp changes one.
	ramps []*clientRamp
	kRamp sim.Kind

	// instant and instantOps count the ops run at one instant, for the
	// zero-time loop guard.
	instant    sim.Time
	instantOps int64

	// attrBufs holds the drawn attributes of the journey in each record
	// slot, reused with the slot.
	attrBufs [][]float64
	// retryTokens is each call site's retry budget (by op site; -1 until
	// its first try ends).
	retryTokens []float64

	st       stats
	broken   *Broken
	trace    TraceEvent
	tr       *tracer // nil unless the run is traced
	series   *seriesRec
	recovery *recoveryRec
}

// multOf is the load multiplier of journey j: the run's, or 1 for a
// journey that is not scaled.
func (r *run) multOf(j *journeyProg) float64 {
	if j.unscaled {
		return 1
	}
	return r.mult
}

// draw is one of the program's distributions with its stream, side by
// side: a sample reads the two from one element, where two slices would
// take two bounds checks and two base loads.
type draw struct {
	dist *sim.Dist
	rng  *rand.Rand
}

func (d *draw) sample() float64 { return d.dist.Sample(d.rng) }

// gap is the time to the next arrival of journey ji, whose program j
// is: the caller has it at hand.
func (r *run) gap(ji int, j *journeyProg) sim.Time {
	// At least a nanosecond: at an absurd rate the clock must still move,
	// so that the arrival window ends (or a guard trips) instead of every
	// arrival landing on one instant.
	if j.even {
		return max(1, sim.Seconds(r.meanGap[ji]))
	}
	return max(1, sim.Seconds(r.arrRng[ji].ExpFloat64()*r.meanGap[ji]))
}

func (r *run) stageName(stage int32, p *proc) string {
	if stage >= 0 {
		return r.p.names[stage]
	}
	if p != nil && p.route >= 0 {
		return r.p.routes[p.route].name
	}
	return "journey"
}

func (r *run) compName(c int32) string {
	if c < 0 {
		return ""
	}
	return r.p.comps[c].name
}

// pick is a balancer's choice made for a request, inherited by everything
// the request calls.
type pick struct {
	bal     int32
	replica int32
}

// clientRamp is a closed workload's population over time. Client c (from
// 0) runs while c < want; when want falls, surplus clients stop as their
// current journey ends (a thinking client stops at once, starting no
// other), and when it rises again a surplus client still finishing its
// journey goes on instead of a new one starting.
type clientRamp struct {
	ji    int
	want  int
	alive []bool // client c has a loop going: in a journey or thinking
	// The next change: segment seg, crossing i of it (0 = its start).
	seg, i int
	offset float64 // the period the segments are in, with repeat_every
}

// seriesRec samples signals at a fixed step for time-series charts: a
// sampling event every step records each signal's value in its sim.Series.
// Sampling goes on as long as anything is left to happen, journeys or not:
// after a spike, connections close and instances stop with no journey in
// flight, and the series must show it.
type seriesRec struct {
	r      *run
	step   sim.Time
	names  []string
	of     [][2]string // each signal's component ("" for the run's own) and what it samples
	series []*sim.Series
	// busy samples, for each component that counts what is in use, the
	// integral of it so far: busy-seconds, whose differences give the
	// mean over a window exactly (an instant's sample of a busy count
	// aliases with work shorter than the step).
	busy     []*sim.Series
	busyComp []int
}

// component is a kind's state in one run: a small state machine the
// interpreter drives.
type component interface {
	// acquire takes the component for p at op o; see acquired. comp is
	// the component's index, which is o.comp unless o names a backend
	// behind a balancer, when it is the replica p's pick chose: the
	// component reads comp, never o.comp.
	acquire(r *run, p *proc, o *op, comp int32, c *compRT) (out acquired, key int64)
	// release gives back a hold; failed says its frame ended by a failure.
	release(r *run, p *proc, h held, failed bool)
	// abandon withdraws p, which waits here, or runs work here, and has
	// given up.
	abandon(now sim.Time, p *proc)
	// waiting counts the requests waiting here now, for the queue guard.
	waiting() int
	resetStats(now sim.Time)
	// result fills the kind's part of cr: capacity, busy, queue, waits.
	result(r *run, cr *ComponentResult, now sim.Time)
	// signals names the time series the component samples (suffixes of
	// its name), and sample records their current values in that order.
	signals() []string
	sample(put func(float64))
}

// acquired is what an acquire did with the caller.
type acquired uint8

const (
	acqGranted  acquired = iota // p holds it (with the key returned) until its frame ends
	acqPassed                   // p goes on, holding nothing
	acqQueued                   // p waits in line; the component grants it later
	acqRejected                 // refused at once: p fails with the component's status
	acqParked                   // the component made p sleep or failed it itself
)

// capacityUser is a component with a capacity, whose busy share a
// balancer can read as a replica's load.
type capacityUser interface {
	busy() *sim.TimeWeighted // time-weighted busy servers, instances or cores
	busyNow() float64
	capacity() float64
}

// signalled is a component that listens to overload signals (an adaptive
// bucket): the outcomes of calls marked signal:, and its own late refusals.
type signalled interface {
	// signal reports a call's outcome with status; 0 is an overload the
	// component saw itself.
	signal(now sim.Time, status int32)
}

// linker is a component that reads other components of the same run (a
// balancer reading its replicas' load); link runs once all are built.
type linker interface {
	link(r *run, ci int32)
}

// lingering is a component that keeps something after the work that
// made it is done (connections left open, idle, for their keep-alive): a
// recovery verdict waits for that to come back down too, not only for the
// queue to drain.
type lingering interface {
	// lingers is how many it keeps now (the verdict's mean_open).
	lingers() int
}

// noWaits is embedded by kinds where nobody waits in line.
type noWaits struct{}

func (noWaits) abandon(sim.Time, *proc) {}
func (noWaits) waiting() int            { return 0 }

// compRT is a component's state in one run: its kind's runtime and the
// counts every kind keeps.
type compRT struct {
	rt       component
	leaked   int64 // holds never released (leak_on_failure)
	offered  int64
	rejected int64
	timedOut int64
	// behind and waitTimeout copy the component's compProg fields: acquire
	// reads them beside the counts it updates, without a lookup in the
	// program's components per acquire.
	behind, waitTimeout int32
}
