package model

import "capsim/sim"

// seriesRec samples signals at a fixed step for time-series charts: a
// sampling event every step records each signal's value in its sim.Series.
type seriesRec struct {
	step   sim.Time
	names  []string
	series []*sim.Series
}

func newSeriesRec(p *program, step sim.Time) *seriesRec {
	s := &seriesRec{step: step}
	s.names = append(s.names, "journeys_in_flight")
	for _, c := range p.comps {
		switch c.kind {
		case kindBucket:
			s.names = append(s.names, c.name+".rate")
		case kindBalancer:
			s.names = append(s.names, c.name+".sessions")
		default:
			s.names = append(s.names, c.name+".busy", c.name+".queue")
		}
	}
	for range s.names {
		s.series = append(s.series, sim.NewSeries(step))
	}
	return s
}

func (r *run) onSample(int64) {
	s := r.series
	now := r.s.Now()
	i := 0
	put := func(v float64) {
		s.series[i].Record(now, v)
		i++
	}
	put(float64(r.active))
	for ci := range r.comps {
		c := &r.comps[ci]
		switch {
		case c.pool != nil:
			put(float64(c.pool.InUse()))
			put(float64(c.pool.Waiting()))
		case c.lock != nil:
			put(c.lock.Held.Value())
			put(c.lock.Waiting.Value())
		case c.worker != nil:
			put(c.worker.Busy.Value())
			put(float64(c.worker.Waiting()))
		case c.bucket != nil:
			put(c.bucket.CurrentRate())
		case c.cpu != nil:
			busy := c.cpu.Busy.Value()
			put(busy)
			put(c.cpu.InSystem.Value() - busy)
		case c.bal != nil:
			n := 0.0
			for i := range c.balRT.sessions {
				n += c.balRT.sessions[i].Value()
			}
			put(n)
		}
	}
	if !r.ended || r.active > 0 {
		r.s.After(s.step, r.kSample, 0)
	}
}

func (s *seriesRec) finish(now sim.Time) *TimeSeries {
	ts := &TimeSeries{Step: s.step.Seconds()}
	for i, name := range s.names {
		s.series[i].Close(now)
		ts.Signals = append(ts.Signals, Signal{Name: name, Values: s.series[i].Values})
	}
	return ts
}
