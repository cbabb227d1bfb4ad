package calibration

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"capsim/cmd/golden"
)

// Per-element values: an upload's record lists the thumbnails rendered
// for it, each with its time, lognormal(μ = ln 20ms, σ = 0.4), one to four
// per upload, in sizes s and m. thumbs[].ms must give every element's
// time back, and a condition on thumbs[].size must keep elements.
const (
	thumbMu    = -3.912023005428146 // ln 0.02
	thumbSigma = 0.4
)

// writeThumbLogs writes n uploads to dir/app.jsonl and returns how many
// thumbnails they list, how many of size m, and how many uploads have none
// of size m.
func writeThumbLogs(t *testing.T, dir string, n int) (elems, medium, noMedium int) {
	t.Helper()
	src := rand.NewPCG(21, 22)
	rnd := rand.New(src)
	thumb := distuv.LogNormal{Mu: thumbMu, Sigma: thumbSigma, Src: src}
	var b strings.Builder
	for i := range n {
		k := 1 + rnd.IntN(4)
		parts := make([]string, k)
		had := medium
		for j := range parts {
			size := "s"
			if rnd.IntN(2) == 0 {
				size = "m"
				medium++
			}
			parts[j] = fmt.Sprintf(`{"size":"%s","ms":%.4f}`, size, thumb.Rand()*1000)
		}
		elems += k
		if medium == had {
			noMedium++
		}
		fmt.Fprintf(&b, `{"ts":%d,"event":"upload_done","upload_id":"u%d","thumbs":[%s]}`+"\n", 1764576000+i, i, strings.Join(parts, ","))
	}
	// Line n+1 has no array, line n+2 a number where the array should be,
	// line n+3 an empty array; the start events are filtered out.
	b.WriteString(`{"ts":1764580000,"event":"upload_done","upload_id":"x1"}` + "\n")
	b.WriteString(`{"ts":1764580001,"event":"upload_done","upload_id":"x2","thumbs":12.5}` + "\n")
	b.WriteString(`{"ts":1764580002,"event":"upload_done","upload_id":"x3","thumbs":[]}` + "\n")
	b.WriteString(`{"ts":1764580003,"event":"upload_start","upload_id":"x4"}` + "\n")
	if err := os.WriteFile(filepath.Join(dir, "app.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return elems, medium, noMedium
}

func TestPlanArrayPerElement(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 1500
	elems, medium, noMedium := writeThumbLogs(t, dir, n)
	plan := filepath.Join(dir, "plan.yaml")
	fits := writeAndRunPlan(t, plan, `sources: {app: app.jsonl}
measured:
  thumbnail:
    from: app
    where: event == upload_done
    expr: thumbs[].ms
    dist: lognormal
  thumbnail_m:
    from: app
    where: [event == upload_done, "thumbs[].size == m"]
    expr: app.thumbs[].ms
    dist: lognormal
`, 2)
	all, m := fits[0], fits[1]
	if all.Result.Observed.N != elems || m.Result.Observed.N != medium {
		t.Fatalf("n = %d and %d, want %d elements and %d of size m", all.Result.Observed.N, m.Result.Observed.N, elems, medium)
	}
	for _, f := range fits {
		ln, ok := f.Result.Chosen.model.(distuv.LogNormal)
		if !ok {
			t.Fatalf("%s chose %s, want lognormal", f.Name, f.Result.Chosen.Dist)
		}
		t.Logf("%s: mu %.4g sigma %.4g over %d elements", f.Name, ln.Mu, ln.Sigma, f.Result.Observed.N)
		nv := float64(f.Result.Observed.N)
		if se := thumbSigma / math.Sqrt(nv); math.Abs(ln.Mu-thumbMu) > 4*se {
			t.Errorf("%s mu %g, want %g ± %.3g", f.Name, ln.Mu, thumbMu, 4*se)
		}
		if se := thumbSigma / math.Sqrt(2*nv); math.Abs(ln.Sigma-thumbSigma) > 4*se {
			t.Errorf("%s sigma %g, want %g ± %.3g", f.Name, ln.Sigma, thumbSigma, 4*se)
		}
	}
	s := all.Sample
	// A record counts once, however many elements it gives.
	if got := s.Stats[0]; got.Used != n || got.Rejected != 2 || got.Filtered != 1 || got.NoValue != 1 {
		t.Errorf("used %d, rejected %d, filtered %d, no value %d records; want %d, 2, 1, 1", got.Used, got.Rejected, got.Filtered, got.NoValue, n)
	}
	if got := m.Sample.Stats[0]; got.Used != n-noMedium || got.Filtered != 1+noMedium {
		t.Errorf("size m: used %d, filtered %d records; want %d, %d", got.Used, got.Filtered, n-noMedium, 1+noMedium)
	}
	var lines []string
	for _, le := range s.LineErrors {
		lines = append(lines, fmt.Sprintf("%s:%d: %s", filepath.Base(le.File), le.Line, le.Msg))
	}
	want := fmt.Sprintf("app.jsonl:%d: thumbnail: thumbs: no such field (the array of thumbs[]); skipped\n"+
		"app.jsonl:%d: thumbnail: thumbs is \"12.5\", not an array (for thumbs[]); skipped", n+1, n+2)
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("line errors\n%s\nwant\n%s", got, want)
	}
	if got, want := strings.Join(s.Notes, "\n"), "1 records had an empty thumbs[] and gave no value"; got != want {
		t.Errorf("notes %q, want %q", got, want)
	}
	if got, want := strings.Join(m.Sample.Notes, "\n"), fmt.Sprintf("1 records had an empty thumbs[] and gave no value\n%d elements of thumbs[] were excluded by the filter", elems-medium); got != want {
		t.Errorf("notes %q, want %q", got, want)
	}
	if got, want := s.Source, "thumbs[].ms (ms) from app"; got != want {
		t.Errorf("source %q, want %q", got, want)
	}
}

// procCostK and procCostθ are the gamma of the CPU time per request.
const procCostK, procCostθ = 3.0, 0.004

// writeProcLogs writes the running totals of two processes over n
// intervals to dir/proc.jsonl and returns how many intervals served
// requests and how many other events were written.
func writeProcLogs(t *testing.T, dir string, intervals int) (per, gc int) {
	t.Helper()
	src := rand.NewPCG(31, 32)
	rnd := rand.New(src)
	cost := distuv.Gamma{Alpha: procCostK, Beta: 1 / procCostθ, Src: src}
	var b strings.Builder
	type proc struct {
		cpuMS float64
		reqs  int
	}
	procs := []*proc{{cpuMS: 812.5, reqs: 140}, {}}
	tick := 0
	emit := func(pid int) {
		p := procs[pid]
		fmt.Fprintf(&b, `{"ts":%d,"event":"process_stats","pid":"p%d","proc_cpu_ms":%.6f,"requests_total":%d}`+"\n", 1764576000+10*tick, pid, p.cpuMS, p.reqs)
	}
	emit(0)
	emit(1)
	for i := range intervals {
		tick++
		pid := i % 2
		p := procs[pid]
		switch i {
		case 700: // a restart: both counters from zero, then a fresh record
			procs[pid] = &proc{cpuMS: 0.3}
		case 900: // no request served, a little background CPU
			p.cpuMS += 1.5
		default:
			served := 1 + rnd.IntN(30)
			p.cpuMS += float64(served) * cost.Rand() * 1000
			p.reqs += served
			per++
		}
		emit(pid)
		// Other events in the same file are filtered out.
		if i%100 == 0 {
			gc++
			fmt.Fprintf(&b, `{"ts":%d,"event":"gc","pid":"p%d","pause_ms":1.2}`+"\n", 1764576000+10*tick, pid)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "proc.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return per, gc
}

// Counter differences: two processes log their running totals of CPU
// time and requests served every 10 s. Over each interval the CPU time
// per request is gamma(k = 3, θ = 4ms), so Δ proc_cpu_ms / Δ
// requests_total must give that gamma back. One process restarts (both
// counters start again from zero) and one interval serves no request:
// both are skipped with their notes. The tolerances are four standard
// errors, as in TestPlanJoinRecoversParameters.
func TestPlanDifferencePerRequest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const (
		intervals = 1500
		k, θ      = procCostK, procCostθ
	)
	per, gc := writeProcLogs(t, dir, intervals)
	plan := filepath.Join(dir, "plan.yaml")
	fits := writeAndRunPlan(t, plan, `sources: {proc: proc.jsonl}
measured:
  request_cpu:
    from: proc
    key: pid
    where: event == process_stats
    difference: {of: proc_cpu_ms, per: requests_total}
    dist: gamma
`, 1)
	f := fits[0]
	if f.Result.Observed.N != per {
		t.Fatalf("n = %d, want %d (the reset and the idle interval skipped)", f.Result.Observed.N, per)
	}
	g, ok := f.Result.Chosen.model.(distuv.Gamma)
	if !ok {
		t.Fatalf("chose %s, want gamma", f.Result.Chosen.Dist)
	}
	t.Logf("gamma k %.4g θ %.4gs over %d intervals", g.Alpha, 1/g.Beta, per)
	nv := float64(per)
	seK := math.Sqrt(k / (nv * (k*trigamma(k) - 1)))
	if math.Abs(g.Alpha-k) > 4*seK {
		t.Errorf("gamma shape %g, want %g ± %.3g", g.Alpha, k, 4*seK)
	}
	mean, seMean := k*θ, math.Sqrt(k)*θ/math.Sqrt(nv)
	if got := g.Alpha / g.Beta; math.Abs(got-mean) > 4*seMean {
		t.Errorf("mean %gs, want %gs ± %.3gs", got, mean, 4*seMean)
	}
	s := f.Sample
	// Each record is used once though it ends one interval and starts the
	// next; those around the skipped intervals take part in their others.
	if got := s.Stats[0]; got.Used != intervals+2 || got.Filtered != gc {
		t.Errorf("used %d, filtered %d records; want %d, %d", got.Used, got.Filtered, intervals+2, gc)
	}
	want := "1 intervals between consecutive records were skipped: proc_cpu_ms or requests_total decreased (a counter reset)\n" +
		"1 intervals between consecutive records were skipped: requests_total did not grow"
	if got := strings.Join(s.Notes, "\n"); got != want {
		t.Errorf("notes\n%s\nwant\n%s", got, want)
	}
	if got, want := s.Source, "(to.proc_cpu_ms - from.proc_cpu_ms) / (to.requests_total - from.requests_total) (ms) from proc, between consecutive records of each pid"; got != want {
		t.Errorf("source %q, want %q", got, want)
	}
}

// TestPlanArrayAndDifferenceErrors holds the refusals when the plan is
// read, each with its position.
func TestPlanArrayAndDifferenceErrors(t *testing.T) {
	t.Parallel()
	plan := `sources:
  app: {file: app.jsonl}
  drv: {file: driver.jsonl}
measured:
  a: {from: app, expr: "thumbs[].ms + pages[].ms"}
  b: {from: [app, drv], key: id, expr: "app.thumbs[].ms - drv.thumbs[].ms"}
  c: {from: app, where: "tags[].k == x", expr: "thumbs[].ms"}
  d: {from: app, expr: "thumbs[0].ms"}
  e: {from: app, where: "thumbs[.size == m", expr: x_ms}
  f: {from: app, difference: {of: cpu_ms}}
  g: {from: app, difference: {of: cpu_ms, per: reqs}, expr: cpu_ms}
  h: {from: app, difference: {of: cpu_ms, per: time}}
  i: {from: app, difference: {of: "cpu_ms - 1", per: reqs, by: x}}
  j: {from: app, difference: {of: "thumbs[].ms", per: reqs}}
  k: {from: app, difference: {of: cpu_ms, per: reqs}, per: photos}
  l: {from: app, where: "thumbs[].size == m", expr: upload_ms}
`
	_, err := ReadPlan("plan.yaml", strings.NewReader(plan))
	want := `plan.yaml:5:24: a: thumbs[].ms and pages[].ms read two different arrays: one value per element needs one array
plan.yaml:6:40: b: app.thumbs[].ms and drv.thumbs[].ms read two different arrays: one value per element needs one array
plan.yaml:7:48: c: thumbs[].ms and tags[].k read two different arrays: one value per element needs one array
plan.yaml:8:24: d: expression "thumbs[0].ms", at column 1: field "thumbs[0].ms": an array is written name[] followed by . or the end of the name, such as thumbs[].ms
plan.yaml:9:25: e: where: "thumbs[.size == m": field "thumbs[.size": an array is written name[] followed by . or the end of the name, such as thumbs[].ms
plan.yaml:10:3: f: difference: wants of: and per:, such as {of: proc_cpu_ms, per: requests_total}
plan.yaml:11:61: g: difference: computes the value; expr: does not apply
plan.yaml:12:3: h: difference: per: time would be a rate of cpu_ms per second, not a duration
plan.yaml:13:35: i: difference: of: "cpu_ms - 1" is not the name of a field of the record
plan.yaml:13:60: i: difference: unknown key "by" (want of, per)
plan.yaml:14:3: j: difference: compares counters of whole records, not of an array's elements
plan.yaml:15:3: k: difference: already divides by reqs; per: does not apply
plan.yaml:16:53: l: thumbs[].size reads the array thumbs[] but expr: does not: each record's value would be repeated once per element`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

// TestPlanArrayOfNumbers reads each element of an array of numbers, and
// a field of the record beside it, value by value.
func TestPlanArrayOfNumbers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := `{"ts":1764576000,"base_ms":1,"waits":[2.5,4]}
{"ts":1764576001,"base_ms":2,"waits":[0.5]}
`
	if err := os.WriteFile(filepath.Join(dir, "app.jsonl"), []byte(logs), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPlan(filepath.Join(dir, "plan.yaml"), strings.NewReader("sources: {app: app.jsonl}\nmeasured:\n  wait:\n    from: app\n    expr: waits[] + base_ms\n    unit: ms\n    dist: empirical\n"))
	if err != nil {
		t.Fatal(err)
	}
	fits := runParsedPlan(t, p)
	if got, want := fmt.Sprint(fits[0].Sample.Values), "[0.0035 0.005 0.0025]"; got != want {
		t.Errorf("values %s, want %s", got, want)
	}
}

// TestPlanArrayAndDifferenceGolden holds the fragment of a plan with one
// entry of each kind, provenance included, to the byte.
func TestPlanArrayAndDifferenceGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeThumbLogs(t, dir, 1000)
	writeProcLogs(t, dir, 1000)
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte(`sources:
  app: {file: app.jsonl}
  proc: {file: proc.jsonl}
measured:
  thumbnail_m:
    from: app
    where: [event == upload_done, "thumbs[].size == m"]
    expr: thumbs[].ms
  request_cpu:
    from: proc
    key: pid
    where: event == process_stats
    difference: {of: proc_cpu_ms, per: requests_total}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for _, f := range runPlan(t, plan) {
		entries = append(entries, f.Entry)
	}
	out, err := MergeFragment(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/plan-arrays-difference.golden", out)
}
