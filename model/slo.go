package model

import (
	"fmt"
	"math"
	"reflect"
)

// sloMeasure is what an SLO can bound: its YAML key, with how to read it
// from a journey's, a route's or a component's result (nil where it does
// not apply to that subject).
type sloMeasure struct {
	key       string
	journey   func(*JourneyResult) Num
	route     func(*RouteResult) Num
	component func(*ComponentResult) Num
	// counts, for a rate of counted events, gives what it counts and out
	// of how many, from whichever of the subject's results is not nil.
	counts func(*JourneyResult, *RouteResult, *ComponentResult) (k, n int64)
	// of holds the measure it bounds, by subject.
	of map[Subject]Measure
}

// sloKeys are the SLO keys in the order an SLO's bounds are evaluated,
// and reported.
var sloKeys = []string{"success_rate", "failure_rate", "http_failure_rate", "mean", "p50", "p95", "p99", "rejection_rate", "utilisation"}

// sloMeasures is the one list of what an SLO can bound, made from the
// measures of the vocabulary that name an SLO key. The SLO struct's
// fields carry the same YAML keys; compiling and evaluating both read
// this table.
var sloMeasures = sloTable(sloKeys)

func sloTable(keys []string) []sloMeasure {
	out := make([]sloMeasure, 0, len(keys))
	for _, key := range keys {
		sm := sloMeasure{key: key, of: map[Subject]Measure{}}
		for _, d := range vocabulary {
			if d.slo == key {
				sm.of[d.subject] = Measure{d}
			}
		}
		if m, ok := sm.of[SubjectJourney]; ok {
			sm.journey = func(j *JourneyResult) Num { v, _ := m.journeyValue(j); return Num(v) }
		}
		if m, ok := sm.of[SubjectRoute]; ok {
			sm.route = func(r *RouteResult) Num { v, _ := m.routeValue(r); return Num(v) }
		}
		if m, ok := sm.of[SubjectComponent]; ok {
			sm.component = func(c *ComponentResult) Num { v, _ := m.componentValue(c); return Num(v) }
		}
		counted := false
		for _, m := range sm.of {
			_, ok := m.Rate()
			counted = counted || ok
		}
		if counted {
			of := sm.of
			sm.counts = func(j *JourneyResult, r *RouteResult, c *ComponentResult) (int64, int64) {
				var k, n int64
				switch {
				case j != nil:
					k, n, _ = of[SubjectJourney].counts(func(m Measure) (float64, bool) { return m.journeyValue(j) })
				case r != nil:
					k, n, _ = of[SubjectRoute].counts(func(m Measure) (float64, bool) { return m.routeValue(r) })
				case c != nil:
					k, n, _ = of[SubjectComponent].counts(func(m Measure) (float64, bool) { return m.componentValue(c) })
				}
				return k, n
			}
		}
		out = append(out, sm)
	}
	return out
}

// sloField is the index of each YAML key's field in SLO.
var _, sloField = fieldsOf(reflect.TypeOf(SLO{}))

// bound returns the SLO's threshold on measure key, or nil.
func (s *SLO) bound(key string) *Threshold {
	return reflect.ValueOf(s).Elem().Field(sloField[key]).Interface().(*Threshold)
}

// subject names what the SLO is about: journey, route or component.
func (s *SLO) subject() string {
	switch {
	case s.Journey != "":
		return "journey"
	case s.Route != "":
		return "route"
	}
	return "component"
}

// subjectOf is what the SLO is about, as a measure's subject.
func (s *SLO) subjectOf() Subject {
	switch {
	case s.Journey != "":
		return SubjectJourney
	case s.Route != "":
		return SubjectRoute
	}
	return SubjectComponent
}

// measuresOf lists the measures that apply to a subject, for messages.
func measuresOf(subject string) []string {
	var keys []string
	for _, m := range sloMeasures {
		if subject == "journey" && m.journey != nil || subject == "route" && m.route != nil || subject == "component" && m.component != nil {
			keys = append(keys, m.key)
		}
	}
	return keys
}

