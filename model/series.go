package model

import "capsim/sim"

// seriesRec samples signals at a fixed step for time-series charts.
type seriesRec struct {
	step    sim.Time
	signals []Signal
}

func newSeriesRec(p *program, step sim.Time) *seriesRec {
	s := &seriesRec{step: step}
	s.signals = append(s.signals, Signal{Name: "journeys_in_flight"})
	for _, c := range p.comps {
		if c.kind == kindBucket {
			s.signals = append(s.signals, Signal{Name: c.name + ".rate"})
			continue
		}
		if c.kind == kindBalancer {
			s.signals = append(s.signals, Signal{Name: c.name + ".sessions"})
			continue
		}
		s.signals = append(s.signals, Signal{Name: c.name + ".busy"}, Signal{Name: c.name + ".queue"})
	}
	return s
}

func (r *run) onSample(int64) {
	s := r.series
	i := 0
	put := func(v float64) {
		s.signals[i].Values = append(s.signals[i].Values, v)
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

func (s *seriesRec) finish(r *run, now sim.Time) *TimeSeries {
	return &TimeSeries{Step: s.step.Seconds(), Signals: s.signals}
}
