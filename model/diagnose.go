package model

import (
	"fmt"
	"strings"

	"capsim/sim"
	"capsim/sim/human"
)

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

// Diagnostics lists what is worth pointing out in the result: an overload
// first, then journey by journey in scenario order. A journey's failures
// are hidden when at least 1 % of its journeys fail and at least 5 times as
// often as its requests do; below 1 % the gap is noise a reader need not
// chase.
func (r *Result) Diagnostics() []Diagnostic {
	var out []Diagnostic
	if o, ok := r.overload(); ok {
		out = append(out, o)
	}
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

// DrainResult is what a run had left when its arrivals stopped.
type DrainResult struct {
	ArrivalsEnd float64 `json:"arrivals_end_s"` // when the last journey could start
	InFlight    int64   `json:"in_flight"`      // journeys in flight then
	// Seconds is how long they took to end after that: to the last one's
	// end, or to the run's end when some never did (a drain set).
	Seconds float64 `json:"drain_s"`
	Left    int64   `json:"left"` // of InFlight, those still in flight when the run ended
}

// drainResult is nil when the arrivals never ended: a guard stopped the
// run first.
func (r *run) drainResult(now sim.Time) *DrainResult {
	if !r.ended {
		return nil
	}
	end := r.drainedAt
	if end < 0 {
		end = now
	}
	return &DrainResult{ArrivalsEnd: r.endedAt.Seconds(), InFlight: int64(r.endActive),
		Seconds: (end - r.endedAt).Seconds(), Left: int64(r.active)}
}

// Overload is a run whose journeys outgrew its capacity: a backlog was
// still in flight when the arrivals stopped, and the drain that followed
// let it end. With the default drain a queue that grew all run empties
// after it, and its journeys count as succeeded: the success rate of a
// design that did not keep up reads as if it had.
type Overload struct {
	Drain      DrainResult     `json:"drain"`
	AtCapacity []ComponentLoad `json:"at_capacity"` // the components busy OverloadBusy of the time or more
}

// ComponentLoad is a component's utilisation.
type ComponentLoad struct {
	Component   string  `json:"component"`
	Utilisation float64 `json:"utilisation"`
}

func (Overload) diagnostic() {}

// OverloadDrained says how an overload's drained journeys are counted, and
// how to count them otherwise: the diagnostic ends with it, and so does a
// sweep's note of the multipliers whose runs were overloaded. code writes
// the flag as the text's medium writes code (as it is on a terminal, in
// backticks in markdown); Journeys starts the words with a capital.
func OverloadDrained(code func(string) string, journeys string) string {
	return journeys + " that drained count as succeeded or failed; " + code("--set drain=0s") + " counts them as unfinished"
}

// Plain writes code as it is, for a terminal.
func Plain(s string) string { return s }

func (o Overload) String() string {
	d := &o.Drain
	var busy []string
	for _, c := range o.AtCapacity {
		busy = append(busy, c.Component+" "+human.Percent(c.Utilisation))
	}
	verdict := fmt.Sprintf(": the design did not keep up with the load (components at capacity: %s)", strings.Join(busy, ", "))
	at := human.Seconds(d.ArrivalsEnd)
	if d.Left == 0 {
		return fmt.Sprintf("%d journeys were still in flight when the arrivals stopped at %s, and draining them took %s more", d.InFlight, at, human.Seconds(d.Seconds)) +
			verdict + ". " + OverloadDrained(Plain, "Journeys")
	}
	return fmt.Sprintf("%d journeys were still in flight when the arrivals stopped at %s; in the %s of drain that followed %d of them ended and %d did not", d.InFlight, at, human.Seconds(d.Seconds), d.InFlight-d.Left, d.Left) +
		verdict + ". " + OverloadDrained(Plain, "Journeys")
}

// A run is overloaded when a component was busy OverloadBusy of the time or
// more and the journeys in flight when the arrivals stopped were
// OverloadBacklog of those started or more, and some of them ended in the
// drain. A stable system's in-flight count stays put while its started
// count grows with the run, so its backlog share shrinks with the run's
// length; an overloaded one's grows with it. The length of the drain
// itself tells nothing: it is about one journey's latency either way, a
// latency the backlog inflates too. A closed loop of clients or a leak of
// permits can hold a component at capacity, but it holds no backlog that
// grows with the run.
const (
	OverloadBusy    = 0.99
	OverloadBacklog = 0.001
)

func (r *Result) overload() (Overload, bool) {
	d := r.Drain
	if r.Broken != nil || d == nil || d.InFlight == d.Left || d.Seconds == 0 {
		return Overload{}, false
	}
	var started int64
	for i := range r.Journeys {
		started += r.Journeys[i].Started
	}
	if float64(d.InFlight) < OverloadBacklog*float64(started) {
		return Overload{}, false
	}
	o := Overload{Drain: *d}
	for i := range r.Components {
		if c := &r.Components[i]; float64(c.Utilisation) >= OverloadBusy {
			o.AtCapacity = append(o.AtCapacity, ComponentLoad{c.Name, float64(c.Utilisation)})
		}
	}
	return o, len(o.AtCapacity) > 0
}
