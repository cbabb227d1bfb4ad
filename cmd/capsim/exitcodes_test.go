package main

import (
	"strings"
	"testing"
)

// Every command meets every kind of mistake it can be given, and each
// exits with the code docs/cli.md documents (2: the command line or the
// scenario needs fixing) and says what is wrong on stderr's first line.
func TestMistakesExitWithUsageCode(t *testing.T) {
	const (
		embedded = "(embedded: http-client-pool, md1, mm1, mmc, mmck, places-fanout, realtime-sessions, tandem, trip)"
		designs  = "v1-original, v1-improved, queue-wait, async-ai, direct-upload, lock-fix, warm-worker, two-workers, single-trip, paired-trips, same-account-burst, mixed-load, views-only, mixed-sizes, view-spike, read-path"
		negative = "testdata/bad/negative.yaml:2:11: duration: duration must not be negative, got -5m"
	)
	cases := []struct {
		kind string
		args string
		want string // stderr's first line
	}{
		{"unknown flag", "run --sede 1", `capsim: unknown flag: --sede; did you mean "--seed"? (see capsim run --help)`},
		{"bad flag value", "run --seed -1", `capsim: --seed must be a whole number >= 0, got "-1" (see capsim run --help)`},
		{"bad flag value", "run --multiplier x", `capsim: --multiplier must be a number, got "x" (see capsim run --help)`},
		{"missing file", "run missing.yaml", "capsim: missing.yaml: no such file"},
		{"bad scenario", "run testdata/bad/negative.yaml", "capsim: " + negative},
		{"unknown scenario", "run tirp", `capsim: no scenario file or embedded scenario called "tirp"; did you mean "trip"? ` + embedded},
		{"unknown design", "run --design v1-improvd", `capsim: trip.yaml: unknown design "v1-improvd"; did you mean "v1-improved"? (available: ` + designs + ")"},
		{"unknown design", "run --design v1-original+same-acount-burst", `capsim: trip.yaml: unknown design "same-acount-burst"; did you mean "same-account-burst"? (available: ` + designs + ")"},
		{"unknown design", "run --design nothing-like-it", `capsim: trip.yaml: unknown design "nothing-like-it" (available: ` + designs + ")"},
		{"wrong arg count", "run trip mmc", "capsim: accepts at most 1 arg(s), received 2 (see capsim run --help)"},
		{"bad flag value", "run --trace-origin 2026-01-01T00:00:00Z", "capsim: --trace-origin needs --trace"},
		{"bad flag value", "run --trace t.jsonl --trace-origin soon", `capsim: --trace-origin: "soon" is not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)`},

		{"unknown flag", "sweep --replicatons 2", `capsim: unknown flag: --replicatons; did you mean "--replications"? (see capsim sweep --help)`},
		{"bad flag value", "sweep --replications x", `capsim: --replications must be a whole number, got "x" (see capsim sweep --help)`},
		{"bad flag value", "sweep --seed -1", `capsim: --seed must be a whole number >= 0, got "-1" (see capsim sweep --help)`},
		{"missing file", "sweep missing.yaml", "capsim: missing.yaml: no such file"},
		{"bad scenario", "sweep testdata/bad/negative.yaml", "capsim: " + negative},
		{"unknown scenario", "sweep tirp", `capsim: no scenario file or embedded scenario called "tirp"; did you mean "trip"? ` + embedded},
		{"unknown design", "sweep --designs v1-improvd", `capsim: --designs: unknown design "v1-improvd"; did you mean "v1-improved"? (available: base, ` + designs + ")"},
		{"unknown design", "sweep --designs v1-original+same-acount-burst", `capsim: --designs: unknown design "same-acount-burst" in "v1-original+same-acount-burst"; did you mean "same-account-burst"? (available to compose: ` + designs + ")"},
		{"wrong arg count", "sweep trip mmc", "capsim: accepts at most 1 arg(s), received 2 (see capsim sweep --help)"},
		{"bad flag value", "sweep mmck --shard 3/3", `capsim: --shard: the index must be between 0 and COUNT-1 and COUNT between 1 and 1000000, got "3/3"`},
		{"bad flag value", "sweep mmck --round 1", "capsim: --round goes with --shard: a round is split into shards"},

		{"unknown flag", "sensitivity --delat 5%", `capsim: unknown flag: --delat; did you mean "--delta"? (see capsim sensitivity --help)`},
		{"bad flag value", "sensitivity --replications x", `capsim: --replications must be a whole number, got "x" (see capsim sensitivity --help)`},
		{"missing file", "sensitivity missing.yaml", "capsim: missing.yaml: no such file"},
		{"bad scenario", "sensitivity testdata/bad/negative.yaml", "capsim: " + negative},
		{"unknown scenario", "sensitivity tirp", `capsim: no scenario file or embedded scenario called "tirp"; did you mean "trip"? ` + embedded},
		{"unknown design", "sensitivity --design v1-improvd", `capsim: trip.yaml: unknown design "v1-improvd"; did you mean "v1-improved"? (available: ` + designs + ")"},
		{"wrong arg count", "sensitivity trip mmc", "capsim: accepts at most 1 arg(s), received 2 (see capsim sensitivity --help)"},
		{"bad flag value", "sensitivity mmck --shard 3/3", `capsim: --shard: the index must be between 0 and COUNT-1 and COUNT between 1 and 1000000, got "3/3"`},
		{"bad flag value", "sensitivity mmck --shard 0/2 --round 4", "capsim: --round: this sensitivity has rounds 0 to 3 (--refine 3), got 4"},
		{"bad flag value", "sensitivity mmck --round 1", "capsim: --round goes with --shard: a round is split into shards"},
		{"missing file", "sensitivity mmck --merge missing-shards", "capsim: --merge missing-shards: no such file or directory"},

		{"unknown flag", "calibrate x.csv --nmae x", `capsim: unknown flag: --nmae; did you mean "--name"? (see capsim calibrate --help)`},
		{"bad flag value", "calibrate x.csv --format har", `capsim: --format: unknown format "har" (want auto, k6-csv, k6-json, k6-summary, nginx-json, nginx-combined, applog, csv)`},
		{"missing file", "calibrate missing.csv", "capsim: missing.csv: no such file"},
		{"missing file", "calibrate a=missing.csv b=missing.csv --expr a.x-b.y --join-key id --name x", "capsim: missing.csv: no such file"},
		{"missing file", "calibrate figures missing.yaml", "capsim: missing.yaml: no such file"},
		{"missing file", "calibrate testdata/calibrate/missing_source_plan.yaml --out -", "capsim: testdata/calibrate/missing_source_plan.yaml:2: source a: testdata/calibrate/missing.csv: no such file"},
		{"wrong arg count", "calibrate", "capsim: give the files to read, e.g. capsim calibrate k6-out.csv (see capsim calibrate --help)"},
		{"wrong arg count", "calibrate figures", "capsim: give one figures file, e.g. capsim calibrate figures figures.yaml (see capsim calibrate figures --help)"},

		{"unknown flag", "check --acess x.log", `capsim: unknown flag: --acess; did you mean "--access"? (see capsim check --help)`},
		{"bad flag value", "check --replications x", `capsim: --replications must be a whole number, got "x" (see capsim check --help)`},
		{"bad flag value", "check --app testdata/calibrate/app.jsonl --tolerance 0", `capsim: --tolerance must be a share between 0 and 100% (10% or 0.1), got "0"`},
		{"missing file", "check --app missing.jsonl", "capsim: missing.jsonl: no such file or directory"},
		{"missing file", "check missing.yaml --app testdata/calibrate/app.jsonl", "capsim: missing.yaml: no such file"},
		{"bad scenario", "check testdata/bad/negative.yaml --app testdata/calibrate/app.jsonl", "capsim: " + negative},
		{"unknown scenario", "check tirp --app testdata/calibrate/app.jsonl", `capsim: no scenario file or embedded scenario called "tirp"; did you mean "trip"? ` + embedded},
		{"unknown design", "check --design v1-improvd --app testdata/calibrate/app.jsonl", `capsim: trip.yaml: unknown design "v1-improvd"; did you mean "v1-improved"? (available: ` + designs + ")"},
		{"wrong arg count", "check trip mmc", "capsim: accepts at most 1 arg(s), received 2 (see capsim check --help)"},

		// validate lists each scenario's problems before its summary line.
		{"unknown flag", "validate trip --desing x", `capsim: unknown flag: --desing; did you mean "--design"? (see capsim validate --help)`},
		{"missing file", "validate missing.yaml", "missing.yaml: no such file"},
		{"bad scenario", "validate testdata/bad/negative.yaml", negative},
		{"unknown scenario", "validate tirp", `no scenario file or embedded scenario called "tirp"; did you mean "trip"? ` + embedded},
		{"unknown design", "validate trip --design v1-improvd", `trip.yaml: unknown design "v1-improvd"; did you mean "v1-improved"? (available: ` + designs + ")"},
		{"wrong arg count", "validate", "capsim: requires at least 1 arg(s), only received 0 (see capsim validate --help)"},

		{"unknown flag", "scenarios --al", "capsim: unknown flag: --al (see capsim scenarios --help)"},
		{"unknown command", "scenarios shwo", `capsim: unknown command "shwo" for "capsim scenarios"; did you mean "show"? (see capsim scenarios --help)`},
		{"wrong arg count", "scenarios show", "capsim: accepts 1 arg(s), received 0 (see capsim scenarios show --help)"},
		{"wrong arg count", "scenarios show trip mmc", "capsim: accepts 1 arg(s), received 2 (see capsim scenarios show --help)"},
		{"unknown scenario", "scenarios show tirp", `capsim: no embedded scenario "tirp"; did you mean "trip"? ` + embedded},

		{"unknown flag", "version --short", "capsim: unknown flag: --short (see capsim version --help)"},
		{"wrong arg count", "version 2", `capsim: no arguments expected, got "2" (see capsim version --help)`},

		{"unknown command", "rnu", `capsim: unknown command "rnu" for "capsim"; did you mean "run"? (see capsim --help)`},
		{"unknown command", "bogus", `capsim: unknown command "bogus" for "capsim" (see capsim --help)`},
		{"unknown command", "help swep", `capsim: no help topic "swep" for "capsim"; did you mean "sweep"? (see capsim --help)`},
		{"unknown command", "help scenarios shwo", `capsim: no help topic "shwo" for "capsim scenarios"; did you mean "show"? (see capsim scenarios --help)`},
		{"unknown flag", "--verison", `capsim: unknown flag: --verison; did you mean "--version"? (see capsim --help)`},
		{"wrong arg count", "completion bash x", `capsim: no arguments expected, got "x" (see capsim completion bash --help)`},
	}
	for _, c := range cases {
		code, stdout, stderr := run(t, strings.Fields(c.args)...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != exitUsage || first != c.want || stdout != "" {
			t.Errorf("%s: capsim %s: exit %d, stdout %q\nstderr %q\nwant   %q", c.kind, c.args, code, stdout, first, c.want)
		}
	}
}

// capsim --version is capsim version, for scripts that try either.
func TestVersionFlag(t *testing.T) {
	code, flag, stderr := run(t, "--version")
	_, cmd, _ := run(t, "version")
	if code != exitOK || stderr != "" || flag != cmd || !strings.HasPrefix(flag, "capsim "+Version+" ") {
		t.Fatalf("exit %d, --version %q, version %q, stderr %q", code, flag, cmd, stderr)
	}
}
