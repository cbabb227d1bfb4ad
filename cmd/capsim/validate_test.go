package main

import (
	"strings"
	"testing"

	"capsim/scenarios"
)

// Each bad scenario gets one clear message naming file:line:column, the key
// path and what was expected, and exit code 2.
func TestValidateReportsBadScenarios(t *testing.T) {
	cases := []struct {
		file, want string
	}{
		{"syntax.yaml", "testdata/bad/syntax.yaml:4:8: invalid YAML: did not find expected ',' or '}' (a { or [ opened here is not closed)"},
		{"unknown_top.yaml", `testdata/bad/unknown_top.yaml:11:1: bogus: unknown key "bogus" (expected one of: arrivals, components, description, designs, distributions, drain, duration, figures, include, journeys, limits, name, observations, recovery, routes, slos, sweep, warmup)`},
		{"unknown_comp.yaml", `testdata/bad/unknown_comp.yaml:4:33: components.app.quueue: unknown key "quueue"; did you mean "queue"?`},
		{"unknown_step.yaml", `testdata/bad/unknown_step.yaml:11:9: journeys.visit.steps[0].tiemout: unknown key "tiemout"; did you mean "timeout"?`},
		{"wrong_type.yaml", `testdata/bad/wrong_type.yaml:4:30: components.app.servers: expected an integer, got the string "two"`},
		{"negative.yaml", `testdata/bad/negative.yaml:2:11: duration: duration must not be negative, got -5m`},
		{"unitless.yaml", `testdata/bad/unitless.yaml:2:11: duration: duration "60" needs a unit (ms, s, m or h), e.g. 60s`},
		{"nocomp.yaml", `testdata/bad/nocomp.yaml:9:9: journeys.visit.steps[0].use: unknown component "ap" (components: app)`},
		{"design_key.yaml", `testdata/bad/design_key.yaml:15:9: components.app.servrs: design "bigger" overlays components.app.servrs, which does not exist in the base scenario`},
		{"design_comp.yaml", `testdata/bad/design_comp.yaml:14:7: components.api: design "bigger" overlays components.api, which does not exist in the base scenario (a new entry needs kind:)`},
		{"design_include.yaml", `testdata/bad/design_include.yaml:13:5: include: design "other_fit" cannot include files; include: is read once, at the top of the scenario, before any design or override applies (a design may set distributions: itself)`},
		{"design_base.yaml", `testdata/bad/design_base.yaml:12:3: designs.base: the name base is reserved for the scenario without a design, as reports, sweep --designs and sensitivity --design call it; rename the design`},
		{"empty.yaml", `testdata/bad/empty.yaml: the file is empty; a scenario needs at least duration, components and journeys`},
		{"second_document.yaml", `testdata/bad/second_document.yaml:11:1: a second YAML document starts here; a scenario is one document`},
		// A repeated key would silently keep one of its values; at every
		// level it is an error naming both places.
		{"repeated_top.yaml", `testdata/bad/repeated_top.yaml:11:1: duration: key "duration" repeated (first at line 2, column 1)`},
		{"repeated_component.yaml", `testdata/bad/repeated_component.yaml:6:3: components.app: key "app" repeated (first at line 4, column 3)`},
		{"repeated_comp_key.yaml", `testdata/bad/repeated_comp_key.yaml:8:5: components.app.servers: key "servers" repeated (first at line 6, column 5)`},
		{"repeated_journey.yaml", `testdata/bad/repeated_journey.yaml:9:3: journeys.visit: key "visit" repeated (first at line 6, column 3)`},
		{"repeated_step.yaml", `testdata/bad/repeated_step.yaml:10:30: journeys.visit.steps[1].work: key "work" repeated (first at line 10, column 20)`},
		{"repeated_design.yaml", `testdata/bad/repeated_design.yaml:18:5: designs.smaller.components: key "components" repeated (first at line 16, column 5)`},
		{"sweep_multipliers.yaml", `testdata/bad/sweep_multipliers.yaml:12:16: sweep.multipliers: multipliers must be > 0, but the range starts at 0`},
		{"sweep_designs.yaml", `testdata/bad/sweep_designs.yaml:13:12: sweep.designs: unknown design "biger"; did you mean "bigger"? (available: base, bigger)`},
		{"design_sweep.yaml", `testdata/bad/design_sweep.yaml:14:5: sweep: design "bigger" cannot set sweep:; capsim sweep and sensitivity read the sweep defaults from the base scenario, whatever design runs (set them there, or give --multipliers)`},
		{"design_designs.yaml", `testdata/bad/design_designs.yaml:13:5: designs: design "bigger" cannot define designs; designs are listed once, under the base scenario's designs: (compose two with --design a+b)`},
		{"design_observations.yaml", `testdata/bad/design_observations.yaml:13:5: observations: design "bigger" cannot hold observations; a hindcast reads them from the base scenario, each naming the design it was measured under with design:`},
		{"repeated_include.yaml", `testdata/bad/repeated_calibration.yaml:4:3: distributions.service: key "service" repeated (first at line 2, column 3)`},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			code, stdout, stderr := run(t, "validate", "testdata/bad/"+tc.file)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
			want := tc.want + "\ncapsim: 1 of 1 scenarios have problems\n"
			if stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if strings.HasPrefix(tc.file, "design_") {
				return // the base scenario is sound; only its design is not
			}
			// run reports the same problem, without the validate summary.
			code, _, stderr = run(t, "run", "testdata/bad/"+tc.file)
			if code != exitUsage || stderr != "capsim: "+tc.want+"\n" {
				t.Errorf("run: exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// Every embedded scenario, with every design it defines, validates.
func TestValidateAcceptsEmbeddedScenarios(t *testing.T) {
	names := scenarios.List()
	code, stdout, stderr := run(t, append([]string{"validate"}, names...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := ""
	for _, n := range names {
		want += n + ": ok\n"
	}
	if stdout != want || len(names) < 9 {
		t.Errorf("stdout = %q", stdout)
	}
}

func TestUnknownScenarioAndDesign(t *testing.T) {
	// Each row is refused as a usage error with exactly this message; the
	// unknown scenario's message goes on to list the embedded ones, so only
	// its beginning is fixed.
	for _, c := range []struct {
		name   string
		args   []string
		want   string
		prefix bool
	}{
		{"unknown scenario", []string{"run", "nosuch"},
			`capsim: no scenario file or embedded scenario called "nosuch" (embedded: `, true},
		{"a fragment the scenarios include", []string{"run", "trip-calibration"},
			`capsim: no scenario file or embedded scenario called "trip-calibration" (embedded: http-client-pool, md1, `, true},
		{"unknown design", []string{"run", "mmc", "--design", "bigger"},
			"capsim: mmc.yaml: unknown design \"bigger\": the scenario defines no designs\n", false},
		{"negative multiplier", []string{"run", "mmc", "--multiplier", "-1"},
			"capsim: --multiplier: a load multiplier must be > 0 and at most 1e+06, got -1\n", false},
		{"zero servers", []string{"run", "mmc", "--set", "components.server.servers=0"},
			"capsim: --set components.server.servers=0: components.server.servers: servers must be at least 1, got 0\n", false},
		{"misspelt key", []string{"run", "mmc", "--set", "components.server.servrs=2"},
			"capsim: --set components.server.servrs=2: components.server.servrs: unknown key \"servrs\"; did you mean \"servers\"?\n", false},
		{"repeated key", []string{"run", "mmc", "--set", "journeys.customer.steps=[{use: server, work: 1s, work: 2s}]"},
			"capsim: --set journeys.customer.steps=[{use: server, work: 1s, work: 2s}]: journeys.customer.steps[0].work: key \"work\" repeated\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, c.args...)
			matches := stderr == c.want || c.prefix && strings.HasPrefix(stderr, c.want)
			if code != exitUsage || !matches {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// A sweep compiles its designs at once on its workers, and still names the
// first bad one in the order the designs were asked for, as one after
// another would: the message does not depend on which finished first.
func TestSweepNamesTheFirstBadDesignAsked(t *testing.T) {
	const f = "testdata/bad/designs_two_bad.yaml"
	fewer := f + `:14:25: components.server.servers: servers must be at least 1, got 0`
	other := f + `:17:7: components.nosuch: design "other" overlays components.nosuch, which does not exist in the base scenario (a new entry needs kind:)`
	for _, tc := range []struct{ designs, want string }{
		{"fewer,other", fewer},
		{"other,fewer", other},
		{"base,other,fewer", other},
	} {
		for range 5 {
			code, _, stderr := run(t, "sweep", f, "--designs", tc.designs, "--workers", "2", "-q", "--out", t.TempDir()+"/out")
			if code != exitUsage || stderr != "capsim: "+tc.want+"\n" {
				t.Fatalf("--designs %s: exit %d, stderr %q; want exit %d, %q", tc.designs, code, stderr, exitUsage, tc.want)
			}
		}
	}
}
