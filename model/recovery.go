package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"capsim/sim"
)

// The recovery verdict: after a spike ends, how long until the queues and
// each journey's p95 are back within a margin of where they were before
// it, or which component's queue stays above (a metastable failure: the
// load is back to normal, the system is not).
//
// The spike runs from `from` to `after`. The pre-spike level is measured
// over [warmup, from) (or the last `baseline` of it): each component's
// time-average queue and, for connections, open count (sampled ten
// times a window) and each journey's p95 over the journeys that ended
// then, successes and failures alike. From `after` on, windows of
// `window` are measured the same way, up to the end of the arrivals; the
// system is back in a window when every queue's average is at most its
// pre-spike level times 1 + margin (or one request more, so that an empty
// pre-spike queue is not missed at any wait at all) and every journey's
// p95 at most its pre-spike p95 times 1 + margin. It has recovered at the
// start of the first window it is back in.

const defaultRecoveryWindow = 10 * sim.Second

// maxRecoveryWindows bounds the windows measured after a spike: each holds
// a tally per journey, and far fewer are enough to say when a run came back.
const maxRecoveryWindows = 100_000

// recovery compiles the scenario's recovery: settings.
func (c *compiler) recovery() {
	rs := c.sc.Recovery
	if rs == nil {
		return
	}
	rp := &recoveryProg{margin: 0.1, window: defaultRecoveryWindow}
	if rs.Margin != nil {
		rp.margin = rs.Margin.V
	}
	if rs.Window != nil {
		if rs.Window.T <= 0 {
			c.fail(nil, "recovery.window", "window must be > 0s, got %s", rs.Window.T)
			return
		}
		rp.window = rs.Window.T
	}
	from, after, ok := c.spike()
	if rs.From != nil {
		from = rs.From.T
	}
	if rs.After != nil {
		after = rs.After.T
	}
	if !ok && (rs.From == nil || rs.After == nil) {
		c.fail(nil, "recovery", "recovery needs from and after (when the spike starts and ends): no journey has stages to find them in")
		return
	}
	switch {
	case from <= c.p.warmup:
		c.fail(nil, "recovery.from", "the spike must start after the warm-up (%s), to measure the level before it; got %s", c.p.warmup, from)
		return
	case after < from:
		c.fail(nil, "recovery.after", "the spike must end (after, %s) no earlier than it starts (from, %s)", after, from)
		return
	}
	rp.from, rp.after, rp.base = from, after, c.p.warmup
	if rs.Baseline != nil {
		if rs.Baseline.T <= 0 {
			c.fail(nil, "recovery.baseline", "baseline must be > 0s, got %s", rs.Baseline.T)
			return
		}
		if span := from - c.p.warmup; rs.Baseline.T > span {
			// The baseline is the last stretch of [warmup, from): a longer
			// one would silently measure less than it says.
			c.fail(nil, "recovery.baseline", "baseline (%s) is longer than the time before the spike it is measured over (%s, from the warm-up at %s to from at %s); give at most %s, or leave baseline out to measure all of it",
				rs.Baseline.T, span, c.p.warmup, from, span)
			return
		}
		rp.base = from - rs.Baseline.T
	}
	rp.windows = int((c.p.duration - after) / rp.window)
	if rp.windows < 1 {
		c.fail(nil, "recovery", "no whole window of %s fits between the spike's end (%s) and the end of the arrivals (%s)", rp.window, after, c.p.duration)
		return
	}
	if rp.windows > maxRecoveryWindows {
		c.fail(nil, "recovery.window", "a window of %s makes %d windows between the spike's end (%s) and the end of the arrivals (%s); at most %d are measured, so give a longer window",
			rp.window, rp.windows, after, c.p.duration, maxRecoveryWindows)
		return
	}
	c.p.recovery = rp
}

// spike finds the stretch of the highest stage target across journeys
// with stages: from the start of the first stage that ends at it to the
// end of the last one that does.
func (c *compiler) spike() (from, after sim.Time, ok bool) {
	top := math.Inf(-1)
	for _, it := range c.sc.Journeys.Items {
		for _, st := range it.Value.Stages {
			top = math.Max(top, st.Target.value())
		}
	}
	from, after = sim.Never, -1
	for ji, it := range c.sc.Journeys.Items {
		js := &it.Value
		if js.Stages == nil {
			continue
		}
		t := c.p.journeys[ji].start
		for _, st := range js.Stages {
			end := t + st.Duration.T
			if st.Target.value() == top {
				from, after = min(from, t), max(after, end)
			}
			t = end
		}
	}
	return from, after, after >= 0
}

