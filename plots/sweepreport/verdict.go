package sweepreport

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"
)

// outcome is a set of designs whose first failures are the same in every
// field the report shows: five designs that break alike read as one row,
// not five to compare digit by digit.
type outcome struct {
	designs []int // indices into the result's designs, in its order
	ff      sweep.FirstFailure
}

func sameFailure(a, b sweep.FirstFailure) bool {
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return a.Found == b.Found && a.BelowRange == b.BelowRange && eq(a.Multiplier, b.Multiplier) &&
		eq(a.Lo, b.Lo) && eq(a.Hi, b.Hi) && a.SLO == b.SLO && a.Stage == b.Stage && a.Component == b.Component &&
		eq(a.PLo, b.PLo) && eq(a.PHi, b.PHi)
}

// rankOutcomes groups the designs by first failure and orders the groups
// best first: a design that held over the whole range, then the latest
// first failure, then the higher lower end of its interval; ties keep the
// scenario's order.
func rankOutcomes(res *sweep.Result) []outcome {
	var out []outcome
	for d, ff := range res.FirstFailures {
		i := slices.IndexFunc(out, func(o outcome) bool { return sameFailure(o.ff, ff) })
		if i < 0 {
			out = append(out, outcome{ff: ff})
			i = len(out) - 1
		}
		out[i].designs = append(out[i].designs, d)
	}
	key := func(v float64) float64 {
		if math.IsNaN(v) {
			return math.Inf(-1)
		}
		return v
	}
	slices.SortStableFunc(out, func(a, b outcome) int {
		if a.ff.Found != b.ff.Found {
			if !a.ff.Found {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(key(b.ff.Multiplier), key(a.ff.Multiplier)), cmp.Compare(key(b.ff.Lo), key(a.ff.Lo)))
	})
	return out
}

func (o outcome) names(res *sweep.Result) string {
	var ns []string
	for _, d := range o.designs {
		ns = append(ns, res.Designs[d])
	}
	return strings.Join(ns, ", ")
}

// verdictTable ranks the designs by first failure, best first.
func verdictTable(res *sweep.Result, outs []outcome) *plots.Table {
	t := &plots.Table{Header: []string{"rank", "design", "first fails at (95 % CI)", "why"}}
	if drawn(res) {
		t.Header = slices.Insert(t.Header, 3, "with parameter uncertainty (95 %)")
	}
	t.Prose = []int{1, len(t.Header) - 1} // the designs alike, and why
	top := res.Multipliers[len(res.Multipliers)-1]
	ranks := res.Ranks()
	for i, o := range outs {
		r := ranks[o.designs[0]]
		if len(o.designs) > 1 {
			// Designs on one row share their place.
			r.Shared = true
		}
		rank := r.String()
		if r.N == 1 && !r.Shared && len(outs) > 1 {
			rank += " best"
			t.Strong = append(t.Strong, i)
		}
		row := []string{rank, o.names(res), failsAt(o.ff, top), why(res, o)}
		if drawn(res) {
			row = slices.Insert(row, 3, paramInterval(o.ff)+"x")
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func failsAt(ff sweep.FirstFailure, top float64) string {
	switch {
	case !ff.Found:
		return "held up to " + sweep.FormatMultiplier(top) + "x"
	case ff.BelowRange:
		return "≤ " + sweep.FormatMultiplier(ff.Multiplier) + "x (lowest tried; ?–" + fmtHi(ff.Hi) + ")"
	}
	return sweep.FormatMultiplier(ff.Multiplier) + "x (" + fmtInterval(ff.Lo, ff.Hi) + ")"
}

// why says in one sentence what broke at a design's first failure: the
// SLO with the value it reached, and where the failed journeys ended,
// all read from the cell at that multiplier.
func why(res *sweep.Result, o outcome) string {
	ff := o.ff
	if !ff.Found {
		return "every SLO held at every multiplier tried"
	}
	var c *sweep.Cell
	for _, t := range ff.Tried {
		if t.Multiplier == ff.Multiplier {
			c = t
		}
	}
	if c == nil {
		return ff.SLO
	}
	var broke []string
	for _, st := range c.SLOs {
		if st.Broken {
			broke = append(broke, sloSentence(st))
		}
	}
	what := strings.Join(broke, "; ")
	if what == "" && c.Broken > 0 {
		what = fmt.Sprintf("%d of %d runs ran away and were stopped (%s)", c.Broken, c.Runs, ff.SLO)
	}
	if ff.Stage == "" {
		return what
	}
	return what + ": " + failedAt(measuredCell(res, o.designs[0], ff.Multiplier), ff.Stage, ff.Component)
}

// measuredCell is the grid cell of design d at the lowest grid multiplier
// at or above m (else the highest). Bisection cells carry only their
// verdict, so how a component failed is read from the grid point nearest
// above, where it failed at least as much.
func measuredCell(res *sweep.Result, d int, m float64) *sweep.Cell {
	nm := len(res.Multipliers)
	for i, gm := range res.Multipliers {
		if gm >= m {
			return res.Cells[d*nm+i]
		}
	}
	return res.Cells[d*nm+nm-1]
}

// Quantity writes a value in its measure's unit: a time as plots.Seconds
// writes it, a fraction as a percentage, anything else as a plain number.
func Quantity(u model.Unit, v float64) string {
	switch u {
	case model.UnitSeconds:
		return plots.Seconds(v)
	case model.UnitFraction:
		return plots.Percent(v)
	}
	return plots.Number(v)
}

// sloSentence reads "trip_creation success_rate >= 0.99" with its mean
// as "trip_creation success fell to 87.5% (SLO ≥ 99%)", each value in the
// unit of the measure the SLO bounds.
func sloSentence(st sweep.SLOStat) string {
	subject, unit := st.Key.Entity, st.Key.Measure.Unit()
	// The SLO's key in words, less the " rate" the value's percent says.
	name := strings.TrimSuffix(strings.ReplaceAll(st.Key.Measure.SLOKey(), "_", " "), " rate")
	verb := "fell to"
	if strings.HasPrefix(st.Bound.Op, "<") {
		verb = "rose to"
	}
	op := map[string]string{">=": "≥", "<=": "≤", ">": ">", "<": "<"}[st.Bound.Op]
	if st.N == 0 || math.IsNaN(st.Mean) {
		return fmt.Sprintf("%s %s had no value (SLO %s %s)", subject, name, op, Quantity(unit, st.Bound.Value))
	}
	return fmt.Sprintf("%s %s %s %s (SLO %s %s)", subject, name, verb, Quantity(unit, st.Mean), op, Quantity(unit, st.Bound.Value))
}

// failedAt says how the failed journeys ended at a stage: refused when
// the component turned more work away than it let time out, timed out
// when the reverse, else just that they ended there.
func failedAt(c *sweep.Cell, stage, component string) string {
	if component == "" {
		return "failed journeys ended at " + stage
	}
	rej, rok := c.Stat(model.Rejected.Of(component))
	tmo, tok := c.Stat(model.TimedOut.Of(component))
	how := "ended"
	switch {
	case rok && rej.Mean > 0 && (!tok || rej.Mean >= tmo.Mean):
		how = "refused"
	case tok && tmo.Mean > 0:
		how = "timed out"
	}
	return fmt.Sprintf("%s at %s (%s)", how, stage, component)
}

// sloBound finds the bound of an SLO on a metric, such as
// trip_creation's journey_success_rate, in any cell.
func sloBound(res *sweep.Result, key model.MetricKey) (model.Threshold, bool) {
	for _, c := range res.Cells {
		for _, st := range c.SLOs {
			if st.Key == key && !st.All {
				return st.Bound, true
			}
		}
	}
	return model.Threshold{}, false
}
