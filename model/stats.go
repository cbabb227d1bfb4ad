package model

import "capsim/sim"

// stats are the per-run tallies kept outside the components.
type stats struct {
	windowed  []sloWindows
	journeys  []journeyStats
	routes    []routeStats
	tolerated int64
}

type journeyStats struct {
	started, succeeded, failed int64
	requests, requestFailures  int64
	latency                    sim.Tally // of succeeded journeys
	// all is of every journey that ended, read through allEnded: until
	// the first failure it would hold the values latency holds, added in
	// the same order, so it is kept only from then on, starting as a copy
	// of latency (a Merge into an empty Tally copies it exactly). That
	// saves an Add per journey while none fails.
	all    sim.Tally
	stages []stageCount
}

func (j *journeyStats) succeed(d float64) {
	j.succeeded++
	j.latency.Add(d)
	if j.failed > 0 {
		j.all.Add(d)
	}
}

func (j *journeyStats) fail(d float64) {
	if j.failed == 0 {
		j.all.Merge(&j.latency)
	}
	j.failed++
	j.all.Add(d)
}

// allEnded is the tally of every journey that ended.
func (j *journeyStats) allEnded() *sim.Tally {
	if j.failed == 0 {
		return &j.latency
	}
	return &j.all
}

// sloWindows holds what a windowed SLO needs of its journey, window by
// window of journeys' end times.
type sloWindows struct {
	slo, journey int
	size         sim.Time
	windows      []journeyWindow
}

type journeyWindow struct {
	succeeded, failed int64
	latency, all      sim.Tally
}

// journeyEnded counts a journey's end in the windows of the SLOs on it.
func (s *stats) journeyEnded(ji int32, since sim.Time, d float64, ok bool) {
	for i := range s.windowed {
		w := &s.windowed[i]
		if w.journey != int(ji) {
			continue
		}
		k := int(since / w.size)
		for len(w.windows) <= k {
			w.windows = append(w.windows, journeyWindow{})
		}
		jw := &w.windows[k]
		jw.all.Add(d)
		if ok {
			jw.succeeded++
			jw.latency.Add(d)
		} else {
			jw.failed++
		}
	}
}

type stageCount struct {
	stage, component string
	n                int64
}

func (j *journeyStats) addStage(stage, comp string) {
	for i := range j.stages {
		if j.stages[i].stage == stage && j.stages[i].component == comp {
			j.stages[i].n++
			return
		}
	}
	j.stages = append(j.stages, stageCount{stage: stage, component: comp, n: 1})
}

type routeStats struct {
	calls, failures int64
	orphaned        int64     // calls and jobs that ended after their caller gave up
	orphanedTime    float64   // seconds they worked on after it did
	latency         sim.Tally // of every call, failed ones included
	client          sim.Tally // of every call as its caller saw it
	statuses        []statusCount
}

type statusCount struct {
	status int32
	n      int64
}

func newStats(p *program) stats {
	s := stats{journeys: make([]journeyStats, len(p.journeys)), routes: make([]routeStats, len(p.routes))}
	for i := range p.slos {
		ji := p.sloJourney[i]
		if ji < 0 {
			continue
		}
		if w := p.slos[i].Window; w != nil {
			s.windowed = append(s.windowed, sloWindows{slo: i, journey: ji, size: w.T})
		}
	}
	return s
}

func (s *stats) reset() {
	for i := range s.journeys {
		s.journeys[i] = journeyStats{}
	}
	for i := range s.routes {
		s.routes[i] = routeStats{}
	}
	for i := range s.windowed {
		s.windowed[i].windows = s.windowed[i].windows[:0]
	}
	s.tolerated = 0
}

// orphanDone counts a call or job that ended after its caller gave up.
func (s *stats) orphanDone(p *proc, now sim.Time) {
	if p.journey != nil && p.journey.counted && p.route >= 0 {
		s.routes[p.route].orphaned++
		if p.orphanedAt != sim.Never {
			s.routes[p.route].orphanedTime += (now - p.orphanedAt).Seconds()
		}
	}
}

// callerDone times call or job p as its caller saw it: to now, when the
// caller has its status or stops waiting for it, whichever comes first
// (the run calls it once per call, see finish and cancelKids).
func (s *stats) callerDone(p *proc, now sim.Time) {
	if p.journey != nil && p.journey.counted && p.route >= 0 {
		s.routes[p.route].client.Add((now - p.start).Seconds())
	}
}

func (s *stats) routeDone(p *proc, now sim.Time, status int32) {
	if p.journey == nil || !p.journey.counted {
		return
	}
	rs := &s.routes[p.route]
	rs.calls++
	rs.latency.Add((now - p.start).Seconds())
	if status >= 400 {
		rs.failures++
	}
	for i := range rs.statuses {
		if rs.statuses[i].status == status {
			rs.statuses[i].n++
			return
		}
	}
	rs.statuses = append(rs.statuses, statusCount{status: status, n: 1})
}
