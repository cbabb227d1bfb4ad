package model_test

// These tests hold the kernel and the interpreter to queueing theory: each
// textbook scenario is replicated with independent seeds, and the analytic
// value must fall inside the 95% confidence interval of the replication
// means, with runs long enough that the interval's half-width is at most 3%
// of the mean (so "inside the interval" is a tight statement, not a wide
// net). Formulas: Kleinrock, Queueing Systems Vol. 1 (M/M/1, M/M/c Erlang C,
// M/M/c/K, M/G/1 Pollaczek–Khinchine); Burke's theorem for the tandem line;
// Little's law L = λW for every one of them.

import (
	"fmt"
	"math"
	"testing"

	"capsim/model"
	"capsim/sim/theory"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

type estimate struct {
	mean, half float64
}

type metric struct {
	name string
	of   func(*model.Result) float64
	want float64
}

// replicate runs c with seeds 1..n and checks each metric's replication
// mean against its analytic value.
func replicate(t *testing.T, c *model.Compiled, n int, metrics ...metric) {
	t.Helper()
	xs := make([][]float64, len(metrics))
	for i := 0; i < n; i++ {
		res := mustRun(t, c, model.RunOptions{Seed: uint64(i + 1)})
		if res.Broken != nil {
			t.Fatalf("run %d broken: %v", i+1, res.Broken)
		}
		for m := range metrics {
			xs[m] = append(xs[m], metrics[m].of(res))
		}
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	for m, mt := range metrics {
		mean, sd := stat.MeanStdDev(xs[m], nil)
		agrees(t, mt.name, estimate{mean: mean, half: tq * sd / math.Sqrt(float64(n))}, mt.want)
	}
}

// agrees checks that want lies inside the interval and that the interval is
// tight.
func agrees(t *testing.T, what string, got estimate, want float64) {
	t.Helper()
	t.Logf("%s: simulated %.5f ± %.5f (%.2f%%), theory %.5f", what, got.mean, got.half, 100*got.half/math.Abs(got.mean), want)
	if got.half > 0.03*math.Abs(got.mean) {
		t.Errorf("%s: half-width %.4f is %.1f%% of the mean; runs too short for a 3%% test", what, got.half, 100*got.half/got.mean)
	}
	if math.Abs(got.mean-want) > got.half {
		t.Errorf("%s: theory %.5f outside the 95%% CI %.5f ± %.5f", what, want, got.mean, got.half)
	}
}

// checkLittle checks Little's law L = λW as the sample-path identity it is
// when the system starts and ends empty (no warm-up cut, every journey
// drained): the area under the number in system equals the sum of the
// sojourns, so L/(λW) is 1 up to rounding. Any leak in the kernel's
// time-weighted bookkeeping or in the journey tallies shows here.
func checkLittle(t *testing.T, name string, sets ...string) {
	t.Helper()
	c := compileEmbedded(t, name, model.LoadOptions{Sets: append([]string{"warmup=0s"}, sets...)})
	res := mustRun(t, c, model.RunOptions{Seed: 1})
	j := res.Journeys[0]
	lambda := float64(j.Succeeded) / res.SimTime
	got := littleL(res) / (lambda * float64(j.Latency.Mean))
	if math.Abs(got-1) > 1e-9 {
		t.Errorf("%s: L/(λW) = %.12f, want 1 (L=%g, λ=%g, W=%g)", name, got, littleL(res), lambda, float64(j.Latency.Mean))
	}
}

func component(r *model.Result, name string) *model.ComponentResult {
	c, ok := r.Component(name)
	if !ok {
		panic("no component " + name)
	}
	return c
}

func meanWait(name string) func(*model.Result) float64 {
	return func(r *model.Result) float64 { return float64(component(r, name).Wait.Mean) }
}

func sojourn(r *model.Result) float64 { return float64(r.Journeys[0].Latency.Mean) }

// littleL is the time-average number in the system, read off the
// components: busy servers plus queue, summed over the stations.
func littleL(r *model.Result) float64 {
	l := 0.0
	for _, c := range r.Components {
		l += float64(c.MeanBusy + c.MeanQueue)
	}
	return l
}

func TestMM1MatchesTheory(t *testing.T) {
	t.Parallel()
	c := compileEmbedded(t, "mm1", model.LoadOptions{Sets: []string{"duration=200000s"}})
	q, err := theory.MMc(0.8, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	replicate(t, c, 20,
		metric{"M/M/1 Wq", meanWait("server"), q.Wq},
		metric{"M/M/1 W", sojourn, q.W})
	checkLittle(t, "mm1")
}

func TestMMcMatchesErlangC(t *testing.T) {
	t.Parallel()
	c := compileEmbedded(t, "mmc", model.LoadOptions{Sets: []string{"duration=200000s"}})
	q, err := theory.MMc(3.6, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	pwait := func(r *model.Result) float64 {
		s := component(r, "server")
		return float64(s.Delayed) / float64(s.Offered)
	}
	replicate(t, c, 20,
		metric{"M/M/4 P(wait)", pwait, q.PWait},
		metric{"M/M/4 Wq", meanWait("server"), q.Wq})
	checkLittle(t, "mmc")
}

func TestMMcKMatchesFiniteCapacityFormula(t *testing.T) {
	t.Parallel()
	c := compileEmbedded(t, "mmck", model.LoadOptions{Sets: []string{"duration=50000s"}})
	q, err := theory.MMcK(5, 1, 4, 6)
	if err != nil {
		t.Fatal(err)
	}
	block := func(r *model.Result) float64 {
		s := component(r, "server")
		return float64(s.Rejected) / float64(s.Offered)
	}
	replicate(t, c, 20,
		metric{"M/M/4/6 P(block)", block, q.PBlock},
		metric{"M/M/4/6 Wq of admitted", meanWait("server"), q.Wq})
	checkLittle(t, "mmck")
	// A blocked customer's journey fails at the stage the scenario labels.
	res, _ := c.Run(model.RunOptions{Seed: 1})
	j := res.Journeys[0]
	if len(j.Stages) != 1 || j.Stages[0].Stage != "service" || j.Stages[0].Component != "server" || j.Stages[0].Count != j.Failed {
		t.Errorf("failure stages = %+v, want all %d at service (server)", j.Stages, j.Failed)
	}
}

func TestMD1MatchesPollaczekKhinchine(t *testing.T) {
	t.Parallel()
	c := compileEmbedded(t, "md1", model.LoadOptions{Sets: []string{"duration=200000s"}})
	q, err := theory.MG1(0.7, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	replicate(t, c, 20, metric{"M/D/1 Wq", meanWait("server"), q.Wq})
	checkLittle(t, "md1")
}

func TestMG1MatchesPollaczekKhinchine(t *testing.T) {
	t.Parallel()
	// Gamma service with cv 0.5 on the M/M/1 scenario, overridden as a user
	// would from the command line.
	c := compileEmbedded(t, "mm1", model.LoadOptions{Sets: []string{"duration=200000s",
		"journeys.customer.steps.0.work=gamma(mean=1s, cv=0.5)"}})
	q, err := theory.MG1(0.8, 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	replicate(t, c, 20, metric{"M/G/1 Wq", meanWait("server"), q.Wq})
}

// A service time with a floor: 0.4 s + exponential(mean 0.6 s) has mean
// 1 s and sd 0.6 s (a shift moves every draw alike, so it keeps the
// exponential's sd), cv 0.6. Pollaczek–Khinchine at λ = 0.8 gives
// Wq = λ·E[S²]/(2(1 − ρ)) = 0.8·(0.36 + 1)/0.4 = 2.72 s, against 4 s for
// the unshifted exponential of the same mean; the server is busy ρ = 0.8.
func TestShiftedServiceMatchesPollaczekKhinchine(t *testing.T) {
	t.Parallel()
	c := compileEmbedded(t, "mm1", model.LoadOptions{Sets: []string{"duration=200000s",
		"journeys.customer.steps.0.work=exponential(mean=0.6s, shift=0.4s)"}})
	q, err := theory.MG1(0.8, 1, 0.6)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(q.Wq-2.72) > 1e-12 {
		t.Fatalf("theory.MG1 Wq = %.15g, want 2.72 by hand", q.Wq)
	}
	busy := func(r *model.Result) float64 { return float64(component(r, "server").MeanBusy) }
	replicate(t, c, 20,
		metric{"shifted M/G/1 Wq", meanWait("server"), q.Wq},
		metric{"shifted M/G/1 busy servers", busy, 0.8})
}

func TestTandemMatchesJackson(t *testing.T) {
	t.Parallel()
	c := compileEmbedded(t, "tandem", model.LoadOptions{Sets: []string{"duration=200000s"}})
	q, err := theory.Tandem(0.5, 1, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	replicate(t, c, 20, metric{"tandem sojourn", sojourn, q.W})
	checkLittle(t, "tandem")
}

// Processor sharing is insensitive: at one core the mean sojourn is
// E[S]/(1-ρ) whatever the service distribution (Kleinrock, vol. 2, §4.4),
// unlike FIFO, where M/D/1 and M/M/1 differ.
func TestProcessorSharingIsInsensitive(t *testing.T) {
	t.Parallel()
	for _, work := range []string{"constant(1s)", "exponential(mean=1s)", "lognormal(mean=1s, cv=2)"} {
		src := scenarioSrc("ps", "200000s", "warmup: 2000s\n",
			"  cpu: {kind: cpu, cores: 1}\n", `  customer:
    rate: 0.8/s
    steps:
      - use: cpu
        work: "`+work+`"
`)
		c := mustCompileNamed(t, "ps.yaml", src, model.LoadOptions{})
		replicate(t, c, 20, metric{"M/G/1-PS sojourn, " + work, sojourn, 1 / (1 - 0.8)})
	}
}

// A cpu with switch_cost σ, driven by a closed loop of clients, against
// the product-form solution theory.ClosedPS (BCMP: a think station and a
// processor-sharing station whose rate depends on its population). With no
// think time every client is always at the cpu, and completions per second
// are the scalability law's c/(1 + σ(N − c)) over the mean work; with
// think time the population varies and the whole birth-death chain
// counts. Completions are counted as journeys started after the warm-up
// that succeeded, over the arrival window past it; the run stops at the
// window's end (drain: 0s), so the population never thins out as the
// loop winds down. Without think time the population is N throughout and
// the cores' worth of work done is exactly X(N), every run.
func TestPSSwitchCostMatchesClosedLoopTheory(t *testing.T) {
	t.Parallel()
	const duration, warmup = 20000.0, 200.0
	for _, tc := range []struct {
		clients, cores int
		think, sigma   float64
	}{
		{clients: 8, cores: 2, think: 0, sigma: 0.1},
		{clients: 12, cores: 2, think: 4, sigma: 0.2},
		{clients: 6, cores: 2, think: 0, sigma: 0}, // exact PS: the cores' full rate
	} {
		think := ""
		if tc.think > 0 {
			think = fmt.Sprintf("\n    think: exponential(mean=%gs)", tc.think)
		}
		src := fmt.Sprintf(`name: closed
duration: %gs
warmup: %gs
drain: 0s
components:
  cpu: {kind: cpu, cores: %d, switch_cost: %g}
journeys:
  client:
    clients: %d%s
    steps:
      - use: cpu
        work: exponential(mean=1s)
`, duration, warmup, tc.cores, tc.sigma, tc.clients, think)
		q, err := theory.ClosedPS(tc.clients, tc.think, 1, float64(tc.cores), tc.sigma)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("N=%d c=%d Z=%gs σ=%g", tc.clients, tc.cores, tc.think, tc.sigma)
		throughput := func(r *model.Result) float64 { return float64(r.Journeys[0].Succeeded) / (duration - warmup) }
		useful := func(r *model.Result) float64 { return float64(component(r, "cpu").UsefulBusy) }
		c := compileSource(t, src)
		metrics := []metric{{"completions/s, " + name, throughput, q.Throughput}}
		if tc.think == 0 {
			res := mustRun(t, c, model.RunOptions{Seed: 1})
			want := float64(tc.cores) / (1 + tc.sigma*float64(tc.clients-tc.cores))
			if got := useful(res); math.Abs(got-want) > 1e-9*want {
				t.Errorf("useful cores, %s: %.12g, want c/(1+σ(N−c)) = %.12g", name, got, want)
			}
		} else {
			metrics = append(metrics,
				// Work of mean 1 s: cores of work done = completions per second.
				metric{"useful cores, " + name, useful, q.Throughput},
				metric{"sojourn, " + name, sojourn, q.W},
				metric{"utilisation, " + name, func(r *model.Result) float64 { return float64(component(r, "cpu").Utilisation) }, q.Rho})
		}
		replicate(t, c, 20, metrics...)
	}
}
