package calibration

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"capsim/sim/human"

	"gonum.org/v1/gonum/stat"
)

// WarningKind classifies a Warning, so callers can act on some kinds.
type WarningKind string

// The kinds of Warning.
const (
	WarnSmallSample WarningKind = "small-sample"
	WarnHeavyTail   WarningKind = "heavy-tail"
	WarnSaturation  WarningKind = "saturation"
	WarnPoorFit     WarningKind = "poor-fit"
	WarnZeros       WarningKind = "zeros"
	WarnRounded     WarningKind = "rounded"
	WarnNoSpread    WarningKind = "no-spread"
	WarnDisagree    WarningKind = "figures-disagree"
	WarnFewFigures  WarningKind = "few-figures"
	WarnResolution  WarningKind = "resolution"
	WarnMixed       WarningKind = "mixed-statuses"
	WarnTruncated   WarningKind = "timeout-cluster"
	WarnBimodal     WarningKind = "bimodal"
	// WarnQuantised: values on a timer's lattice that the chosen fit
	// describes there; the warning changes nothing one should do.
	WarnQuantised WarningKind = "quantised"
)

// Warning is a doubt about a result that does not prevent it: the caller
// shows it next to the result. It implements error so it can be handled
// like one where that is convenient.
type Warning struct {
	Kind WarningKind
	Msg  string
	// Quantum is the step of the values, in seconds, for WarnQuantised.
	Quantum float64
}

func (w Warning) Error() string { return w.Msg }

