package model_test

import (
	"math"
	"testing"

	"capsim/model"
)

// A measure of the vocabulary is observable by its name less its unit,
// read from a run as its metric is. Ten journeys arrive a second apart and
// each holds one of 2 servers for exactly 1 s: the pool is offered 10
// requests, rejects none, and every journey's p99 and all_p95 are 1 s; a
// kind's own measure reads 0 on a run that has none of it.
func TestVocabularyMeasuresAreObservable(t *testing.T) {
	res, _ := runYAML(t, `name: o
duration: 10s
arrivals: even
components:
  app: {kind: pool, servers: 2}
journeys:
  j:
    rate: 1/s
    steps: [{use: app, work: 1s}]
`, model.RunOptions{Seed: 1})
	for _, c := range []struct {
		obs  model.Observation
		want float64
	}{
		{model.Observation{Component: "app", Measure: "offered"}, 10},
		{model.Observation{Component: "app", Measure: "rejected"}, 0},
		{model.Observation{Component: "app", Measure: "capacity"}, 2},
		{model.Observation{Journey: "j", Measure: "succeeded"}, 10},
		{model.Observation{Journey: "j", Measure: "p99"}, 1},
		{model.Observation{Journey: "j", Measure: "all_p95"}, 1},
		{model.Observation{Route: "nothing", Measure: "orphaned"}, 0},
	} {
		m := c.obs.MeasureOf()
		if m == nil {
			t.Errorf("%s is not observable", c.obs.Measure)
			continue
		}
		if got := m.Value(res, &c.obs); math.Abs(got-c.want) > 0.01*c.want+1e-9 {
			t.Errorf("%s = %g, want %g", c.obs.Measure, got, c.want)
		}
	}
	o := model.Observation{Component: "app", Measure: "rejection_rate"}
	if k, n := o.MeasureOf().Counts(res, &o); k != 0 || n != 10 {
		t.Errorf("rejection_rate counts %d of %d, want 0 of 10", k, n)
	}
}
