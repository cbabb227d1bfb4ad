package model

import (
	"math"

	"capsim/sim"
)

// A wave makes an open workload's rate follow a sine, as a day's or an
// hour's traffic does without the steps of a staged profile:
//
//	λ(t) = rate × multiplier × (1 + amplitude·sin(2π(t + phase)/period))
//
// with t the run's time. Poisson arrivals are a non-homogeneous process
// drawn by thinning (Lewis and Shedler): candidates come at the peak rate
// λmax = rate × multiplier × (1 + amplitude), and one at t is kept with
// probability λ(t)/λmax. Every draw comes from the journey's own arrival
// stream, so a wave's arrivals depend on its seed alone. Thinning keeps
// at least 1/(1 + amplitude) ≥ 1/2 of the candidates on average, so an
// arrival costs at most two candidates on average, whatever the period.
// Even arrivals come where the cumulative rate
//
//	Λ(s, t) = rate × multiplier × [(t − s) − amplitude/ω·(cos ω(t+phase) − cos ω(s+phase))]
//
// (ω = 2π/period) has grown by one since the last, as a staged profile's
// do; the first comes at the journey's start unless the rate is 0 there.

// compileWave checks a journey's wave and sets it on jp.
func (c *compiler) compileWave(jp *journeyProg, js *Journey, p string) {
	w := js.Wave
	at := p + ".wave"
	switch {
	case js.Clients != nil:
		c.fail(nil, at, "wave shapes an open workload's rate, and this journey is closed (clients); ramp its clients with stages instead")
		return
	case js.Stages != nil:
		c.fail(nil, at, "give stages or wave, not both: a wave follows a sine around rate, stages ramp it")
		return
	case js.Rate == nil:
		c.fail(nil, at, "a wave varies the journey's rate, and it has none (e.g. rate: 10/s)")
		return
	case w.Amplitude == nil:
		c.fail(nil, at, "a wave needs amplitude (0 to 1) and period, e.g. {amplitude: 0.5, period: 1h}")
		return
	case w.Period == nil:
		c.fail(nil, at, "a wave needs period, e.g. {amplitude: 0.5, period: 1h}")
		return
	}
	if w.Period.T <= 0 {
		c.fail(nil, at+".period", "a wave's period must be > 0s, got %s", w.Period.T)
		return
	}
	jp.wave = waveProg{amplitude: *w.Amplitude, period: w.Period.T.Seconds()}
	if w.Phase != nil {
		jp.wave.phase = w.Phase.T.Seconds()
	}
}

// at is the wave's factor on the rate at t seconds: 1 + amplitude·sin.
func (w *waveProg) at(t float64) float64 {
	return 1 + w.amplitude*math.Sin(2*math.Pi*math.Mod(t+w.phase, w.period)/w.period)
}

// mass is the arrivals the wave holds from s to t (seconds) at rate, the
// integral of rate × at.
func (w *waveProg) mass(rate, s, t float64) float64 {
	omega := 2 * math.Pi / w.period
	cos := func(x float64) float64 { return math.Cos(omega * math.Mod(x+w.phase, w.period)) }
	return rate * ((t - s) - w.amplitude/omega*(cos(t)-cos(s)))
}

// evenNext is the t > s where the wave's cumulative rate has grown by
// one. The mass over [s, t] is at least rate × ((t − s) − amplitude ×
// period/π), since the cosines differ by at most 2, which bounds the
// bisection; it halves the bracket to the clock's nanosecond.
func (w *waveProg) evenNext(rate, s float64) float64 {
	lo, hi := s, s+1/rate+w.amplitude*w.period/math.Pi
	for i := 0; i < 200 && hi-lo > 0.5e-9; i++ {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break // as close as float64 holds the time
		}
		if w.mass(rate, s, mid) < 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// waveFirst is the time of wave journey ji's first arrival: for even
// arrivals at its start when the rate is positive there, as a constant
// rate's, else one draw or one arrival's mass in.
func (r *run) waveFirst(ji int) (sim.Time, bool) {
	j := &r.p.journeys[ji]
	if j.even && j.rate*r.multOf(j) > 0 && j.wave.at(j.start.Seconds()) > 0 {
		return j.start, true
	}
	return r.waveNext(ji, j.start)
}

// waveNext is the time of wave journey ji's next arrival after from, or
// false when none comes before its stop.
func (r *run) waveNext(ji int, from sim.Time) (sim.Time, bool) {
	j := &r.p.journeys[ji]
	peak := j.rate * r.multOf(j) * (1 + j.wave.amplitude)
	if !(peak > 0) {
		return 0, false
	}
	if j.even {
		t := j.wave.evenNext(j.rate*r.multOf(j), from.Seconds())
		if t >= j.stop.Seconds() {
			return 0, false
		}
		return max(from+1, sim.Seconds(t)), true
	}
	rng := r.arrRng[ji]
	t := from.Seconds()
	stop := j.stop.Seconds()
	for {
		t += rng.ExpFloat64() / peak
		if t >= stop {
			return 0, false
		}
		if rng.Float64()*(1+j.wave.amplitude) < j.wave.at(t) {
			// At least a nanosecond on, for the same reason as gap.
			return max(from+1, sim.Seconds(t)), true
		}
	}
}
