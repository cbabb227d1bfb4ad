package sweepreport

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"capsim/model/sweep"
	"capsim/plots"
)

// Hinge is one parameter's effect on one design's first failure, as
// capsim sensitivity measured it (a row pair of its sensitivity.csv).
type Hinge struct {
	Design, Parameter, Label, Value string
	Kind                            string // distribution, time, count, weight, number
	// Elasticity is ln(first failure raised / lowered) / ln(parameter
	// raised / lowered), as capsim sensitivity's table ranks it (the
	// parameter_elasticity column); NaN where it is undefined.
	Elasticity float64
	// Base is the first failure the sensitivity run found for the design.
	Base float64
	// Tried are the values the sensitivity run moved the parameter to,
	// one per side as written (new_value: "x0.9" for a factor, the new
	// count or value), and Factors the same as factors of the value
	// (1 + parameter_change; NaN where the change is undefined): the
	// range past which a move would be an extrapolation.
	Tried   []string
	Factors []float64
	// Swing is the larger |first_failure_change| of the sides, NaN where
	// no side has one; Noise is "beyond" when a side moved the first
	// failure beyond the replications' noise, "within" when none did, ""
	// for a file written before the noise column.
	Swing float64
	Noise string
}

// TopHinges is how many parameters the section lists per design.
const TopHinges = 5

// ReadSensitivityCSV reads the hinges of a sensitivity.csv (capsim
// sensitivity's output): one per design and parameter, in the file's
// order, gathering its sides. A malformed file is an error naming the
// line and the column.
func ReadSensitivityCSV(r io.Reader, scenario string) ([]Hinge, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty file: expected the header of capsim sensitivity's sensitivity.csv")
		}
		return nil, err
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range []string{"design", "parameter", "kind", "label", "value", "new_value", "parameter_change",
		"base_first_failure", "first_failure_change", "parameter_elasticity"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("line 1: no column %q: not a sensitivity.csv of capsim sensitivity", need)
		}
	}
	noiseCol, hasNoise := col["noise"]
	var out []Hinge
	seen := map[[2]string]int{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		num := func(name string) (float64, error) {
			s := rec[col[name]]
			if s == "" {
				return math.NaN(), nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return 0, fmt.Errorf("line %d, column %s: expected a number, got %q", line, name, s)
			}
			return v, nil
		}
		change, err := num("parameter_change")
		if err != nil {
			return nil, err
		}
		effect, err := num("first_failure_change")
		if err != nil {
			return nil, err
		}
		noise := ""
		if hasNoise {
			noise = rec[noiseCol]
			if noise != "beyond" && noise != "within" {
				return nil, fmt.Errorf("line %d, column noise: expected beyond or within, got %q", line, noise)
			}
		}
		if i, ok := col["scenario"]; ok && scenario != "" && rec[i] != scenario {
			return nil, fmt.Errorf("line %d: the sensitivity of scenario %q, not of %q", line, rec[i], scenario)
		}
		key := [2]string{rec[col["design"]], rec[col["parameter"]]}
		i, ok := seen[key]
		if !ok {
			h := Hinge{Design: key[0], Parameter: key[1], Kind: rec[col["kind"]],
				Label: rec[col["label"]], Value: rec[col["value"]], Swing: math.NaN(), Noise: noise}
			// Both sides carry the parameter's elasticity and the base.
			if h.Elasticity, err = num("parameter_elasticity"); err != nil {
				return nil, err
			}
			if h.Base, err = num("base_first_failure"); err != nil {
				return nil, err
			}
			i = len(out)
			seen[key] = i
			out = append(out, h)
		}
		h := &out[i]
		h.Tried = append(h.Tried, rec[col["new_value"]])
		h.Factors = append(h.Factors, 1+change)
		if !math.IsNaN(effect) && !(math.Abs(effect) <= h.Swing) {
			h.Swing = math.Abs(effect)
		}
		if noise == "beyond" {
			h.Noise = noise
		}
	}
}

// hingeOrder ranks hinges as capsim sensitivity's table does: beyond the
// noise first, then by the larger change of the first failure.
func hingeOrder(a, b Hinge) int {
	if (a.Noise == "beyond") != (b.Noise == "beyond") {
		if a.Noise == "beyond" {
			return -1
		}
		return 1
	}
	return cmp.Compare(swingOrZero(b), swingOrZero(a))
}

func swingOrZero(h Hinge) float64 {
	if math.IsNaN(h.Swing) {
		return 0
	}
	return h.Swing
}

// gridStep is the grid's spacing at m: the gap between the grid
// multipliers around it (the last gap above the grid, the first below).
func gridStep(grid []float64, m float64) float64 {
	if len(grid) < 2 {
		return math.NaN()
	}
	i, _ := slices.BinarySearch(grid, m)
	i = min(max(i, 1), len(grid)-1)
	return grid[i] - grid[i-1]
}

// moveFor is the factor by which a parameter of elasticity e must be
// multiplied for a first failure at m to move to target, reading the
// elasticity as the exponent of a power law, first failure ∝ parameter^e:
// (target/m)^(1/e). Far beyond the ±delta the elasticity was measured
// over, that is an extrapolation, which the section says.
func moveFor(e, m, target float64) float64 {
	if e == 0 || math.IsNaN(e) || !(target > 0) || !(m > 0) {
		return math.NaN()
	}
	return math.Pow(target/m, 1/e)
}

