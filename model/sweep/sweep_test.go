package sweep

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
	"capsim/model"
	"capsim/scenarios"
	"capsim/sim/theory"
)

func compile(t testing.TB, name string, sets ...string) *model.Compiled {
	t.Helper()
	var c *model.Compiled
	l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{Sets: sets})
	if err == nil {
		c, err = l.Compile()
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fourAndFiveServers are the embedded M/M/c/K scenario as it is (four
// servers) and with five, each with the settings short.
func fourAndFiveServers(t testing.TB, short []string) []Design {
	return []Design{
		{Name: "four", Compiled: compile(t, "mmck", short...)},
		{Name: "five", Compiled: compile(t, "mmck", append(short, "components.server.servers=5")...)},
	}
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// The 95 % Student t interval, checked against values worked by hand.
// t(0.975, 4) = 2.776445105 and t(0.975, 1) = 12.70620474 are the tabled
// critical values (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
func TestIntervalKnownValues(t *testing.T) {
	cases := []struct {
		name           string
		values         []float64
		n              int
		mean, lo, hi   float64
		undefinedRange bool
	}{
		// s² = 10/4 = 2.5, s/√5 = 0.7071068, half = 2.776445·0.7071068 = 1.963243
		{"one to five", []float64{1, 2, 3, 4, 5}, 5, 3, 1.036757, 4.963243, false},
		// s = √0.5, s/√2 = 0.5, half = 12.706205·0.5 = 6.353102
		{"two values", []float64{0, 1}, 2, 0.5, -5.853102, 6.853102, false},
		// NaN is "not measured": left out, not counted
		{"NaN skipped", []float64{math.NaN(), 1, 2, 3, 4, 5}, 5, 3, 1.036757, 4.963243, false},
		{"identical values", []float64{0.9, 0.9, 0.9}, 3, 0.9, 0.9, 0.9, false},
		{"one value", []float64{7}, 1, 7, 0, 0, true},
	}
	for _, c := range cases {
		s := Interval(c.values)
		if s.N != c.n || !near(s.Mean, c.mean, 1e-12) {
			t.Errorf("%s: n=%d mean=%g, want n=%d mean=%g", c.name, s.N, s.Mean, c.n, c.mean)
		}
		if c.undefinedRange {
			if !math.IsNaN(s.Lo) || !math.IsNaN(s.Hi) {
				t.Errorf("%s: interval [%g, %g], want none", c.name, s.Lo, s.Hi)
			}
			continue
		}
		if !near(s.Lo, c.lo, 1e-6) || !near(s.Hi, c.hi, 1e-6) {
			t.Errorf("%s: interval [%.7f, %.7f], want [%.7f, %.7f]", c.name, s.Lo, s.Hi, c.lo, c.hi)
		}
	}
	if s := Interval(nil); s.N != 0 || !math.IsNaN(s.Mean) {
		t.Errorf("no values: %+v", s)
	}
}

// A failure stage missing from a run counted 0 there: adding the zeros
// afterwards gives what adding them in place would have.
func TestSparseZerosCombine(t *testing.T) {
	var a acc
	a.add(2)
	a.add(4)
	got := a.withZeros(3).summary()
	// {2, 4, 0, 0, 0}: mean 1.2, s² = (0.64+7.84+3·1.44)/4 = 3.2,
	// s/√5 = 0.8, half = 2.776445·0.8 = 2.221156
	if got.N != 5 || !near(got.Mean, 1.2, 1e-12) || !near(got.Lo, 1.2-2.221156, 1e-6) || !near(got.Hi, 1.2+2.221156, 1e-6) {
		t.Fatalf("got %+v", got)
	}
	want := Interval([]float64{2, 4, 0, 0, 0})
	if !near(got.Lo, want.Lo, 1e-12) || !near(got.Hi, want.Hi, 1e-12) {
		t.Fatalf("combined %+v, direct %+v", got, want)
	}
}

func TestParseMultipliers(t *testing.T) {
	good := map[string][]float64{
		"1:4:1":       {1, 2, 3, 4},
		"1:6:0.5":     {1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6},
		"0.1:0.3:0.1": {0.1, 0.2, 0.3},
		"1:2":         {1, 2},
		"3,1,2":       {1, 2, 3},
		" 2 ":         {2},
		"1x,1.5x":     {1, 1.5},
	}
	for in, want := range good {
		got, err := ParseMultipliers(in)
		if err != nil || len(got) != len(want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q: %v; want %v", in, got, want)
				break
			}
		}
	}
	bad := map[string]string{
		"3:1":        "the end 1 is below the start 3; write start:end:step with start <= end, e.g. 1:3:0.5",
		"1:4:0":      "the step must be > 0, got 0",
		"0:4:1":      "multipliers must be > 0, but the range starts at 0",
		"1,0":        "multipliers must be > 0, got 0",
		"1,2,2":      "multiplier 2 is listed twice",
		"one,two":    `expected a list such as 1,2,4 or a range start:end:step such as 1:4:0.5, got "one,two"`,
		"1:2:3:4":    `expected a range start:end:step such as 1:4:0.5, got "1:2:3:4"`,
		"":           "expected a list such as 1,2,4 or a range start:end:step such as 1:4:0.5, got nothing",
		"1:100:0.01": "1:100:0.01 gives 9901 multipliers; at most 1000 are allowed (is the step right?)",
	}
	for in, want := range bad {
		_, err := ParseMultipliers(in)
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// sweepBytes runs cfg and returns every table it writes.
func sweepBytes(t *testing.T, cfg Config) (*Result, map[string][]byte) {
	t.Helper()
	var runs bytes.Buffer
	cfg.Runs = &runs
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{"runs.csv": runs.Bytes()}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"summary.csv":       func(b *bytes.Buffer) error { return res.WriteSummaryCSV(b) },
		"compare.csv":       func(b *bytes.Buffer) error { return res.WriteCompareCSV(b) },
		"first_failure.csv": func(b *bytes.Buffer) error { return res.WriteFirstFailureCSV(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		out[name] = b.Bytes()
	}
	return res, out
}

// Workers finish in any order; the tables must not show it.
func TestOutputDoesNotDependOnWorkers(t *testing.T) {
	short := []string{"duration=1500s", "warmup=100s"}
	cfg := Config{
		Scenario:    "mmck",
		Designs:     fourAndFiveServers(t, short),
		Multipliers: []float64{0.5, 0.75, 1}, Replications: 4, Seed: 3, Refine: 2,
	}
	cfg.Workers = 1
	_, one := sweepBytes(t, cfg)
	for _, w := range []int{2, 5} {
		cfg.Workers = w
		_, many := sweepBytes(t, cfg)
		for name, data := range one {
			if !bytes.Equal(data, many[name]) {
				t.Errorf("%s differs between 1 and %d workers", name, w)
			}
		}
	}
	if n := bytes.Count(one["runs.csv"], []byte("\n")); n < 2*3*4*20 {
		t.Fatalf("runs.csv has only %d lines", n)
	}
	if !bytes.Contains(one["first_failure.csv"], []byte("mmck,four,")) {
		t.Fatalf("first_failure.csv:\n%s", one["first_failure.csv"])
	}
}

// mmckCrossing is the multiplier at which the M/M/c/K blocking probability
// reaches 1−x (arrivals 5/s at 1x, service rate 1/s), found by bisection
// on the finite-capacity formula, which increases with the load.
func mmckCrossing(t *testing.T, c, k int, x float64) float64 {
	lo, hi := 0.01, 10.0
	for range 100 {
		m := (lo + hi) / 2
		q, err := theory.MMcK(5*m, 1, c, k)
		if err != nil {
			t.Fatal(err)
		}
		if 1-q.PBlock < x {
			hi = m
		} else {
			lo = m
		}
	}
	return (lo + hi) / 2
}

// The first-failure search on a model whose failure point is known: the
// embedded M/M/c/K queue with the SLO success_rate >= 0.9, which breaks
// where the blocking probability passes 10 %. With 4 servers and K = 6 that
// is 0.619x; with 5 servers (K = 7) 0.801x. The refined estimate and its
// interval must bracket the formula's crossing.
func TestFirstFailureMatchesMMcK(t *testing.T) {
	short := []string{"duration=6000s", "warmup=500s"}
	cfg := Config{
		Scenario:    "mmck",
		Designs:     fourAndFiveServers(t, short),
		Multipliers: []float64{0.25, 0.5, 0.75, 1, 1.25, 1.5}, Replications: 5, Seed: 1, Refine: 3,
	}
	res, _ := sweepBytes(t, cfg)
	for i, want := range []float64{mmckCrossing(t, 4, 6, 0.9), mmckCrossing(t, 5, 7, 0.9)} {
		ff := res.FirstFailures[i]
		t.Logf("%s: first failure %g, CI [%g, %g]; formula %.4f", ff.Design, ff.Multiplier, ff.Lo, ff.Hi, want)
		if !ff.Found || ff.BelowRange {
			t.Fatalf("%s: %+v", ff.Design, ff)
		}
		if !(ff.Lo <= want && want <= ff.Hi) {
			t.Errorf("%s: CI [%g, %g] misses the formula's crossing %.4f", ff.Design, ff.Lo, ff.Hi, want)
		}
		if !(ff.Lo < ff.Multiplier && ff.Multiplier <= ff.Hi) {
			t.Errorf("%s: estimate %g outside its CI [%g, %g]", ff.Design, ff.Multiplier, ff.Lo, ff.Hi)
		}
		// Three rounds of three points from a 0.25 grid resolve 0.004;
		// the interval must be that order, not the whole grid step.
		if ff.Hi-ff.Lo > 0.1 {
			t.Errorf("%s: CI [%g, %g] is wider than the refinement allows", ff.Design, ff.Lo, ff.Hi)
		}
		if ff.SLO != "customer success_rate >= 0.9" || ff.Component != "server" || ff.Stage != "service" {
			t.Errorf("%s: blamed %q at %q/%q", ff.Design, ff.SLO, ff.Component, ff.Stage)
		}
		// Every round puts DefaultSection points below the estimate, and
		// at most as many again below each end of its interval.
		k := DefaultSection
		if got := len(ff.Tried); got < len(cfg.Multipliers)+k*cfg.Refine || got > len(cfg.Multipliers)+3*k*cfg.Refine {
			t.Errorf("%s: %d multipliers tried for a grid of %d and %d rounds of %d", ff.Design, got, len(cfg.Multipliers), cfg.Refine, k)
		}
	}
}

// A run that a guard stops counts as breaking the SLOs, and names the
// guard and its component when no SLO's mean is to blame.
func TestGuardStopIsAFailure(t *testing.T) {
	// M/M/4 at 3.6/s per 1x: above 1.11x the queue grows without bound.
	c := compile(t, "mmc", "duration=3000s", "warmup=0s", "limits={max_queue: 200}", "slos=")
	cfg := Config{Scenario: "mmc", Designs: []Design{{Name: "base", Compiled: c}}, Multipliers: []float64{0.5, 2}, Replications: 3, Seed: 1}
	res, _ := sweepBytes(t, cfg)
	cell := res.Cells[1]
	if cell.Broken != 3 || cell.Verdict != Fail || len(cell.Guards) != 1 || cell.Guards[0].Guard != "max_queue" || cell.Guards[0].Component != "server" {
		t.Fatalf("2x cell: broken %d, verdict %v, guards %+v", cell.Broken, cell.Verdict, cell.Guards)
	}
	if res.Cells[0].Verdict != Pass {
		t.Fatalf("0.5x cell: verdict %v", res.Cells[0].Verdict)
	}
	ff := res.FirstFailures[0]
	if !ff.Found || ff.Multiplier != 2 || ff.SLO != "run stopped by guard max_queue" || ff.Component != "server" {
		t.Fatalf("first failure %+v", ff)
	}
	if got := stat(cell, model.BrokenCount.OfRun()); got.Mean != 1 {
		t.Fatalf("broken_count mean %g", got.Mean)
	}
}

func stat(c *Cell, key model.MetricKey) Summary {
	for _, m := range c.Metrics {
		if m.Key == key {
			return m.Summary
		}
	}
	return Summary{Mean: math.NaN()}
}

// Paired differences use the same replication's runs: with common random
// numbers both designs see the same arrivals, so the difference in
// journeys started is exactly zero while the success rates differ.
func TestPairedDifferences(t *testing.T) {
	short := []string{"duration=1500s", "warmup=100s"}
	cfg := Config{
		Scenario:    "mmck",
		Designs:     fourAndFiveServers(t, short),
		Multipliers: []float64{1}, Replications: 4, Seed: 1,
	}
	res, _ := sweepBytes(t, cfg)
	cmp := res.Compare[0]
	var started, success Summary
	for _, d := range cmp.Diffs {
		switch d.Key {
		case model.JourneyStarted.Of("customer"):
			started = d.Summary
		case model.JourneySuccessRate.Of("customer"):
			success = d.Summary
		}
	}
	if started.N != 4 || started.Mean != 0 || started.Lo != 0 || started.Hi != 0 {
		t.Fatalf("started difference %+v, want exactly 0", started)
	}
	// M/M/5/7 vs M/M/4/6 at λ = 5: 1 − PBlock rises from 0.706 to 0.819.
	q4, _ := theory.MMcK(5, 1, 4, 6)
	q5, _ := theory.MMcK(5, 1, 5, 7)
	want := q4.PBlock - q5.PBlock
	if !(success.Lo > 0) || math.Abs(success.Mean-want) > 0.02 {
		t.Fatalf("success difference %+v, formula %.4f", success, want)
	}
	unpaired := stat(res.Cells[1], model.JourneySuccessRate.Of("customer"))
	if success.Hi-success.Lo >= unpaired.Hi-unpaired.Lo {
		t.Errorf("paired interval %g wide, no narrower than one design's own %g", success.Hi-success.Lo, unpaired.Hi-unpaired.Lo)
	}
}

// A cancelled sweep stops, says so, and has written whole rows only.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs bytes.Buffer
	cfg := Config{Scenario: "mmck", Designs: []Design{{Name: "base", Compiled: compile(t, "mmck", "duration=500s", "warmup=0s")}},
		Multipliers: []float64{1, 2}, Replications: 20, Seed: 1, Workers: 2, Runs: &runs,
		Progress: func(p Progress) {
			if p.Done == 3 {
				cancel()
			}
		}}
	_, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	if !strings.HasSuffix(runs.String(), "\n") || strings.Count(runs.String(), "mmck,base,1,2,3,") == 0 {
		t.Fatalf("runs written:\n%s", runs.String())
	}
}

// The metrics of a design are listed in the order its runs give them,
// with failure stages first seen in later runs put back in their place.
func TestSparseMetricOrder(t *testing.T) {
	d := &designAcc{name: "x"}
	a := model.Metric{Key: model.BrokenCount.OfRun()}
	p99 := model.Metric{Key: model.JourneyP99.Of("j")}
	calls := model.Metric{Key: model.RouteCalls.Of("r")}
	stage := func(s string) model.Metric { return model.Metric{Key: model.FailedAt.OfStage("j", s), Sparse: true} }
	runs := [][]model.Metric{
		{a, p99, stage("z"), calls},
		{a, p99, stage("b"), calls, {Key: model.Leaked.Of("c"), Sparse: true}},
	}
	for _, r := range runs {
		if err := d.register(r); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, k := range d.order() {
		names = append(names, k.Name())
	}
	got := strings.Join(names, " ")
	if want := "broken_count journey.j.p99_s journey.j.failed_at.b_count journey.j.failed_at.z_count route.r.calls_count component.c.leaked_count"; got != want {
		t.Fatalf("order %q, want %q", got, want)
	}
	if err := d.register([]model.Metric{a}); err == nil {
		t.Fatal("a run listing other metrics was accepted")
	}
}

// Only aggregates stay in memory: the live heap at the end of a long
// sweep is what it was early on. Keeping every run's metrics (about 7 kB
// each with its runs.csv rows) would add well over a megabyte over these
// 240 runs. The heap is sampled after a collection every 8 runs; what a
// worker's run in progress holds makes each sample vary, so the largest
// sample of the last third is compared with the largest of the first.
func TestMemoryFlatInReplications(t *testing.T) {
	c := compile(t, "mmck", "duration=300s", "warmup=0s")
	var samples []uint64
	var ms runtime.MemStats
	cfg := Config{Scenario: "mmck", Designs: []Design{{Name: "a", Compiled: c}, {Name: "b", Compiled: c}}, Multipliers: []float64{1, 2}, Replications: 60,
		Seed: 1, Workers: 2, Runs: io.Discard, Progress: func(p Progress) {
			if p.Phase == "grid" && p.Done%8 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				samples = append(samples, ms.HeapAlloc)
			}
		}}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	third := len(samples) / 3
	first, last := slices.Max(samples[:third]), slices.Max(samples[len(samples)-third:])
	t.Logf("largest live heap: %d bytes in the first third of the runs, %d in the last", first, last)
	if last > first+first/2 {
		t.Fatalf("live heap grew from %d to %d bytes as replications went on", first, last)
	}
}

// A cell answers for the metrics its design measures, by key, and a
// comparison for the metrics both designs measure.
func TestCellStatAndDiffByKey(t *testing.T) {
	c := compile(t, "mmck", "duration=300s", "warmup=0s")
	res, err := Run(context.Background(), Config{Scenario: "mmck", Designs: []Design{{Name: "a", Compiled: c}, {Name: "b", Compiled: c}},
		Multipliers: []float64{1}, Replications: 2, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	cell := res.Cells[0]
	for _, st := range cell.Metrics {
		got, ok := cell.Stat(st.Key)
		if !ok || got != st.Summary && !(math.IsNaN(got.Mean) && math.IsNaN(st.Mean)) {
			t.Errorf("Stat(%s) = %+v, %v, want %+v", st.Key, got, ok, st.Summary)
		}
	}
	if _, ok := cell.Stat(model.JourneyP95.Of("nosuch")); ok {
		t.Error("a metric nobody measured was found")
	}
	cmp := res.Compare[0]
	if d, ok := cmp.Diff(model.JourneySuccessRate.Of("customer")); !ok || d.Mean != 0 {
		t.Errorf("a design against itself: diff %+v, %v", d, ok)
	}
}

// How often the first-failure interval covers the M/M/4/6 crossing: 80
// sweeps with the command line's refinement, each with its own five
// replications (seeds 1-5, 6-10, ...). Each end errs with probability at
// most 2.5 %, so at least 95 % must cover; the README states the count.
// It takes a minute or two, so it runs only when asked for:
// CAPSIM_COVERAGE=1 go test ./model/sweep -run Coverage -v
func TestFirstFailureCoverageMMcK(t *testing.T) {
	if os.Getenv("CAPSIM_COVERAGE") == "" {
		t.Skip("set CAPSIM_COVERAGE=1 to run the 80 sweeps")
	}
	const sweeps = 80
	c := compile(t, "mmck", "duration=6000s", "warmup=500s")
	want := mmckCrossing(t, 4, 6, 0.9)
	covered := 0
	for i := range sweeps {
		res, err := Run(context.Background(), Config{Scenario: "mmck", Designs: []Design{{Name: "four", Compiled: c}},
			Multipliers: []float64{0.25, 0.5, 0.75, 1, 1.25, 1.5}, Replications: 5, Seed: uint64(1 + 5*i), Refine: 2})
		if err != nil {
			t.Fatal(err)
		}
		ff := res.FirstFailures[0]
		if ff.Lo <= want && want <= ff.Hi {
			covered++
		} else {
			t.Logf("seed %d: CI [%g, %g] misses %.4f (estimate %g)", 1+5*i, ff.Lo, ff.Hi, want, ff.Multiplier)
		}
	}
	t.Logf("the interval covered the crossing %.4f in %d of %d sweeps", want, covered, sweeps)
	if covered < sweeps*95/100 {
		t.Errorf("covered in %d of %d sweeps, under 95 %%", covered, sweeps)
	}
}

// The time series come from the last round, at each design's final
// estimate, whether the estimate moved in that round or not.
func TestSeriesAtTheFinalEstimate(t *testing.T) {
	short := []string{"duration=1500s", "warmup=100s"}
	for _, refine := range []int{0, 1, 2} {
		cfg := Config{Scenario: "mmck", Designs: []Design{
			{Name: "four", Compiled: compile(t, "mmck", short...)},
			{Name: "five", Compiled: compile(t, "mmck", append(short, "components.server.servers=5")...)},
		}, Multipliers: []float64{0.5, 0.75, 1}, Replications: 3, Seed: 1, Refine: refine, SeriesStep: 10 * 1e9}
		res, _ := sweepBytes(t, cfg)
		var want []string
		for _, ff := range res.FirstFailures {
			if ff.Found {
				want = append(want, ff.Design+" "+FormatMultiplier(ff.Multiplier))
			}
		}
		var got []string
		for _, sr := range res.Series {
			if sr.Series == nil || len(sr.Series.Signals) == 0 {
				t.Errorf("refine %d: %s has no series", refine, sr.Design)
			}
			got = append(got, sr.Design+" "+FormatMultiplier(sr.Multiplier))
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("refine %d: series at %q, first failures at %q", refine, got, want)
		}
	}
}
