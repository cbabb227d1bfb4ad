package model

import (
	"fmt"
	"math"
	"reflect"
)

// sloMeasures is the one list of what an SLO can bound: each measure
// with how to read it from a journey's, a route's or a component's result
// (nil where it does not apply to that subject). The SLO struct's fields
// carry the same YAML keys; compiling and evaluating both read this table.
var sloMeasures = []struct {
	key       string
	journey   func(*JourneyResult) Num
	all       func(*Latency) Num // of every journey, for of: all
	route     func(*RouteResult) Num
	component func(*ComponentResult) Num
	// counts, for a rate of counted events, gives what it counts and out
	// of how many, from whichever of the subject's results is not nil.
	counts func(*JourneyResult, *RouteResult, *ComponentResult) (k, n int64)
}{
	{key: "success_rate", journey: func(j *JourneyResult) Num { return j.SuccessRate },
		counts: func(j *JourneyResult, _ *RouteResult, _ *ComponentResult) (int64, int64) {
			return j.Succeeded, j.Started
		}},
	{key: "failure_rate", journey: (*JourneyResult).FailureRate, route: func(r *RouteResult) Num { return r.FailureRate },
		counts: func(j *JourneyResult, r *RouteResult, _ *ComponentResult) (int64, int64) {
			if j != nil {
				return j.Started - j.Succeeded, j.Started
			}
			return r.Failures, r.Calls
		}},
	{key: "http_failure_rate", journey: func(j *JourneyResult) Num { return j.HTTPFailureRate },
		counts: func(j *JourneyResult, _ *RouteResult, _ *ComponentResult) (int64, int64) {
			return j.RequestFailures, j.Requests
		}},
	{key: "mean", journey: func(j *JourneyResult) Num { return j.Latency.Mean }, all: func(l *Latency) Num { return l.Mean }, route: func(r *RouteResult) Num { return r.Latency.Mean }},
	{key: "p50", journey: func(j *JourneyResult) Num { return j.Latency.P50 }, all: func(l *Latency) Num { return l.P50 }, route: func(r *RouteResult) Num { return r.Latency.P50 }},
	{key: "p95", journey: func(j *JourneyResult) Num { return j.Latency.P95 }, all: func(l *Latency) Num { return l.P95 }, route: func(r *RouteResult) Num { return r.Latency.P95 }},
	{key: "p99", journey: func(j *JourneyResult) Num { return j.Latency.P99 }, all: func(l *Latency) Num { return l.P99 }, route: func(r *RouteResult) Num { return r.Latency.P99 }},
	{key: "rejection_rate", component: (*ComponentResult).RejectionRate,
		counts: func(_ *JourneyResult, _ *RouteResult, c *ComponentResult) (int64, int64) {
			return c.Rejected + c.TimedOut, c.Offered
		}},
	{key: "utilisation", component: func(c *ComponentResult) Num { return c.Utilisation }},
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
			w, isWindowed := windowed(i, m.key, t)
			switch {
			case isWindowed:
				v = w
			case s.Journey != "" && jok && m.journey != nil && s.Of == "all" && j.LatencyAll != nil && m.all != nil:
				v = m.all(j.LatencyAll)
			case s.Journey != "" && jok && m.journey != nil:
				v = m.journey(j)
			case s.Route != "" && rok && m.route != nil:
				v = m.route(r)
			case s.Component != "" && cok && m.component != nil:
				v = m.component(c)
			default:
				continue
			}
			met := !math.IsNaN(float64(v)) && t.Holds(float64(v)) && res.Broken == nil
			label := fmt.Sprintf("%s %s %s", name, m.key, t.Text)
			if s.Of == "all" && m.all != nil {
				label = fmt.Sprintf("%s %s of all %s", name, m.key, t.Text)
			}
			if s.Window != nil {
				label += " in every " + s.Window.T.String() + " window"
			}
			sr := SLOResult{SLO: label, Value: v, Met: met, Bound: *t, Subject: name, Measure: m.key}
			if m.counts != nil && !isWindowed {
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
				switch {
				case m.key == "http_failure_rate":
					sr.Counted = "requests"
				case jr != nil:
					sr.Counted = "journeys"
				case rr != nil:
					sr.Counted = "calls"
				default:
					sr.Counted = "requests offered"
				}
			}
			out = append(out, sr)
		}
	}
	return out
}
