package plots_test

import (
	"errors"
	"fmt"
	"math"

	"capsim/plots"
)

// A sweep report: success per design against the load multiplier, with a
// run that saturated at the highest multiplier. The caller writes the
// returned files; plots never touches the file system.
func ExampleReport_Build() {
	zero, one := 0.0, 1.0
	success := plots.LineChart{
		Title:   "Journey success",
		XLabel:  "load multiplier",
		YLabel:  "journeys completed",
		YMin:    &zero,
		YMax:    &one,
		Percent: true,
		Series: []plots.Series{
			{Name: "v1-original", Points: []plots.Point{
				{X: 1, Y: 0.99, Lo: 0.98, Hi: 1},
				{X: 2, Y: 0.81, Lo: 0.77, Hi: 0.85},
				{X: 3, Y: math.Inf(1), Saturated: true},
			}},
			{Name: "v2-cache", Points: []plots.Point{
				{X: 1, Y: 1, Lo: 1, Hi: 1},
				{X: 2, Y: 0.97, Lo: 0.95, Hi: 0.99},
				{X: 3, Y: 0.9, Lo: 0.86, Hi: 0.94},
			}},
		},
	}
	r := plots.Report{
		Title: "Sweep",
		Sections: []plots.Section{{
			Heading: "Journeys",
			Table: &plots.Table{
				Header: []string{"design", "first failure"},
				Rows:   [][]string{{"v1-original", "2.4 ± 0.2"}, {"v2-cache", "> 3"}},
			},
			Figures: []plots.Figure{{Name: "journey_success", Caption: "Journey success, 95 % CI", Chart: success}},
		}},
	}
	files, err := r.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(f.Name)
	}
	// Output:
	// charts/journey_success.svg
	// report.html
	// report.md
}

// A chart with nothing to draw is an error a caller can recognise and
// choose to leave out.
func ExampleErrNoData() {
	_, err := plots.LineChart{Title: "p95 latency"}.Render(plots.SVG, 16, 10)
	fmt.Println(err)
	fmt.Println(errors.Is(err, plots.ErrNoData))
	// Output:
	// plots: line chart "p95 latency" has no data
	// true
}
