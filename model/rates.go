package model

import "math"

// The derived rates of a run, each computed here and nowhere else, so the
// summary, the SLOs and the metrics a sweep aggregates cannot disagree on
// what a rate means.

// FailureRate is the share of started journeys that did not succeed,
// 1 − SuccessRate: failed and unfinished journeys alike, what users saw. It
// is NaN when no journey started.
func (j *JourneyResult) FailureRate() Num {
	if j.Started == 0 {
		return Num(math.NaN())
	}
	return 1 - j.SuccessRate
}

// RejectionRate is the share of the requests offered to the component that
// it turned away, whether refused at once or timed out waiting:
// (Rejected + TimedOut) / Offered. It is NaN when nothing was offered.
func (c *ComponentResult) RejectionRate() Num {
	return ratio(c.Rejected+c.TimedOut, c.Offered)
}
