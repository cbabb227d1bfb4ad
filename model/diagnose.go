package model

import "fmt"

// A Diagnostic points out something in a run's result that its tables show
// only to a reader who knows where to look. It is advice, not an error: the
// run is as valid with it as without.
type Diagnostic interface {
	fmt.Stringer
	diagnostic()
}

// HiddenFailures is a journey whose users fail far more often than its HTTP
// requests do: the gap an HTTP dashboard hides, because one failed request
// sinks a whole journey of many.
type HiddenFailures struct {
	Journey            string
	JourneyFailureRate float64 // of the journeys started
	HTTPFailureRate    float64 // of the journey's requests
}

func (HiddenFailures) diagnostic() {}

func (h HiddenFailures) String() string {
	s := fmt.Sprintf("%s: %.2f%% of journeys failed but only %.2f%% of their HTTP requests",
		h.Journey, 100*h.JourneyFailureRate, 100*h.HTTPFailureRate)
	if h.HTTPFailureRate > 0 {
		s += fmt.Sprintf(": an HTTP dashboard understates the failure %.0fx", h.JourneyFailureRate/h.HTTPFailureRate)
	}
	return s
}

// Diagnostics lists what is worth pointing out in the result, journey by
// journey in scenario order. A journey's failures are hidden when at least
// 1 % of its journeys fail and at least 5 times as often as its requests
// do; below 1 % the gap is noise a reader need not chase.
func (r *Result) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for i := range r.Journeys {
		j := &r.Journeys[i]
		if j.Started == 0 || j.Requests == 0 {
			continue
		}
		journey, http := float64(j.FailureRate()), float64(j.HTTPFailureRate)
		if journey < 0.01 || journey < 5*http {
			continue
		}
		out = append(out, HiddenFailures{Journey: j.Name, JourneyFailureRate: journey, HTTPFailureRate: http})
	}
	return out
}
