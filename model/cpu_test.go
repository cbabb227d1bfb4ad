package model_test

import (
	"math"
	"testing"
	"testing/fstest"

	"capsim/model"
)

// Two 1 s uses of one core with switch_cost 0.5 run side by side at
// min(1, 1/2)/(1 + 0.5·1) = 1/3 each: both end at 3 s. The core shows
// busy the whole time (utilisation 1, as a dashboard sees it) while only
// 2 s of its 3 s did work (useful 2/3).
func TestCPUSwitchCostTimeline(t *testing.T) {
	res, _ := runYAML(t, oneJourney+`      - fanout: 2
        steps: [{use: cpu, work: 1s}]
components:
  cpu: {kind: cpu, cores: 1, switch_cost: 0.5}
`, model.RunOptions{Seed: 1})
	if got := float64(res.Journeys[0].Latency.Mean); got != 3 {
		t.Errorf("journey took %v s, want 3", got)
	}
	cpu, _ := res.Component("cpu")
	if float64(cpu.Utilisation) != 1 || math.Abs(float64(cpu.UsefulBusy)-2.0/3) > 1e-12 {
		t.Errorf("utilisation %v, useful %v; want 1 and 2/3", float64(cpu.Utilisation), float64(cpu.UsefulBusy))
	}
}

// Without switch_cost the same uses share the core exactly: both end at
// 2 s, and all the busy time is work.
func TestCPUWithoutSwitchCostSharesExactly(t *testing.T) {
	res, _ := runYAML(t, oneJourney+`      - fanout: 2
        steps: [{use: cpu, work: 1s}]
components:
  cpu: {kind: cpu, cores: 1}
`, model.RunOptions{Seed: 1})
	cpu, _ := res.Component("cpu")
	if got := float64(res.Journeys[0].Latency.Mean); got != 2 || cpu.UsefulBusy != cpu.MeanBusy {
		t.Errorf("journey took %v s, useful %v of busy %v; want 2 s, equal", got, float64(cpu.UsefulBusy), float64(cpu.MeanBusy))
	}
}

func TestCPUSwitchCostIsAShare(t *testing.T) {
	for _, v := range []string{"-0.1", "1.5"} {
		src := `name: s
duration: 1s
components:
  cpu: {kind: cpu, cores: 2, switch_cost: ` + v + `}
journeys:
  j: {rate: 1/s, steps: [{use: cpu, work: 1s}]}
`
		l, err := model.LoadBytes(fstest.MapFS{}, "s.yaml", []byte(src), model.LoadOptions{})
		if err == nil {
			_, err = l.Compile()
		}
		want := "s.yaml:4:43: components.cpu.switch_cost: switch_cost must be between 0 and 1 (a share of throughput per thread beyond the cores, e.g. 0.02), got " + v
		if err == nil || err.Error() != want {
			t.Errorf("switch_cost %s: error %v, want %q", v, err, want)
		}
	}
}
