package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capsim/calibration"
)

// Hostile values: every kind of nonsense a scenario can hold gets one
// message naming the file, line, column and key, exit code 2, and never a
// panic or a stack trace.
func TestHostileScenarioValues(t *testing.T) {
	cases := []struct{ file, want string }{
		{"empirical_empty.yaml", `testdata/hostile/empirical_empty.yaml:9:9: journeys.visit.steps[0].work: empirical: empty.csv has no values`},
		{"bad_attribute_counts.yaml", "the scenario has 3 problems:\n" +
			"testdata/hostile/bad_attribute_counts.yaml:6:18: journeys.j.attributes.n: a step uses n as a count: it must be a whole number between 0 and 2147483647, got -5\n" +
			"testdata/hostile/bad_attribute_counts.yaml:6:25: journeys.j.attributes.k: a step uses k as a count: it must be a whole number between 1 and 2147483647, got 2.5\n" +
			"testdata/hostile/bad_attribute_counts.yaml:6:33: journeys.j.attributes.w: a step uses w as a weight: it must be >= 0, got -1"},
		{"unknown_distribution.yaml", `testdata/hostile/unknown_distribution.yaml:4:33: components.w.cold_start: unknown distribution "nosuch" (define it under distributions: or include a calibration file)`},
		{"empirical_negative.yaml", `testdata/hostile/empirical_negative.yaml:9:9: journeys.visit.steps[0].work: empirical: negative.csv:3: a duration must be a finite number of seconds >= 0, got -3`},
		{"empirical_missing.yaml", `testdata/hostile/empirical_missing.yaml:9:9: journeys.visit.steps[0].work: empirical: cannot read missing.csv: no such file`},
		{"fanout_zero.yaml", `testdata/hostile/fanout_zero.yaml:9:17: journeys.visit.steps[0].fanout: fanout must be at least 1, got 0`},
		{"huge_duration.yaml", `testdata/hostile/huge_duration.yaml:10:15: journeys.visit.steps[0].work: expected a duration such as 40s or 3m45s, got "1e400s"`},
		{"impossible_lognormal.yaml", `testdata/hostile/impossible_lognormal.yaml:10:15: journeys.visit.steps[0].work: lognormal: p95 must be > mean, got mean=1, p95=0.5`},
		{"inf_servers.yaml", `testdata/hostile/inf_servers.yaml:4:30: components.app.servers: expected an integer, got the number .inf`},
		{"nan_rate.yaml", `testdata/hostile/nan_rate.yaml:7:11: journeys.visit.rate: expected a rate such as 4/h or 3.6/s, got ".nan/h"`},
		{"negative_mean.yaml", `testdata/hostile/negative_mean.yaml:10:15: journeys.visit.steps[0].work: exponential: mean: duration must not be negative, got -1s`},
		{"negative_rate.yaml", `testdata/hostile/negative_rate.yaml:7:11: journeys.visit.rate: rate must not be negative, got "-3/h"`},
		{"poll_zero.yaml", `testdata/hostile/poll_zero.yaml:9:37: journeys.visit.steps[0].poll.every: every must be > 0s, got 0s`},
		{"probability_above_one.yaml", `testdata/hostile/probability_above_one.yaml:9:19: journeys.visit.steps[0].fail.p: p must be between 0 and 1, got 1.5`},
		{"recursive_route.yaml", `testdata/hostile/recursive_route.yaml:17:13: routes.b.steps[0].call: routes call each other in a cycle (a → b → a); a request cannot recurse forever`},
		{"reversed_uniform.yaml", `testdata/hostile/reversed_uniform.yaml:10:15: journeys.visit.steps[0].work: uniform: max must be > min, got min=2, max=1`},
		{"self_route.yaml", `testdata/hostile/self_route.yaml:15:13: routes.self.steps[0].call: routes call each other in a cycle (self → self); a request cannot recurse forever`},
		{"zero_servers.yaml", `testdata/hostile/zero_servers.yaml:4:30: components.app.servers: servers must be at least 1, got 0`},
		{"repeated_keys.yaml", "the scenario has 3 problems:\n" +
			`testdata/hostile/repeated_keys.yaml:4:33: components.app.servers: key "servers" repeated (first at line 4, column 21)` + "\n" +
			`testdata/hostile/repeated_keys.yaml:8:5: journeys.visit.rate: key "rate" repeated (first at line 7, column 5)` + "\n" +
			`testdata/hostile/repeated_keys.yaml:13:25: journeys.visit.steps[0].steps[0].delay: key "delay" repeated (first at line 13, column 14)`},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			code, stdout, stderr := run(t, "run", "testdata/hostile/"+tc.file)
			if code != exitUsage || stdout != "" || stderr != "capsim: "+tc.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\ncapsim: %s", code, stdout, stderr, tc.want)
			}
		})
	}
}

