package model_test

import (
	"math"
	"slices"
	"testing"

	"capsim/model"
)

// The step in load of sim's TestAutoscaleStepInLoad, written as a
// scenario with the HPA's defaults but the target (period 15s, tolerance
// 0.1, no scale-up window): one client holds an instance from 0, seven
// more arrive at 20 s, every job runs an hour, and the run stops at 120 s.
// The rule takes 2 instances to 4, 6, 10, 14 and 16 at 30, 45, 60, 75 and
// 90 s; the jobs wait 0, 0, 20, 20, 35, 35, 50 and 50 s for instances to
// finish their 10 s cold starts; 8.75 instances run on average.
var stepScenario = scenarioSrc("step", "120s", "drain: 0s\n", `  w:
    kind: worker
    instances: 20
    min_instances: 2
    cold_start: 10s
    autoscale: {metric: utilisation, target: 0.5}
`, `  first: {clients: 1, steps: [{use: w, work: 1h}]}
  rest: {clients: 7, start: 20s, steps: [{use: w, work: 1h}]}
`)

func TestAutoscaleStepScenario(t *testing.T) {
	res, events := runYAML(t, stepScenario, model.RunOptions{Seed: 1, SeriesStep: 10e9})
	var scales []model.TraceEvent
	for _, e := range events {
		if e.Event == "capsim.scale" {
			scales = append(scales, e)
		}
	}
	want := []model.TraceEvent{{T: 30, Event: "capsim.scale", Component: "w", Instances: 4}, {T: 45, Event: "capsim.scale", Component: "w", Instances: 6},
		{T: 60, Event: "capsim.scale", Component: "w", Instances: 10}, {T: 75, Event: "capsim.scale", Component: "w", Instances: 14},
		{T: 90, Event: "capsim.scale", Component: "w", Instances: 16}}
	if !slices.Equal(scales, want) {
		t.Errorf("scale events %+v\nwant %+v", scales, want)
	}
	w, _ := res.Component("w")
	if a := w.Autoscale; a == nil || *a != (model.AutoscaleResult{ScaleUps: 5, ScaleDowns: 0, MeanRunning: 8.75, PeakRunning: 16}) {
		t.Errorf("autoscale result %+v, want 5 up, 0 down, 8.75 mean, 16 peak", a)
	}
	// The wait tally keeps a running mean, which rounds in the last place.
	if w.ColdStarts != 14 || w.Wait.N != 8 || math.Abs(float64(w.Wait.Mean)-210.0/8) > 1e-12 {
		t.Errorf("%d cold starts, %d waits of mean %v s; want 14, 8 of 26.25 s", w.ColdStarts, w.Wait.N, float64(w.Wait.Mean))
	}
	metrics := map[string]float64{}
	for _, m := range res.Metrics() {
		metrics[m.Name()] = m.Value
	}
	for name, v := range map[string]float64{"component.w.scale_ups_count": 5, "component.w.scale_downs_count": 0,
		"component.w.mean_running_count": 8.75, "component.w.peak_running_count": 16, "component.w.cold_starts_count": 14} {
		if got, ok := metrics[name]; !ok || got != v {
			t.Errorf("%s = %v (listed %v), want %v", name, got, ok, v)
		}
	}
	var running []float64
	for _, sig := range res.Series.Signals {
		if sig.Name == "w.running" {
			running = sig.Values
		}
	}
	if wantRunning := []float64{2, 2, 2, 4, 4, 6, 10, 10, 14, 16, 16, 16, 16}; !slices.Equal(running, wantRunning) {
		t.Errorf("w.running sampled every 10 s: %v, want %v", running, wantRunning)
	}
}

// Without autoscale a worker reports none of it: no result, no metrics,
// no running signal.
func TestNoAutoscaleNoReport(t *testing.T) {
	res, _ := runYAML(t, replace(stepScenario, "    autoscale: {metric: utilisation, target: 0.5}\n", "    idle_stop: 1m\n"),
		model.RunOptions{Seed: 1, SeriesStep: 10e9})
	w, _ := res.Component("w")
	if w.Autoscale != nil {
		t.Errorf("autoscale result %+v without autoscale", w.Autoscale)
	}
	for _, m := range res.Metrics() {
		if m.Name() == "component.w.scale_ups_count" || m.Name() == "component.w.mean_running_count" {
			t.Errorf("metric %s without autoscale", m.Name())
		}
	}
	for _, sig := range res.Series.Signals {
		if sig.Name == "w.running" {
			t.Error("a running signal without autoscale")
		}
	}
}

