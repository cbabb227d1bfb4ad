package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"capsim/cmd/golden"
	"capsim/model"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The modelling guide shows, for each shape of a back end, an example
// scenario, the commands that run it and what they print. Its scenarios
// are the files in docs/guide, its outputs are capsim's, byte for byte,
// and each figure it works out by hand or from queueing theory is held
// here against replications of the example.

const (
	guidePage     = "docs/guide.md"
	guideExamples = "docs/guide"
)

// guideFile names the example a ```yaml block shows: the line before the
// block ends with a link to it.
var guideFile = regexp.MustCompile(`\]\(guide/([a-z-]+\.yaml)\):$`)

// renderGuide returns the guide with every example's block holding its
// file and every command's block holding the command and what capsim
// prints for it, run from the repository's root; and the examples shown
// and the commands run.
func renderGuide(t *testing.T) (page string, shown []string, commands int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, guidePage))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(repoRoot)
	lines := strings.SplitAfter(string(data), "\n")
	var b strings.Builder
	for n := 0; n < len(lines); n++ {
		line := lines[n]
		b.WriteString(line)
		fence := strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		end := n + 1
		for end < len(lines) && lines[end] != "```\n" && lines[end] != "```" {
			end++
		}
		if end == len(lines) {
			t.Fatalf("%s:%d: the block does not end", guidePage, n+1)
		}
		prev := ""
		if n > 0 {
			prev = strings.TrimSpace(lines[n-1])
			if prev == "" && n > 1 {
				prev = strings.TrimSpace(lines[n-2])
			}
		}
		switch m := guideFile.FindStringSubmatch(prev); {
		case fence == "```yaml" && m != nil:
			file, err := os.ReadFile(filepath.Join(guideExamples, m[1]))
			if err != nil {
				t.Fatalf("%s:%d: %v", guidePage, n+1, err)
			}
			b.Write(file)
			shown = append(shown, m[1])
		case fence == "```yaml":
			t.Errorf("%s:%d: a scenario block must follow a line ending with a link to its file, "+
				"[`docs/guide/NAME.yaml`](guide/NAME.yaml):", guidePage, n+1)
		case fence == "```" && strings.HasPrefix(lines[n+1], "$ capsim "):
			command := strings.TrimSpace(strings.TrimPrefix(lines[n+1], "$ "))
			args := shellWords(command)[1:]
			code, stdout, stderr := run(t, args...)
			if code != exitOK {
				t.Errorf("%s:%d: %s exits %d: %s", guidePage, n+2, command, code, stderr)
			}
			b.WriteString(lines[n+1] + stdout)
			commands++
		default:
			for _, l := range lines[n+1 : end] {
				b.WriteString(l)
			}
		}
		b.WriteString(lines[end])
		n = end
	}
	return b.String(), shown, commands
}

