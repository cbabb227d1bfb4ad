package sensitivity

import (
	"encoding/csv"
	"io"
	"strconv"

	"capsim/model/sweep"
)

// csvHeader is sensitivity.csv's first line: one row per design,
// parameter and side, the base's first failure repeated on each so a
// row stands alone. The rows come in the table's order (Outcome.Rank),
// a parameter's lowered side before its raised one; noise is the side's
// verdict against the replications' noise (Judge); the replications and
// stopped columns say how far the base's search and the side's went: the
// most replications a cell that could move the first failure got, and
// sure, unsure (at the fixed replications) or cap (Config.Until reached).
var csvHeader = []string{"scenario", "design", "parameter", "path", "kind", "label", "value", "side", "new_value",
	"parameter_change", "override", "base_status", "base_first_failure", "base_ci_low", "base_ci_high",
	"status", "first_failure_multiplier", "ci_low", "ci_high", "first_failure_change", "elasticity",
	"parameter_elasticity", "slo", "component", "failure_stage", "noise",
	"base_replications", "base_stopped", "replications", "stopped"}

// WriteCSV writes sensitivity.csv, its numbers as the sweep writes its
// tables' (sweep.FormatValue: nothing measured is an empty cell).
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, o := range r.Designs {
		for _, k := range o.Rank() {
			for _, row := range []*Row{k.Low, k.High} {
				if row != nil {
					// Both sides carry the parameter's elasticity, from
					// the two sides together.
					r.writeRow(cw, o, row, k.Elasticity)
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeRow writes one side of a parameter, combined its elasticity.
func (r *Result) writeRow(cw *csv.Writer, o Outcome, row *Row, combined float64) {
	p := row.Param
	side := "-"
	if row.Side > 0 {
		side = "+"
	}
	override := "--scale " + row.Scale
	if row.Set != "" {
		override = "--set " + row.Set
	}
	ff := row.FirstFailure
	mult := ""
	if ff.Found {
		mult = sweep.FormatMultiplier(ff.Multiplier)
	}
	base := ""
	if o.Base.Found {
		base = sweep.FormatMultiplier(o.Base.Multiplier)
	}
	cw.Write([]string{r.Scenario, o.Design, p.Name, p.Path, string(p.Kind), p.Label, p.Value, side, row.To,
		sweep.FormatValue(row.Change), override, o.Base.Status(), base, sweep.FormatValue(o.Base.Lo), sweep.FormatValue(o.Base.Hi),
		ff.Status(), mult, sweep.FormatValue(ff.Lo), sweep.FormatValue(ff.Hi), sweep.FormatValue(row.Effect), sweep.FormatValue(row.Elasticity),
		sweep.FormatValue(combined), ff.SLO, ff.Component, ff.Stage, string(row.Noise),
		strconv.Itoa(o.BaseSettling.Replications), string(o.BaseSettling.Stop),
		strconv.Itoa(row.Settling.Replications), string(row.Settling.Stop)})
}