func warnf(kind WarningKind, format string, args ...any) Warning {
	return Warning{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Thresholds of the diagnostics. They are deliberately coarse: a warning
// should point at something a person would see in a histogram.
const (
	// minSample: below about 30 values, the candidates' AIC differ by less
	// than their sampling noise and parameters carry tens of percent of
	// uncertainty.
	minSample = 30
	// minTailSample: the empirical p99 of fewer values is little more than
	// the maximum.
	minTailSample = 50
	// tailUnderstated: the observed p99 exceeding the fitted one by a
	// quarter means the simulated tail, where queues build, is too light.
	tailUnderstated = 1.25
	// heavyP99OverP50: a lognormal with σ = 1 already has p99/p50 ≈ 10;
	// beyond that a few slow requests dominate waiting times.
	heavyP99OverP50 = 10
	// Saturation: at least minTrendSample timed values, a rank correlation
	// between time and value of at least trendRho, and the median of the
	// last third of the recording trendRatio times that of the first. Both
	// conditions, because a small but steady drift passes the first alone
	// and a noisy short recording the second.
	minTrendSample = 20
	trendRho       = 0.4
	trendRatio     = 1.5
	// roundedShare: fewer distinct values than this share of n means the
	// timer's resolution shows, and the KS distance is inflated by ties.
	roundedShare = 0.2
)

// diagnose returns the warnings about a completed fit.
func diagnose(res *Result, times, values []float64) []Warning {
	var ws []Warning
	o := res.Observed
	n := o.N
	// A fit by moments of coarsely logged values is not meant to match the
	// lattice of recorded values, so the distance to them says nothing.
	byMoments := slices.ContainsFunc(res.Warnings, func(w Warning) bool { return w.Kind == WarnResolution })
	if n < minSample {
		ws = append(ws, warnf(WarnSmallSample,
			"only %d values: parameters are uncertain and the ranking of families is weak (want at least %d)", n, minSample))
	}
	distinct := 1
	for i := 1; i < len(res.Sorted); i++ {
		if res.Sorted[i] != res.Sorted[i-1] {
			distinct++
		}
	}
	// Few distinct values, all multiples of one step: a timer's lattice.
	few := n >= minSample && float64(distinct) < roundedShare*float64(n)
	step, onLattice := 0.0, false
	if few {
		step, onLattice = quantum(values)
	}
	if c := res.Chosen; c != nil && c.model != nil && c.Family != FamilyEmpirical && n >= 5 && !byMoments {
		crit := ksCritical05(n)
		// The ties of a lattice make any continuous fit look far off; set
		// against the fit rounded to the same lattice, a right family is
		// close again, and only a wrong one stays far.
		d, onGrid := 0.0, false
		if onLattice && c.KS > crit {
			d, onGrid = latticeKS(values, step, c.model.CDF)
		}
		switch {
		case c.KS <= crit:
		case onGrid && d > crit:
			ws = append(ws, warnf(WarnPoorFit,
				"the chosen %s is %s from the data even rounded to their %s lattice (KS), above the 5%% critical value %s for %d values: no family fits well; consider the empirical distribution",
				c.Family, human.Significant(d, 3), quantumText(step), human.Significant(crit, 3), n))
		case !onGrid:
			ws = append(ws, warnf(WarnPoorFit,
				"the chosen %s is %s from the data (KS), above the 5%% critical value %s for %d values: no family fits well; consider the empirical distribution",
				c.Family, human.Significant(c.KS, 3), human.Significant(crit, 3), n))
		}
	}
	if n >= minTailSample && !byMoments {
		var parts string
		if o.P50 > 0 && o.P99/o.P50 >= heavyP99OverP50 {
			parts = fmt.Sprintf("p99/p50 = %s", human.Significant(o.P99/o.P50, 3))
		}
		if c := res.Chosen; c != nil && c.Family != FamilyEmpirical && c.Family != FamilyConstant {
			if fp99 := c.Dist.Quantile(0.99); o.P99 > tailUnderstated*fp99 {
				if parts != "" {
					parts += "; "
				}
				parts += fmt.Sprintf("observed p99 %ss, fitted %s p99 %ss: the fit understates the tail", SecondsText(o.P99), c.Family, SecondsText(fp99))
			}
		}
		if parts != "" {
			ws = append(ws, warnf(WarnHeavyTail, "heavy right tail: %s", parts))
		}
	}
	if w, ok := saturation(values, times); ok {
		ws = append(ws, w)
	}
	switch {
	case onLattice:
		w := warnf(WarnQuantised, "only %d distinct values among %d: %s", distinct, n, quantisedText(step))
		w.Quantum = step
		ws = append(ws, w)
	case few:
		ws = append(ws, warnf(WarnRounded,
			"only %d distinct values among %d: the timer's resolution shows, and ties inflate the KS distance", distinct, n))
	}
	if w, ok := timeoutCluster(res.Sorted, values, o); ok {
		ws = append(ws, w)
	}
	// On a timer's lattice (1, 2, 3 ms) the steps themselves look like
	// groups: the values are spread over their cells first, which leaves
	// groups only where there are some. Few distinct values on no lattice
	// cannot be spread.
	switch {
	case onLattice:
		if w, ok := bimodal(spreadOnLattice(values, step)); ok {
			ws = append(ws, w)
		}
	case !few:
		if w, ok := bimodal(values); ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// quantisedText says what a lattice means for a fit, the same words for
// one entry and for many folded into one line.
func quantisedText(step float64) string {
	return "values are quantised to " + quantumText(step) + "; goodness-of-fit tests are not meaningful at this resolution"
}

// quantumText writes a step as scenarios write durations: 1ms, 100µs.
func quantumText(step float64) string {
	return time.Duration(math.Round(step * 1e9)).String()
}

// maxLatticeCells bounds the cells latticeKS walks: the values span at
// most this many steps before the test is given up.
const maxLatticeCells = 1_000_000

// latticeKS is the Kolmogorov–Smirnov distance between values, multiples
// of step, and the distribution cdf rounded to the same multiples: at each
// multiple k·step of the span, the share of values up to it against
// cdf(k·step + step/2), the chance a drawn value rounds to it or below.
// ok is false when the values span more than maxLatticeCells steps.
func latticeKS(values []float64, step float64, cdf func(float64) float64) (float64, bool) {
	x := slices.Clone(values)
	slices.Sort(x)
	lo, hi := math.Round(x[0]/step), math.Round(x[len(x)-1]/step)
	if hi-lo > maxLatticeCells {
		return 0, false
	}
	n := float64(len(x))
	d, i := 0.0, 0
	for k := lo - 1; k <= hi; k++ {
		for i < len(x) && math.Round(x[i]/step) <= k {
			i++
		}
		d = math.Max(d, math.Abs(float64(i)/n-cdf((k+0.5)*step)))
	}
	return d, true
}

// spreadOnLattice replaces the m values on each multiple k·step by m
// points evenly spaced across its cell, ((k−½)·step, (k+½)·step), or
// (0, step/2) for 0: a deterministic undoing of the rounding, which keeps
// every value in its cell and removes the steps between cells.
func spreadOnLattice(values []float64, step float64) []float64 {
	x := slices.Clone(values)
	slices.Sort(x)
	out := make([]float64, 0, len(x))
	for i := 0; i < len(x); {
		k := math.Round(x[i] / step)
		j := i
		for j < len(x) && math.Round(x[j]/step) == k {
			j++
		}
		m := float64(j - i)
		lo, width := (k-0.5)*step, step
		if k <= 0 {
			lo, width = 0, step/2
		}
		for p := range j - i {
			out = append(out, lo+(float64(p)+0.5)/m*width)
		}
		i = j
	}
	return out
}

// quantum returns the step all values are whole multiples of, when there
// is one: the smallest gap between distinct values, checked against every
// value to a millionth of the step.
func quantum(values []float64) (float64, bool) {
	x := slices.Clone(values)
	slices.Sort(x)
	// Values that differ only by the float error of the arithmetic that
	// derived them (0.001 as 0.003 - 0.002) are the same value.
	tol := 1e-9 * max(math.Abs(x[0]), math.Abs(x[len(x)-1]))
	q := math.Inf(1)
	for i := 1; i < len(x); i++ {
		if d := x[i] - x[i-1]; d > tol {
			q = min(q, d)
		}
	}
	if math.IsInf(q, 1) || q <= 0 {
		return 0, false
	}
	// The gap between two recorded values carries their float error; the
	// step is the gap rounded to six significant digits.
	q = round6(q)
	for _, v := range x {
		k := math.Round(v / q)
		if math.Abs(v-k*q) > 1e-6*q+1e-12 {
			return 0, false
		}
	}
	return q, true
}

// Thresholds of the cluster and mixture diagnostics.
const (
	// A timeout cluster: at least minCluster values within clusterBand of
	// the maximum, which is at least clusterOverMedian times the median.
	// Durations cut off by a limit pile up just under it, far above what
	// completed requests take.
	minCluster        = 3
	clusterBand       = 0.02
	clusterOverMedian = 10
	// A mixture: the best split of the log values into two groups has
	// Ashman's D = √2 |μ1 − μ2| / √(σ1² + σ2²) of at least bimodalD, each
	// group holding at least bimodalShare of at least minBimodalSample
	// values. The best split of a single normal sample gives D ≈ 2.7 (the
	// halves of a normal have means ±0.80σ and sds 0.60σ), so 4 asks for
	// groups clearly apart.
	bimodalD         = 4
	bimodalShare     = 0.05
	minBimodalSample = 50
)

// timeoutCluster looks for values piled up at a limit, such as 30 s
// timeouts among 50 ms successes: they are not durations of the service
// but of the limit, and a fit stretches its tail to reach them.
func timeoutCluster(sorted, values []float64, o Observed) (Warning, bool) {
	n := len(sorted)
	if n < minSample || !(o.P50 > 0) || o.Max < clusterOverMedian*o.P50 {
		return Warning{}, false
	}
	k := 0
	for _, v := range values {
		if v >= (1-clusterBand)*o.Max {
			k++
		}
	}
	if k < minCluster || 2*k > n {
		return Warning{}, false
	}
	return warnf(WarnTruncated,
		"%d of %d values sit within %d%% of the maximum %ss, %s× the median: a cluster at a limit looks like timeouts, durations cut off rather than measured; exclude them (a status or error field) or model the timeout",
		k, n, int(clusterBand*100), SecondsText(o.Max), human.Significant(o.Max/o.P50, 3)), true
}

// bimodal looks for values that form two groups, which no single family
// describes: two routes, a cache hit and a miss, successes and failures.
// It splits the log values at the point that minimises the spread within
// the two sides (the best two-group split of sorted one-dimensional data)
// and measures how far apart the sides are.
func bimodal(values []float64) (Warning, bool) {
	var x []float64
	for _, v := range values {
		if v > 0 {
			x = append(x, math.Log(v))
		}
	}
	n := len(x)
	if n < minBimodalSample {
		return Warning{}, false
	}
	slices.Sort(x)
	prefix := make([]float64, n+1)
	prefix2 := make([]float64, n+1)
	for i, v := range x {
		prefix[i+1] = prefix[i] + v
		prefix2[i+1] = prefix2[i] + v*v
	}
	ss := func(i, j int) (mean, variance float64) { // over x[i:j]
		m := float64(j - i)
		mean = (prefix[j] - prefix[i]) / m
		return mean, max((prefix2[j]-prefix2[i])/m-mean*mean, 0)
	}
	minSide := int(math.Ceil(bimodalShare * float64(n)))
	best, split := math.Inf(1), -1
	for i := minSide; i <= n-minSide; i++ {
		_, v1 := ss(0, i)
		_, v2 := ss(i, n)
		if w := float64(i)*v1 + float64(n-i)*v2; w < best {
			best, split = w, i
		}
	}
	if split < 0 {
		return Warning{}, false
	}
	m1, v1 := ss(0, split)
	m2, v2 := ss(split, n)
	if v1+v2 == 0 {
		return Warning{}, false
	}
	d := math.Sqrt2 * math.Abs(m2-m1) / math.Sqrt(v1+v2)
	if d < bimodalD {
		return Warning{}, false
	}
	return warnf(WarnBimodal,
		"the values form two groups, %d around %ss and %d around %ss (Ashman's D = %s on their logarithms): no single family describes both; split them by a field (route, status, size) and fit each",
		split, SecondsText(math.Exp(m1)), n-split, SecondsText(math.Exp(m2)), human.Significant(d, 3)), true
}

// Statuses of failed responses start at 400.
const firstErrorStatus = 400

// MixedStatuses warns when the values timed failed responses: all of them
// (a route whose every value was a 503 is not its service time), or some
// among successes, which take a different time. statuses holds each value's
// HTTP status, 0 when unknown.
func MixedStatuses(statuses []int) (Warning, bool) {
	counts := map[int]int{}
	known, failed := 0, 0
	for _, s := range statuses {
		if s == 0 {
			continue
		}
		counts[s]++
		known++
		if s >= firstErrorStatus {
			failed++
		}
	}
	if failed == 0 {
		return Warning{}, false
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d: %d", s, counts[s]))
	}
	if failed == known {
		return warnf(WarnMixed,
			"every value with a status is of a failed response (%s): these time failures, not the service; check the filter", strings.Join(parts, ", ")), true
	}
	return warnf(WarnMixed,
		"the values mix statuses (%s): failures take another time than successes; keep one with a status filter, or fit each apart", strings.Join(parts, ", ")), true
}

// saturation looks for latency climbing over the recording, the signature of
// a system past its capacity, where queues grow and each value measures the
// backlog more than the service.
func saturation(values, times []float64) (Warning, bool) {
	if len(times) != len(values) {
		return Warning{}, false
	}
	type pt struct{ t, v float64 }
	var pts []pt
	for i, t := range times {
		if !math.IsNaN(t) {
			pts = append(pts, pt{t, values[i]})
		}
	}
	if len(pts) < minTrendSample {
		return Warning{}, false
	}
	slices.SortStableFunc(pts, func(a, b pt) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	ts := make([]float64, len(pts))
	vs := make([]float64, len(pts))
	for i, p := range pts {
		ts[i], vs[i] = p.t, p.v
	}
	if ts[0] == ts[len(ts)-1] {
		return Warning{}, false
	}
	rho := stat.Correlation(ranks(ts), ranks(vs), nil)
	third := len(vs) / 3
	first := slices.Clone(vs[:third])
	last := slices.Clone(vs[len(vs)-third:])
	slices.Sort(first)
	slices.Sort(last)
	m1 := stat.Quantile(0.5, stat.Empirical, first, nil)
	m3 := stat.Quantile(0.5, stat.Empirical, last, nil)
	if !(rho >= trendRho) || !(m1 > 0) || m3/m1 < trendRatio {
		return Warning{}, false
	}
	return warnf(WarnSaturation,
		"latency climbs over the recording (rank correlation with time %s; median of the last third %s× that of the first): the data look recorded under saturation, so a fit describes the backlog, not the service; narrow the time window",
		human.Significant(rho, 2), human.Significant(m3/m1, 2)), true
}

// ranks returns the rank of each element (1-based, ties sharing the mean of
// their ranks), for Spearman's correlation.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// SecondsText writes a duration in seconds, without its unit, to the four
// significant digits of calibration's messages, and of the tables that
// show its fits beside them (the fragment uses sim's six).
func SecondsText(v float64) string { return human.Significant(v, 4) }

// warningOrder lists the kinds in the order a reader meets them. First
// those that change what one should fit: two groups (fit each), latency
// climbing over the recording (narrow the window), values cut off at a
// limit (model the timeout), failures among the values (filter them), too
// few values, figures that contradict each other. Then those that qualify
// the fit chosen. WarnQuantised changes nothing and comes last, folded.
var warningOrder = []struct {
	kind       WarningKind
	changesFit bool
}{
	{WarnBimodal, true}, {WarnSaturation, true}, {WarnTruncated, true}, {WarnMixed, true},
	{WarnSmallSample, true}, {WarnDisagree, true},
	{WarnPoorFit, false}, {WarnHeavyTail, false}, {WarnZeros, false}, {WarnResolution, false},
	{WarnNoSpread, false}, {WarnFewFigures, false}, {WarnRounded, false},
	{WarnQuantised, false},
}

// rank is the kind's place in warningOrder, and whether it changes a fit.
func (w Warning) rank() (int, bool) {
	for i, o := range warningOrder {
		if o.kind == w.Kind {
			return i, o.changesFit
		}
	}
	return len(warningOrder), false
}

// EntryWarning is a warning about one entry of a calibration.
type EntryWarning struct {
	Entry string
	Warning
}

// RankWarnings orders the warnings of a calibration's entries for a
// reader, as lines "ENTRY: message": first those that change what one
// should fit, then those that qualify a fit, each part entry by entry in
// the order given and, within an entry, by warningOrder. The quantised
// ones come last, folded into one line per step ("3 entries: values are
// quantised to 1ms; ..."): a note on every entry of tightly logged data
// would bury the warnings that matter.
func RankWarnings(ws []EntryWarning) []string {
	entryAt := map[string]int{}
	type ranked struct {
		w                 EntryWarning
		tier, entry, kind int
	}
	var rs []ranked
	var steps []float64
	folded := map[float64][]string{}
	for _, w := range ws {
		if _, ok := entryAt[w.Entry]; !ok {
			entryAt[w.Entry] = len(entryAt)
		}
		if w.Kind == WarnQuantised {
			if _, ok := folded[w.Quantum]; !ok {
				steps = append(steps, w.Quantum)
			}
			if !slices.Contains(folded[w.Quantum], w.Entry) {
				folded[w.Quantum] = append(folded[w.Quantum], w.Entry)
			}
			continue
		}
		kind, changes := w.rank()
		tier := 1
		if changes {
			tier = 0
		}
		rs = append(rs, ranked{w, tier, entryAt[w.Entry], kind})
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if a.tier != b.tier {
			return a.tier - b.tier
		}
		if a.entry != b.entry {
			return a.entry - b.entry
		}
		return a.kind - b.kind
	})
	var lines []string
	for _, r := range rs {
		lines = append(lines, r.w.Entry+": "+r.w.Msg)
	}
	for _, q := range steps {
		who := folded[q][0]
		if n := len(folded[q]); n > 1 {
			who = fmt.Sprintf("%d entries", n)
		}
		lines = append(lines, who+": "+quantisedText(q))
	}
	return lines
}
