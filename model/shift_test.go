package model

import (
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

// A shift= parameter adds a fixed time to every draw of any family but a
// constant or an empirical, wherever a distribution is written: its form's
// other parameters describe the distribution before the shift.

func TestShiftAddsToEveryForm(t *testing.T) {
	for _, tc := range []struct {
		text      string
		mean, p0  float64 // the mean and Quantile(0), the floor
		wantShift float64
	}{
		{"exponential(mean=1s, shift=2s)", 3, 2, 2},
		{"exponential(rate=4/s, shift=250ms)", 0.5, 0.25, 0.25},
		{"uniform(1s, 2s, shift=1s)", 2.5, 2, 1},
		{"lognormal(mean=1s, cv=0.5, shift=2s)", 3, 2, 2},
		{"gamma(shift=100ms, mean=400ms, cv=1)", 0.5, 0.1, 0.1},
		{"weibull(shape=1, scale=1s, shift=0s)", 1, 0, 0},
	} {
		var r DistRef
		if err := r.parseScalar(tc.text); err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		d := r.Dist
		if math.Abs(d.Mean()-tc.mean) > 1e-12 || d.Quantile(0) != tc.p0 || d.Shift() != tc.wantShift {
			t.Errorf("%s: mean %.15g, Quantile(0) %g, shift %g; want %g, %g, %g",
				tc.text, d.Mean(), d.Quantile(0), d.Shift(), tc.mean, tc.p0, tc.wantShift)
		}
		// What the kernel prints reads back to the same distribution,
		// which is what --scale writes.
		var back DistRef
		if err := back.parseScalar(d.String()); err != nil || back.Dist.String() != d.String() || back.Dist.Mean() != d.Mean() {
			t.Errorf("%s prints as %s, which reads back as %v (%v)", tc.text, d, back.Dist, err)
		}
	}
}

func TestShiftErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"exponential(mean=1s, shift=-1s)", "exponential: shift: duration must not be negative, got -1s"},
		{"exponential(mean=1s, shift=2)", "exponential: shift: duration \"2\" needs a unit (ms, s, m or h), e.g. 2s"},
		{"lognormal(mean=1s, cv=0.5, shift=1s, shift=2s)", "lognormal: parameter shift given twice"},
		{"constant(value=1s, shift=2s)", "constant takes no shift: a constant has no floor but its value: write the sum as the value"},
		{"empirical(1s, 2s, shift=1s)", "empirical takes no shift: its values are the times themselves, floor included: add the shift to them"},
		{"empirical(file=x.csv, shift=1s)", "empirical takes no shift: its values are the times themselves, floor included: add the shift to them"},
		{"lognormal(mean=1s, shift=2s)", "lognormal takes (mu=, sigma=) or (mean=, p95=) or (p50=, p95=) or (mean=, cv=), each with an optional shift="},
		{"uniform(1s, shift=2s)", "uniform takes (min=, max=), each with an optional shift="},
		{"exponential(mean=1s, shift=100y)", `exponential: shift: expected a duration such as 40s or 3m45s, got "100y"`},
		// ParseFloat reads these, but no unit makes them a time: no
		// "e.g. NaNs".
		{"exponential(mean=1s, shift=NaN)", `exponential: shift: expected a duration such as 40s or 3m45s, got "NaN"`},
		{"exponential(mean=Inf, shift=1s)", `exponential: mean: expected a duration such as 40s or 3m45s, got "Inf"`},
	} {
		var r DistRef
		err := r.parseScalar(tc.text)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.text, err, tc.want)
		}
	}
}

const shifted = `name: s
duration: 60s
distributions:
  service: exponential(mean=1s, shift=500ms)
components:
  app: {kind: pool, servers: 2}
journeys:
  upload:
    rate: 1/s
    steps:
      - use: app
        work: service
      - delay: uniform(1s, 3s, shift=2s)
`

func loadShifted(t *testing.T, opts LoadOptions) *Loaded {
	t.Helper()
	l, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(shifted)}}, "s.yaml", opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Compile(); err != nil {
		t.Fatal(err)
	}
	return l
}

// A --scale multiplies the whole draw, shift included: the mean and the
// floor move by the factor, so the CV stays as it was.
func TestShiftUnderSetAndScale(t *testing.T) {
	named := func(l *Loaded) DistRef {
		e, _ := l.Scenario.Distributions.Get("service")
		return e.Dist
	}
	inline := func(l *Loaded) DistRef {
		j, _ := l.Scenario.Journeys.Get("upload")
		return *j.Steps[1].Delay
	}
	for _, tc := range []struct {
		opts       LoadOptions
		of         func(*Loaded) DistRef
		text       string
		mean, base float64
	}{
		{LoadOptions{}, named, "exponential(mean=1s, shift=500ms)", 1.5, 0.5},
		{LoadOptions{}, inline, "uniform(1s, 3s, shift=2s)", 4, 3},
		{LoadOptions{Scales: []string{"distributions.service=2"}}, named, "exponential(mean=2s, shift=1s)", 3, 1},
		{LoadOptions{Scales: []string{"journeys.upload.steps.1.delay=0.5"}}, inline, "uniform(0.5s, 1.5s, shift=1s)", 2, 1.5},
		{LoadOptions{Sets: []string{"distributions.service=lognormal(mean=1s, cv=0.5, shift=2s)"}}, named,
			"lognormal(mean=1s, cv=0.5, shift=2s)", 3, 2},
		{LoadOptions{Sets: []string{"distributions.service=gamma(mean=1s, cv=0.5, shift=2s)"}, Scales: []string{"distributions.service=1.5"}},
			named, "", 4.5, 3},
	} {
		l := loadShifted(t, tc.opts)
		r := tc.of(l)
		if tc.text != "" && r.Text != tc.text {
			t.Errorf("%+v: text %q, want %q", tc.opts, r.Text, tc.text)
		}
		if math.Abs(r.Dist.Mean()-tc.mean) > 1e-12 || math.Abs(r.Dist.Quantile(0)-tc.base) > 1e-12 {
			t.Errorf("%+v: %s has mean %.15g and floor %.15g, want %g and %g", tc.opts, r.Text, r.Dist.Mean(), r.Dist.Quantile(0), tc.mean, tc.base)
		}
	}
}

func TestShiftErrorIsPositioned(t *testing.T) {
	bad := strings.Replace(shifted, "shift=2s", "shift=-2s", 1)
	_, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(bad)}}, "s.yaml", LoadOptions{})
	want := "s.yaml:13:16: journeys.upload.steps[1].delay: uniform: shift: duration must not be negative, got -2s"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = Load(fstest.MapFS{"s.yaml": {Data: []byte(shifted)}}, "s.yaml",
		LoadOptions{Sets: []string{"distributions.service=constant(value=1s, shift=1s)"}})
	want = "--set distributions.service=constant(value=1s, shift=1s): distributions.service: constant takes no shift: a constant has no floor but its value: write the sum as the value"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
