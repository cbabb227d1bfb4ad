package model_test

import (
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
)

// A named distribution written as a family with its parameters as keys,
// one of them given a range. The journey view uses only fixed, a
// distribution of its own: the same dice whatever svc draws.
const familyScenario = `name: f
duration: 2000s
distributions:
  svc:
    family: exponential
    mean: {range: [0.4s, 0.8s]} # assumption: between the two load tests
    shift: 100ms
  fixed: exponential(mean=50ms)
components:
  app: {kind: pool, servers: 1}
  db: {kind: pool, servers: 1}
journeys:
  upload:
    rate: 1/s
    steps:
      - use: app
        work: svc
  view:
    rate: 2/s
    steps:
      - use: db
        work: fixed
`

func loadFamily(t *testing.T, opts model.LoadOptions) *model.Loaded {
	t.Helper()
	return mustLoadNamed(t, "f.yaml", familyScenario, opts)
}

func svcOf(t *testing.T, l *model.Loaded) model.DistRef {
	t.Helper()
	e, ok := l.Scenario.Distributions.Get("svc")
	if !ok {
		t.Fatal("no distribution svc")
	}
	return e.Dist
}

func TestFamilyFormReadsAsItsLiteral(t *testing.T) {
	for _, tc := range []struct {
		opts       model.LoadOptions
		text       string
		mean, base float64
	}{
		// The range's midpoint, 0.6 s, plus the 0.1 s shift.
		{model.LoadOptions{}, "exponential(mean=0.6s, shift=100ms)", 0.7, 0.1},
		{model.LoadOptions{Sets: []string{"distributions.svc.mean=1s"}}, "exponential(mean=1s, shift=100ms)", 1.1, 0.1},
		// A scale reaches every time of it, the shift too, in place.
		{model.LoadOptions{Scales: []string{"distributions.svc=2"}}, "exponential(mean=1.2s, shift=0.2s)", 1.4, 0.2},
		{model.LoadOptions{Sets: []string{"distributions.svc=uniform(1s, 2s)"}}, "uniform(1s, 2s)", 1.5, 1},
	} {
		l := loadFamily(t, tc.opts)
		d := svcOf(t, l)
		if d.Text != tc.text || math.Abs(d.Dist.Mean()-tc.mean) > 1e-12 || math.Abs(d.Dist.Quantile(0)-tc.base) > 1e-12 {
			t.Errorf("%+v: %s, mean %.15g, floor %g; want %s, %g, %g", tc.opts, d.Text, d.Dist.Mean(), d.Dist.Quantile(0), tc.text, tc.mean, tc.base)
		}
	}
	// The lognormal's mu is of ln seconds: scaling moves it by ln f.
	l := loadFamily(t, model.LoadOptions{Sets: []string{"distributions.svc={family: lognormal, mu: -1, sigma: 0.5}"},
		Scales: []string{"distributions.svc=3"}})
	if d := svcOf(t, l); math.Abs(d.Dist.Mean()-3*math.Exp(-1+0.125)) > 1e-12 {
		t.Errorf("lognormal scaled by 3: %s, mean %.15g, want %.15g", d.Text, d.Dist.Mean(), 3*math.Exp(-1+0.125))
	}
}

func TestFamilyFormUncertainParameter(t *testing.T) {
	l := loadFamily(t, model.LoadOptions{})
	us := l.Uncertain()
	if len(us) != 1 || us[0].Path != "distributions.svc.mean" || us[0].Form != "range" || !us[0].Time ||
		us[0].Lo != 0.4 || us[0].Hi != 0.8 || us[0].Point != "0.6s" {
		t.Fatalf("uncertain values %+v, want the one range of distributions.svc.mean", us)
	}
	var params []string
	for _, p := range l.Params() {
		params = append(params, p.Name+" "+string(p.Kind)+" "+p.Value+" "+p.Lo+".."+p.Hi+" ["+p.Label+"]")
	}
	want := "svc distribution exponential(mean=0.6s, shift=100ms) .. []\n" +
		"svc.mean time 0.6s 0.4s..0.8s [assumption]\n" +
		"fixed distribution exponential(mean=50ms) .. []\n" +
		"app.servers count 1 .. []\n" +
		"db.servers count 1 .. []"
	if got := strings.Join(params, "\n"); got != want {
		t.Errorf("params:\n%s\nwant:\n%s", got, want)
	}

	// Replication 3's draw, as sweep --uncertainty makes it: svc's mean
	// moves, and with it the upload journeys; the views, on their own
	// streams and their own server, see the same dice.
	draw, err := model.DrawOverrides(us, 3)
	if err != nil {
		t.Fatal(err)
	}
	drawn := loadFamily(t, model.LoadOptions{Overrides: draw})
	m := svcOf(t, drawn).Dist.Mean() - 0.1
	if !(m >= 0.4 && m <= 0.8) || m == 0.6 {
		t.Fatalf("drawn mean %g (%s), want inside [0.4, 0.8] and not the point", m, svcOf(t, drawn).Text)
	}
	if len(drawn.Uncertain()) != 0 {
		t.Errorf("a drawn value is still uncertain: %+v", drawn.Uncertain())
	}
	run := func(l *model.Loaded) *model.Result {
		c, err := l.Compile()
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, c, model.RunOptions{Seed: 1})
		return r
	}
	base, other := run(l), run(drawn)
	busy := func(r *model.Result, name string) float64 {
		c, _ := r.Component(name)
		return float64(c.MeanBusy)
	}
	// The app's busy share is λ·E[S] (about 0.7 against the drawn
	// m + 0.1): it moves with the draw.
	if a, b := busy(base, "app"), busy(other, "app"); math.Abs(b/a-(m+0.1)/0.7) > 0.05 {
		t.Errorf("app busy %g at the point, %g drawn: ratio %g, want about %g", a, b, b/a, (m+0.1)/0.7)
	}
	// The views' times, tallied one by one, are the same to the bit (a
	// time average would not be: the run ends with its last upload).
	view := func(r *model.Result) model.Latency {
		for _, j := range r.Journeys {
			if j.Name == "view" {
				return j.Latency
			}
		}
		t.Fatal("no journey view")
		return model.Latency{}
	}
	if a, b := view(base), view(other); a != b {
		t.Errorf("views %+v at the point, %+v drawn: they do not use svc and must not move", a, b)
	}
}