// String is the verdict as one line.
func (v *RecoveryResult) String() string {
	spike := fmt.Sprintf("the spike ended at %s", sim.Seconds(v.After))
	if v.Recovered {
		return fmt.Sprintf("back within %s of the pre-spike level from %s, %s after %s",
			pct(v.Margin), sim.Seconds(float64(v.At)), sim.Seconds(float64(v.Seconds)), spike)
	}
	s := "did not recover after " + spike
	if len(v.Above) == 0 {
		return s + ": the run ended before a window after it was measured"
	}
	a := v.Above[0]
	if a.Component != "" {
		what := "queue stays"
		if a.Measure == "mean_open" {
			what = "open connections stay"
		}
		return s + fmt.Sprintf(": %s's %s at %.4g (pre-spike %.4g, margin %s)", a.Component, what, float64(a.Value), a.Before, pct(v.Margin))
	}
	if math.IsInf(float64(a.Value), 1) {
		return s + fmt.Sprintf(": no %s journey ended in the last window, though some were in flight (pre-spike p95 %s)", a.Journey, latencyText(a.Before))
	}
	return s + fmt.Sprintf(": %s's p95 stays at %s (pre-spike %s, margin %s)", a.Journey, latencyText(float64(a.Value)), latencyText(a.Before), pct(v.Margin))
}

// latencyText writes a p95 to three significant digits in a unit that
// suits it: 10.6ms, not 10.559082ms.
func latencyText(s float64) string {
	switch {
	case s < 1e-3:
		return strconv.FormatFloat(s*1e6, 'g', 3, 64) + "µs"
	case s < 1:
		return strconv.FormatFloat(s*1e3, 'g', 3, 64) + "ms"
	case s < 120:
		return strconv.FormatFloat(s, 'g', 3, 64) + "s"
	}
	return sim.Seconds(math.Round(s)).String()
}

func pct(v float64) string { return strconv.FormatFloat(v*100, 'g', 4, 64) + "%" }

// recoveryRec measures the levels the verdict compares.
type recoveryRec struct {
	prog  *recoveryProg
	step  sim.Time
	kind  sim.Kind
	baseQ []float64 // queue sums over the pre-spike samples, by component
	// baseL and winL sum what lingering components keep (open
	// connections), as baseQ and winQ sum queues; zero for the others.
	baseL []float64
	winL  [][]float64
	baseN int
	winQ  [][]float64 // by window, then component
	winN  []int
	base  []sim.Tally   // journey durations before the spike, by journey
	win   [][]sim.Tally // by window, then journey
	// live counts each journey's journeys in flight; busy, by window and
	// journey, says whether any was in flight at one of its samples. A
	// journey none of which ended in a window is stuck if some were in
	// flight, and merely idle (its load over) if none were.
	live []int
	busy [][]bool
}

func newRecoveryRec(r *run) *recoveryRec {
	rp := r.p.recovery
	rr := &recoveryRec{prog: rp, step: max(1, rp.window/10), baseQ: make([]float64, len(r.comps)),
		baseL: make([]float64, len(r.comps)), winL: make([][]float64, rp.windows),
		winQ: make([][]float64, rp.windows), winN: make([]int, rp.windows),
		base: make([]sim.Tally, len(r.p.journeys)), win: make([][]sim.Tally, rp.windows),
		live: make([]int, len(r.p.journeys)), busy: make([][]bool, rp.windows)}
	for w := range rr.winQ {
		rr.winQ[w] = make([]float64, len(r.comps))
		rr.winL[w] = make([]float64, len(r.comps))
		rr.win[w] = make([]sim.Tally, len(r.p.journeys))
		rr.busy[w] = make([]bool, len(r.p.journeys))
	}
	rr.kind = r.s.Handle(r.onRecoverySample)
	r.s.At(r.p.warmup, rr.kind, 0)
	return rr
}

// window is the index of the window t falls in: -1 before the spike,
// -2 during it or past the last window.
func (rr *recoveryRec) window(t, warmup sim.Time) int {
	rp := rr.prog
	switch {
	case t < warmup || t < rp.base:
		return -2
	case t < rp.from:
		return -1
	case t < rp.after:
		return -2
	}
	w := int((t - rp.after) / rp.window)
	if w >= rp.windows {
		return -2
	}
	return w
}

