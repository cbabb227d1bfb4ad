package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const checkoutExample = "../../docs/examples/checkout.yaml"

// The worked example's measurements are Erlang C's for 4 servers at 3.6/s
// of 1 s work: a mean wait of 1.97 s and 90 % busy. Four threads agree
// with them; five do not (Erlang C: 0.28 s and 72 %).
func TestHindcastJudgesTheExample(t *testing.T) {
	code, stdout, stderr := sweepCLI(t, false, "hindcast", checkoutExample, "-q", "--set", "components.threads.servers=4")
	if code != 0 || !strings.HasPrefix(stdout, "hindcast checkout: the model agrees with 3 of 3 observations\n") {
		t.Errorf("4 threads: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = sweepCLI(t, false, "hindcast", checkoutExample, "-q", "--set", "components.threads.servers=5")
	if code != exitMismatch || !strings.HasPrefix(stdout, "hindcast checkout: the model agrees with 1 of 3 observations (disagree: wait, busy)\n") ||
		stderr != "capsim: the model disagrees with 2 observations: wait, busy\n" {
		t.Errorf("5 threads: exit %d\n%s%s", code, stdout, stderr)
	}
	// Erlang C's utilisation for 5 servers is 3.6/5 = 72 %: the simulated
	// mean must be within a point of it.
	found := false
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(line, "NO  busy") {
			continue
		}
		found = true
		var v float64
		if f := strings.Fields(line); len(f) < 8 || func() bool {
			_, err := fmt.Sscanf(strings.TrimSuffix(f[7], "%"), "%g", &v)
			return err != nil
		}() || math.Abs(v-72) > 1 {
			t.Errorf("5 threads' utilisation should read 72%% ± 1 (Erlang C): %q", line)
		}
	}
	if !found {
		t.Errorf("no line for observation busy:\n%s", stdout)
	}
}

// capsim fit finds the thread count the measurements allow, 4 and no
// other, from the range 2-12 the example leaves it.
func TestFitFindsTheThreadCount(t *testing.T) {
	code, stdout, stderr := sweepCLI(t, false, "fit", checkoutExample, "-q", "--points", "11")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"components.threads.servers          2 – 12             4 – 4\n",
		"capsim sweep " + checkoutExample + " --uncertainty --base-set 'components.threads.servers=4'\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("fit output lacks %q:\n%s", want, stdout)
		}
	}
	// Measured where nothing is plausible, the fit says so and exits 3.
	code, stdout, _ = sweepCLI(t, false, "fit", checkoutExample, "-q", "--points", "4", "--set", "journeys.order.rate=0.5/s")
	if code != exitMismatch || !strings.Contains(stdout, "0 of ") {
		t.Errorf("at a load no thread count explains: exit %d\n%s", code, stdout)
	}
}

// fit refuses what hindcast and sensitivity refuse, in their words: an
// --only id the scenario has no observation of, a parameter listed twice,
// and a selection of exceptions alone, which leaves nothing to fit.
func TestFitRefusesWhatHindcastRefuses(t *testing.T) {
	unknown := `capsim: no observation "nope" (the scenario has wait, busy, half-load)` + "\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hindcast", checkoutExample, "--only", "nope"}, unknown},
		{[]string{"fit", checkoutExample, "--only", "nope"}, unknown},
		{[]string{"hindcast", checkoutExample, "--only", "wait,wait"}, `capsim: observation "wait" is listed twice` + "\n"},
		{[]string{"fit", checkoutExample, "--only", "busy,wait,busy"}, `capsim: observation "busy" is listed twice` + "\n"},
		{[]string{"sensitivity", checkoutExample, "--params", "components.threads.servers,components.threads.servers"},
			`capsim: --params: parameter "components.threads.servers" is listed twice` + "\n"},
		{[]string{"fit", checkoutExample, "--params", "components.threads.servers,components.threads.servers"},
			`capsim: --params: parameter "components.threads.servers" is listed twice` + "\n"},
	} {
		code, stdout, stderr := sweepCLI(t, false, append(c.args, "-q")...)
		if code != exitUsage || stderr != c.want || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q", c.args, code, stdout, stderr, exitUsage, c.want)
		}
	}
	src, err := os.ReadFile(checkoutExample)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "checkout.yaml")
	excepted := strings.Replace(string(src), "    tolerance: 10%\n", "    tolerance: 10%\n    exception: measured before the pool grew\n", 1)
	if excepted == string(src) {
		t.Fatal("the example's wait observation has changed")
	}
	if err := os.WriteFile(file, []byte(excepted), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := sweepCLI(t, false, "fit", file, "--only", "wait", "-q")
	want := "capsim: no observation to fit: every one selected has an exception: (the model knowingly does not reproduce it)\n"
	if code != exitUsage || stderr != want || stdout != "" {
		t.Errorf("exceptions alone: exit %d, stdout %q, stderr %q; want %d, %q", code, stdout, stderr, exitUsage, want)
	}
}