func TestFamilyFormErrors(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"family: exponential", "family: expo",
			`f.yaml:5:13: distributions.svc.family: unknown distribution "expo" (expected one of: constant, empirical, exponential, gamma, lognormal, normal, uniform, weibull)`},
		{"family: exponential", "family: [exponential]",
			`f.yaml:5:13: distributions.svc.family: expected a family such as lognormal, got a list`},
		{"shift: 100ms", "shift: {value: 100ms}",
			`f.yaml:7:12: distributions.svc.shift: expected the parameter's value, such as 2s or 0.3, or a range, got a mapping`},
		{"shift: 100ms", `shift: "1s, rate=2/s"`,
			`f.yaml:7:12: distributions.svc.shift: expected one value, such as 2s or 0.3, got "1s, rate=2/s"`},
		{"shift: 100ms", "cv: 0.5",
			`f.yaml:5:5: distributions.svc: exponential takes (mean=) or (rate=), each with an optional shift=`},
		{"shift: 100ms", "uncertainty: {n: 10}",
			`f.yaml:7:5: distributions.svc.uncertainty: a fit's uncertainty: goes with its dist: literal; in this form give a parameter a range instead`},
		{"{range: [0.4s, 0.8s]}", "{range: [0.8s, 0.4s]}",
			`f.yaml:6:11: distributions.svc.mean: range: expected {range: [low, high]} with low < high, got [0.8s, 0.4s]`},
		{"{range: [0.4s, 0.8s]}", "{range: [0.4, 0.8]}",
			`f.yaml:6:11: distributions.svc.mean: range: mean is a time: give the ends with a unit, such as [1s, 2s]`},
		{"shift: 100ms", "cv: {triangular: [0.1s, 0.2s, 0.3s]}",
			`f.yaml:7:9: distributions.svc.cv: triangular: cv is a number, not a time: give the ends without a unit`},
	} {
		src := strings.Replace(familyScenario, tc.from, tc.to, 1)
		_, err := model.LoadBytes(fstest.MapFS{}, "f.yaml", []byte(src), model.LoadOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.to, err, tc.want)
		}
	}
}

// --set distributions.A=distributions.B makes A a copy of B as it stands:
// its uncertain parameters become A's own, and a later set of B leaves A.
func TestSetPointsOneDistributionAtAnother(t *testing.T) {
	l := loadFamily(t, model.LoadOptions{Sets: []string{"distributions.fixed=distributions.svc", "distributions.svc.mean=2s"}})
	fixed, _ := l.Scenario.Distributions.Get("fixed")
	if fixed.Dist.Text != "exponential(mean=0.6s, shift=100ms)" || svcOf(t, l).Text != "exponential(mean=2s, shift=100ms)" {
		t.Errorf("fixed = %s, svc = %s; want fixed the copy of svc before svc was set", fixed.Dist.Text, svcOf(t, l).Text)
	}
	if us := l.Uncertain(); len(us) != 1 || us[0].Path != "distributions.fixed.mean" {
		t.Errorf("uncertain values %+v, want the copy's distributions.fixed.mean alone", us)
	}
	for _, tc := range []struct{ set, want string }{
		{"distributions.fixed=distributions.sv",
			`--set distributions.fixed=distributions.sv: no distribution "sv" in the scenario or its includes; did you mean "svc"?`},
		{"distributions.fixed=distributions.nothing",
			`--set distributions.fixed=distributions.nothing: no distribution "nothing" in the scenario or its includes (defined: svc, fixed)`},
		{"distributions.fixd=distributions.svc",
			`--set distributions.fixd=distributions.svc: no distribution "fixd" in the scenario or its includes; did you mean "fixed"?`},
	} {
		_, err := model.LoadBytes(fstest.MapFS{}, "f.yaml", []byte(familyScenario), model.LoadOptions{Sets: []string{tc.set}})
		if err == nil || err.Error() != tc.want {
			t.Errorf("--set %s:\n got %v\nwant %s", tc.set, err, tc.want)
		}
	}
}
