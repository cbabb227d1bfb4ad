package main

import (
	"bytes"
	"os"
	"testing"

	"capsim/calibration"
)

// The fit table compares the candidates with what was observed: the
// chosen one marked *, KS and AIC where they measure the fit.
func TestFitTable(t *testing.T) {
	// Eight lines of an export: one of another route, one without a
	// latency and one that failed, which the filter and the reader leave out.
	csv, err := os.ReadFile(calData + "photos-export.csv")
	if err != nil {
		t.Fatal(err)
	}
	r, err := calibration.NewReader(calibration.Options{
		Column: "latency_ms",
		Filter: calibration.Filter{Route: "/api/trips/*/photos", Status: []string{"2xx"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Read("export.csv", bytes.NewReader(csv)); err != nil {
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
