package sweepreport

import (
	"slices"
	"strings"
	"testing"

	"capsim/model"
	"capsim/model/sweep"
	"capsim/plots"
)

// twoTripDesigns sweeps the embedded trip's v1-original and v1-improved
// at 2x and 5x, where the second design's success differs from the
// first's either way: the comparison column holds its widest cells.
func twoTripDesigns(t *testing.T) (*sweep.Result, []string) {
	t.Helper()
	var designs []designLoad
	for _, name := range []string{"v1-original", "v1-improved"} {
		designs = append(designs, designLoad{name, model.LoadOptions{Design: name}})
	}
	res, journeys, _ := sweepEmbedded(t, "trip",
		sweep.Config{Multipliers: []float64{2, 5}, Replications: 3, Seed: 1, Workers: 2}, designs...)
	return res, journeys
}

// Every table of the report fits report.html's page, 64rem (1024 px)
// wide at a window of 1280 px or more, 996 px inside a folded section's
// border and padding, without a scroll bar: at the
// tables' .9rem, chromium lays a character of these cells out in 7.3 px
// on average and a cell's padding and border in 22 (fitted to the
// narrowest layouts it gives the default sweep's design tables: 974 px
// for 109 characters in 8 columns, 791 px for 87 in 7).
func TestTablesFitThePage(t *testing.T) {
	const pagePx, foldedPx, charPx, cellPx = 1024, 996, 7.3, 22
	res, journeys := twoTripDesigns(t)
	r, _, _ := layout(res, Options{Journeys: journeys})
	tables := 0
	for _, s := range r.Sections {
		if s.Table == nil {
			continue
		}
		tables++
		room := pagePx
		if s.Folded {
			room = foldedPx
		}
		chars, cols := s.Table.MinChars()
		if px := charPx*float64(chars) + cellPx*float64(cols); px > float64(room) {
			t.Errorf("%s: %d characters in %d columns take about %.0f px, over the %d px it has:\n%q\n%q",
				s.Heading, chars, cols, px, room, s.Table.Header, s.Table.Rows)
		}
	}
	// The verdict, the method's first failures, a design alone and one
	// compared with the first.
	if tables != 4 {
		t.Errorf("%d tables, want 4", tables)
	}
}

// A route's failure rate is charted when it moves with the load, and
// named among the charts left out when it is 0 at every load: trip's
// uploads fail under load, its views never do.
func TestRouteFailureCharts(t *testing.T) {
	res, journeys := twoTripDesigns(t)
	r, _, _ := layout(res, Options{Journeys: journeys})
	var routes, leftOut *plots.Section
	for i := range r.Sections {
		switch r.Sections[i].Heading {
		case "Routes":
			routes = &r.Sections[i]
		case "Charts left out":
			leftOut = &r.Sections[i]
		}
	}
	if routes == nil || leftOut == nil {
		t.Fatal("no Routes or no Charts left out section")
	}
	var drawn []string
	for _, f := range routes.Figures {
		if strings.HasPrefix(f.Name, "route_failures_") {
			drawn = append(drawn, strings.TrimPrefix(f.Name, "route_failures_"))
		}
	}
	if want := []string{"upload_batch", "upload_last", "derivative_create"}; !slices.Equal(drawn, want) {
		t.Errorf("route failure charts drawn for %q, want %q", drawn, want)
	}
	for _, rt := range []string{"trip_view", "trip_status", "trip_analysis"} {
		if want := `route ` + mdEscape(rt) + ` failure rate (0%)`; !strings.Contains(leftOut.Text, want) {
			t.Errorf("charts left out do not name %q:\n%s", want, leftOut.Text)
		}
	}
}

// Each component is one row of the Components section: a figure the
// page's width with its charts side by side, utilisation then peak
// queue, each left out only when it shows nothing; a component none of
// whose charts shows anything has no row.
func TestComponentsAreOneRowEach(t *testing.T) {
	res, journeys := twoTripDesigns(t)
	r, _, _ := layout(res, Options{Journeys: journeys})
	var rows []string
	for _, s := range r.Sections {
		if s.Heading != "Components" {
			continue
		}
		for _, f := range s.Figures {
			sm, ok := f.Chart.(plots.SmallMultiples)
			if !ok || !f.Wide || sm.Cols != 2 || !sm.Legend || !strings.HasPrefix(f.Name, "component_") {
				t.Errorf("%s: wide %v, chart %T, want a wide figure of two charts side by side", f.Name, f.Wide, f.Chart)
				continue
			}
			c := strings.TrimPrefix(f.Name, "component_")
			var titles []string
			for _, p := range sm.Panels {
				titles = append(titles, strings.TrimPrefix(p.(plots.LineChart).Title, c+": "))
			}
			rows = append(rows, c+" "+strings.Join(titles, "+"))
		}
	}
	// At 2x and 5x only, most peak queues are one number per design
	// (flat): only the converters' move.
	want := "nginx utilisation, app utilisation, app_cpu utilisation, ai_worker utilisation, derivative_executor utilisation, " +
		"heic_intake utilisation, light_intake utilisation, heic_converter utilisation+peak queue, light_converter utilisation+peak queue"
	if got := strings.Join(rows, ", "); got != want {
		t.Errorf("component rows:\n%s\nwant\n%s", got, want)
	}
}

// Where every journey chart is left out (mm1's success is 100 % and no
// request fails at any load), the Journeys section says so and points at
// the list, instead of a heading over nothing.
func TestJourneysSectionWithEveryChartLeftOut(t *testing.T) {
	res, journeys, _ := sweepEmbedded(t, "mm1", sweep.Config{Multipliers: []float64{0.5, 0.9}, Replications: 2, Seed: 1, Workers: 2},
		designLoad{"base", model.LoadOptions{Sets: []string{"duration=2000s", "warmup=100s"}}})
	r, _, _ := layout(res, Options{Journeys: journeys})
	for _, s := range r.Sections {
		if s.Heading != "Journeys" {
			continue
		}
		want := "Every journey chart is left out, for the reason [Charts left out](#charts-left-out) gives; the designs' tables below hold the figures."
		if len(s.Figures) != 0 || s.Text != want {
			t.Errorf("Journeys: %d figures, text %q; want none and %q", len(s.Figures), s.Text, want)
		}
		return
	}
	t.Fatal("no Journeys section")
}
