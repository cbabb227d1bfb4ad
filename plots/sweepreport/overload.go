package sweepreport

import (
	"fmt"
	"strings"

	"capsim/model"
	"capsim/model/sweep"
)

// overloadCells lists the grid multipliers at which some of design d's
// runs were overloaded, each with how many of its runs were: "5x (3 of 5
// runs)"; none when no run was. The runs' overloaded_count says it, by
// the test of capsim run's diagnostic: a backlog at a component at
// capacity that the default drain let end after the arrivals stopped, so
// a success rate reads as if the design had kept up. It is a note beside
// the verdicts, which it leaves as they are.
func overloadCells(res *sweep.Result, d int) []string {
	nm := len(res.Multipliers)
	var out []string
	for m := range nm {
		c := res.Cells[d*nm+m]
		if k := c.Overloaded(); k > 0 {
			out = append(out, fmt.Sprintf("%sx (%d of %d runs)", sweep.FormatMultiplier(c.Multiplier), k, c.Runs))
		}
	}
	return out
}

// overloadLine is the line under design d's table naming where its runs
// were overloaded, "" where none was: with md, a markdown sentence for
// the report, else a line for the terminal.
func overloadLine(res *sweep.Result, d int, md bool) string {
	cells := overloadCells(res, d)
	if len(cells) == 0 {
		return ""
	}
	if md {
		return "Overload hidden by the drain: " + strings.Join(cells, ", ") + " — " + model.OverloadDrained(mdCode, "journeys") + "."
	}
	return "overload hidden by the drain: " + strings.Join(cells, ", ") + " — " + model.OverloadDrained(model.Plain, "journeys")
}

// mdCode writes s as markdown's inline code.
func mdCode(s string) string { return "`" + s + "`" }

// overloadText is the report's paragraph naming, design by design, where
// runs were overloaded; "" where none was.
func overloadText(res *sweep.Result) string {
	var designs []string
	for d, design := range res.Designs {
		if cells := overloadCells(res, d); len(cells) > 0 {
			designs = append(designs, mdEscape(design)+" at "+strings.Join(cells, ", "))
		}
	}
	if len(designs) == 0 {
		return ""
	}
	return "\n\nOverload hidden by the drain: " + strings.Join(designs, "; ") +
		". In those runs a component was at capacity, and the backlog still in flight when the arrivals stopped ended in the drain: " +
		model.OverloadDrained(mdCode, "journeys") +
		". The verdicts are the SLOs' on the runs as they are, drained journeys included."
}
