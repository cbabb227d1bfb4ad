package model

import "capsim/sim"

// stats are the per-run tallies kept outside the components.
type stats struct {
	journeys  []journeyStats
	routes    []routeStats
	tolerated int64
}

type journeyStats struct {
	started, succeeded, failed int64
	requests, requestFailures  int64
	latency                    sim.Tally // of succeeded journeys
	stages                     []stageCount
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
	latency         sim.Tally // of every call, failed ones included
	statuses        []statusCount
}

type statusCount struct {
	status int32
	n      int64
}

func newStats(p *program) stats {
	return stats{journeys: make([]journeyStats, len(p.journeys)), routes: make([]routeStats, len(p.routes))}
}

func (s *stats) reset() {
	for i := range s.journeys {
		s.journeys[i] = journeyStats{}
	}
	for i := range s.routes {
		s.routes[i] = routeStats{}
	}
	s.tolerated = 0
}

// orphanDone counts a call or job that ended after its caller gave up.
func (s *stats) orphanDone(p *proc) {
	if p.journey != nil && p.journey.counted && p.route >= 0 {
		s.routes[p.route].orphaned++
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
