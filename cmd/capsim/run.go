package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"capsim/model"
	"github.com/spf13/cobra"
)

type runOptions struct {
	Scenario   string
	Design     string
	Multiplier float64
	Seed       uint64
	Sets       []string
	Scales     []string
	JSON       bool
	Trace      string
	FailOnSLO  bool
}

func newRunCmd(io *IOStreams) *cobra.Command {
	opts := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [SCENARIO]",
		Short: "Run one scenario once and print what users and components saw",
		Long: `Run one scenario (a YAML file or the name of an embedded scenario; default
"trip") with one design, at one load multiplier, with one seed, and print a
summary: journeys started, succeeded and failed by stage; the journey failure
rate next to the HTTP failure rate; per-route latency percentiles; and the
utilisation, queues and rejections of every component.

The same scenario, design, multiplier and seed always give the same result.`,
		Example: `  capsim run mmc
  capsim run trip --design v1-improved --multiplier 4 --seed 7
  capsim run my-system.yaml --set components.api.servers=16 --json
  capsim run trip --trace trace.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Scenario = args[0]
			}
			return runRun(cmd.Context(), io, opts)
		},
		ValidArgsFunction: completeScenarios,
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Design, "design", "d", "", "design to overlay on the base scenario (see: capsim scenarios show NAME)")
	f.Float64VarP(&opts.Multiplier, "multiplier", "m", 1, "load multiplier: scales every journey rate and client count")
	f.Uint64Var(&opts.Seed, "seed", 1, "master seed of the random streams")
	f.StringArrayVar(&opts.Sets, "set", nil, "override a scenario value, path=value (repeatable), e.g. components.api.servers=16")
	f.StringArrayVar(&opts.Scales, "scale", nil, "multiply a distribution, duration or number, path=factor (repeatable), e.g. distributions.service=1.1")
	f.BoolVar(&opts.JSON, "json", false, "print the result as JSON instead of a summary")
	f.StringVar(&opts.Trace, "trace", "", "write every event as a JSON line to `FILE`")
	f.BoolVar(&opts.FailOnSLO, "fail-on-slo", false, "exit with code 3 when an SLO is broken")
	cmd.RegisterFlagCompletionFunc("design", completeDesigns)
	return cmd
}

func runRun(ctx context.Context, io *IOStreams, opts *runOptions) error {
	if opts.Multiplier <= 0 || math.IsNaN(opts.Multiplier) || math.IsInf(opts.Multiplier, 0) {
		return usageErr("--multiplier must be a number > 0, got %g", opts.Multiplier)
	}
	c, l, cerr := compileScenario(opts.Scenario, model.LoadOptions{Design: opts.Design, Sets: opts.Sets, Scales: opts.Scales})
	if cerr != nil {
		return cerr
	}
	if err := l.CheckMultiplier(opts.Multiplier); err != nil {
		return usageErr("--multiplier: %v", err)
	}
	ro := model.RunOptions{Multiplier: opts.Multiplier, Seed: opts.Seed,
		Interrupted: func() bool { return ctx.Err() != nil }}
	var finishTrace func() error
	if opts.Trace != "" {
		var inputs []string
		for _, src := range l.Sources() {
			inputs = append(inputs, src.Name)
		}
		if err := refuseInput("--trace", opts.Trace, inputs); err != nil {
			return err
		}
		trace, terr := createAtomic(opts.Trace)
		if terr != nil {
			return withCode(exitError, terr)
		}
		defer trace.Abort()
		w := bufio.NewWriterSize(trace, 1<<16)
		enc := json.NewEncoder(w)
		var werr error
		ro.Trace = func(e *model.TraceEvent) {
			if werr == nil {
				werr = enc.Encode(e)
			}
		}
		finishTrace = func() error {
			if werr == nil {
				werr = w.Flush()
			}
			if werr == nil {
				return trace.Commit()
			}
			return fmt.Errorf("writing trace: %w", werr)
		}
	}
	res, rerr := c.Run(ro)
	if errors.Is(rerr, model.ErrInterrupted) {
		return withCode(exitInterrupt, errors.New("run interrupted; no output written"))
	}
	if rerr != nil {
		return usageErr("%v", rerr)
	}
	// The trace is complete before anything is printed: a reader that
	// closes stdout early (| head) must not cost the file.
	if finishTrace != nil {
		if err := finishTrace(); err != nil {
			return withCode(exitError, err)
		}
	}
	if opts.JSON {
		data, jerr := res.JSON()
		if jerr != nil {
			return jerr
		}
		io.Out.Write(append(data, '\n'))
	} else {
		writeSummary(io.Out, res, io.width())
	}
	if opts.FailOnSLO {
		for i := range res.SLOs {
			if s := &res.SLOs[i]; !s.Met {
				return withCode(exitSLOFailed, fmt.Errorf("SLO broken: %s (value %s)", s.SLO, fmtSLOValue(s)))
			}
		}
	}
	return nil
}
