package model

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"capsim/sim"
)

// TracePrefix starts the name of every event capsim itself traces. A
// scenario's log: events are written under their own names, which may
// not start with it, so a reader tells the two apart by name alone.
const TracePrefix = "capsim."

// The events capsim traces (the README's trace section lists their fields).
const (
	EvJourneyStart   = TracePrefix + "journey_start"
	EvJourneyEnd     = TracePrefix + "journey_end"
	EvRequestStart   = TracePrefix + "request_start"
	EvRequestEnd     = TracePrefix + "request_end"
	EvRequestTimeout = TracePrefix + "request_timeout"
	EvJobStart       = TracePrefix + "job_start"
	EvJobEnd         = TracePrefix + "job_end"
	EvJobTimeout     = TracePrefix + "job_timeout"
	EvEnqueue        = TracePrefix + "enqueue"
	EvStart          = TracePrefix + "start"
	EvEnd            = TracePrefix + "end"
	EvRejected       = TracePrefix + "rejected"
	EvTimeout        = TracePrefix + "timeout"
	EvColdStart      = TracePrefix + "cold_start"
	EvColdReady      = TracePrefix + "cold_ready"
	EvScale          = TracePrefix + "scale"
)

// TraceEvent is one line of a run's trace, shaped like the application and
// proxy logs a team joins by request id, so a simulated trace can be laid
// beside real ones. AppendJSON writes it; which fields a line carries
// depends on the event (see the README).
type TraceEvent struct {
	T float64 // simulated seconds
	// Time is T as a wall-clock time (RFC 3339, nanoseconds), set by a
	// writer given an origin; empty otherwise.
	Time      string
	Event     string
	Journey   string
	JourneyID int64
	// UserID is the journey's user, for journeys drawn from a pool of users.
	UserID int64
	// RequestID counts requests in the run (1, 2, ...); Request is the same
	// request's id as a proxy logs it, 32 hex digits drawn from the seed.
	RequestID int64
	Request   string
	JobID     int64
	Route     string
	// Edge marks a request a journey's client made: what a proxy in front
	// of the system logs.
	Edge      bool
	Component string
	// Instance is the worker instance (from 1) a cold start is about.
	Instance int
	Status   int32
	Result   string // success | failure, on journey, request and job ends
	Stage    string
	Duration float64 // on ends: since the journey, request or job started
	// Since names the event of the same request, job or journey (when a
	// log: step runs outside both) before this log: event; SinceS is the
	// time from it, and SinceJourney the time from the journey's start.
	Since        string
	SinceS       float64
	SinceJourney float64
	// Gauges says Queue and InFlight were measured at Component: the
	// requests waiting there and those holding it, after the event.
	Gauges    bool
	Queue     int
	InFlight  int
	Start     string // cold | warm: how a worker's instance took this job
	Instances int    // the count an autoscaled worker moved to (at least 1)
	// Attributes holds the journey's attributes as a JSON object, on its
	// start and end.
	Attributes string
}

// AppendJSON appends the event as one JSON object, without a newline. The
// bytes depend on the event alone.
func (e *TraceEvent) AppendJSON(b []byte) []byte {
	b = append(b, `{"t":`...)
	b = appendFloat(b, e.T)
	b = appendStr(b, "time", e.Time)
	b = appendStr(b, "event", e.Event)
	b = appendStr(b, "journey", e.Journey)
	b = appendInt(b, "journey_id", e.JourneyID)
	b = appendInt(b, "user_id", e.UserID)
	b = appendStr(b, "request_id", e.Request)
	b = appendInt(b, "job_id", e.JobID)
	b = appendStr(b, "route", e.Route)
	if e.Edge {
		b = append(b, `,"edge":true`...)
	}
	b = appendStr(b, "component", e.Component)
	b = appendInt(b, "instance", int64(e.Instance))
	b = appendInt(b, "status", int64(e.Status))
	if e.Result != "" {
		b = appendStr(b, "result", e.Result)
		b = appendStr(b, "failure_stage", e.Stage)
		b = append(b, `,"duration_s":`...)
		b = appendFloat(b, e.Duration)
	}
	if e.Since != "" {
		b = appendStr(b, "since", e.Since)
		b = append(b, `,"since_s":`...)
		b = appendFloat(b, e.SinceS)
		b = append(b, `,"since_journey_s":`...)
		b = appendFloat(b, e.SinceJourney)
	}
	if e.Gauges {
		b = append(b, `,"queue":`...)
		b = strconv.AppendInt(b, int64(e.Queue), 10)
		b = append(b, `,"in_flight":`...)
		b = strconv.AppendInt(b, int64(e.InFlight), 10)
	}
	b = appendStr(b, "start", e.Start)
	b = appendInt(b, "instances", int64(e.Instances))
	if e.Attributes != "" {
		b = append(b, `,"attributes":`...)
		b = append(b, e.Attributes...)
	}
	return append(b, '}')
}

