package main

import (
	"bufio"
	"capsim/plots/diagram"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"capsim/model"
	"github.com/spf13/cobra"
)

type runOptions struct {
	designFlags
	JSON      bool
	Trace     string
	Series    string
	Graph     string
	Origin    string
	FailOnSLO bool
}

func newRunCmd(io *IOStreams) *cobra.Command {
	cmd, opts := scenarioCommand(io, "run [SCENARIO]", runRun, &cobra.Command{
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
  capsim run trip --trace trace.jsonl
  capsim run trip --series series.csv
  capsim run trip --trace trace.jsonl --trace-origin 2026-01-01T00:00:00Z`,
	})
	opts.addDesign(cmd, "load multiplier: scales every journey rate and client count")
	f := cmd.Flags()
	opts.addSeed(f, "master seed of the random streams")
	opts.addOverrides(f, "")
	f.BoolVar(&opts.JSON, "json", false, "print the result as JSON instead of a summary")
	f.StringVar(&opts.Trace, "trace", "", "write every event as a JSON line to `FILE`")
	f.StringVar(&opts.Graph, "graph", "", "draw the scenario as an SVG diagram with the run's utilisation, queue and refusals on each component into `FILE`")
	f.StringVar(&opts.Series, "series", "", "write the run's time series (in flight, busy, queues...) as CSV to `FILE`")
	f.StringVar(&opts.Origin, "trace-origin", "", "give trace events a wall-clock \"time\" too, simulated time 0 being `TIME` (RFC 3339)")
	f.BoolVar(&opts.FailOnSLO, "fail-on-slo", false, "exit with code 3 when an SLO is broken")
	return cmd
}

// traceTime is simulated second t after origin, in RFC 3339 with all nine
// digits of the fraction, so that lines sort as text in time order.
func traceTime(origin time.Time, t float64) string {
	return origin.Add(time.Duration(math.Round(t * 1e9))).Format("2006-01-02T15:04:05.000000000Z07:00")
}

// lastRFC3339 is the last instant RFC 3339 can write in origin's zone:
// its year has four digits.
func lastRFC3339(origin time.Time) time.Time {
	return time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, origin.Location())
}

// checkOrigin refuses an origin from which span, what the run's trace
// covers, would reach a year of five digits.
func checkOrigin(flag string, origin time.Time, span time.Duration, what string) error {
	last := lastRFC3339(origin)
	if !origin.Add(span).After(last) {
		return nil
	}
	return usageErr("--trace-origin %s: %s is %s after it, past %s, the last time RFC 3339 can write; give an origin of %s or earlier",
		flag, what, span, last.Format(time.RFC3339Nano), last.Add(-span).Format(time.RFC3339Nano))
}

func runRun(ctx context.Context, io *IOStreams, opts *runOptions) error {
	if err := opts.checkMultiplier(); err != nil {
		return err
	}
	c, l, err := opts.compile()
	if err != nil {
		return err
	}
	ro := model.RunOptions{Multiplier: opts.Multiplier, Seed: opts.Seed,
		Interrupted: func() bool { return ctx.Err() != nil }}
	var finishTrace func() error
	var origin time.Time
	if opts.Origin != "" {
		if opts.Trace == "" {
			return usageErr("--trace-origin needs --trace")
		}
		t, err := time.Parse(time.RFC3339Nano, opts.Origin)
		if err != nil {
			return usageErr("--trace-origin: %q is not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)", opts.Origin)
		}
		origin = t
		if err := checkOrigin(opts.Origin, origin, time.Duration(l.Scenario.Duration.T), "the scenario's end"); err != nil {
			return err
		}
	}
	if err := refuseSameOutputs([2]string{"--trace", opts.Trace}, [2]string{"--series", opts.Series},
		[2]string{"--graph", opts.Graph}); err != nil {
		return err
	}
	var series *atomicFile
	var inputs []string
	for _, src := range l.Sources() {
		inputs = append(inputs, src.Name)
	}
	if opts.Series != "" {
		if err := refuseInput("--series", opts.Series, inputs); err != nil {
			return err
		}
		ro.SeriesStep = seriesStep(l.Scenario.Duration.T)
		// Opened before the run, so that a path that cannot be written
		// fails at once and not after a long run.
		f, err := createAtomic(opts.Series)
		if err != nil {
			return withCode(exitError, err)
		}
		defer f.Abort()
		series = f
	}
	var graph *atomicFile
	if opts.Graph != "" {
		if err := refuseInput("--graph", opts.Graph, inputs); err != nil {
			return err
		}
		f, err := createAtomic(opts.Graph)
		if err != nil {
			return withCode(exitError, err)
		}
		defer f.Abort()
		graph = f
	}
	if opts.Trace != "" {
		if err := refuseInput("--trace", opts.Trace, inputs); err != nil {
			return err
		}
		trace, terr := createAtomic(opts.Trace)
		if terr != nil {
			return withCode(exitError, terr)
		}
		defer trace.Abort()
		w := bufio.NewWriterSize(trace, 1<<16)
		var werr error
		var line []byte
		// A run goes on past its duration until its last journey ends:
		// the latest event is known only once it has happened.
		lastEvent, past := 0.0, false
		limit := lastRFC3339(origin).Sub(origin).Seconds()
		ro.Trace = func(e *model.TraceEvent) {
			if opts.Origin != "" && e.T > limit {
				past, lastEvent = true, max(lastEvent, e.T)
			}
			if werr != nil || past {
				return
			}
			if opts.Origin != "" {
				e.Time = traceTime(origin, e.T)
			}
			line = append(e.AppendJSON(line[:0]), '\n')
			_, werr = w.Write(line)
		}
		finishTrace = func() error {
			if past {
				return checkOrigin(opts.Origin, origin, time.Duration(math.Ceil(lastEvent*1e9)), "the run's last event")
			}
			if werr == nil {
				werr = w.Flush()
			}
			if werr == nil {
				return withCode(exitError, trace.Commit())
			}
			return withCode(exitError, fmt.Errorf("writing trace: %w", werr))
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
			return err
		}
	}
	if opts.Series != "" {
		if err := writeSeries(series, res.Series); err != nil {
			return withCode(exitError, err)
		}
	}
	if graph != nil {
		svg := diagram.SVG(c.Graph(), diagram.Options{Loads: diagram.LoadsOf(res),
			Caption: fmt.Sprintf("one run at multiplier %g, seed %d", ro.Multiplier, ro.Seed)})
		if _, err := graph.Write(svg); err != nil {
			return withCode(exitError, fmt.Errorf("writing graph: %w", err))
		}
		if err := graph.Commit(); err != nil {
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
	if res.Broken != nil {
		// A run a guard stopped did not finish: what it printed is of an
		// unfinished run, and a script must not take it for an answer.
		return withCode(exitError, fmt.Errorf("the run did not finish: %s", res.Broken))
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

// writeSeries writes a run's time series as CSV to f and puts it in
// place: a failed write leaves what was there.
func writeSeries(f *atomicFile, ts *model.TimeSeries) error {
	if err := ts.WriteCSV(f); err != nil {
		return fmt.Errorf("writing series: %w", err)
	}
	return f.Commit()
}
