package sweep

import (
	"bytes"
	"context"
	"testing"
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