// MarshalJSON is AppendJSON for encoding/json.
func (e *TraceEvent) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

func appendStr(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendQuoted(b, v)
}

func appendInt(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

// appendFloat writes v as encoding/json does: the shortest decimal that
// reads back as v, in exponent form only for very small or large values.
func appendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// 1e-07 reads better, and as encoding/json writes it, as 1e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendQuoted writes s as a JSON string. Names come from a scenario and
// may hold anything YAML allows.
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// tracer is a run's tracing state, allocated only when the run is traced:
// nothing of it is touched when it is not.
type tracer struct {
	idKey uint64 // derived from the seed: request ids differ between seeds
	// owners holds, per request, job and journey open, what its log:
	// events are timed from.
	owners map[int64]*traceOwner
	// inFlight counts, per component, the holds granted and not released.
	inFlight []int
	// cold says, per worker component and instance, whether the job it
	// runs now took it straight from a cold start.
	cold map[int64]bool
	// logged holds, per journey open, when each log: event last happened
	// in it, for since:.
	logged map[int64]map[int32]sim.Time
}

type traceOwner struct {
	last string
	at   sim.Time
	edge bool // a request's: its end is an edge request's too
}

func newTracer(r *run) *tracer {
	t := &tracer{idKey: mix64(r.opts.Seed ^ 0x6361707369d5ea3b), owners: map[int64]*traceOwner{},
		inFlight: make([]int, len(r.p.comps)), cold: map[int64]bool{}, logged: map[int64]map[int32]sim.Time{}}
	return t
}

// mix64 is the SplitMix64 finaliser: a bijection on 64 bits, so distinct
// counters give distinct ids.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// requestHex is request n's id as nginx's $request_id writes one: 32 hex
// digits. The first 16 are unique within a run.
func (t *tracer) requestHex(n int64) string {
	if n == 0 {
		return ""
	}
	hi := mix64(t.idKey ^ uint64(n))
	lo := mix64(hi ^ t.idKey)
	var b [32]byte
	const hex = "0123456789abcdef"
	for i := 0; i < 16; i++ {
		b[15-i] = hex[hi>>(4*i)&0xf]
		b[31-i] = hex[lo>>(4*i)&0xf]
	}
	return string(b[:])
}

// Owner keys: requests and jobs by their counters, journeys negative.
func reqKey(id int64) int64     { return id << 1 }
func jobKey(id int64) int64     { return id<<1 | 1 }
func journeyKey(id int64) int64 { return -id }

// ownerKey is the request, job or journey p's steps belong to: a fan-out
// branch's or a poller's are its parent's.
func (r *run) ownerKey(p *proc) int64 {
	for q := p; q != nil; q = q.parent {
		switch q.kind {
		case procCall:
			return reqKey(q.reqID)
		case procJob:
			return jobKey(q.jobID)
		case procRoot:
			return journeyKey(q.journey.id)
		}
		if q.parent != nil && q.parent.gen != q.pgen {
			break // an orphan: its parent's record is reused
		}
	}
	return journeyKey(p.journey.id)
}

func (r *run) fillTrace(event string, p *proc) *TraceEvent {
	e := &r.trace
	*e = TraceEvent{T: r.s.Now().Seconds(), Event: event}
	if p != nil {
		if p.journey != nil {
			j := &r.p.journeys[p.journey.typ]
			e.Journey = j.name
			e.JourneyID = p.journey.id
			if j.users > 0 {
				e.UserID = -p.journey.user - int64(p.journey.typ)<<40
			}
		}
		e.RequestID, e.JobID = p.reqID, p.jobID
		e.Request = r.tr.requestHex(p.reqID)
		if p.route >= 0 {
			e.Route = r.p.routes[p.route].name
		}
	}
	return e
}

// gauges adds what component comp holds and queues now.
func (r *run) gauges(e *TraceEvent, comp int32) {
	e.Component = r.p.comps[comp].name
	e.Gauges = true
	e.Queue = r.comps[comp].rt.waiting()
	e.InFlight = r.tr.inFlight[comp]
}

// The emit functions test r.tr, nil unless the run is traced, and are small
// enough to be inlined where they are called: an untraced run pays that
// test and no call.
func (r *run) emit(event string, p *proc, comp int32, status int32) {
	if r.tr != nil {
		r.emitTraced(event, p, comp, status)
	}
}

func (r *run) emitTraced(event string, p *proc, comp int32, status int32) {
	e := r.fillTrace(event, p)
	if comp >= 0 {
		r.gauges(e, comp)
	}
	e.Status = status
	r.opts.Trace(e)
}

// emitOpen traces the start of a journey, request or job and opens the
// record its log: events are timed from.
func (r *run) emitOpen(event string, p *proc) {
	if r.tr != nil {
		r.emitOpenTraced(event, p)
	}
}

func (r *run) emitOpenTraced(event string, p *proc) {
	e := r.fillTrace(event, p)
	var key int64
	switch p.kind {
	case procCall:
		key = reqKey(p.reqID)
		e.Edge = p.parent != nil && p.parent.client
	case procJob:
		key = jobKey(p.jobID)
	default:
		key = journeyKey(p.journey.id)
		e.Attributes = r.attributesJSON(p.journey)
	}
	r.tr.owners[key] = &traceOwner{last: event, at: r.s.Now(), edge: e.Edge}
	r.opts.Trace(e)
}

// attributesJSON writes a journey's attributes as a JSON object, in the
// order the scenario first names them.
func (r *run) attributesJSON(jr *jrec) string {
	if len(jr.attrs) == 0 {
		return ""
	}
	var b strings.Builder
	buf := []byte{'{'}
	for i, v := range jr.attrs {
		if math.IsNaN(v) {
			continue
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = appendQuoted(buf, r.p.attrs[i])
		buf = append(buf, ':')
		buf = appendFloat(buf, v)
	}
	if len(buf) == 1 {
		return ""
	}
	b.Write(append(buf, '}'))
	return b.String()
}

// emitLog traces a log: step, with the time since the event before it in
// the same request, job or journey, and the gauges of the component p
// holds innermost.
func (r *run) emitLog(lo *op, p *proc) {
	if r.tr != nil {
		r.emitLogTraced(lo, p)
	}
}

func (r *run) emitLogTraced(lo *op, p *proc) {
	name := r.p.names[lo.name]
	e := r.fillTrace(name, p)
	now := r.s.Now()
	key := r.ownerKey(p)
	o := r.tr.owners[key]
	if o == nil { // an orphan outliving its request's end: time from the journey
		o = &traceOwner{last: EvJourneyStart, at: p.journey.start}
		r.tr.owners[key] = o
	}
	e.Since, e.SinceS = o.last, (now - o.at).Seconds()
	e.SinceJourney = (now - p.journey.start).Seconds()
	o.last, o.at = name, now
	seen := r.tr.logged[p.journey.id]
	if seen == nil {
		seen = map[int32]sim.Time{}
		r.tr.logged[p.journey.id] = seen
	}
	if lo.route >= 0 {
		// Timed from the named event's last time in the journey, or from
		// the journey's start when it has not happened yet.
		e.Since, e.SinceS = EvJourneyStart, e.SinceJourney
		if at, ok := seen[lo.route]; ok {
			e.Since, e.SinceS = r.p.names[lo.route], (now - at).Seconds()
		}
	}
	seen[lo.name] = now
	if n := len(p.held); n > 0 {
		h := p.held[n-1]
		r.gauges(e, h.comp)
		if r.p.comps[h.comp].kind == workerKind {
			e.Start = "warm"
			if r.tr.cold[int64(h.comp)<<32|h.key] {
				e.Start = "cold"
			}
		}
	}
	r.opts.Trace(e)
}

func result(status int32) string {
	if status < 400 {
		return "success"
	}
	return "failure"
}

// emitEndTraced traces a journey's end. It names the last request and job the
// journey made, as an application logs a journey's outcome in the request
// that completes it. Its caller tests r.tr.
func (r *run) emitEndTraced(p *proc, status int32) {
	e := r.fillTrace(EvJourneyEnd, p)
	e.Route = ""
	e.RequestID, e.JobID = p.journey.lastReq, p.journey.lastJob
	e.Request = r.tr.requestHex(e.RequestID)
	e.Status, e.Result = status, result(status)
	e.Duration = (r.s.Now() - p.journey.start).Seconds()
	e.Attributes = r.attributesJSON(p.journey)
	if status >= 400 {
		e.Stage = r.stageName(p.failStage, p)
		e.Component = r.compName(p.failComp)
	}
	delete(r.tr.owners, journeyKey(p.journey.id))
	delete(r.tr.logged, p.journey.id)
	r.opts.Trace(e)
}

func (r *run) emitRequestEnd(p *proc, status int32, stage int32) {
	if r.tr != nil {
		r.emitRequestEndTraced(p, status, stage)
	}
}

func (r *run) emitRequestEndTraced(p *proc, status int32, stage int32) {
	event, key := EvRequestEnd, reqKey(p.reqID)
	if p.kind == procJob {
		event, key = EvJobEnd, jobKey(p.jobID)
	}
	e := r.fillTrace(event, p)
	if o := r.tr.owners[key]; o != nil {
		e.Edge = o.edge
	}
	e.Status, e.Result = status, result(status)
	e.Duration = (r.s.Now() - p.start).Seconds()
	if status >= 400 {
		e.Stage = r.stageName(stage, p)
		e.Component = r.compName(p.failComp)
	}
	delete(r.tr.owners, key)
	r.opts.Trace(e)
}

// emitTimeout traces a caller giving up on the call or job o: the callee
// may go on working, but nobody waits for its answer any more.
func (r *run) emitTimeout(p *proc, o *op) {
	if r.tr != nil {
		r.emitTimeoutTraced(p, o)
	}
}

func (r *run) emitTimeoutTraced(p *proc, o *op) {
	e := r.fillTrace(EvRequestTimeout, p)
	if o.code == opFanout {
		// A fan-out is no request of its own: its branches' calls carry
		// their own timeouts, and the step's end is the route's failure.
		return
	}
	if o.code == opJob {
		e.Event = EvJobTimeout
	} else {
		e.RequestID = p.awaitedReq
		e.Request = r.tr.requestHex(e.RequestID)
	}
	e.Route, e.Status = r.p.routes[o.route].name, 504
	r.opts.Trace(e)
}

// traceAcquired traces p taking component comp (instance or key k), at
// once or after waiting; its hold counts as in flight until released.
func (r *run) traceAcquired(p *proc, comp int32, k int64) {
	r.tr.inFlight[comp]++
	if w, ok := r.comps[comp].rt.(*workerRT); ok {
		r.tr.cold[int64(comp)<<32|k] = w.GrantCold
	}
	r.emit(EvStart, p, comp, 0)
}

// traceReleased traces p giving back component comp.
func (r *run) traceReleased(p *proc, comp int32) {
	r.tr.inFlight[comp]--
	r.emit(EvEnd, p, comp, 0)
}

// traceCold traces a worker instance starting cold, or ready after it.
func (r *run) traceCold(comp, inst int32, ready bool) {
	event := EvColdStart
	if ready {
		event = EvColdReady
	}
	e := r.fillTrace(event, nil)
	r.gauges(e, comp)
	e.Instance = int(inst) + 1
	r.opts.Trace(e)
}
