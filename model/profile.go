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

// A closed workload's stages ramp its number of clients the same way, as
// a load tester's ramping virtual users do: the count follows the line
// from one target to the next, changing by one each time the line crosses
// a whole number (see clientRamp).
//
// With repeat_every the stages repeat with that period, counted from the
// journey's start: each period starts again from the base (rate or
// clients), runs the stages, and holds the last target to the period's
// end. Arrivals still invert the cumulative rate, now across periods.

// compileProfile turns a journey's stages into segments starting at start
// from the journey's base (its rate, or its clients when closed); the last
// segment runs forever, or to the end of the period with repeat_every.
func (c *compiler) compileProfile(jp *journeyProg, js *Journey, key *yaml.Node, p string) {
	closed := js.Clients != nil
	t, base := jp.start.Seconds(), jp.rate
	if closed {
		base = float64(jp.clients)
	}
	v := base
	list := valueNode(js.Node, "stages")
	for i, st := range js.Stages {
		at := fmt.Sprintf("%s.stages[%d]", p, i)
		node := key
		if list != nil && list.Kind == yaml.SequenceNode && i < len(list.Content) {
			node = list.Content[i]
		}
		switch {
		case !st.Target.Set || !st.Duration.Set:
			if closed {
				c.fail(node, at, "a stage needs target (a number of clients >= 0) and duration (>= 0s), e.g. {target: 50, duration: 1m}")
			} else {
				c.fail(node, at, "a stage needs target (a rate >= 0) and duration (>= 0s), e.g. {target: 80/s, duration: 1m}")
			}
			continue
		case closed && !st.Target.IsCount:
			c.failKey(node, "target", at+".target", "a closed workload's stage target is a number of clients, such as 50, got %s (a rate needs rate: on the journey instead of clients:)", st.Target.Rate.Text)
			continue
		case !closed && st.Target.IsCount:
			c.failKey(node, "target", at+".target", "an open workload's stage target is a rate, such as 80/s, got %d (a number of clients needs clients: on the journey, a closed workload)", st.Target.Clients)
			continue
		}
		d := st.Duration.T.Seconds()
		if d > 0 {
			jp.profile = append(jp.profile, segment{t0: t, t1: t + d, r0: v, r1: st.Target.value()})
		}
		t, v = t+d, st.Target.value()
	}
	end := math.Inf(1)
	if js.RepeatEvery != nil {
		period := js.RepeatEvery.T
		if period <= 0 {
			c.failKey(js.Node, "repeat_every", p+".repeat_every", "repeat_every must be > 0s, got %s", period)
			return
		}
		if length := sim.Seconds(t) - jp.start; length > period {
			c.failKey(js.Node, "repeat_every", p+".repeat_every", "the stages last %s, longer than repeat_every (%s), so they cannot repeat within it", length, period)
			return
		}
		jp.period = period.Seconds()
		end = (jp.start + period).Seconds()
	}
	if t < end {
		jp.profile = append(jp.profile, segment{t0: t, t1: end, r0: v, r1: v})
	}
}