func TestObservationMistakes(t *testing.T) {
	head := `name: o
duration: 100s
components:
  app: {kind: pool, servers: 2}
journeys:
  j:
    rate: 1/s
    steps: [{use: app, work: 1s}]
designs:
  big: {components: {app: {servers: 4}}}
observations:
`
	for _, c := range []struct{ obs, want string }{
		{"  - {journey: j, measure: success_rate, count: 3/4}", "o.yaml:12:5: observations[0].id: an observation needs an id: the source figure it reports, such as 000-116"},
		{"  - {id: a, journey: j, measure: success_rate, count: 5/4}", `o.yaml:12:55: observations[0].count: the count of "5/4" must be between 0 and its total 4`},
		{"  - {id: a, journey: j, measure: success_rate, count: 3 of 4}", `o.yaml:12:55: observations[0].count: expected a count of events out of a total such as 4/8, got "3 of 4"`},
		{"  - {id: a, journey: j, measure: p95, value: 3}", "o.yaml:12:46: observations[0].value: p95 is a time: write 3 with a unit, such as 29.43s"},
		{"  - {id: a, journey: j, measure: p95, count: 3/4}", "o.yaml:12:46: observations[0].count: p95 is not a share of counted events: give its value"},
		{"  - {id: a, journey: j, measure: utilisation, value: 50%}", "o.yaml:12:34: observations[0].measure: measure \"utilisation\" does not apply to a journey (it takes failed_at, max, started, succeeded, failed, unfinished, success_rate, failure_rate, http_requests, http_failures, http_failure_rate, mean, p50, p95, p99, all_mean, all_p50, all_p95, all_p99)"},
		{"  - {id: a, component: app, measure: cold_starts, value: 1}", "o.yaml:12:38: observations[0].measure: measure cold_starts is not a worker's: component app is a pool"},
		{"  - {id: a, journey: j, route: r, measure: p95, value: 3s}", "o.yaml:12:5: observations[0]: an observation names exactly one of journey, route or component"},
		{"  - {id: a, journey: j, measure: failed_at, count: 1/4}", "o.yaml:12:34: observations[0].stage: measure failed_at needs the stage it counts (stage: derivative_create)"},
		{"  - {id: a, journey: j, measure: p95, value: 3s, between: [1s, 2s]}", "o.yaml:12:5: observations[0]: an observation gives exactly one of count (k/n), value or between [low, high]"},
		{"  - {id: a, journey: j, measure: p95, between: [4s, 2s]}", "o.yaml:12:48: observations[0].between: between [4s, 2s]: the low end is above the high end"},
		{"  - {id: a, journey: j, measure: p95, value: 3s, tolerence: 1s}", `o.yaml:12:50: observations[0].tolerence: unknown key "tolerence"; did you mean "tolerance"?`},
		{"  - {id: a, journey: j, measure: p95, value: 3s}\n  - {id: a, journey: j, measure: p50, value: 3s}", `o.yaml:13:10: observations[1].id: observation id "a" is used twice`},
		// Each observation is checked, not only the first of those run
		// under the same design, settings and load.
		{"  - {id: a, journey: j, measure: p95, value: 3s}\n  - {id: b, journey: k, measure: p95, value: 3s}", `o.yaml:13:22: observations[1].journey: the base scenario has no journey "k" (it has j)`},
		{"  - {id: a, component: app, measure: busiest, window: 2m, value: 1}", "o.yaml:12:55: observations[0].window: window (2m0s) is longer than the run measures (1m40s from the warm-up to the end of the arrivals)"},
		{"  - {id: a, journey: k, measure: p95, value: 3s}", `o.yaml:12:22: observations[0].journey: the base scenario has no journey "k" (it has j)`},
		{"  - {id: a, design: huge, journey: j, measure: p95, value: 3s}", `unknown design "huge"`},
		{"  - {id: a, multiplier: 0, journey: j, measure: p95, value: 3s}", "o.yaml:12:25: observations[0].multiplier: multiplier must be > 0 and at most 1000000, got 0"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "o.yaml")
		if err := os.WriteFile(file, []byte(head+c.obs+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		wd, _ := os.Getwd()
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := sweepCLI(t, false, "hindcast", "o.yaml", "-q")
		os.Chdir(wd)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s\nexit %d, stderr %q\nwant exit 2 with %q", c.obs, code, stderr, c.want)
		}
	}
}

// A run a guard stopped prints what it measured and exits 1: it did not
// finish, and a script must not take its summary for an answer.
func TestARunStoppedByAGuardIsNotDone(t *testing.T) {
	file := filepath.Join(t.TempDir(), "loop.yaml")
	src := "name: loop\nduration: 1s\narrivals: even\njourneys:\n  j:\n    rate: 1/s\n    count: 1\n    steps:\n      - {job: spin}\n      - {await: jobs}\nroutes:\n  spin:\n    steps: [{await: jobs}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := sweepCLI(t, false, "run", file)
	if code != exitError || !strings.Contains(stdout, "!! run stopped by guard deadlock") ||
		!strings.HasPrefix(stderr, "capsim: the run did not finish: stopped by guard deadlock at ") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// The band single runs fall in stays within what the measure can take: a
// busy share of 30 s runs spreads widely, and its mean ± the t band once
// reached 121 %, where no run can fall.
func TestAHindcastBandStaysWithinItsMeasure(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hb.yaml")
	src := `name: hb
duration: 30s
components:
  server: {kind: pool, servers: 1}
journeys:
  customer:
    rate: 0.2/s
    steps:
      - use: server
        work: exponential(mean=5s)
observations:
  - {id: busy, component: server, measure: utilisation, value: 50%, tolerance: 5%}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := sweepCLI(t, false, "hindcast", file, "-q")
	want := "ok  busy    1x  base    server utilisation   50% ±5%  65.7% (10.0%–100%)  0.6  band vs runs\n"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stdout\n%s\nstderr %s\nwant exit 0 and the row\n%s", code, stdout, stderr, want)
	}
}

// A range whose ends are in different units gets the unit's message
// alone: 5% is neither below nor above 1s, and "the low end is above the
// high end" once followed it.
func TestARangeOfMixedUnitsIsNotOutOfOrder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "o.yaml")
	src := "name: o\nduration: 100s\ncomponents:\n  app: {kind: pool, servers: 2}\njourneys:\n  j:\n" +
		"    rate: 1/s\n    steps: [{use: app, work: 1s}]\nobservations:\n" +
		"  - {id: a, journey: j, measure: p95, between: [1s, 5%]}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := sweepCLI(t, false, "hindcast", file, "-q")
	want := "capsim: " + file + ":10:48: observations[0].between: p95 is a time: write 5% with a unit, such as 29.43s\n"
	if code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, exitUsage, want)
	}
}