// worstWindow returns, for windowed SLO i, the value of measure key in
// its worst window (the one furthest on the failing side of t), and false
// for an SLO without a window.
func (r *run) worstWindow(i int, key string, t *Threshold) (Num, bool) {
	for k := range r.st.windowed {
		w := &r.st.windowed[k]
		if w.slo != i {
			continue
		}
		worst := math.NaN()
		for _, jw := range w.windows {
			v := windowValue(&jw, key, r.p.slos[i].Of == "all")
			if math.IsNaN(v) {
				continue // no journey ended in the window
			}
			if math.IsNaN(worst) || (t.Op[0] == '<') == (v > worst) {
				worst = v
			}
		}
		return Num(worst), true
	}
	return 0, false
}

func windowValue(jw *journeyWindow, key string, all bool) float64 {
	n := jw.succeeded + jw.failed
	tally := &jw.latency
	if all {
		tally = &jw.all
	}
	switch key {
	case "success_rate":
		return float64(ratio(jw.succeeded, n))
	case "failure_rate":
		return float64(ratio(jw.failed, n))
	case "mean":
		return tally.Mean()
	case "p50":
		return tally.Quantile(0.5)
	case "p95":
		return tally.Quantile(0.95)
	case "p99":
		return tally.Quantile(0.99)
	}
	return math.NaN()
}

func evaluateSLOs(slos []SLO, res *Result, windowed func(i int, key string, t *Threshold) (Num, bool)) []SLOResult {
	var out []SLOResult
	for i := range slos {
		s := &slos[i]
		name := s.Journey + s.Route + s.Component
		j, jok := res.Journey(s.Journey)
		r, rok := res.Route(s.Route)
		c, cok := res.Component(s.Component)
		for _, m := range sloMeasures {
			t := s.bound(m.key)
			if t == nil {
				continue
			}
			var v Num
			measure := m.of[s.subjectOf()]
			all := s.Of == "all" && measure.d != nil && measure.d.ofAll.d != nil
			if all {
				measure = measure.d.ofAll // the same duration, of every one as its client saw it
			}
			w, isWindowed := windowed(i, m.key, t)
			switch {
			case isWindowed:
				v = w
			case s.Journey != "" && jok && m.journey != nil:
				jv, _ := measure.journeyValue(j)
				v = Num(jv)
			case s.Route != "" && rok && m.route != nil:
				rv, _ := measure.routeValue(r)
				v = Num(rv)
			case s.Component != "" && cok && m.component != nil:
				v = m.component(c)
			default:
				continue
			}
			var idle bool
			switch {
			case s.Journey != "":
				idle = jok && j.Started == 0
			case s.Route != "":
				idle = rok && r.Calls == 0
			default:
				idle = cok && c.Offered == 0
			}
			idle = idle && math.IsNaN(float64(v)) // a utilisation of 0 is measured
			met := (idle || !math.IsNaN(float64(v)) && t.Holds(float64(v))) && res.Broken == nil
			label := fmt.Sprintf("%s %s %s", name, m.key, t.Text)
			if all {
				label = fmt.Sprintf("%s %s of all %s", name, m.key, t.Text)
			}
			if s.Window != nil {
				label += " in every " + s.Window.T.String() + " window"
			}
			sr := SLOResult{SLO: label, Value: v, Met: met, Idle: idle, Bound: *t, Key: measure.Of(name), All: all}
			if rate, ok := measure.Rate(); ok && m.counts != nil && !isWindowed {
				var jr *JourneyResult
				var rr *RouteResult
				var cr *ComponentResult
				switch {
				case s.Journey != "":
					jr = j
				case s.Route != "":
					rr = r
				default:
					cr = c
				}
				sr.Count, sr.Trials = m.counts(jr, rr, cr)
				sr.Counted = rate.Counted
			}
			out = append(out, sr)
		}
	}
	return out
}
