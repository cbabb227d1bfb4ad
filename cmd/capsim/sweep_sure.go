package main

import "capsim/model/sweep"

// planUntilSure checks --until-sure and --max-replications against the
// replications settled so far.
func planUntilSure(plan *sweepPlan, opts *sweepOptions) error {
	if !opts.UntilSure {
		if opts.set["max-replications"] {
			return usageErr("--max-replications goes with --until-sure")
		}
		return nil
	}
	switch {
	case opts.Shard != "" || len(opts.Merge) > 0:
		return usageErr("--until-sure runs its looks on one machine: it does not go with --shard or --merge")
	case opts.Uncertainty:
		return usageErr("--until-sure does not go with --uncertainty")
	case opts.MaxReps < plan.reps || opts.MaxReps > sweep.MaxReplications:
		return usageErr("--max-replications must be between the replications (%d) and %d, got %d", plan.reps, sweep.MaxReplications, opts.MaxReps)
	}
	plan.until = opts.MaxReps
	return nil
}