// The guide's scenarios are the example files, every one of them, and
// every capsim command it shows is run and prints what the guide shows
// after it; -update rewrites the blocks.
func TestGuideIsWhatCapsimPrints(t *testing.T) {
	page, shown, commands := renderGuide(t)
	golden.Check(t, guidePage, []byte(page))

	files, err := filepath.Glob(filepath.Join(guideExamples, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	slices.Sort(shown)
	if !slices.Equal(shown, files) {
		t.Errorf("the guide shows %v; %s holds %v", shown, guideExamples, files)
	}
	// A command written any other way (in a ```sh block, say) would be
	// parsed but never run.
	listed := 0
	t.Chdir("cmd/capsim")
	for where := range shownCommands(t) {
		if strings.HasPrefix(where, guidePage+":") {
			listed++
		}
	}
	if listed != commands || commands == 0 {
		t.Errorf("the guide shows %d capsim command lines and runs %d", listed, commands)
	}
}

// Every parameter of the guide's examples says where its value comes
// from, in the base and in what each design writes.
func TestGuideExamplesAreLabelled(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, guideExamples, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in %s: %v", guideExamples, err)
	}
	fsys := os.DirFS(filepath.Join(repoRoot, guideExamples))
	for _, f := range files {
		name := filepath.Base(f)
		base, err := model.Load(fsys, name, model.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		loads := []*model.Loaded{base}
		for _, d := range base.Scenario.Designs.Names() {
			l, err := model.Load(fsys, name, model.LoadOptions{Design: d})
			if err != nil {
				t.Fatal(err)
			}
			loads = append(loads, l)
		}
		for i, l := range loads {
			for _, p := range l.Params() {
				if (i == 0 || p.Design != "") && p.Label == "" {
					t.Errorf("%s:%d: %s (%s) has no input:, fitted: or assumption: label", p.File, p.Line, p.Name, p.Path)
				}
			}
		}
	}
}

// erlangB is the probability that a call offered a erlangs finds all c
// servers of a loss system busy (by the recursion B(n) = aB(n−1) / (n +
// aB(n−1)), B(0) = 1).
func erlangB(c int, a float64) float64 {
	b := 1.0
	for n := 1; n <= c; n++ {
		b = a * b / (float64(n) + a*b)
	}
	return b
}

// lossGIM is the probability that an arrival finds all c servers busy in a
// GI/M/c/c loss system whose interarrival times have Laplace–Stieltjes
// transform phi and whose holding times are exponential with rate mu
// (Takács): 1 / Σ_j C(c, j) Π_{i≤j} (1 − phi(iμ)) / phi(iμ).
func lossGIM(c int, mu float64, phi func(s float64) float64) float64 {
	sum, binom, prod := 0.0, 1.0, 1.0
	for j := 0; j <= c; j++ {
		if j > 0 {
			binom = binom * float64(c-j+1) / float64(j)
			f := phi(float64(j) * mu)
			prod *= (1 - f) / f
		}
		sum += binom * prod
	}
	return 1 / sum
}

// guideCase is one figure of the guide: a measure of an example's runs
// under a design and overrides, against what the guide works out.
type guideCase struct {
	file, design string
	sets         []string
	multiplier   float64 // 0: 1x
	what         string
	measure      func(*model.Result) float64
	theory       float64
	// tight is the largest 95 % half-width, as a share of the mean, the
	// replications may leave: wider would let a wrong model pass.
	tight float64
}

func routeMean(name string) func(*model.Result) float64 {
	return func(r *model.Result) float64 {
		rt, _ := r.Route(name)
		return float64(rt.Latency.Mean)
	}
}

func journeyFailed(name string) func(*model.Result) float64 {
	return func(r *model.Result) float64 {
		j, _ := r.Journey(name)
		return float64(j.Failed) / float64(j.Failed+j.Succeeded)
	}
}

func componentOf(name string, of func(*model.ComponentResult) float64) func(*model.Result) float64 {
	return func(r *model.Result) float64 {
		c, _ := r.Component(name)
		return of(c)
	}
}

func utilisation(c *model.ComponentResult) float64 { return float64(c.Utilisation) }
func meanWait(c *model.ComponentResult) float64    { return float64(c.Wait.Mean) }
func meanBusy(c *model.ComponentResult) float64    { return float64(c.MeanBusy) }

// guideCases are the guide's figures, worked out as the guide works them.
func guideCases() []guideCase {
	// (a) One core, pages (27/s, 10 ms) and exports (3/s, 110 ms): ρ = 0.6.
	// fifo is M/G/1: everyone waits Pollaczek–Khinchine's R/(1 − ρ), R =
	// Σ λ_i s_i² / 2; under processor sharing a request of work s takes
	// s/(1 − ρ).
	const rhoA = 0.6
	wA := (27*0.010*0.010 + 3*0.110*0.110) / 2 / (1 - rhoA)

	// (b) The core's arrivals are Poisson: the 99 % of requests whose 40 ms
	// query is constant (19.8/s, 20 ms), the 1 % whose 3 s query passes
	// the deadline and only write the error (0.2/s, 5 ms), housekeeping
	// (2/s, 50 ms). At 1x ρ = 0.497 and the fifo core's mean wait is
	// R/(1 − ρ); a fast request holds its thread 40 ms + W + 20 ms, a slow
	// one 3 s (on_deadline: check lets the query end; the error is written
	// after the thread is given back), so by Little's law 19.8 (60 ms + W)
	// + 0.2 × 3 s threads are busy. Housekeeping does not scale: at 2x the
	// core is 2 × 0.397 + 0.1 busy.
	fast, slow := 0.99*20.0, 0.01*20.0
	rhoB := fast*0.020 + slow*0.005 + 2*0.050
	wB := (fast*0.020*0.020 + slow*0.005*0.005 + 2*0.050*0.050) / 2 / (1 - rhoB)

	// (c) A backend takes 20 ms + Exp(mean 30 ms): it misses the 200 ms
	// deadline with probability exp(−6); a search of N backends waits for
	// them all and misses it unless all N make it.
	miss := math.Exp(-(0.200 - 0.020) / 0.030)
	search := func(n float64) float64 { return 1 - math.Pow(1-miss, n) }

	// (d) One client's pool of 8: a call is refused exactly when all 8 are
	// busy, an Erlang loss system (insensitive to the holding time's
	// distribution). With keep-alive a call holds its connection 100 ms on
	// average (5 erlangs); without, 150 ms with the handshake (7.5).
	keepAlive, noKeepAlive := erlangB(8, 5), erlangB(8, 7.5)

	// (e) 32/m sessions of an exponential minute, 4 backends of 10 slots.
	// Round robin sends every 4th session to a backend: Erlang-4
	// interarrival times, a GI/M/10/10 loss system each. least_sessions
	// refuses only when all 40 slots are taken: Erlang B(40, 32).
	lambda, mu := 32.0/60, 1.0/60
	erlang4 := func(s float64) float64 { return math.Pow(lambda/(lambda+s), 4) }
	roundRobin, leastSessions := lossGIM(10, mu, erlang4), erlangB(40, 32)

	return []guideCase{
		{file: "non-yielding-core.yaml", what: "fifo page mean", measure: routeMean("page"), theory: 0.010 + wA, tight: 0.03},
		{file: "non-yielding-core.yaml", what: "fifo export mean", measure: routeMean("export"), theory: 0.110 + wA, tight: 0.03},
		{file: "non-yielding-core.yaml", what: "fifo cpu wait", measure: componentOf("cpu", meanWait), theory: wA, tight: 0.03},
		{file: "non-yielding-core.yaml", design: "yielding", what: "ps page mean", measure: routeMean("page"), theory: 0.010 / (1 - rhoA), tight: 0.03},
		{file: "non-yielding-core.yaml", design: "yielding", what: "ps export mean", measure: routeMean("export"), theory: 0.110 / (1 - rhoA), tight: 0.03},

		{file: "thread-pool.yaml", what: "1x failure rate", measure: journeyFailed("request"), theory: 0.01, tight: 0.05},
		{file: "thread-pool.yaml", what: "1x cpu utilisation", measure: componentOf("cpu", utilisation), theory: rhoB, tight: 0.03},
		{file: "thread-pool.yaml", what: "1x cpu wait", measure: componentOf("cpu", meanWait), theory: wB, tight: 0.03},
		{file: "thread-pool.yaml", what: "1x busy threads", measure: componentOf("threads", meanBusy),
			theory: fast*(0.060+wB) + slow*3, tight: 0.03},
		{file: "thread-pool.yaml", multiplier: 2, what: "2x cpu utilisation", measure: componentOf("cpu", utilisation),
			theory: 2*(rhoB-0.1) + 0.1, tight: 0.03},

		{file: "fan-out.yaml", what: "10 backends: searches failed", measure: journeyFailed("search"), theory: search(10), tight: 0.05},
		{file: "fan-out.yaml", sets: []string{"journeys.search.attributes.backends=20"}, what: "20 backends: searches failed",
			measure: journeyFailed("search"), theory: search(20), tight: 0.05},

		{file: "client-pool.yaml", what: "keep-alive: calls refused", measure: journeyFailed("call"), theory: keepAlive, tight: 0.03},
		{file: "client-pool.yaml", what: "keep-alive: connections busy", measure: componentOf("conns", utilisation),
			theory: 5 * (1 - keepAlive) / 8, tight: 0.03},
		// No connection idles 30 s at 50 calls a second: after the warm-up
		// every call granted one reuses it.
		{file: "client-pool.yaml", what: "keep-alive: granted calls that reuse a connection",
			measure: componentOf("conns", func(c *model.ComponentResult) float64 {
				return float64(c.Reuses) / float64(c.Offered-c.Rejected)
			}), theory: 1, tight: 0.03},
		{file: "client-pool.yaml", design: "no-keep-alive", what: "no keep-alive: calls refused", measure: journeyFailed("call"),
			theory: noKeepAlive, tight: 0.03},

		{file: "sessions.yaml", what: "round robin: sessions refused", measure: journeyFailed("session"), theory: roundRobin, tight: 0.05},
		{file: "sessions.yaml", what: "round robin: a backend's slots busy", measure: componentOf("slots[0]", utilisation),
			theory: 32 * (1 - roundRobin) / 40, tight: 0.03},
		{file: "sessions.yaml", design: "least-sessions", what: "least_sessions: sessions refused", measure: journeyFailed("session"),
			theory: leastSessions, tight: 0.05},
		{file: "sessions.yaml", design: "least-sessions", what: "least_sessions: a backend's slots busy",
			measure: componentOf("slots[0]", utilisation), theory: 32 * (1 - leastSessions) / 40, tight: 0.03},
	}
}

// Each figure the guide works out lies within the 95 % confidence interval
// of the example's mean over replications (seeds 1 to n), and the
// interval is tight.
func TestGuideFiguresMatchTheory(t *testing.T) {
	slowTests(t) // ten seeds of five examples: a theory run of seconds
	t.Parallel()
	const replications = 10
	dir := os.DirFS(filepath.Join(repoRoot, guideExamples))
	type key struct {
		file, design, sets string
		multiplier         float64
	}
	keyOf := func(c guideCase) key { return key{c.file, c.design, strings.Join(c.sets, " "), c.multiplier} }
	runs := map[key][]*model.Result{}
	for _, c := range guideCases() {
		k := keyOf(c)
		if _, ok := runs[k]; ok {
			continue
		}
		opts := model.RunOptions{Multiplier: c.multiplier}
		l, err := model.Load(dir, c.file, model.LoadOptions{Design: c.design, Sets: c.sets})
		if err != nil {
			t.Fatal(err)
		}
		compiled, err := l.Compile()
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= replications; seed++ {
			opts.Seed = seed
			r, err := compiled.Run(opts)
			if err != nil || r.Broken != nil {
				t.Fatalf("%s %s seed %d: %v %v", c.file, c.design, seed, err, r.Broken)
			}
			runs[k] = append(runs[k], r)
		}
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: replications - 1}.Quantile(0.975)
	for _, c := range guideCases() {
		var xs []float64
		for _, r := range runs[keyOf(c)] {
			xs = append(xs, c.measure(r))
		}
		mean, sd := stat.MeanStdDev(xs, nil)
		half := tq * sd / math.Sqrt(replications)
		what := fmt.Sprintf("%s: %s", c.file, c.what)
		t.Logf("%s: simulated %.5f ± %.5f, theory %.5f", what, mean, half, c.theory)
		if half > c.tight*math.Abs(mean) {
			t.Errorf("%s: the 95%% half-width %.5f is %.1f%% of the mean, more than %.0f%%", what, half, 100*half/mean, 100*c.tight)
		}
		if math.Abs(mean-c.theory) > half {
			t.Errorf("%s: theory %.5f outside the 95%% CI %.5f ± %.5f", what, c.theory, mean, half)
		}
	}
}
