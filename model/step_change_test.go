package model_test

import (
	"math"
	"os"
	"testing"

	"capsim/model"
	"capsim/sim/theory"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// An M(t)/M/c queue whose Poisson rate steps from λ1 to λ2 at time T: long
// before the step and long after it the queue is in the steady state of
// M/M/c at the rate in force, so the mean wait and sojourn of the journeys
// started in a window well inside either stretch, and the mean busy
// servers over it, are Erlang C's values for that rate. A log step as
// service starts marks the end of each wait in the trace. The windows leave the first
// 100 s (the empty start) and 500 s after the step (the transient; at
// ρ = 0.8 on two servers its relaxation time is about 10 s) out.
var stepChangeSrc = scenarioSrc("step", "10000s", "", "  app: {kind: pool, servers: 2}\n", `  j:
    rate: 10/s
    stages:
      - {target: 10/s, duration: 2000s}
      - {target: 16/s, duration: 0s}
    steps: [{use: app, steps: [{log: served}, {work: exponential(mean=100ms)}]}]
`)

func TestAStepChangeMovesTheQueueToTheNewSteadyState(t *testing.T) {
	if os.Getenv("CAPSIM_SLOW_TESTS") != "1" {
		t.Skip("many long runs, 15 s: set CAPSIM_SLOW_TESTS=1 (as .ci/run does) to run it")
	}
	t.Parallel()
	c := mustCompileNamed(t, "step.yaml", stepChangeSrc, model.LoadOptions{})
	const mu, servers = 10.0, 2
	type window struct {
		name     string
		from, to float64
		lambda   float64
	}
	windows := []window{{"before the step", 100, 2000, 10}, {"after the step", 2500, 10000, 16}}
	const n = 20
	sojourns := make([][]float64, len(windows))
	waits := make([][]float64, len(windows))
	utils := make([][]float64, len(windows))
	in := func(start float64) int {
		for i, w := range windows {
			if start >= w.from && start < w.to {
				return i
			}
		}
		return -1
	}
	for seed := 1; seed <= n; seed++ {
		var sum, cnt, waited, served [2]float64
		started := map[int64]float64{}
		res, err := c.Run(model.RunOptions{Seed: uint64(seed), SeriesStep: 100_000_000, Trace: func(e *model.TraceEvent) {
			switch e.Event {
			case model.EvJourneyStart:
				started[e.JourneyID] = e.T
			case "served":
				if i := in(started[e.JourneyID]); i >= 0 {
					waited[i] += e.T - started[e.JourneyID]
					served[i]++
				}
			case model.EvJourneyEnd:
				if i := in(e.T - e.Duration); i >= 0 {
					sum[i] += e.Duration
					cnt[i]++
				}
				delete(started, e.JourneyID)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		var busy []float64
		for _, s := range res.Series.Signals {
			if s.Name == "app.busy" {
				busy = s.Values
			}
		}
		for i, w := range windows {
			sojourns[i] = append(sojourns[i], sum[i]/cnt[i])
			waits[i] = append(waits[i], waited[i]/served[i])
			// Samples every 100 ms: their mean is the time average of the
			// busy servers over the window, up to sampling noise far below
			// the run-to-run spread.
			lo, hi := int(w.from*10), int(w.to*10)
			utils[i] = append(utils[i], stat.Mean(busy[lo:hi], nil)/servers)
		}
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	for i, w := range windows {
		q, err := theory.MMc(w.lambda, mu, servers)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct {
			what string
			xs   []float64
			want float64
		}{{"mean wait", waits[i], q.Wq}, {"mean sojourn", sojourns[i], q.W}, {"utilisation", utils[i], q.Rho}} {
			mean, sd := stat.MeanStdDev(m.xs, nil)
			agrees(t, w.name+": "+m.what, estimate{mean: mean, half: tq * sd / math.Sqrt(n)}, m.want)
		}
	}
}
