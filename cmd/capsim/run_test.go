package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capsim/cmd/golden"
	"capsim/scenarios"
)

// goldenFile is the path of a golden file of this package's tests. Goldens
// pin exact bytes on the architecture CI runs on; numbers are printed with
// 4 significant digits, which absorbs the low-bit noise that fused
// multiply-add can introduce elsewhere.
func goldenFile(name string) string { return filepath.Join("testdata", name+".golden") }

// The summary a person reads: journeys, routes, components, SLOs.
func TestRunSummaryGolden(t *testing.T) {
	code, stdout, stderr := run(t, "run", "mmck", "--seed", "3", "--set", "duration=2000s")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden.Check(t, goldenFile("run_mmck"), []byte(stdout))
}

func TestRunJSONAndTrace(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	code, stdout, stderr := run(t, "run", "../../model/testdata/features.yaml", "--json", "--trace", trace, "--multiplier", "2")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var res struct {
		Scenario   string
		Multiplier float64
		Journeys   []struct {
			Name    string
			Started int64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json output does not parse: %v", err)
	}
	if res.Scenario != "features" || res.Multiplier != 2 || len(res.Journeys) != 2 || res.Journeys[0].Started == 0 {
		t.Fatalf("unexpected result %+v", res)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	events := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Event     string  `json:"event"`
			JourneyID int64   `json:"journey_id"`
			RequestID string  `json:"request_id"`
			JobID     int64   `json:"job_id"`
			T         float64 `json:"t"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		events[e.Event]++
		if e.Event == "worker_ready" && (e.JobID == 0 || len(e.RequestID) != 32 || e.JourneyID == 0) {
			t.Errorf("worker_ready without its ids: %s", line)
		}
	}
	for _, ev := range []string{"capsim.journey_start", "capsim.request_start", "capsim.request_end", "capsim.job_start", "capsim.job_end", "photo_originals_saved", "worker_ready", "ai_worker_execution", "capsim.journey_end"} {
		if events[ev] == 0 {
			t.Errorf("trace has no %s event (have %v)", ev, events)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestTraceToUnwritablePathFailsCleanly(t *testing.T) {
	code, stdout, stderr := run(t, "run", "mmc", "--trace", "/nonexistent-dir/trace.jsonl")
	if code != exitError || stdout != "" || stderr != "capsim: cannot write /nonexistent-dir/trace.jsonl: no such file or directory\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestScenariosListAndShow(t *testing.T) {
	code, stdout, _ := run(t, "scenarios")
	if code != 0 || !strings.HasPrefix(stdout, "http-client-pool ") || !strings.Contains(stdout, "\nmmc ") || !strings.Contains(stdout, "designs: v1-original, v1-improved,") {
		t.Fatalf("exit %d, stdout:\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "scenarios", "show", "mmc")
	want, _ := os.ReadFile("../../scenarios/mmc.yaml")
	if code != 0 || stdout != string(want) {
		t.Fatalf("show mmc: exit %d, output differs from scenarios/mmc.yaml", code)
	}
	code, _, stderr := run(t, "scenarios", "show", "nope")
	if code != exitUsage || !strings.HasPrefix(stderr, `capsim: no embedded scenario "nope" (embedded: `) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestVersionAndUnknownFlag(t *testing.T) {
	code, stdout, _ := run(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "capsim "+Version) {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	code, _, stderr := run(t, "run", "--sede", "1")
	if code != exitUsage || stderr != "capsim: unknown flag: --sede; did you mean \"--seed\"? (see capsim run --help)\n" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// Shell completion offers the chosen scenario's designs for --design.
func TestDesignCompletion(t *testing.T) {
	code, stdout, _ := run(t, "__complete", "run", "places-fanout", "--design", "")
	if code != 0 || !strings.HasPrefix(stdout, "fixed-refill\ntest-003-03\nthreadpool\ncoroutines\ntest-003-22\nunlimited\nlimited\n:4\n") {
		t.Errorf("exit %d, completions:\n%s", code, stdout)
	}
}

// Every embedded scenario's summary at seed 1 is pinned, so a change of
// behaviour anywhere in the model shows up as a diff of what a user reads.
func TestEmbeddedScenarioSummariesGolden(t *testing.T) {
	for _, name := range scenarios.List() {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := run(t, "run", name)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden.Check(t, goldenFile("summary_"+name), []byte(stdout))
		})
	}
}

// An overload the default drain hid is named under the journeys table,
// as advice: the run still exits 0. --json carries it as data, and only
// where it was found.
func TestRunNamesAnOverload(t *testing.T) {
	args := []string{"run", "mm1", "--set", "journeys.customer.rate=1.2/s", "--set", "duration=20000s"}
	code, stdout, stderr := run(t, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "  customer    21732      21732       0           0         0.00%          -  34.4m  60.0m  62.7m\n" +
		"  3867 journeys were still in flight when the arrivals stopped at 333.3m, and draining them took\n" +
		"    63.2m more: the design did not keep up with the load (components at capacity: server 100%).\n" +
		"    Journeys that drained count as succeeded or failed; --set drain=0s counts them as unfinished\n\n" +
		"Components\n"
	if !strings.Contains(stdout, want) {
		t.Fatalf("summary lacks\n%s\ngot:\n%s", want, stdout)
	}
	// docs/modelling.md shows the same lines.
	doc := docBlock(t, "docs/modelling.md", "## When the load outruns capacity", "")
	cmd, lines, _ := strings.Cut(doc, "\n")
	if cmd != "$ capsim "+strings.Join(args, " ") || !strings.Contains(stdout, lines) {
		t.Errorf("docs/modelling.md shows:\n%s\ncapsim prints:\n%s", doc, stdout)
	}
	code, stdout, stderr = run(t, append(args, "--json")...)
	if code != 0 || stderr != "" {
		t.Fatalf("--json: exit %d, stderr %q", code, stderr)
	}
	var res struct {
		Overload *struct {
			Drain struct {
				InFlight int64   `json:"in_flight"`
				Seconds  float64 `json:"drain_s"`
			} `json:"drain"`
			AtCapacity []struct{ Component string } `json:"at_capacity"`
		} `json:"overload"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if o := res.Overload; o == nil || o.Drain.InFlight != 3867 || o.Drain.Seconds < 3000 || len(o.AtCapacity) != 1 || o.AtCapacity[0].Component != "server" {
		t.Fatalf("overload in --json: %+v", res.Overload)
	}
	_, stdout, _ = run(t, "run", "mm1", "--json")
	if strings.Contains(stdout, "overload") {
		t.Fatal("--json of a run at ρ = 0.8 names an overload")
	}
	_, stdout, _ = run(t, "run", "mm1")
	if strings.Contains(stdout, "in flight") {
		t.Fatalf("summary at ρ = 0.8 names an overload:\n%s", stdout)
	}
}