// A few lines of aliases repeating aliases stand for billions of steps;
// decoding stops at a bound with a message instead of running for hours.
func TestAliasBombIsRefused(t *testing.T) {
	code, _, stderr := run(t, "validate", "testdata/hostile/alias_bomb.yaml")
	if code != exitUsage || !strings.Contains(stderr, "the scenario expands to more than 1000000 values (aliases repeating aliases?)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// The same bomb inside a design is refused when --design a+b copies it,
// at the design, before the copy takes gigabytes.
func TestAliasBombInADesignIsRefused(t *testing.T) {
	code, stdout, stderr := run(t, "validate", "testdata/hostile/alias_bomb_design.yaml", "--design", "a+b")
	want := "testdata/hostile/alias_bomb_design.yaml:13:9: designs.a: the scenario expands to more than 1000000 values (aliases repeating aliases?)\n" +
		"capsim: 1 of 1 scenarios have problems\n"
	if code != exitUsage || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}

// Sizes past what the clock or memory can hold are refused with their
// bound: in a scenario at file:line:col, on the command line naming the
// flag. None of them may panic, wrap around to a small number, or run
// for years.
func TestSizesPastTheirBoundAreRefused(t *testing.T) {
	const century = "the longest time capsim simulates"
	files := []struct{ file, want string }{
		{"century_duration.yaml", "2:11: duration: duration 1000000h is more than 100 years, " + century},
		{"huge_mean.yaml", "10:15: journeys.visit.steps[0].work: exponential: mean: duration 1e308s is more than 100 years, " + century},
		{"infinite_mean.yaml", "10:15: journeys.visit.steps[0].work: weibull: its mean (infinite) passes 100 years, " + century},
		{"tiny_rate.yaml", "7:11: journeys.visit.rate: rate 1e-20/h is less than one per 100 years, " + century + " (write 0/h for no arrivals)"},
		{"clock_rate.yaml", "7:11: journeys.visit.rate: rate 1e20/s is more than 1e+09/s, one arrival per nanosecond of the clock"},
		{"huge_clients.yaml", "7:14: journeys.visit.clients: clients must be between 0 and 1000000, got 9223372036854775807"},
		{"huge_clients_dotted.yaml", `6:3: journeys.v1.visit: name "v1.visit" holds a dot, which separates the keys of a --set or --scale path; use _ or - instead`},
		{"sweep_replications.yaml", "12:17: sweep.replications: replications must be between 1 and 10000, got 4611686018427387904"},
	}
	for _, tc := range files {
		t.Run(tc.file, func(t *testing.T) {
			name := "testdata/hostile/" + tc.file
			code, stdout, stderr := run(t, "run", name)
			if want := "capsim: " + name + ":" + tc.want + "\n"; code != exitUsage || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
			}
		})
	}
	out := t.TempDir()
	flags := []struct {
		args []string
		want string
	}{
		{[]string{"-r", "9223372036854775807"}, "--replications must be between 1 and 10000, got 9223372036854775807"},
		{[]string{"-r", "4611686018427387904", "--fail-on-slo"}, "--replications must be between 1 and 10000, got 4611686018427387904"},
		{[]string{"--shard", "1/9223372036854775807"}, `--shard: the index must be between 0 and COUNT-1 and COUNT between 1 and 1000000, got "1/9223372036854775807"`},
		{[]string{"--workers", "9223372036854775807"}, "--workers must be between 1 and 4096, got 9223372036854775807"},
		{[]string{"--refine", "9223372036854775807"}, "--refine must be between 0 and 50, got 9223372036854775807"},
		{[]string{"-m", "1:1e300"}, "--multipliers 1:1e300: multipliers must be at most 1e+06, but the range ends at 1e+300"},
		{[]string{"-m", "1:1000", "-r", "10000"}, "designs × multipliers × replications = 1 × 1000 × 10000 = 10000000 grid runs; at most 1000000 are allowed"},
	}
	for _, tc := range flags {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"sweep", "testdata/hostile/tiny_rate.yaml", "--set", "journeys.visit.rate=4/h", "--out", out}, tc.args...)
			code, stdout, stderr := run(t, args...)
			if code != exitUsage || stdout != "" || stderr != "capsim: "+tc.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\ncapsim: %s", code, stdout, stderr, tc.want)
			}
		})
	}
	code, _, stderr := run(t, "run", "testdata/hostile/huge_clients.yaml", "--set", "journeys.visit.clients=1000", "-m", "10000")
	if want := "capsim: --multiplier: at multiplier 10000, journeys.visit.clients: 1000 stands for 10000000 clients; at most 1000000 are allowed\n"; code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// calibrate survives figures no distribution can have, and a small gzip
