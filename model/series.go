package model

import (
	"capsim/sim"
)

func newSeriesRec(r *run, step sim.Time) *seriesRec {
	s := &seriesRec{r: r, step: step}
	s.names = append(s.names, "journeys_in_flight")
	s.of = append(s.of, [2]string{"", "journeys_in_flight"})
	for i := range r.comps {
		for _, sig := range r.comps[i].rt.signals() {
			s.names = append(s.names, r.p.comps[i].name+"."+sig)
			s.of = append(s.of, [2]string{r.p.comps[i].name, sig})
		}
	}
	for range s.names {
		s.series = append(s.series, sim.NewSeries(step))
	}
	for i := range r.comps {
		if _, ok := r.comps[i].rt.(capacityUser); ok {
			s.busyComp = append(s.busyComp, i)
			s.busy = append(s.busy, sim.NewSeries(step))
		}
	}
	return s
}

func (r *run) onSample(int64) {
	r.sampleNow()
	// Past the arrivals with no journey in flight, only what is still
	// pending (idle timeouts, scaling) can change a signal; once nothing
	// is, the run is over.
	if !r.ended || r.active > 0 || r.s.Pending() > 0 {
		r.s.After(r.series.step, r.kSample, 0)
	}
}

// sampleNow records every signal's value now.
func (r *run) sampleNow() {
	s := r.series
	now := r.s.Now()
	i := 0
	put := func(v float64) {
		s.series[i].Record(now, v)
		i++
	}
	put(float64(r.active))
	for ci := range r.comps {
		r.comps[ci].rt.sample(put)
	}
	for k, ci := range s.busyComp {
		s.busy[k].Record(now, r.comps[ci].rt.(capacityUser).busy().Integral(now))
	}
}

func (s *seriesRec) finish(now sim.Time) *TimeSeries {
	// The state at the end, for a last step boundary that falls on it.
	s.r.sampleNow()
	ts := &TimeSeries{Step: s.step.Seconds()}
	for i, name := range s.names {
		s.series[i].Close(now)
		ts.Signals = append(ts.Signals, Signal{Name: name, Component: s.of[i][0], Measure: s.of[i][1], Values: s.series[i].Values})
	}
	for k, ci := range s.busyComp {
		s.busy[k].Close(now)
		ts.BusyTime = append(ts.BusyTime, Signal{Name: s.r.p.comps[ci].name + ".busy_s", Component: s.r.p.comps[ci].name,
			Measure: "busy_s", Values: s.busy[k].Values})
	}
	return ts
}
