package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxGrid bounds the multipliers of one sweep: more is almost always a
// step typed in the wrong unit (1:4:0.001), and would run for hours.
const MaxGrid = 1000

// ParseMultipliers reads a grid of load multipliers written as a list,
// "1,2,3", or as an inclusive range start:end:step, "1:6:0.5" ("1:6" steps
// by 1). The grid comes back sorted; every multiplier is > 0 and listed
// once. Range points are rounded to 10 significant digits, so 0.1:0.3:0.1
// gives 0.1, 0.2, 0.3 and not 0.30000000000000004.
func ParseMultipliers(s string) ([]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("expected a list such as 1,2,4 or a range start:end:step such as 1:4:0.5, got nothing")
	}
	var grid []float64
	if strings.Contains(s, ":") {
		parts := strings.Split(s, ":")
		if len(parts) > 3 || strings.Contains(s, ",") {
			return nil, fmt.Errorf("expected a range start:end:step such as 1:4:0.5, got %q", s)
		}
		nums := make([]float64, len(parts))
		for i, p := range parts {
			v, err := parseMultiplier(p)
			if err != nil {
				return nil, fmt.Errorf("expected a range start:end:step such as 1:4:0.5, got %q", s)
			}
			nums[i] = v
		}
		start, end, step := nums[0], nums[1], 1.0
		if len(nums) == 3 {
			step = nums[2]
		}
		switch {
		case start <= 0:
			return nil, fmt.Errorf("multipliers must be > 0, but the range starts at %s", FormatMultiplier(start))
		case end < start:
			return nil, fmt.Errorf("the end %s is below the start %s; write start:end:step with start <= end, e.g. %s:%s:0.5",
				FormatMultiplier(end), FormatMultiplier(start), FormatMultiplier(end), FormatMultiplier(start))
		case step <= 0:
			return nil, fmt.Errorf("the step must be > 0, got %s", FormatMultiplier(step))
		case end > MaxMultiplier:
			return nil, fmt.Errorf("multipliers must be at most %g, but the range ends at %s", float64(MaxMultiplier), FormatMultiplier(end))
		}
		// The small allowance keeps the end point when (end-start)/step is
		// a whole number that floating point lands just under.
		n := math.Floor((end-start)/step+1e-9) + 1
		if n > MaxGrid {
			return nil, fmt.Errorf("%s gives %.0f multipliers; at most %d are allowed (is the step right?)", s, n, MaxGrid)
		}
		for i := 0; i < int(n); i++ {
			grid = append(grid, RoundMultiplier(start+float64(i)*step))
		}
	} else {
		for _, p := range strings.Split(s, ",") {
			v, err := parseMultiplier(p)
			if err != nil {
				return nil, fmt.Errorf("expected a list such as 1,2,4 or a range start:end:step such as 1:4:0.5, got %q", s)
			}
			if v <= 0 {
				return nil, fmt.Errorf("multipliers must be > 0, got %s", strings.TrimSpace(p))
			}
			if v > MaxMultiplier {
				return nil, fmt.Errorf("multipliers must be at most %g, got %s", float64(MaxMultiplier), strings.TrimSpace(p))
			}
			grid = append(grid, v)
		}
		if len(grid) > MaxGrid {
			return nil, fmt.Errorf("%d multipliers listed; at most %d are allowed", len(grid), MaxGrid)
		}
	}
	slices.Sort(grid)
	for i := 1; i < len(grid); i++ {
		if grid[i] == grid[i-1] {
			return nil, fmt.Errorf("multiplier %s is listed twice", FormatMultiplier(grid[i]))
		}
	}
	return grid, nil
}

func parseMultiplier(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "x"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return v, nil
}

// RoundMultiplier rounds v to the 10 significant digits multipliers are
// printed with, so that the multiplier a run used is exactly the one written.
func RoundMultiplier(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 10, 64), 64)
	return r
}

// FormatMultiplier writes a multiplier as every output of a sweep does, to
// the 10 significant digits the runs used (see RoundMultiplier).
func FormatMultiplier(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