// rateAt is the profile's value at time t (seconds), at multiplier 1.
func rateAt(prof []segment, period, t float64) float64 {
	if period > 0 {
		_, t = phase(prof, period, t)
	}
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

// phase splits t into the start of its period, as an offset from the first
// period, and the matching time within the first period.
func phase(prof []segment, period, t float64) (offset, within float64) {
	origin := prof[0].t0
	if t < origin {
		return 0, t
	}
	k := math.Floor((t - origin) / period)
	offset = k * period
	within = t - offset
	if within >= origin+period { // rounding at a period's edge
		offset += period
		within -= period
	}
	return offset, within
}

// nextArrival returns the t > s where the cumulative rate has grown by
// need (in arrivals at multiplier 1), or false when it never does. A
// periodic profile (period > 0) repeats its segments every period.
func nextArrival(prof []segment, period, s, need float64) (float64, bool) {
	if period == 0 {
		t, ok, _ := solveWithin(prof, s, need)
		return t, ok
	}
	offset, within := phase(prof, period, s)
	if t, ok, left := solveWithin(prof, within, need); ok {
		return offset + t, true
	} else {
		need = left
	}
	// Whole periods are skipped by their mass, so that a long quiet stretch
	// of a daily shape costs no loop per day.
	origin := prof[0].t0
	mass := 0.0
	for _, seg := range prof {
		mass += segMass(seg, seg.t0)
	}
	if mass <= 0 {
		return 0, false
	}
	offset += period
	// One period fewer than the quotient, so that rounding never leaves
	// the need short of zero.
	if skip := math.Floor(need/mass) - 1; skip >= 1 {
		offset += skip * period
		need -= skip * mass
	}
	for {
		if t, ok, left := solveWithin(prof, origin, need); ok {
			return offset + t, true
		} else {
			need = left
		}
		offset += period
	}
}

// segMass is the arrivals a segment holds from time from (within it) to
// its end.
func segMass(seg segment, from float64) float64 {
	from = math.Max(from, seg.t0)
	if from >= seg.t1 {
		return 0
	}
	r := rateAt([]segment{seg}, 0, from)
	if math.IsInf(seg.t1, 1) {
		return math.Inf(1)
	}
	k := (seg.r1 - seg.r0) / (seg.t1 - seg.t0)
	span := seg.t1 - from
	return r*span + k/2*span*span
}

// solveWithin returns the t > s, within the profile's segments, where the
// cumulative rate has grown by need; or false with the need left over
// past the last segment's end.
func solveWithin(prof []segment, s, need float64) (float64, bool, float64) {
	for _, seg := range prof {
		if s >= seg.t1 {
			continue
		}
		from := math.Max(s, seg.t0)
		r := rateAt([]segment{seg}, 0, from)
		if math.IsInf(seg.t1, 1) {
			if r <= 0 {
				return 0, false, need
			}
			return from + need/r, true, 0
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
		return from + d, true, 0
	}
	return 0, false, need
}

// profileNext is the time of journey ji's next arrival after now, or false.
func (r *run) profileNext(ji int, now sim.Time) (sim.Time, bool) {
	j := &r.p.journeys[ji]
	need := 1.0
	if !j.even {
		need = r.arrRng[ji].ExpFloat64()
	}
	t, ok := nextArrival(j.profile, j.period, now.Seconds(), need/r.multOf(j))
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
	if j.even && rateAt(j.profile, j.period, j.start.Seconds()) > 0 {
		return j.start, true
	}
	return r.profileNext(ji, j.start)
}

// level is a profile value as a client count at the run's multiplier,
// rounded as clients: is.
func (r *run) level(ji int, v float64) int {
	return int(math.Round(v * r.multOf(&r.p.journeys[ji])))
}

// startRamp starts closed journey ji's first clients and schedules the
// ramp's first change.
func (r *run) startRamp(ji int) {
	j := &r.p.journeys[ji]
	if r.ramps == nil {
		r.ramps = make([]*clientRamp, len(r.p.journeys))
		r.kRamp = r.s.Handle(r.onRamp)
	}
	most := 0
	for _, seg := range j.profile {
		most = max(most, r.level(ji, seg.r0), r.level(ji, seg.r1))
	}
	rp := &clientRamp{ji: ji, alive: make([]bool, max(most, r.level(ji, float64(j.clients))))}
	r.ramps[ji] = rp
	r.setClients(rp, j.start, r.level(ji, float64(j.clients)))
	r.scheduleRamp(rp)
}

// scheduleRamp schedules rp's next change of count, if any.
func (r *run) scheduleRamp(rp *clientRamp) {
	j := &r.p.journeys[rp.ji]
	for {
		if rp.seg == len(j.profile) {
			if j.period == 0 {
				return
			}
			rp.seg, rp.offset = 0, rp.offset+j.period
		}
		seg := j.profile[rp.seg]
		a, b := r.level(rp.ji, seg.r0), r.level(rp.ji, seg.r1)
		n := b - a
		if n < 0 {
			n = -n
		}
		if rp.i > n || math.IsInf(seg.t1, 1) && rp.i > 0 {
			rp.seg, rp.i = rp.seg+1, 0
			continue
		}
		// Crossing i of the line from a to b is at the i-th of n equal
		// steps; its level is a moved i towards b. Crossing 0 is the
		// segment's start, where a step may have moved the level.
		t, lvl := seg.t0, a
		if rp.i > 0 {
			t = seg.t0 + float64(rp.i)*(seg.t1-seg.t0)/float64(n)
			lvl = a + (b-a)/n*rp.i
		}
		rp.i++
		at := sim.Seconds(rp.offset + t)
		if lvl == rp.want || at >= j.stop {
			if at >= j.stop {
				return
			}
			continue
		}
		r.s.At(max(at, r.s.Now()), r.kRamp, int64(rp.ji)<<32|int64(lvl))
		return
	}
}

func (r *run) onRamp(arg int64) {
	if r.ended {
		return
	}
	rp := r.ramps[arg>>32]
	r.setClients(rp, r.s.Now(), int(int32(arg)))
	r.scheduleRamp(rp)
}

// setClients moves rp's count to want, starting the clients that are not
// running; those above it stop by themselves (see clientStays).
func (r *run) setClients(rp *clientRamp, at sim.Time, want int) {
	for c := rp.want; c < want; c++ {
		if !rp.alive[c] {
			rp.alive[c] = true
			r.s.At(at, r.kClient, int64(rp.ji)<<32|int64(c))
		}
	}
	rp.want = want
}

// clientStays reports whether the client of a closed journey goes on to
// its next journey; a client the ramp no longer wants stops.
func (r *run) clientStays(ji, client int32) bool {
	if r.ramps == nil || r.ramps[ji] == nil {
		return true
	}
	rp := r.ramps[ji]
	if int(client) < rp.want {
		return true
	}
	rp.alive[client] = false
	return false
}
