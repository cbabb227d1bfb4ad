package model

import (
	"fmt"
	"math"

	"capsim/sim"

	"go.yaml.in/yaml/v3"
)

// Load profiles: a journey's arrival rate over time, in stages that ramp
// linearly from one target to the next, as a load tester's ramping arrival
// rate does. A step is a stage of zero duration; a spike, a ramp up and a
// ramp down. After the last stage the rate holds at its target.
//
// Arrivals follow the profile exactly by inverting its cumulative rate
// Λ(t) = ∫ λ: from an arrival at s, the next is at the t where
// Λ(t) − Λ(s) = E, with E a unit exponential draw for Poisson arrivals
// (a non-homogeneous Poisson process) and E = 1 for even ones.

// Stage is one step of a load profile.
type Stage struct {
	Target   Rate     `yaml:"target"`   // rate at the stage's end, at multiplier 1
	Duration Duration `yaml:"duration"` // of the linear ramp to target; 0 = a step
}

// segment is a stretch of a profile where the rate is linear in time,
// from r0 at t0 to r1 at t1 (seconds from the run's start, per second).
type segment struct {
	t0, t1, r0, r1 float64
}

// compileProfile turns a journey's stages into segments starting at start
// with the journey's base rate; the last segment runs forever.
func (c *compiler) compileProfile(jp *journeyProg, stages []Stage, key *yaml.Node, p string) {
	t, rate := jp.start.Seconds(), jp.rate
	for i, st := range stages {
		at := fmt.Sprintf("%s.stages[%d]", p, i)
		if st.Target.PerSecond < 0 || !st.Duration.Set || st.Duration.T < 0 {
			c.fail(key, at, "a stage needs target (a rate >= 0) and duration (>= 0s), e.g. {target: 80/s, duration: 1m}")
			continue
		}
		d := st.Duration.T.Seconds()
		if d > 0 {
			jp.profile = append(jp.profile, segment{t0: t, t1: t + d, r0: rate, r1: st.Target.PerSecond})
		}
		t, rate = t+d, st.Target.PerSecond
	}
	jp.profile = append(jp.profile, segment{t0: t, t1: math.Inf(1), r0: rate, r1: rate})
}

// rateAt is the profile's rate at time t (seconds), at multiplier 1.
func rateAt(prof []segment, t float64) float64 {
	for _, s := range prof {
		if t < s.t1 {
			if t <= s.t0 {
				return s.r0
			}
			return s.r0 + (s.r1-s.r0)*(t-s.t0)/(s.t1-s.t0)
		}
	}
	return prof[len(prof)-1].r1
}

// nextArrival returns the t > s where the cumulative rate has grown by
// need (in arrivals at multiplier 1), or false when the rate stays 0.
func nextArrival(prof []segment, s, need float64) (float64, bool) {
	for _, seg := range prof {
		if s >= seg.t1 {
			continue
		}
		from := math.Max(s, seg.t0)
		r := rateAt([]segment{seg}, from)
		if math.IsInf(seg.t1, 1) {
			if r <= 0 {
				return 0, false
			}
			return from + need/r, true
		}
		k := (seg.r1 - seg.r0) / (seg.t1 - seg.t0)
		span := seg.t1 - from
		mass := r*span + k/2*span*span
		if need > mass {
			need -= mass
			continue
		}
		// Solve k/2·d² + r·d = need for d in [0, span], in the form that
		// stays exact as k goes to 0 and for falling rates.
		disc := math.Max(0, r*r+2*k*need)
		d := 2 * need / (r + math.Sqrt(disc))
		if math.IsNaN(d) || d > span {
			d = span
		}
		return from + d, true
	}
	return 0, false
}

// profileNext is the time of journey ji's next arrival after now, or false.
func (r *run) profileNext(ji int, now sim.Time) (sim.Time, bool) {
	j := &r.p.journeys[ji]
	need := 1.0
	if !j.even {
		need = r.arrRng[ji].ExpFloat64()
	}
	t, ok := nextArrival(j.profile, now.Seconds(), need/r.mult)
	if !ok || t >= j.stop.Seconds() {
		return 0, false
	}
	// At least a nanosecond on, for the same reason as gap.
	return max(now+1, sim.Seconds(t)), true
}

// firstArrival is the time of journey ji's first arrival under its
// profile: at its start when the rate is already positive there and
// arrivals are even, else one draw in.
func (r *run) firstArrival(ji int) (sim.Time, bool) {
	j := &r.p.journeys[ji]
	if j.even && rateAt(j.profile, j.start.Seconds()) > 0 {
		return j.start, true
	}
	return r.profileNext(ji, j.start)
}
