package sweepreport

import (
	"fmt"
	"strings"

	"capsim/model/sweep"
)

// untilSureNote says what replications until sure did: the runs they
// took, the confidence of every verdict, and the cells whose verdict
// stayed unsure, by design; "" without them.
func untilSureNote(res *sweep.Result) string {
	p := res.Precision
	if p == nil {
		return ""
	}
	s := fmt.Sprintf("until sure: %d runs, %d of them added by %d of %d looks doubling the replications of unsure cells up to %d; every verdict at %s %% (5 %% split over %d looks)",
		p.Runs, p.Extra, p.LooksMade-1, p.Looks-1, p.Until, sweep.FormatLevel(p.Level), p.Looks)
	if len(p.Unsure) == 0 {
		return s + "; every verdict that could move a first failure is sure"
	}
	var parts []string
	for i := 0; i < len(p.Unsure); {
		d := p.Unsure[i].Design
		var ms []string
		for ; i < len(p.Unsure) && p.Unsure[i].Design == d; i++ {
			ms = append(ms, fmt.Sprintf("%sx (%s, n %d)", sweep.FormatMultiplier(p.Unsure[i].Multiplier), p.Unsure[i].Verdict, p.Unsure[i].Runs))
		}
		parts = append(parts, d+" "+strings.Join(ms, ", "))
	}
	return s + "; still unsure: " + strings.Join(parts, "; ")
}

func untilSureText(res *sweep.Result) string {
	if n := untilSureNote(res); n != "" {
		return "\n\n" + strings.ToUpper(n[:1]) + n[1:] + "."
	}
	return ""
}

func hindcastText(line string) string {
	if line == "" {
		return ""
	}
	return "\n\n" + line
}
