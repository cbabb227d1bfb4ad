package main

import (
	"bytes"
	"strings"
	"testing"

	"capsim/calibration"
)

// The fit table compares the candidates with what was observed: the
// chosen one marked *, KS and AIC where they measure the fit.
func TestFitTable(t *testing.T) {
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
		t.Fatal(err)
	}
	if err := r.Read("export.csv", strings.NewReader(csv)); err != nil {
		t.Fatal(err)
	}
	s, err := r.Sample()
	if err != nil {
		t.Fatal(err)
	}
	res, err := calibration.Fit(s.Values, s.Times, calibration.FitOptions{Families: []string{calibration.FamilyLogNormal, calibration.FamilyGamma}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeFitTable(&b, "upload_batch", s, res, 0, ""); err != nil {
		t.Fatal(err)
	}
	want := `upload_batch: 5 values of column latency_ms from export.csv, filter route=/api/trips/*/photos status=2xx
ranked by AIC; * chosen

candidate    parameters                      KS     AIC   mean    p95
lognormal *  mu=3.69344, sigma=0.086117      0.264  30.6  40.33s  46.3s
gamma        shape=131.204, scale=0.307434s  0.27   30.8  40.34s  46.3s
observed     n=5 sd=3.626s cv=0.0899                      40.34s  47.16s
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
