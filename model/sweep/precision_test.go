package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
)

// Looks double the replications up to the cap, and every verdict is
// judged at the Bonferroni share of 5 % per look.
func TestLooksAndLevel(t *testing.T) {
	cases := []struct {
		reps, until, looks, last int
		level                    float64
	}{
		{5, 0, 1, 5, 0.95},
		{5, 5, 1, 5, 0.95},
		{5, 320, 7, 320, 1 - 0.05/7},
		{5, 381, 8, 381, 1 - 0.05/8},
		{20, 60, 3, 60, 1 - 0.05/3},
	}
	for _, c := range cases {
		cfg := Config{Replications: c.reps, Until: c.until}
		if got := cfg.Looks(); got != c.looks {
			t.Errorf("%d→%d: %d looks, want %d", c.reps, c.until, got, c.looks)
		}
		if got := cfg.lookTarget(cfg.Looks() - 1); got != c.last {
			t.Errorf("%d→%d: last look at %d, want %d", c.reps, c.until, got, c.last)
		}
		if got := cfg.VerdictLevel(); got != c.level {
			t.Errorf("%d→%d: level %v, want %v", c.reps, c.until, got, c.level)
		}
	}
	if FormatLevel(0.95) != "95" || FormatLevel(1-0.05/7) != "99.28" {
		t.Errorf("FormatLevel: %s, %s", FormatLevel(0.95), FormatLevel(1-0.05/7))
	}
}

// Replications until sure: the same bytes at any worker count, cells
// extended only inside the window, and no extended cell with fewer than
// the replications of the look it stopped at.
func TestUntilSureDeterministic(t *testing.T) {
	short := []string{"duration=600s", "warmup=60s"}
	cfg := Config{
		Scenario:    "mmck",
		Designs:     []Design{{Name: "four", Compiled: compile(t, "mmck", short...)}},
		Multipliers: []float64{0.5, 0.75, 1, 1.25}, Replications: 3, Seed: 3, Refine: 1, Until: 24,
	}
	cfg.Workers = 1
	res, one := sweepBytes(t, cfg)
	cfg.Workers = 3
	_, many := sweepBytes(t, cfg)
	for name, data := range one {
		if !bytes.Equal(data, many[name]) {
			t.Errorf("%s differs between 1 and 3 workers", name)
		}
	}
	p := res.Precision
	if p == nil || p.Looks != 4 || p.Extra == 0 || p.Runs <= p.Extra {
		t.Fatalf("precision: %+v", p)
	}
	for _, c := range res.FirstFailures[0].Tried {
		if c.Runs != 3 && c.Runs != 6 && c.Runs != 12 && c.Runs != 24 {
			t.Errorf("%gx has %d runs", c.Multiplier, c.Runs)
		}
	}
	cfg.Until, cfg.Replications = 2, 3
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Error("a cap below the replications was accepted")
	}
}

// rareStage is one server near its p95 bound at 1x, so that the looks
// extend that cell alone, and a failure stage rare enough that, with seed
// 7, no run fails there until a look's run at 1x.
const rareStage = `name: rare
duration: 1000s
warmup: 100s
components:
  server: {kind: pool, servers: 1}
journeys:
  customer:
    rate: 0.5/s
    steps:
      - use: server
        work: exponential(mean=1s)
      - stage: rare
        fail: {p: 0.0002, status: 500}
slos:
  - {journey: customer, p95: "<= 6s"}
`

// A failure stage first counted in a look's run is listed in every grid
// cell of the design, not only in those the look extended: summary.csv
// reads the same as had a grid-round run counted it.
func TestStageFirstSeenInALookListedInEveryCell(t *testing.T) {
	l, err := model.LoadBytes(fstest.MapFS{}, "rare.yaml", []byte(rareStage), model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Scenario: "rare", Designs: []Design{{Name: "base", Compiled: c}},
		Multipliers: []float64{0.5, 1, 1.5}, Replications: 2, Seed: 7, Refine: 0, Until: 40,
	}
	_, out := sweepBytes(t, cfg)
	runs, err := csv.NewReader(bytes.NewReader(out["runs.csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var failed []string // multiplier/replication of each run that failed at rare
	for _, r := range runs[1:] {
		if r[5] == "journey.customer.failed_at.rare_count" && r[10] != "0" {
			failed = append(failed, r[2]+"/"+r[3])
		}
	}
	if strings.Join(failed, " ") != "1/38" {
		t.Fatalf("runs failing at rare: %v; the test wants one, in a look's run at 1x (replication 2 or later)", failed)
	}
	var rows []string
	for _, line := range strings.Split(string(out["summary.csv"]), "\n") {
		if strings.Contains(line, "failed_at.rare_count") {
			rows = append(rows, line)
		}
	}
	want := []string{
		"rare,base,0.5,journey.customer.failed_at.rare_count,journey,customer,failed_at_count,rare,4,,0,0,0",
		"rare,base,1,journey.customer.failed_at.rare_count,journey,customer,failed_at_count,rare,40,,0.025,0,0.075567273",
		"rare,base,1.5,journey.customer.failed_at.rare_count,journey,customer,failed_at_count,rare,4,,0,0,0",
	}
	if got := strings.Join(rows, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("summary.csv's rows of the stage:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