// hingesSection is "What the answer hinges on": for each design of the
// sweep that the sensitivity run covered, the parameters that moved its
// first failure most, beyond the noise first, and how far each would have
// to move for the first failure to change by one grid step — only where
// that stays inside the values the sensitivity run tried.
func hingesSection(res *sweep.Result, hinges []Hinge) plots.Section {
	var b strings.Builder
	b.WriteString("The parameters that move each design's first failure most, from the `sensitivity.csv` given with `--hinges` " +
		"(each moved one at a time by capsim sensitivity, every other value as written), in its order: those that moved it beyond " +
		"the replications' noise first, then by the larger change of the first failure. The elasticity is about the % change " +
		"of the first failure per % change of the parameter. The last two columns say how far the parameter would have to move " +
		"for the first failure to change by one grid step, reading the elasticity as a power law (first failure ∝ parameter^elasticity), " +
		"a count in whole steps; a move past the values the sensitivity run tried is not extrapolated: it reads \"beyond the range tried\". " +
		"A parameter labelled `assumption` or unlabelled near the top is the first thing to check.\n")
	t := &plots.Table{Header: []string{"design", "parameter", "label", "value", "moved", "noise", "elasticity", "one step up", "one step down"},
		Prose: []int{7, 8}} // a step can be "beyond the range tried"
	var still, uncovered []string
	for _, ff := range res.FirstFailures {
		var mine []Hinge
		covered := false
		for _, h := range hinges {
			covered = covered || h.Design == ff.Design
			if h.Design == ff.Design && (swingOrZero(h) > 0 || h.Noise == "beyond") {
				mine = append(mine, h)
			}
		}
		switch {
		case !covered:
			uncovered = append(uncovered, ff.Design)
			continue
		case len(mine) == 0:
			still = append(still, ff.Design)
			continue
		}
		slices.SortStableFunc(mine, hingeOrder)
		m := ff.Multiplier
		if !ff.Found || math.IsNaN(m) {
			m = mine[0].Base
		}
		step := gridStep(res.Multipliers, m)
		for i, h := range mine[:min(TopHinges, len(mine))] {
			name := ""
			if i == 0 {
				name = ff.Design
			}
			moved := "—"
			if !math.IsNaN(h.Swing) {
				moved = fmt.Sprintf("%.1f%%", 100*h.Swing)
			}
			elasticity := "—"
			if !math.IsNaN(h.Elasticity) {
				elasticity = strconv.FormatFloat(h.Elasticity, 'f', 2, 64)
			}
			up, down := moveFor(h.Elasticity, m, m+step), moveFor(h.Elasticity, m, m-step)
			t.Rows = append(t.Rows, []string{name, h.Parameter, orDash(h.Label), h.Value, moved, orDash(h.Noise),
				elasticity, fmtMove(h, up, m+step), fmtMove(h, down, m-step)})
		}
	}
	fmt.Fprintf(&b, "\nA grid step is the spacing of the sweep's multipliers (%s) around the design's first failure; the arrow gives the first failure the move would bring.\n", gridText(res.Multipliers))
	if len(still) > 0 {
		fmt.Fprintf(&b, "\nNo parameter moved the first failure of %s in the sensitivity run.\n", strings.Join(still, ", "))
	}
	if len(uncovered) > 0 {
		fmt.Fprintf(&b, "\nThe sensitivity run did not cover %s (capsim sensitivity --design D for each).\n", strings.Join(uncovered, ", "))
	}
	return plots.Section{Heading: "What the answer hinges on", Text: b.String(), Table: t}
}

func gridText(grid []float64) string {
	var ms []string
	for _, m := range grid {
		ms = append(ms, sweep.FormatMultiplier(m))
	}
	return strings.Join(ms, ", ")
}

// fmtMove writes the factor f for a first failure of target: a count's
// new value, or a change in %; or, where f lies past the factors the
// sensitivity run tried, that it does, and what was tried.
func fmtMove(h Hinge, f, target float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	to := " → " + sweep.FormatMultiplier(target) + "x"
	if h.Kind == "count" {
		if v, err := strconv.ParseFloat(h.Value, 64); err == nil && v != 0 {
			// Whole steps, away from the value: a move that rounds back to
			// it moves nothing.
			n := math.Ceil(v * f)
			if f < 1 {
				n = math.Floor(v * f)
			}
			if !h.triedUpTo(n / v) {
				return h.beyondTried()
			}
			return strconv.FormatFloat(n, 'f', -1, 64) + " (from " + h.Value + ")" + to
		}
	}
	if !h.triedUpTo(f) {
		return h.beyondTried()
	}
	return fmt.Sprintf("%+.0f%%", (f-1)*100) + to
}

// triedUpTo says the factor f lies between the value as written and the
// farthest factor the sensitivity run tried on f's side of it.
func (h Hinge) triedUpTo(f float64) bool {
	lo, hi := 1.0, 1.0
	for _, t := range h.Factors {
		if !math.IsNaN(t) {
			lo, hi = min(lo, t), max(hi, t)
		}
	}
	// The factors went through the CSV's ten digits.
	const slack = 1e-9
	return f >= lo*(1-slack) && f <= hi*(1+slack)
}

func (h Hinge) beyondTried() string {
	return "beyond the range tried (" + strings.Join(h.Tried, "–") + ")"
}
