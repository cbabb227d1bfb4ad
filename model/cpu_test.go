package model_test

import (
	"math"
	"strings"
	"testing"

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
		_, err := compileNamed("s.yaml", src, model.LoadOptions{})
		want := "s.yaml:4:43: components.cpu.switch_cost: switch_cost must be between 0 and 1 (a share of throughput per thread beyond the cores, e.g. 0.02), got " + v
		if err == nil || err.Error() != want {
			t.Errorf("switch_cost %s: error %v, want %q", v, err, want)
		}
	}
}

// Every key of a discipline is checked where it is written.
func TestCPUDisciplineErrors(t *testing.T) {
	for _, tc := range []struct{ cpu, step, want string }{
		{"discipline: lifo", "", "s.yaml:4:42: components.cpu.discipline: discipline must be ps, fifo or rr, got \"lifo\""},
		{"discipline: fifo, quantum: 10ms", "", "s.yaml:4:57: components.cpu.quantum: quantum applies to discipline rr, not fifo"},
		{"quantum: 10ms", "", "s.yaml:4:39: components.cpu.quantum: quantum applies to discipline rr, not ps"},
		{"discipline: rr", "", "s.yaml:4:42: components.cpu.discipline: discipline rr needs a quantum, the time slice a job runs before the next waiting one (e.g. quantum: 10ms)"},
		{"discipline: rr, quantum: 0s", "", "s.yaml:4:55: components.cpu.quantum: quantum must be at least 1µs, got 0s"},
		{"discipline: rr, quantum: 100ns", "", "s.yaml:4:55: components.cpu.quantum: quantum must be at least 1µs, got 100ns"},
		{"discipline: rr, quantum: 101y", "", "s.yaml:4:55: components.cpu.quantum: expected a duration such as 40s or 3m45s, got \"101y\""},
		{"discipline: fifo, switch_cost: 0.1", "", "s.yaml:4:61: components.cpu.switch_cost: switch_cost does not apply to discipline fifo: a fifo core runs each job to its end and never switches it out (use rr for time slices)"},
		{"discipline: rr, quantum: 10ms, switch_cost: 2", "", "s.yaml:4:74: components.cpu.switch_cost: switch_cost must be between 0 and 1 (a share of throughput per thread beyond the cores, e.g. 0.02), got 2"},
		{"discipline: fifo, cores: 2.5", "", "s.yaml:4:45: components.cpu.cores: cores must be a whole number up to 2147483647 with discipline fifo, where each core runs one job at a time, got 2.5"},
		{"priorities: preemptive", "", "s.yaml:4:42: components.cpu.priorities: priorities need discipline fifo or rr, where work waits for a core; under ps every job runs at once"},
		{"discipline: fifo, priorities: always", "", "s.yaml:4:60: components.cpu.priorities: priorities must be nonpreemptive or preemptive, got \"always\""},
		{"discipline: fifo", ", priority: 1", "s.yaml:6:57: journeys.j.steps[0].priority: priority on a cpu needs priorities: nonpreemptive or preemptive (with discipline fifo or rr); cpu has none"},
		{"", ", priority: 1", "s.yaml:6:57: journeys.j.steps[0].priority: priority on a cpu needs priorities: nonpreemptive or preemptive (with discipline fifo or rr); cpu has none"},
		{"discipline: fifo, priorities: preemptive", ", priority: 10", "s.yaml:6:57: journeys.j.steps[0].priority: priority must be between 0 and 9, got 10"},
	} {
		cores := "cores: 2, "
		if strings.Contains(tc.cpu, "cores") {
			cores = ""
		}
		src := "name: s\nduration: 1s\ncomponents:\n  cpu: {kind: cpu, " + cores + strings.TrimSuffix(tc.cpu, ", ") + "}\n" +
			"journeys:\n  j: {rate: 1/s, steps: [{use: cpu, work: 1s" + tc.step + "}]}\n"
		src = strings.Replace(src, "cores: 2, }", "cores: 2}", 1)
		if err := compileError(src); err == nil || err.Error() != tc.want {
			t.Errorf("%s%s:\n got %v\nwant %s", tc.cpu, tc.step, err, tc.want)
		}
	}
}
