package sim

import "unsafe"

import "math"

// BalancePolicy is how a Balancer chooses among its targets.
type BalancePolicy uint8

const (
	// RoundRobin takes the targets in turn: every target gets the same
	// number of picks, whatever each pick costs it.
	RoundRobin BalancePolicy = iota
	// LeastInFlight takes the target with the fewest picks not yet ended,
	// as the balancer counts them itself: always current, blind to cost.
	LeastInFlight
	// LeastCount takes the target with the lowest reported count (a counter
	// the targets keep and report, such as long-lived holds).
	LeastCount
	// LeastLoad takes the target with the lowest reported load (such as
	// processor utilisation).
	LeastLoad
	// Headroom takes the target with the most spare capacity, estimated
	// from its reported count and load (see Balancer.Headroom).
	Headroom
)

// BalancerConfig describes a Balancer.
type BalancerConfig struct {
	Targets int
	Policy  BalancePolicy
	// RequestPolicy, when SplitRequests is set, is the policy of picks
	// that add nothing to a target's count (units 0: short requests, plain
	// connections), so that Policy places only the long-lived holds, as a
	// balancer with a session-aware route beside a plain one does.
	RequestPolicy BalancePolicy
	SplitRequests bool
	// ReportEvery is the interval at which targets report their count and
	// load; the policies see the last report, not the present. 0 means
	// the balancer sees both as they are.
	ReportEvery Time
	// TTL bounds the age of a report the balancer trusts; once the last
	// report is older, it falls back to LeastInFlight. 0 means a report is
	// trusted however old.
	TTL Time
	// Reports due in [GapFrom, GapTo) are lost, as under a partition
	// between the targets and the balancer.
	GapFrom, GapTo Time
	// Headroom policy: the load to fill up to, the share of the spare
	// capacity offered per report interval, and an optional cap on the
	// count per target (0 = none).
	TargetLoad float64
	Safety     float64
	MaxCount   float64
}

// Balancer spreads picks over n targets by a policy over per-target
// counters. It keeps three per target: picks in flight (Pick to Done), a
// count the target maintains (AddCount; it may drift from the truth, as a
// buggy counter does) and a load read through a callback. The last two
// reach the policy through periodic reports when ReportEvery is set, so a
// policy can act on stale figures; the balancer adds the picks it made since
// the last report where a policy uses them (Headroom), as it knows those
// without being told.
type Balancer struct {
	s    *Sim
	cfg  BalancerConfig
	load func(i int) float64
	next int // round-robin position, also where tie-breaking scans start

	inFlight []int
	count    []float64
	// last report
	repCount []float64
	repLoad  []float64
	sinceRep []float64 // units picked since the last report
	reported Time      // when the last report arrived
	kReport  Kind

	Picks    []int64        // per target
	InFlight []TimeWeighted // per target
	Fallback int64          // picks made by the fallback policy (report too old)
}

// Bytes is what NewBalancer sets aside for cfg: its per-target counts.
// A caller sizing Targets from a user's number checks it first.
func (cfg BalancerConfig) Bytes() float64 {
	perTarget := unsafe.Sizeof(int(0)) + unsafe.Sizeof(int64(0)) + 4*unsafe.Sizeof(float64(0)) + unsafe.Sizeof(TimeWeighted{})
	return float64(cfg.Targets) * float64(perTarget)
}

// NewBalancer builds a balancer on s. load returns target i's current load;
// it may be nil when no policy and no report needs it.
func NewBalancer(s *Sim, cfg BalancerConfig, load func(i int) float64) *Balancer {
	n := cfg.Targets
	b := &Balancer{s: s, cfg: cfg, load: load,
		inFlight: make([]int, n), count: make([]float64, n),
		repCount: make([]float64, n), repLoad: make([]float64, n), sinceRep: make([]float64, n),
		Picks: make([]int64, n), InFlight: make([]TimeWeighted, n)}
	if cfg.ReportEvery > 0 {
		b.kReport = s.Handle(b.onReport)
		b.report(s.Now())
		s.After(cfg.ReportEvery, b.kReport, 0)
	}
	return b
}

// Targets is the number of targets.
func (b *Balancer) Targets() int { return b.cfg.Targets }

func (b *Balancer) onReport(int64) {
	now := b.s.Now()
	if now < b.cfg.GapFrom || now >= b.cfg.GapTo {
		b.report(now)
	}
	b.s.After(b.cfg.ReportEvery, b.kReport, 0)
}

func (b *Balancer) report(now Time) {
	for i := range b.count {
		b.repCount[i] = b.count[i]
		b.repLoad[i] = b.loadOf(i)
		b.sinceRep[i] = 0
	}
	b.reported = now
}

func (b *Balancer) loadOf(i int) float64 {
	if b.load == nil {
		return 0
	}
	return b.load(i)
}

// Reported returns target i's count and load as the policies see them.
func (b *Balancer) Reported(i int) (count, load float64) {
	if b.cfg.ReportEvery == 0 {
		return b.count[i], b.loadOf(i)
	}
	return b.repCount[i], b.repLoad[i]
}

// reportedCounts is every target's count as Reported gives it.
func (b *Balancer) reportedCounts() []float64 {
	if b.cfg.ReportEvery == 0 {
		return b.count
	}
	return b.repCount
}

// Count returns target i's counter as the target keeps it now.
func (b *Balancer) Count(i int) float64 { return b.count[i] }

