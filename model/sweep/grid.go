package sweep

import "capsim/model"

// MaxGrid bounds the multipliers of one sweep (see model.MaxGrid).
const MaxGrid = model.MaxGrid

// The other counts of a sweep are bounded too, so that no product of them
// overflows an int and each mistake is refused with its bound instead of
// running for years.
const (
	// MaxReplications bounds the runs per design and multiplier.
	MaxReplications = model.MaxReplications
	// MaxRuns bounds the grid runs, designs × multipliers × replications;
	// a shard count can be no larger either.
	MaxRuns = 1_000_000
	// MaxWorkers bounds the runs in parallel.
	MaxWorkers = 4096
	// MaxRefine bounds the bisection steps: 50 halve a multiplier's gap
	// below float64's precision.
	MaxRefine = 50
)

// ParseMultipliers reads a grid of load multipliers, as
// model.ParseMultipliers does: the scenario's sweep.multipliers is checked
// by the same reader when it loads.
func ParseMultipliers(s string) ([]float64, error) { return model.ParseMultipliers(s) }

// roundSig rounds v as the multipliers of a grid are (model.RoundMultiplier).
func roundSig(v float64) float64 { return model.RoundMultiplier(v) }

// FormatMultiplier writes a multiplier as every output of a sweep does
// (model.FormatMultiplier).
func FormatMultiplier(v float64) string { return model.FormatMultiplier(v) }
