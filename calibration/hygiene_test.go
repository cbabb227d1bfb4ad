package calibration

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"capsim/cmd/golden"

	"gonum.org/v1/gonum/stat/distuv"
)

// The hygiene tests give Fit data that one distribution should not describe
// — failures among successes, timeouts among fast requests, two groups,
// values on a timer's lattice — and pin the exact warning, and check that
// clean data of every family draws none of these warnings.

func lognormalValues(seed uint64, n int, median, sigma float64) []float64 {
	d := distuv.LogNormal{Mu: math.Log(median), Sigma: sigma, Src: rand.NewPCG(seed, seed+1)}
	x := make([]float64, n)
	for i := range x {
		x[i] = d.Rand()
	}
	return x
}

// checkWarning fits values as opts say and fails unless the fit gives one
// warning of kind, saying want. It returns all the fit's warnings.
func checkWarning(t *testing.T, values []float64, opts FitOptions, kind WarningKind, want string) []Warning {
	t.Helper()
	res, err := Fit(values, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := warningOf(t, res.Warnings, kind); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	return res.Warnings
}

func warningOf(t *testing.T, ws []Warning, kind WarningKind) string {
	t.Helper()
	var found []string
	for _, w := range ws {
		if w.Kind == kind {
			found = append(found, w.Msg)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s warnings, want 1; all: %v", len(found), kind, ws)
	}
	return found[0]
}

func TestWarnMixedStatuses(t *testing.T) {
	t.Parallel()
	values := lognormalValues(1, 100, 0.05, 0.3)
	statuses := make([]int, 100)
	for i := range statuses {
		statuses[i] = 200
		if i%20 == 0 {
			statuses[i] = 503
		}
	}
	checkWarning(t, values, FitOptions{Statuses: statuses}, WarnMixed,
		"the values mix statuses (200: 95, 503: 5): failures take another time than successes; keep one with a status filter, or fit each apart")
	for i := range statuses {
		statuses[i] = 503
	}
	statuses[3] = 0
	checkWarning(t, values, FitOptions{Statuses: statuses}, WarnMixed,
		"every value with a status is of a failed response (503: 99): these time failures, not the service; check the filter")
}

// TestWarnTimeoutCluster: 15 requests cut off at a 30 s timeout among 485
// of about 50 ms.
func TestWarnTimeoutCluster(t *testing.T) {
	t.Parallel()
	values := lognormalValues(2, 485, 0.05, 0.3)
	for i := range 15 {
		values = append(values, 30+float64(i)*0.001)
	}
	checkWarning(t, values, FitOptions{}, WarnTruncated,
		"15 of 500 values sit within 2% of the maximum 30.01s, 595× the median: a cluster at a limit looks like timeouts, durations cut off rather than measured; exclude them (a status or error field) or model the timeout")
}

func TestWarnBimodal(t *testing.T) {
	t.Parallel()
	values := append(lognormalValues(3, 300, 0.05, 0.2), lognormalValues(4, 200, 0.5, 0.2)...)
	checkWarning(t, values, FitOptions{}, WarnBimodal,
		"the values form two groups, 300 around 0.04963s and 200 around 0.4829s (Ashman's D = 11.6 on their logarithms): no single family describes both; split them by a field (route, status, size) and fit each")
}

// TestNoHygieneWarningsOnCleanData draws 2000 values of each family, shapes
// from near-symmetric to the exponential's, and expects no mixture, cluster
// or lattice warning: the thresholds must not fire on what one family does
// describe.
func TestNoHygieneWarningsOnCleanData(t *testing.T) {
	t.Parallel()
	src := rand.NewPCG(5, 6)
	for name, d := range map[string]interface{ Rand() float64 }{
		"lognormal σ=1":  distuv.LogNormal{Mu: 0, Sigma: 1, Src: src},
		"lognormal σ=.2": distuv.LogNormal{Mu: 0, Sigma: 0.2, Src: src},
		"gamma k=0.7":    distuv.Gamma{Alpha: 0.7, Beta: 1, Src: src},
		"gamma k=9":      distuv.Gamma{Alpha: 9, Beta: 1, Src: src},
		"weibull k=1.5":  distuv.Weibull{K: 1.5, Lambda: 1, Src: src},
		"exponential":    distuv.Exponential{Rate: 1, Src: src},
		"uniform":        distuv.Uniform{Min: 1, Max: 3, Src: src},
	} {
		x := make([]float64, 2000)
		for i := range x {
			x[i] = d.Rand()
		}
		res, err := Fit(x, nil, FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range res.Warnings {
			if w.Kind == WarnBimodal || w.Kind == WarnTruncated || w.Kind == WarnRounded || w.Kind == WarnQuantised || w.Kind == WarnMixed {
				t.Errorf("%s: %s", name, w.Msg)
			}
		}
	}
}

func TestWarnQuantisedNamesTheQuantum(t *testing.T) {
	t.Parallel()
	values := lognormalValues(7, 400, 0.004, 0.4)
	for i, v := range values {
		values[i] = math.Round(v*1000) / 1000
	}
	checkWarning(t, values, FitOptions{}, WarnQuantised,
		"only 10 distinct values among 400: values are quantised to 1ms; goodness-of-fit tests are not meaningful at this resolution")
	// 1, 2 and 3 ms: on logarithms the first step stands apart from the
	// others, but these are a timer's steps, not two groups.
	var steps []float64
	for i, k := range []int{200, 150, 50} {
		for range k {
			steps = append(steps, float64(i+1)*1e-3)
		}
	}
	ws := checkWarning(t, steps, FitOptions{}, WarnQuantised,
		"only 3 distinct values among 400: values are quantised to 1ms; goodness-of-fit tests are not meaningful at this resolution")
	for _, w := range ws {
		if w.Kind == WarnBimodal {
			t.Errorf("the lattice's steps taken for groups: %s", w.Msg)
		}
	}
}

// TestDetectSkipsComments: an exporter's # header above JSON lines or a CSV
// does not hide the format.
func TestDetectSkipsComments(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Format{
		"# exported 2026-11-30\n# by the backend\n{\"event\":\"request_done\",\"request_id\":\"a\"}\n": FormatAppLog,
		"# nginx\n{\"request_time\":\"0.010\",\"status\":\"200\"}\n":                                   FormatNginxJSON,
		"# k6\nmetric_name,timestamp,metric_value\n":                                                   FormatK6CSV,
	} {
		got, err := Detect(bufio.NewReader(strings.NewReader(in)))
		if err != nil || got != want {
			t.Errorf("%q: %v %v, want %s", in, got, err, want)
		}
	}
}

// TestK6SubmetricAsMetric reads http_req_duration{expected_response:true},
// the name summaries and errors give, as the metric with that tag.
func TestK6SubmetricAsMetric(t *testing.T) {
	t.Parallel()
	csv := "metric_name,timestamp,metric_value,expected_response,status\n" +
		"http_req_duration,1764576000,50,true,200\n" +
		"http_req_duration,1764576001,900,false,503\n" +
		"http_req_duration,1764576002,70,true,200\n"
	s := readInput(t, Options{Metric: "http_req_duration{expected_response:true}"}, "k6.csv", strings.NewReader(csv))
	if len(s.Values) != 2 || s.Values[0] != 0.05 || s.Values[1] != 0.07 || s.Filter.String() != "tag:expected_response=true" {
		t.Errorf("values %v, filter %s", s.Values, s.Filter.String())
	}
}

// The lattice KS distance worked by hand: values 1, 1, 2, 3 ms against a
// uniform on (0.5 ms, 3.5 ms), whose rounding puts a third on each step.
// Up to 1 ms: 1/2 of the values, 1/3 of the rounded fit; up to 2 ms: 3/4
// and 2/3. The widest gap is 1/6.
func TestLatticeKSByHand(t *testing.T) {
	cdf := func(x float64) float64 { return math.Min(1, math.Max(0, (x-0.0005)/0.003)) }
	d, ok := latticeKS([]float64{0.001, 0.001, 0.002, 0.003}, 0.001, cdf)
	if !ok || math.Abs(d-1.0/6) > 1e-12 {
		t.Errorf("D = %g, %v; want 1/6", d, ok)
	}
	// Two values on a cell, one on 0: spread evenly across their cells.
	got := spreadOnLattice([]float64{0.002, 0, 0.002}, 0.001)
	want := []float64{0.00025, 0.00175, 0.00225}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("spread %v, want %v", got, want)
			break
		}
	}
}

// Ranked: what changes a fit first (entry by entry), then what qualifies
// one, the lattice's notes folded per step; a step of one entry names it.
func TestRankWarnings(t *testing.T) {
	q := func(entry string, step float64) EntryWarning {
		w := warnf(WarnQuantised, "only 9 distinct values among 400: %s", quantisedText(step))
		w.Quantum = step
		return EntryWarning{entry, w}
	}
	got := RankWarnings([]EntryWarning{
		{"a", warnf(WarnPoorFit, "poor")}, q("a", 0.001),
		{"b", warnf(WarnHeavyTail, "tail")}, {"b", warnf(WarnSmallSample, "few")}, q("b", 0.001),
		{"c", warnf(WarnSaturation, "climbs")}, {"c", warnf(WarnBimodal, "groups")}, q("c", 0.001), q("d", 1e-4),
	})
	want := []string{"b: few", "c: groups", "c: climbs", "a: poor", "b: tail",
		"3 entries: values are quantised to 1ms; goodness-of-fit tests are not meaningful at this resolution",
		"d: values are quantised to 100µs; goodness-of-fit tests are not meaningful at this resolution"}
	golden.CheckLines(t, "got\n%s\nwant\n%s", got, want)
}

// Every kind of warning has its place in warningOrder, so that a new kind
// is ranked by decision, not by falling to the end.
func TestEveryWarningKindIsRanked(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "warn.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ranked := map[WarningKind]bool{}
	for _, o := range warningOrder {
		ranked[o.kind] = true
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		spec, ok := node.(*ast.ValueSpec)
		if !ok || spec.Type == nil || fmt.Sprint(spec.Type) != "WarningKind" {
			return true
		}
		for _, v := range spec.Values {
			n++
			kind, _ := strconv.Unquote(v.(*ast.BasicLit).Value)
			if !ranked[WarningKind(kind)] {
				t.Errorf("warning kind %q has no place in warningOrder", kind)
			}
		}
		return true
	})
	if n != len(warningOrder) {
		t.Errorf("%d kinds declared, %d ranked", n, len(warningOrder))
	}
}