// AddCount changes target i's counter by d.
func (b *Balancer) AddCount(i int, d float64) { b.count[i] += d }

// Stale reports whether the last report is older than the TTL, so that
// picks fall back to LeastInFlight.
func (b *Balancer) Stale(now Time) bool {
	return b.cfg.ReportEvery > 0 && b.cfg.TTL > 0 && now-b.reported > b.cfg.TTL
}

// Pick chooses a target and counts the pick in flight until Done. units is
// what the pick will add to the target's count once the target counts it (1
// for a long-lived hold, 0 for a pick the counter ignores): the Headroom policy
// charges it against the target's spare capacity until the next report.
func (b *Balancer) Pick(now Time, units float64) int {
	policy := b.cfg.Policy
	if units == 0 && b.cfg.SplitRequests {
		policy = b.cfg.RequestPolicy
	}
	if policy != RoundRobin && policy != LeastInFlight && b.Stale(now) {
		policy = LeastInFlight
		b.Fallback++
	}
	var i int
	switch policy {
	case RoundRobin:
		i = b.next
	case LeastInFlight:
		i = argLeast(b.next, b.inFlight)
	case LeastCount:
		i = argLeast(b.next, b.reportedCounts())
	case LeastLoad:
		if b.cfg.ReportEvery > 0 {
			i = argLeast(b.next, b.repLoad)
		} else { // live loads are asked for, target by target
			i = b.argBest(func(j int) float64 { _, l := b.Reported(j); return -l })
		}
	case Headroom:
		fleet := b.fleetCost()
		i = b.argBest(func(j int) float64 { return b.headroom(j, fleet) })
	}
	b.next = (i + 1) % b.cfg.Targets
	b.inFlight[i]++
	b.sinceRep[i] += units
	b.Picks[i]++
	b.InFlight[i].Set(now, float64(b.inFlight[i]))
	return i
}

// Done ends a pick of target i.
func (b *Balancer) Done(now Time, i int) {
	if b.inFlight[i] == 0 {
		panic("sim: Balancer.Done without a pick in flight")
	}
	b.inFlight[i]--
	b.InFlight[i].Set(now, float64(b.inFlight[i]))
}

// argBest returns the target with the largest score, ties broken in
// round-robin order so that equal targets share the picks.
func (b *Balancer) argBest(score func(j int) float64) int {
	n := b.cfg.Targets
	best, bestScore := b.next, math.Inf(-1)
	// j walks round from next, wrapping by a test: a % per target was a
	// division, the scan's dearest instruction.
	for k, j := 0, b.next; k < n; k++ {
		if s := score(j); s > bestScore {
			best, bestScore = j, s
		}
		if j++; j == n {
			j = 0
		}
	}
	return best
}

// argLeast is argBest of the values negated, read straight from the
// slice the policy ranks by instead of through a call per target: the
// scan runs over every replica at every pick. A NaN is never the least,
// as its negation is never the best.
func argLeast[T int | float64](next int, v []T) int {
	best, least := next, math.Inf(1)
	for k, j := 0, next; k < len(v); k++ {
		if x := float64(v[j]); x < least {
			best, least = j, x
		}
		if j++; j == len(v) {
			j = 0
		}
	}
	return best
}

// fleetCost is the load per unit of count over all targets' reports, or
// NaN when no target reports a positive count.
func (b *Balancer) fleetCost() float64 {
	var load, count float64
	for j := 0; j < b.cfg.Targets; j++ {
		c, l := b.Reported(j)
		if c > 0 {
			load += l
			count += c
		}
	}
	if count == 0 {
		return math.NaN()
	}
	return load / count
}

// Headroom is the Headroom policy's spare capacity of target i: how many
// more picks it can take before the next report, less those it already
// took since the last one.
//
// With A the reported count, U the reported load, T the target load and S
// the safety share, a unit of count costs C = U/A (the larger of the
// target's own and the fleet's figure, so that a target whose units happen
// to be idle now is not credited with cheap ones), and the target can take
// S·(T−U)/C more, never fewer than 0 and never past MaxCount. With A = 0
// there is nothing to estimate C from but the fleet; with no fleet figure
// either, the spare capacity is S·MaxCount (or unbounded without a cap).
func (b *Balancer) Headroom(i int) float64 { return b.headroom(i, b.fleetCost()) }

func (b *Balancer) headroom(i int, fleet float64) float64 {
	a, u := b.Reported(i)
	t, s := b.cfg.TargetLoad, b.cfg.Safety
	var extra float64
	cost := fleet
	if a > 0 && u > 0 && (math.IsNaN(cost) || u/a > cost) {
		cost = u / a
	}
	switch {
	case u >= t:
		extra = 0
	case math.IsNaN(cost) || cost <= 0:
		extra = math.Inf(1)
		if b.cfg.MaxCount > 0 {
			extra = s * b.cfg.MaxCount
		}
	default:
		extra = s * (t - u) / cost
	}
	if b.cfg.MaxCount > 0 {
		extra = math.Min(extra, b.cfg.MaxCount-a)
	}
	extra = math.Max(0, extra)
	since := b.sinceRep[i]
	if b.cfg.ReportEvery == 0 {
		since = 0 // live counts already hold every pick
	}
	return extra - since
}

// ResetStats starts the statistics afresh at now, keeping the state.
func (b *Balancer) ResetStats(now Time) {
	for i := range b.Picks {
		b.Picks[i] = 0
		b.InFlight[i].Reset(now)
	}
	b.Fallback = 0
}
