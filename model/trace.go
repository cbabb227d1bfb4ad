package model

// TraceEvent is one line of a run's trace, shaped like the application and
// proxy logs a team joins by request id, so a simulated trace can be laid
// beside real ones.
type TraceEvent struct {
	T         float64 `json:"t"` // simulated seconds
	Event     string  `json:"event"`
	Journey   string  `json:"journey,omitempty"`
	JourneyID int64   `json:"journey_id,omitempty"`
	RequestID int64   `json:"request_id,omitempty"`
	JobID     int64   `json:"job_id,omitempty"`
	Route     string  `json:"route,omitempty"`
	Component string  `json:"component,omitempty"`
	Status    int32   `json:"status,omitempty"`
	Result    string  `json:"result,omitempty"` // success | failure, on journey and request ends
	Stage     string  `json:"failure_stage,omitempty"`
	Duration  float64 `json:"duration_s,omitempty"`
	// Instances is the count an autoscaled worker moved to, on a scale
	// event (at least 1, so never omitted there).
	Instances int `json:"instances,omitempty"`
}

func (r *run) fillTrace(event string, p *proc) *TraceEvent {
	e := &r.trace
	*e = TraceEvent{T: r.s.Now().Seconds(), Event: event}
	if p != nil {
		if p.journey != nil {
			e.Journey = r.p.journeys[p.journey.typ].name
			e.JourneyID = p.journey.id
		}
		e.RequestID, e.JobID = p.reqID, p.jobID
		if p.route >= 0 {
			e.Route = r.p.routes[p.route].name
		}
	}
	return e
}

func (r *run) emit(event string, p *proc, comp int32, status int32) {
	if r.opts.Trace == nil {
		return
	}
	e := r.fillTrace(event, p)
	if comp >= 0 {
		e.Component = r.p.comps[comp].name
	}
	e.Status = status
	r.opts.Trace(e)
}

func result(status int32) string {
	if status < 400 {
		return "success"
	}
	return "failure"
}

// emitEnd traces a journey's end under the journey's own name, as the
// application logs its outcome (trip_creation success / failure).
func (r *run) emitEnd(p *proc, status int32) {
	if r.opts.Trace == nil {
		return
	}
	e := r.fillTrace(r.p.journeys[p.journey.typ].name, p)
	e.Route = ""
	e.RequestID, e.JobID = p.journey.lastReq, p.journey.lastJob
	e.Status, e.Result = status, result(status)
	e.Duration = (r.s.Now() - p.journey.start).Seconds()
	if status >= 400 {
		e.Stage = r.stageName(p.failStage, p)
		e.Component = r.compName(p.failComp)
	}
	r.opts.Trace(e)
}

func (r *run) emitRequestEnd(p *proc, status int32, stage int32) {
	if r.opts.Trace == nil {
		return
	}
	event := "request_end"
	if p.kind == procJob {
		event = "job_end"
	}
	e := r.fillTrace(event, p)
	e.Status, e.Result = status, result(status)
	e.Duration = (r.s.Now() - p.start).Seconds()
	if status >= 400 {
		e.Stage = r.stageName(stage, p)
		e.Component = r.compName(p.failComp)
	}
	r.opts.Trace(e)
}

// emitTimeout traces a caller giving up on the call or job o: the callee
// may go on working, but nobody waits for its answer any more.
func (r *run) emitTimeout(p *proc, o *op) {
	if r.opts.Trace == nil {
		return
	}
	e := r.fillTrace("request_timeout", p)
	if o.code == opJob {
		e.Event = "job_timeout"
	} else {
		e.RequestID = p.awaitedReq
	}
	e.Route, e.Status = r.p.routes[o.route].name, 504
	r.opts.Trace(e)
}
