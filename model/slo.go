package model

import (
	"fmt"
	"math"
)

func evaluateSLOs(slos []SLO, res *Result) []SLOResult {
	var out []SLOResult
	for _, s := range slos {
		check := func(metric string, t *Threshold, v Num) {
			if t == nil {
				return
			}
			subject := s.Journey + s.Route + s.Component
			met := !math.IsNaN(float64(v)) && t.Holds(float64(v)) && res.Broken == nil
			out = append(out, SLOResult{SLO: fmt.Sprintf("%s %s %s", subject, metric, t.Text), Value: v, Met: met, Bound: *t})
		}
		switch {
		case s.Journey != "":
			if j, ok := res.Journey(s.Journey); ok {
				check("success_rate", s.SuccessRate, j.SuccessRate)
				check("failure_rate", s.FailureRate, j.FailureRate())
				check("http_failure_rate", s.HTTPFailureRate, j.HTTPFailureRate)
				check("mean", s.Mean, j.Latency.Mean)
				check("p50", s.P50, j.Latency.P50)
				check("p95", s.P95, j.Latency.P95)
				check("p99", s.P99, j.Latency.P99)
			}
		case s.Route != "":
			if r, ok := res.Route(s.Route); ok {
				check("failure_rate", s.FailureRate, r.FailureRate)
				check("mean", s.Mean, r.Latency.Mean)
				check("p50", s.P50, r.Latency.P50)
				check("p95", s.P95, r.Latency.P95)
				check("p99", s.P99, r.Latency.P99)
			}
		default:
			if c, ok := res.Component(s.Component); ok {
				check("rejection_rate", s.RejectionRate, c.RejectionRate())
				check("utilisation", s.Utilisation, c.Utilisation)
			}
		}
	}
	return out
}