func TestAutoscaleRefusals(t *testing.T) {
	const head = "name: a\nduration: 1m\ncomponents:\n"
	const tail = "journeys:\n  j: {rate: 1/s, steps: [{use: w, work: 1s}]}\n"
	for _, c := range []struct{ comps, want string }{
		{"  w: {kind: worker, instances: 4, autoscale: {metric: utilisation, target: 0.7}}\n", ""},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: cpu, target: 0.7}}\n",
			`a.yaml:4:55: components.w.autoscale.metric: metric must be utilisation, queue or in_flight, got "cpu"`},
		{"  w: {kind: worker, instances: 4, autoscale: {target: 0.7}}\n",
			`a.yaml:4:46: components.w.autoscale.metric: autoscale needs a metric: utilisation, queue or in_flight`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue}}\n",
			`a.yaml:4:46: components.w.autoscale.target: autoscale needs a target: the metric's value per running instance to hold (e.g. target: 0.7)`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue, target: 0}}\n",
			`a.yaml:4:70: components.w.autoscale.target: target must be > 0, got 0`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: utilisation, target: 1.5}}\n",
			`a.yaml:4:76: components.w.autoscale.target: a utilisation target is a share of the running instances, at most 1, got 1.5`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: in_flight, target: 2}}\n", ""},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue, target: 1, period: 0s}}\n",
			`a.yaml:4:81: components.w.autoscale.period: period must be > 0s (the HPA syncs every 15s), got 0s`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue, target: 1, period: 15}}\n",
			`a.yaml:4:81: components.w.autoscale.period: duration "15" needs a unit (ms, s, m or h), e.g. 15s`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue, target: 1, tolerance: 1}}\n",
			`a.yaml:4:84: components.w.autoscale.tolerance: tolerance must be at least 0 and below 1 (the HPA's is 0.1), got 1`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue, target: 1, max_step: 0}}\n",
			`a.yaml:4:83: components.w.autoscale.max_step: max_step must be at least 1 (instances added per period at most), got 0`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue, target: 1, perod: 10s}}\n",
			`a.yaml:4:73: components.w.autoscale.perod: unknown key "perod"; did you mean "period"?`},
		{"  w: {kind: worker, instances: 4, autoscale: {metric: queue, target: 1, cooldown: 10s}}\n",
			`a.yaml:4:73: components.w.autoscale.cooldown: unknown key "cooldown" (expected one of: max_step, metric, period, scale_down_window, scale_up_window, target, tolerance)`},
		{"  w: {kind: worker, instances: 4, autoscale: true}\n",
			`a.yaml:4:46: components.w.autoscale: expected a mapping, got true`},
		{"  w: {kind: worker, instances: 4, idle_stop: 10s, autoscale: {metric: queue, target: 1}}\n",
			`a.yaml:4:46: components.w.idle_stop: idle_stop does not apply with autoscale: the autoscaler decides when instances stop`},
		{"  w: {kind: worker, instances: 4, min_instances: 0, autoscale: {metric: queue, target: 1}}\n",
			`a.yaml:4:50: components.w.min_instances: min_instances must be >= 1 with autoscale: the rule scales the running count, which cannot grow from none`},
		{"  w: {kind: worker, min_instances: 1, autoscale: {metric: queue, target: 1}}\n",
			`a.yaml:4:6: components.w.instances: with autoscale, instances is the most that may run and must be above min_instances (1), got 1`},
		{"  w: {kind: pool, servers: 4, autoscale: {metric: queue, target: 1}}\n",
			`a.yaml:4:42: components.w.autoscale: autoscale does not apply to a component of kind pool`},
	} {
		src := head + c.comps + tail
		if got := compileErrorText("a.yaml", src); got != c.want {
			t.Errorf("%s got  %s\nwant %s", c.comps, got, c.want)
		}
	}
}

// An autoscaler at rest schedules nothing, so a deadlock is still named.
// The stuck job holds instance 0 from 0: at 15 s busy 1 of 1 takes the
// count to 2, at 30 s busy 1 of 2 is on target and every recommendation in
// the windows is 2, so the syncs stop there and nothing is left to happen.
func TestAutoscaleAtRestLetsADeadlockBeNamed(t *testing.T) {
	res := runYAMLNoTrace(t, `name: deadlock
duration: 1s
arrivals: even
components:
  w: {kind: worker, instances: 4, autoscale: {metric: utilisation, target: 0.5}}
journeys:
  j: {rate: 1/s, count: 1, steps: [{job: selfish}]}
routes:
  selfish:
    steps: [{hold: w}, {await: jobs}]
`)
	want := "stopped by guard deadlock at 30.00s: nothing left to happen at 30.00s with 1 journeys still waiting; waiting: 1 for the journey's jobs, 1 for a job or fan-out"
	if res.Broken == nil || res.Broken.String() != want {
		t.Errorf("broken = %v\nwant %s", res.Broken, want)
	}
	if w, _ := res.Component("w"); w.Autoscale == nil || w.Autoscale.ScaleUps != 1 || w.Autoscale.PeakRunning != 2 {
		t.Errorf("autoscale %+v, want 1 scale-up to a peak of 2", w.Autoscale)
	}
}