// of repeated lines is read only up to the bound on values kept.
func TestCalibrateRefusesWhatNoFitCanUse(t *testing.T) {
	code, stdout, stderr := run(t, "calibrate", "figures", "testdata/hostile/figures_huge_cv.yaml")
	want := "capsim: testdata/hostile/figures_huge_cv.yaml:2:3: db: no distribution matches mean=1s cv=1" + strings.Repeat("0", 308) +
		": lognormal: the figures give no finite mean and cv; gamma: the figures give no finite mean and cv\n"
	if code != exitUsage || stdout != "" || stderr != want {
		t.Errorf("figures: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}

	name := filepath.Join(t.TempDir(), "repeated.csv.gz")
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write([]byte("value\n"))
	zw.Write(bytes.Repeat([]byte("0.25\n"), calibration.MaxValues+10))
	zw.Close()
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, "calibrate", name, "--column", "value", "--name", "x")
	want = fmt.Sprintf("capsim: %s:%d: more than 50000000 lines or 2000000 values; fit a part of the data (a filter, or a shorter span)\n", name, calibration.MaxValues+2)
	if code != exitUsage || stdout != "" || stderr != want {
		t.Errorf("gzip: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}

// Every message has a place and says it plainly: bytes YAML refuses are
// located, a control character is escaped before it reaches the terminal
// and refused in any text, limits are checked where they are written, a
// name defined twice names both files, and a name whose metrics would
// land in another entity's is refused.
func TestMessagesArePlacedAndPrintable(t *testing.T) {
	const h = "testdata/hostile/"
	cases := []struct{ file, want string }{
		{"invalid_utf8.yaml", h + "invalid_utf8.yaml:1:11: invalid UTF-8 (byte 0xff); a scenario is UTF-8 text"},
		{"control_char.yaml", h + `control_char.yaml:2:13: control character U+001B is not allowed in YAML; inside double quotes write it as an escape, such as \t`},
		{"escape_key.yaml", h + `escape_key.yaml:3:1: \x1b[2J: unknown key "\x1b[2J" (expected one of: arrivals, components, description, designs, distributions, drain, duration, figures, include, journeys, limits, name, observations, recovery, routes, slos, sweep, warmup)`},
		{"escape_stage.yaml", h + `escape_stage.yaml:9:37: journeys.visit.steps[0].stage: the text "up\x1b[2Jload" holds the control character U+001B; write it without`},
		{"newline_stage.yaml", h + `newline_stage.yaml:9:37: journeys.visit.steps[0].stage: the text "up\nload" holds the control character U+000A; write it without`},
		{"bidi_stage.yaml", h + `bidi_stage.yaml:9:37: journeys.visit.steps[0].stage: the text "up\u202eload" holds the invisible character U+202E; write it without`},
		{"limits_zero.yaml", h + "limits_zero.yaml:11:18: limits.max_in_flight: max_in_flight must be at least 1, got 0"},
		{"two_includes.yaml", h + "dist_b.yaml:3:3: distributions.service: defined both in " + h + "dist_a.yaml (line 2) and in " + h + "dist_b.yaml"},
		{"replica_name.yaml", h + `replica_name.yaml:6:3: components.lb.replica.0: name "lb.replica.0" holds a dot, which separates the keys of a --set or --scale path; use _ or - instead`},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			code, stdout, stderr := run(t, "run", h+tc.file)
			if code != exitUsage || stdout != "" || stderr != "capsim: "+tc.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\ncapsim: %s", code, stdout, stderr, tc.want)
			}
		})
	}
	// A flag is text from outside too.
	code, _, stderr := run(t, "run", h+"limits_zero.yaml", "--set", "x\x1b[2J.y=1")
	if want := `capsim: --set x\x1b[2J.y=1: no such key x\x1b[2J in the scenario` + "\n"; code != exitUsage || stderr != want {
		t.Errorf("--set: exit %d, stderr %q, want %q", code, stderr, want)
	}
	// include: is read with the file; a set of it would change nothing.
	code, _, stderr = run(t, "run", h+"limits_zero.yaml", "--set", "include=[missing.yaml]")
	if want := "capsim: --set include=[missing.yaml]: include: an override cannot include files; include: is read once, " +
		"at the top of the scenario, before any design or override applies (set distributions.NAME instead)\n"; code != exitUsage || stderr != want {
		t.Errorf("--set include: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// An input that is empty, a value too short for a header, or a gzip file
// cut short is bad input, exit 2, with a message saying what the file
// holds: never a bare "EOF" and the exit code of a failed read.
func TestShortAndBrokenInputsAreBadInput(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("0.25\n"), 10000))
	zw.Close()
	files := map[string][]byte{"empty.csv": nil, "two.csv": []byte("5\n"), "cut.csv.gz": gz.Bytes()[:gz.Len()/2]}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", at("empty.csv")}, "capsim: " + at("empty.csv") + ": is empty\n"},
		{[]string{"calibrate", at("two.csv"), "--column", "value"}, "capsim: " + at("two.csv") + ":1: no column \"value\"; the header has 5\n"},
		{[]string{"calibrate", at("cut.csv.gz"), "--column", "value"}, "capsim: " + at("cut.csv.gz") + ": the gzip stream ends early: the file is truncated\n"},
		{[]string{"check", "testdata/check/shop.yaml", "--access", at("empty.csv")}, "capsim: " + at("empty.csv") + ": is empty\n"},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != exitUsage || stdout != "" || stderr != c.want {
			t.Errorf("capsim %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stdout, stderr, c.want)
		}
	}
}

// calibrate writes no entry that a scenario including the fragment would
// refuse: a time past the clock's bound is a line's mistake, skipped as a
// negative one is, whether read from a column or computed by --expr, and
// figures that give a distribution whose mean passes it are refused with
// exit 2 before any fragment is written.
func TestCalibrateWritesOnlyWhatAScenarioLoads(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "times.csv")
	app := filepath.Join(dir, "app.jsonl")
	figures := filepath.Join(dir, "figures.yaml")
	out := filepath.Join(dir, "fragment.yaml")
	files := map[string]string{
		csv:     "duration_ms\n5\n6\n1e308\n7\n",
		app:     `{"event":"done","x_ms":5}` + "\n" + `{"event":"done","x_ms":6}` + "\n" + `{"event":"done","x_ms":1e300}` + "\n" + `{"event":"done","x_ms":7}` + "\n",
		figures: "figures:\n  wide: {p50: 1s, p95: 3000000000s, source: \"FIGURES 1\"}\n",
	}
	for name, data := range files {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"calibrate", csv, "--column", "duration_ms", "--out", "-"}, csv + ":4: value 1e+305s passes 100 years, the longest time capsim simulates; skipped\n"},
		{[]string{"calibrate", app, "--expr", "x_ms * 2", "--name", "twice", "--out", "-"}, app + ":3: twice: value 2e+297s passes 100 years, the longest time capsim simulates; skipped\n"},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != exitOK || !strings.Contains(stderr, c.line) || !strings.Contains(stdout, "n: 3\n") {
			t.Errorf("capsim %s: exit %d, stderr:\n%s\nwant exit 0, 3 values fitted and the line %q", strings.Join(c.args, " "), code, stderr, c.line)
		}
	}
	code, stdout, stderr := run(t, "calibrate", "figures", figures, "--out", out)
	want := "capsim: wide: lognormal(mu=0, sigma=13.2668) is a distribution no scenario could load: lognormal: its mean (1.66e+38s) passes 100 years, the longest time capsim simulates\n"
	if code != exitUsage || stdout != "" || !strings.HasSuffix(stderr, want) {
		t.Errorf("figures: exit %d, stdout %q, stderr:\n%s\nwant exit 2 ending %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("figures: %s written", out)
	}
}

// The root folder as --out is refused naming the command that would
// replace it: sensitivity's refusal once spoke of a sweep.
func TestRootFolderOutNamesTheCommand(t *testing.T) {
	for _, c := range []struct{ args, who string }{
		{"sweep mm1 -q -r 1 -m 1 --refine 0 -o /", "a sweep"},
		{"sensitivity mm1 -q -r 1 -m 1 --refine 0 -o /", "sensitivity"},
	} {
		code, stdout, stderr := run(t, strings.Fields(c.args)...)
		want := "capsim: --out /: " + c.who + " replaces its folder whole; name a folder of its own\n"
		if code != exitUsage || stdout != "" || stderr != want {
			t.Errorf("capsim %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, want)
		}
	}
}
