package sweepreport

import (
	"strings"

	"capsim/model/sweep"
)

// idleLine is the line under design d's table naming the SLOs that
// measured nothing at some multipliers: no run there saw traffic for what
// they name (no journey of it started, say, at a load too low for the
// run's length), so they hold of no values and the cell's "-" is not a
// missing figure. "" where every SLO measured something everywhere. With
// md, a markdown sentence for the report, else a line for the terminal.
func idleLine(res *sweep.Result, d int, md bool) string {
	nm := len(res.Multipliers)
	var slos []string
	at := map[string][]string{}
	for m := range nm {
		c := res.Cells[d*nm+m]
		for _, st := range c.SLOs {
			if !st.Idle {
				continue
			}
			if _, ok := at[st.SLO]; !ok {
				slos = append(slos, st.SLO)
			}
			at[st.SLO] = append(at[st.SLO], sweep.FormatMultiplier(c.Multiplier)+"x")
		}
	}
	if len(slos) == 0 {
		return ""
	}
	parts := make([]string, len(slos))
	for i, s := range slos {
		parts[i] = s + " at " + strings.Join(at[s], ", ")
	}
	if md {
		return "Measured nothing, as no run saw traffic for it: " + mdEscape(strings.Join(parts, "; ")) + "."
	}
	return "measured nothing, as no run saw traffic for it: " + strings.Join(parts, "; ")
}
