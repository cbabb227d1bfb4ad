package model_test

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
	"capsim/scenarios"
)

// The steps most tests take to get from a scenario to a result: load,
// compile, run. The must forms stop the test at the first error, which is
// not what the test is about. A scenario given as text is read as a file
// of the name given (the name its error messages cite) in an empty
// folder, so that it can read no other file.

// compileNamed loads and compiles the scenario src as the file name, with
// the first error either step gives.
func compileNamed(name, src string, opts model.LoadOptions) (*model.Compiled, error) {
	l, err := model.LoadBytes(fstest.MapFS{}, name, []byte(src), opts)
	if err != nil {
		return nil, err
	}
	return l.Compile()
}

// compileErrorText is what loading and compiling the scenario src as the
// file name says is wrong with it: the error's text, "" for none. For the
// tables of scenarios refused with an exact message.
func compileErrorText(name, src string) string {
	if _, err := compileNamed(name, src, model.LoadOptions{}); err != nil {
		return err.Error()
	}
	return ""
}

// scenarioSrc is the text of a scenario called name that runs for
// duration: head, the top-level keys that follow those (such as
// "arrivals: even\n"), then components, the lines of its components, and
// journeys, those of its journeys, each line ending in a newline. A test's
// scenario is its specification: the builder writes only the keys every
// scenario has, so that what the test sets stays in view where it calls it.
func scenarioSrc(name, duration, head, components, journeys string) string {
	return "name: " + name + "\nduration: " + duration + "\n" + head +
		"components:\n" + components + "journeys:\n" + journeys
}

// checkRefusedWith fails the test, saying what was refused, unless the
// scenario src, compiled as the file name, is refused with an error that
// holds each of wants: for the refusals whose message goes on to quote
// what the scenario wrote.
func checkRefusedWith(t testing.TB, what, name, src string, wants ...string) {
	t.Helper()
	_, err := compileNamed(name, src, model.LoadOptions{})
	for _, want := range wants {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", what, err, want)
			return
		}
	}
}

// oneJourneySrc is an hour-long scenario called name with one pool, app,
// and one journey, j, whose keys before its steps are journey (lines of
// it indented by four) and whose one step works a second on app. For the
// tests of the keys that shape a journey's arrivals.
func oneJourneySrc(name, journey string) string {
	return "name: " + name + "\nduration: 1h\ncomponents:\n  app: {kind: pool, servers: 1}\njourneys:\n  j:\n    " +
		journey + "\n    steps: [{use: app, work: 1s}]\n"
}

// checkJourneyRefused fails the test unless the one-journey scenario
// called name (oneJourneySrc) with the keys journey is refused, as
// name.yaml, with exactly the message want.
func checkJourneyRefused(t testing.TB, name, journey, want string) {
	t.Helper()
	if got := compileErrorText(name+".yaml", oneJourneySrc(name, journey)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// onceSrc is a one-second scenario called name, with even arrivals, whose
// one journey, j, starts once, at 0, with the steps that follow "steps:"
// (the rest of the text, such as its routes, after them). drain, if not
// "", is the scenario's drain; components are the lines of its
// components. For the tests that follow one request through.
func onceSrc(name, drain, components, steps string) string {
	src := "name: " + name + "\nduration: 1s\n"
	if drain != "" {
		src += "drain: " + drain + "\n"
	}
	return src + "arrivals: even\ncomponents:\n" + components +
		"journeys:\n  j:\n    rate: 1/s\n    count: 1\n    steps:" + steps
}

// compileSrc is compileNamed for a scenario read as r.yaml.
func compileSrc(src string) (*model.Compiled, error) {
	return compileNamed("r.yaml", src, model.LoadOptions{})
}

// compileError returns the error that loading or compiling src, as s.yaml,
// gives.
func compileError(src string) error {
	_, err := compileNamed("s.yaml", src, model.LoadOptions{})
	return err
}

// mustCompileNamed is compileNamed that stops the test on an error.
func mustCompileNamed(t testing.TB, name, src string, opts model.LoadOptions) *model.Compiled {
	t.Helper()
	c, err := compileNamed(name, src, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustLoadNamed loads the scenario src as the file name, stopping the
// test on an error: for the tests of what a scenario declares, before it
// is compiled.
func mustLoadNamed(t testing.TB, name, src string, opts model.LoadOptions) *model.Loaded {
	t.Helper()
	l, err := model.LoadBytes(fstest.MapFS{}, name, []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// compileSource compiles a scenario given as text, as s.yaml.
func compileSource(t testing.TB, src string) *model.Compiled {
	t.Helper()
	return mustCompileNamed(t, "s.yaml", src, model.LoadOptions{})
}

// compileIn loads and compiles the scenario at name in fsys.
func compileIn(t testing.TB, fsys fs.FS, name string, opts model.LoadOptions) *model.Compiled {
	t.Helper()
	l, err := model.Load(fsys, name, opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compileFile compiles the scenario at path in the package's testdata.
func compileFile(t testing.TB, path string, opts model.LoadOptions) *model.Compiled {
	t.Helper()
	return compileIn(t, os.DirFS("testdata"), path, opts)
}

// compileEmbedded compiles the embedded scenario called name.
func compileEmbedded(tb testing.TB, name string, opts model.LoadOptions) *model.Compiled {
	tb.Helper()
	return compileIn(tb, scenarios.FS(), scenarios.File(name), opts)
}

// mustRun runs c once, stopping the test on an error.
func mustRun(t testing.TB, c *model.Compiled, opts model.RunOptions) *model.Result {
	t.Helper()
	res, err := c.Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runNamed loads, compiles and runs the scenario src as the file name.
func runNamed(t testing.TB, name, src string, opts model.RunOptions) *model.Result {
	t.Helper()
	return mustRun(t, mustCompileNamed(t, name, src, model.LoadOptions{}), opts)
}

// runYAML runs the scenario src, as t.yaml, and returns its result and
// its trace events in order (opts.Trace is replaced).
func runYAML(t testing.TB, src string, opts model.RunOptions) (*model.Result, []model.TraceEvent) {
	t.Helper()
	var events []model.TraceEvent
	opts.Trace = func(e *model.TraceEvent) { events = append(events, *e) }
	return runNamed(t, "t.yaml", src, opts), events
}

// runYAMLNoTrace runs the scenario src, as t.yaml, once with seed 1.
func runYAMLNoTrace(t testing.TB, src string) *model.Result {
	t.Helper()
	return runNamed(t, "t.yaml", src, model.RunOptions{Seed: 1})
}
