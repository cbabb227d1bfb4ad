package calibration_test

import (
	"fmt"
	"strings"

	"capsim/calibration"
)

// Figures from a dashboard — a mean and a p95 — become a lognormal with
// exactly that mean and p95.
func ExampleFitFigures() {
	f := calibration.NewFigures()
	f.Mean, f.P95 = 0.56, 0.9
	fit, err := calibration.FitFigures(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := fit.Chosen.Dist
	fmt.Println(d)
	fmt.Printf("mean %.4gs, p95 %.4gs\n", d.Mean(), d.Quantile(0.95))
	fmt.Println("runner-up:", fit.RunnerUp.Dist)
	// Output:
	// lognormal(mu=-0.630851, sigma=0.319475)
	// mean 0.56s, p95 0.9s
	// runner-up: gamma(shape=8.90974, scale=0.0628526s)
}

// Reading a CSV export, filtering it and fitting: the malformed row is
// counted, not lost, and the candidates are ranked by AIC.
func ExampleReader() {
	csv := `timestamp,route,status,latency_ms
2025-09-29 05:00:03,/api/trips/191/photos,200,47161
2025-09-29 05:00:44,/api/trips/191/photos,200,39304
2025-09-29 05:01:25,/api/trips/191/status,200,14
2025-09-29 05:02:06,/api/trips/191/photos,200,40495
2025-09-29 05:02:47,/api/trips/191/photos,200
2025-09-29 05:03:28,/api/trips/191/photos,200,36926
2025-09-29 05:04:09,/api/trips/191/photos,500,1300
2025-09-29 05:04:50,/api/trips/191/photos,200,37797
`
	r, err := calibration.NewReader(calibration.Options{
		Column: "latency_ms",
		Filter: calibration.Filter{Route: "/api/trips/*/photos", Status: []string{"2xx"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := r.Read("export.csv", strings.NewReader(csv)); err != nil {
		fmt.Println(err)
		return
	}
	s, err := r.Sample()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range s.LineErrors {
		fmt.Println(e)
	}
	res, err := calibration.Fit(s.Values, s.Times, calibration.FitOptions{Families: []string{calibration.FamilyLogNormal, calibration.FamilyGamma}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d values of %s, filter %s; ranked by %s\n", res.Observed.N, s.Source, s.FilterString(), res.Rank)
	for _, c := range res.Candidates {
		fmt.Printf("%s: %s, KS %.3g, AIC %.1f\n", c.Family, c.Dist, c.KS, c.AIC)
	}
	fmt.Println("chosen:", res.Chosen.Family)
	// Output:
	// export.csv:6: 3 fields where the header has 4
	// 5 values of column latency_ms, filter route=/api/trips/*/photos status=2xx; ranked by aic
	// lognormal: lognormal(mu=3.69344, sigma=0.086117), KS 0.264, AIC 30.6
	// gamma: gamma(shape=131.204, scale=0.307434s), KS 0.27, AIC 30.8
	// chosen: lognormal
}
