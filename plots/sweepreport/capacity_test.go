package sweepreport

import (
	"strings"
	"testing"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"
	"capsim/sim"
)

// tripSweep sweeps the embedded trip's first design at 2x, where it
// fails, so the report has the run over time of its components.
func tripSweep(t *testing.T, sets ...string) (*sweep.Result, map[string]model.Graph) {
	t.Helper()
	res, _, graphs := sweepEmbedded(t, "trip",
		sweep.Config{Multipliers: []float64{2}, Replications: 1, Seed: 1, Workers: 2, SeriesStep: 10 * sim.Second},
		designLoad{"v1-original", model.LoadOptions{Design: "v1-original", Sets: sets}})
	return res, graphs
}

// The app's cpu is drawn against its cores as the results give them, not
// rounded to a whole number: 1.28 cores is not 1.
func TestCPUCapacityIsItsCores(t *testing.T) {
	res, graphs := tripSweep(t, "components.app_cpu.cores=1.28")
	if len(res.Series) != 1 || res.Series[0].Series == nil {
		t.Fatalf("want one run over time, got %d", len(res.Series))
	}
	sm, _ := seriesPanels(res, res.Series[0], graphs["v1-original"])
	var found bool
	for _, p := range sm.Panels {
		tc := p.(plots.TimeSeriesChart)
		if !strings.HasPrefix(tc.Title, "app_cpu.busy") {
			continue
		}
		found = true
		if tc.Title != "app_cpu.busy (1.28 cores)" {
			t.Errorf("title %q, want %q", tc.Title, "app_cpu.busy (1.28 cores)")
		}
		if len(tc.Bounds) != 1 || tc.Bounds[0].Y != 1.28 || tc.Bounds[0].Label != "1.28 cores" {
			t.Errorf("bounds %+v, want one at 1.28 labelled \"1.28 cores\"", tc.Bounds)
		}
	}
	if !found {
		t.Errorf("no app_cpu.busy panel among %d", len(sm.Panels))
	}
}

// One of a kind's capacity is said in the singular, any other number in
// the plural; a kind without a number has no word.
func TestCapacityUnitWords(t *testing.T) {
	for _, c := range []struct {
		kind string
		n    float64
		want string
	}{{"pool", 1, "server"}, {"pool", 2, "servers"}, {"cpu", 1.28, "cores"}, {"cpu", 1, "core"},
		{"semaphore", 10, "permits"}, {"worker", 1, "instance"}, {"lock", 1, ""}, {"nonesuch", 3, ""}} {
		if got := model.CapacityUnit(c.kind, c.n); got != c.want {
			t.Errorf("CapacityUnit(%q, %g) = %q, want %q", c.kind, c.n, got, c.want)
		}
	}
}

// Every chart of a measure an SLO bounds draws the bound: the trip's
// success rates and trip_view's p95, each on the chart of its measure.
func TestSLOBoundsAreDrawn(t *testing.T) {
	res, journeys, _ := sweepEmbedded(t, "trip", sweep.Config{Multipliers: []float64{1, 3}, Replications: 2, Seed: 1, Workers: 2},
		designLoad{"v1-original", model.LoadOptions{Design: "v1-original"}})
	r, _, _ := layout(res, Options{Journeys: journeys})
	charts := map[string]plots.LineChart{}
	for _, sec := range r.Sections {
		for _, f := range sec.Figures {
			if lc, ok := f.Chart.(plots.LineChart); ok {
				charts[f.Name] = lc
			}
		}
	}
	// The SLOs of trip.yaml, by the chart of the measure each bounds;
	// view_session succeeds in every run, so its flat chart is left out,
	// and no chart draws a route's failure rate.
	for name, want := range map[string]plots.Bound{
		"success_trip_creation": {Y: 0.99, Label: "SLO ≥ 99%"},
		"p95_trip_view":         {Y: 1, Label: "SLO ≤ 1 s"},
	} {
		lc, ok := charts[name]
		if !ok {
			t.Errorf("no chart %s", name)
			continue
		}
		if len(lc.Bounds) != 1 || lc.Bounds[0] != want {
			t.Errorf("%s bounds %+v, want [%+v]", name, lc.Bounds, want)
		}
	}
	for name, lc := range charts {
		if strings.HasPrefix(name, "p95_") && name != "p95_trip_view" && len(lc.Bounds) > 0 {
			t.Errorf("%s has no SLO but draws %+v", name, lc.Bounds)
		}
	}
}