func (r *run) onRecoverySample(int64) {
	rr := r.recovery
	now := r.s.Now()
	w := rr.window(now, r.p.warmup)
	sums, kept := rr.baseQ, rr.baseL
	switch {
	case w == -1:
		rr.baseN++
	case w >= 0:
		sums, kept = rr.winQ[w], rr.winL[w]
		rr.winN[w]++
		for ji, n := range rr.live {
			rr.busy[w][ji] = rr.busy[w][ji] || n > 0
		}
	default:
		sums = nil
	}
	for ci := range r.comps {
		if sums != nil {
			sums[ci] += float64(r.comps[ci].rt.waiting())
			if l, ok := r.comps[ci].rt.(lingering); ok {
				kept[ci] += float64(l.lingers())
			}
		}
	}
	if next := now + rr.step; next < rr.prog.after+sim.Time(rr.prog.windows)*rr.prog.window {
		r.s.At(next, rr.kind, 0)
	}
}

// journeyEnded notes a journey's duration d (seconds) ending now.
func (rr *recoveryRec) journeyEnded(typ int32, now, warmup sim.Time, d float64) {
	switch w := rr.window(now, warmup); {
	case w == -1:
		rr.base[typ].Add(d)
	case w >= 0:
		rr.win[w][typ].Add(d)
	}
}

func (r *run) recoveryResult() *RecoveryResult {
	rr := r.recovery
	rp := rr.prog
	v := &RecoveryResult{From: rp.from.Seconds(), After: rp.after.Seconds(), Window: rp.window.Seconds(), Margin: rp.margin,
		At: Num(math.NaN()), Seconds: Num(math.NaN())}
	var above []RecoveryLevel
	for w := 0; w < rp.windows; w++ {
		if rr.winN[w] == 0 {
			break // the run ended before this window: nothing was measured
		}
		above = rr.above(r, w)
		if len(above) == 0 {
			at := rp.after + sim.Time(w)*rp.window
			v.Recovered, v.At, v.Seconds = true, Num(at.Seconds()), Num((at - rp.after).Seconds())
			return v
		}
	}
	v.Above = above
	return v
}

// above lists the measures above their margin in window w, worst first
// (by how many times its bound each is), queues before p95s at a tie.
func (rr *recoveryRec) above(r *run, w int) []RecoveryLevel {
	type level struct {
		RecoveryLevel
		ratio float64
	}
	var out []level
	m := 1 + rr.prog.margin
	for ci := range r.comps {
		if r.p.comps[ci].kind.passThrough {
			continue
		}
		before := rr.baseQ[ci] / float64(max(rr.baseN, 1))
		q := rr.winQ[w][ci] / float64(max(rr.winN[w], 1))
		if bound := math.Max(before*m, before+1); q > bound {
			out = append(out, level{RecoveryLevel{Component: r.p.comps[ci].name, Measure: "mean_queue", Before: before, Value: Num(q)}, q / bound})
		}
		if _, ok := r.comps[ci].rt.(lingering); ok {
			before := rr.baseL[ci] / float64(max(rr.baseN, 1))
			l := rr.winL[w][ci] / float64(max(rr.winN[w], 1))
			if bound := math.Max(before*m, before+1); l > bound {
				out = append(out, level{RecoveryLevel{Component: r.p.comps[ci].name, Measure: "mean_open", Before: before, Value: Num(l)}, l / bound})
			}
		}
	}
	for ji := range r.p.journeys {
		if rr.base[ji].N() == 0 {
			continue // nothing ended before the spike to compare with
		}
		before := rr.base[ji].Quantile(0.95)
		p95 := math.Inf(1) // none ended, some in flight: they are stuck
		switch {
		case rr.win[w][ji].N() > 0:
			p95 = rr.win[w][ji].Quantile(0.95)
		case !rr.busy[w][ji]:
			continue // none ended and none in flight: its load is over
		}
		if bound := before * m; p95 > bound {
			out = append(out, level{RecoveryLevel{Journey: r.p.journeys[ji].name, Measure: "p95", Before: before, Value: Num(p95)}, p95 / bound})
		}
	}
	// A stable sort by ratio keeps queues (listed first) ahead at a tie.
	slices.SortStableFunc(out, func(a, b level) int { return cmp.Compare(b.ratio, a.ratio) })
	levels := make([]RecoveryLevel, len(out))
	for i := range out {
		levels[i] = out[i].RecoveryLevel
	}
	return levels
}
