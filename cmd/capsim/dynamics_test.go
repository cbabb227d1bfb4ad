package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// capsim run prints a line for the requests that balked and one for the
// recovery verdict, after the tables (whatever their layout), and run
// --json carries both.
func TestRunReportsBalkingAndRecovery(t *testing.T) {
	const file = "testdata/dynamics/storm.yaml"
	code, stdout, stderr := run(t, "run", file, "--seed", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"\n  front: 16152 balked at the queue they saw\n",
		"\nRecovery: did not recover after the spike ended at 2m10s: app's queue stays at 987.9 (pre-spike 1.53, margin 10%)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("capsim run %s: no line %q in\n%s", file, want, stdout)
		}
	}
	code, stdout, stderr = run(t, "run", file, "--seed", "1", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var res struct {
		Components []struct {
			Name     string `json:"name"`
			Rejected int64  `json:"rejected"`
			Balked   int64  `json:"balked"`
		} `json:"components"`
		Recovery struct {
			Recovered bool     `json:"recovered"`
			At        *float64 `json:"at_s"`
			Above     []struct {
				Component string `json:"component"`
				Measure   string `json:"measure"`
			} `json:"above"`
		} `json:"recovery"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if c := res.Components[1]; c.Name != "front" || c.Balked != 16152 || c.Rejected != 0 {
		t.Errorf("front: %+v, want 16152 balked and none rejected", c)
	}
	if r := res.Recovery; r.Recovered || r.At != nil || len(r.Above) == 0 || r.Above[0].Component != "app" || r.Above[0].Measure != "mean_queue" {
		t.Errorf("recovery %+v, want not recovered, at null, app's mean_queue first above", r)
	}
}
