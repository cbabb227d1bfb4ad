package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const hindcastMMcK = "testdata/hindcast_mmck.yaml"

var hindcastSureArgs = []string{"hindcast", hindcastMMcK, "-q", "-r", "5", "--until-sure", "--max-replications", "40"}

// M/M/4/6 at 5/s serves 70.65 % of its arrivals and keeps its servers
// 88.31 % busy (the finite-capacity formula). The observations clearly
// inside and clearly outside what was measured are sure at the first
// look, 5 runs; the one whose measured interval ends 0.07 points above
// the true share stays unsure through 5, 10, 20 and 40 runs and stops at
// the cap. Four looks: sureness at 1 − 0.05/4.
func TestHindcastUntilSureStopsEachObservationWhenSure(t *testing.T) {
	code, stdout, stderr := sweepCLI(t, false, hindcastSureArgs...)
	want := `hindcast hindcast-mmck: the model agrees with 3 of 5 observations (disagree: served-outside,
  busy-outside)
5 runs per observation, doubled while a verdict is not sure up to 40, seeds 1 onwards; sureness at
  98.75 % over 4 looks: 4 sure, 1 at the cap; 40 runs in all

    id              load  measure                observed     simulated (95 %)  runs  stop
ok  served-inside     1x  customer success_rate    70/100  70.1% (69.5%–70.7%)     5  sure
NO  served-outside    1x  customer success_rate    90/100  70.1% (69.5%–70.7%)     5  sure
ok  served-edge       1x  customer success_rate  679/1000  70.6% (70.3%–70.8%)    40  cap
ok  busy-inside       1x  server utilisation      88% ±5%  88.9% (85.1%–92.6%)     5  sure
NO  busy-outside      1x  server utilisation      50% ±5%  88.9% (85.1%–92.6%)     5  sure
(design, I (implausibility), rule left out to fit 100 columns; --wide shows them)
`
	if code != exitMismatch || stdout != want ||
		stderr != "capsim: the model disagrees with 2 observations: served-outside, busy-outside\n" {
		t.Errorf("exit %d\n%s\nwant\n%s\nstderr %q", code, stdout, want, stderr)
	}
}

// The JSON carries the schedule and each observation's runs and stop;
// the edge's 40 runs hold the true share in their interval. Without
// --until-sure each observation still says whether its verdict is sure
// at the fixed replications (95 %, one look), and the edge is not.
func TestHindcastUntilSureJSON(t *testing.T) {
	type obs struct {
		ID      string  `json:"id"`
		Runs    int     `json:"runs"`
		Stopped string  `json:"stopped"`
		Lo      float64 `json:"simulated_low"`
		Hi      float64 `json:"simulated_high"`
	}
	var doc struct {
		UntilSure *struct {
			MaxReplications int     `json:"max_replications"`
			Looks           int     `json:"looks"`
			Level           float64 `json:"level"`
			Runs            int     `json:"runs"`
		} `json:"until_sure"`
		Observations []obs `json:"observations"`
	}
	read := func(args ...string) {
		t.Helper()
		doc.UntilSure = nil
		code, stdout, stderr := sweepCLI(t, false, append(args, "--json")...)
		if code != exitMismatch {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
	}
	read(hindcastSureArgs...)
	if u := doc.UntilSure; u == nil || *u != (struct {
		MaxReplications int     `json:"max_replications"`
		Looks           int     `json:"looks"`
		Level           float64 `json:"level"`
		Runs            int     `json:"runs"`
	}{40, 4, 0.9875, 40}) {
		t.Errorf("until_sure: %+v, want 40 replications at most, 4 looks at 98.75 %%, 40 runs", doc.UntilSure)
	}
	var got []string
	for _, o := range doc.Observations {
		got = append(got, o.ID+" "+o.Stopped+" "+itoa(int64(o.Runs)))
		if o.ID == "served-edge" && !(o.Lo <= 0.70646 && 0.70646 <= o.Hi) {
			t.Errorf("served-edge: the true share 70.646 %% lies outside the simulated interval %.4f–%.4f", o.Lo, o.Hi)
		}
	}
	if s := strings.Join(got, ", "); s != "served-inside sure 5, served-outside sure 5, served-edge cap 40, busy-inside sure 5, busy-outside sure 5" {
		t.Errorf("stops: %s", s)
	}
	read("hindcast", hindcastMMcK, "-q", "-r", "5")
	got = got[:0]
	for _, o := range doc.Observations {
		got = append(got, o.ID+" "+o.Stopped+" "+itoa(int64(o.Runs)))
	}
	if s := strings.Join(got, ", "); doc.UntilSure != nil ||
		s != "served-inside sure 5, served-outside sure 5, served-edge unsure 5, busy-inside sure 5, busy-outside sure 5" {
		t.Errorf("fixed replications: until_sure %+v, stops %s", doc.UntilSure, s)
	}
}

// The looks' runs land in their replication's slot and each look waits
// for all of its runs: the bytes do not depend on --workers.
func TestHindcastUntilSureIgnoresWorkers(t *testing.T) {
	for _, format := range [][]string{nil, {"--json"}} {
		var first string
		for _, w := range []string{"1", "3"} {
			_, stdout, _ := sweepCLI(t, false, append(append(hindcastSureArgs, format...), "--workers", w)...)
			if first == "" {
				first = stdout
			} else if stdout != first {
				t.Errorf("%v: --workers 3 gives other bytes than --workers 1:\n%s\n%s", format, stdout, first)
			}
		}
	}
}

func TestHindcastUntilSureFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-replications", "40"}, "capsim: --max-replications goes with --until-sure\n"},
		{[]string{"--until-sure", "--max-replications", "4", "-r", "5"}, "capsim: --max-replications must be between the replications (5) and 10000, got 4\n"},
		{[]string{"--until-sure", "--max-replications", "10001"}, "capsim: --max-replications must be between the replications (20) and 10000, got 10001\n"},
		{[]string{"--workers", "0"}, "capsim: --workers must be between 1 and 4096, got 0\n"},
	} {
		code, _, stderr := sweepCLI(t, false, append([]string{"hindcast", hindcastMMcK, "-q"}, c.args...)...)
		if code != exitUsage || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 with %q", c.args, code, stderr, c.want)
		}
	}
}
