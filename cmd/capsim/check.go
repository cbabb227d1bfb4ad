package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"capsim/calibration"
	"capsim/calibration/check"
	"capsim/model"
	"capsim/plots"
	"capsim/plots/texttab"
	"capsim/sim"

	"github.com/spf13/cobra"
)

// checkNames are the entries capsim check writes in its folder.
var checkNames = []string{"report.md", "check.csv", "charts"}

type checkOptions struct {
	designFlags
	Replications  int
	Access        []string
	App           []string
	Routes        []string
	StageField    string
	Tolerance     string
	RateTolerance string
	Alpha         float64
	Resolution    time.Duration
	Replay        bool
	Out           string
}

func newCheckCmd(io *IOStreams) *cobra.Command {
	cmd, opts := scenarioCommand(io, "check [SCENARIO] --access FILE... --app FILE...", runCheck, &cobra.Command{
		Short: "Compare a model with the logs of a recorded run",
		Long: `Run the scenario with one design at one multiplier, the load schedule the
recorded run followed, and compare what the model predicts with what the
logs of the recorded run say: per route, the times of the requests a
journey's client made (nginx request_time, k6 http_req_duration, or a load
driver's JSON lines read with the fields a sources file names, --access)
and their HTTP failure rate; per log: event, its time since the event before
it (the application log's since_s field, --app); per journey, the success
rate and the share failing at each stage (the application's outcome event,
named after the journey, with result and failure_stage).

Each line gets a verdict with its rule. The exit code is 0 when every line
passes and 3 when one fails: the model does not match.`,
		Example: `  capsim check trip --design v1-original --access nginx.log --app app.jsonl
  capsim check trip --access k6.csv --route trip_view='/api/trips/*' --out check/
  capsim check trip --access driver.yaml --app app.jsonl`,
	})
	opts.addDesign(cmd, "load multiplier the recorded run was driven at")
	f := cmd.Flags()
	opts.addSeed(f, replicationSeedUsage)
	f.IntVarP(&opts.Replications, "replications", "r", 5, "simulated runs pooled against the recording")
	opts.addSetAndScale(f, "")
	f.StringArrayVar(&opts.Access, "access", nil, "recorded access log: nginx (JSON or combined), k6 CSV, or a YAML `FILE` of sources: with fields: (repeatable)")
	f.StringArrayVar(&opts.App, "app", nil, "recorded application JSON-lines log `FILE` (repeatable)")
	f.StringArrayVar(&opts.Routes, "route", nil, "the path pattern of a route's requests, `ROUTE=PATTERN` (repeatable; default /ROUTE)")
	f.StringVar(&opts.StageField, "stage-field", "since_s", "application-log `FIELD` holding a log event's time since the one before")
	f.StringVar(&opts.Tolerance, "tolerance", "10%", "relative difference of mean or p95 that fails a time, with the KS test")
	f.StringVar(&opts.RateTolerance, "rate-tolerance", "1%", "difference of a rate, in points, that fails it, with the z test")
	f.Float64Var(&opts.Alpha, "alpha", 0.001, "significance level of the tests")
	f.DurationVar(&opts.Resolution, "resolution", time.Millisecond, "granularity of times for the KS test (nginx logs whole milliseconds)")
	f.BoolVar(&opts.Replay, "replay", false, "start the journeys when the recorded ones started (from the --app outcome events) instead of drawing arrivals")
	f.StringVar(&opts.Out, "out", "", "also write report.md, check.csv and QQ plots into `DIR`")
	return cmd
}

// parseShare reads "10%" or "0.1".
func parseShare(flag, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err == nil && strings.HasSuffix(s, "%") {
		v /= 100
	}
	if err != nil || !(v > 0 && v < 1) {
		return 0, usageErr("%s must be a share between 0 and 100%% (10%% or 0.1), got %q", flag, s)
	}
	return v, nil
}

func runCheck(ctx context.Context, io *IOStreams, opts *checkOptions) error {
	if err := opts.checkMultiplier(); err != nil {
		return err
	}
	if opts.Replications < 1 || opts.Replications > model.MaxReplications {
		return usageErr("--replications must be between 1 and %d, got %d", model.MaxReplications, opts.Replications)
	}
	if opts.Resolution <= 0 || opts.Resolution > time.Second {
		// Times rounded to more than a second are no times a log keeps, and
		// a resolution wider than the times passes every line.
		return usageErr("--resolution must be > 0 and at most 1s (the granularity a log writes times in), got %v", opts.Resolution)
	}
	if !(opts.Alpha > 0 && opts.Alpha < 1) {
		return usageErr("--alpha must be between 0 and 1, got %g", opts.Alpha)
	}
	tol, err := parseShare("--tolerance", opts.Tolerance)
	if err != nil {
		return err
	}
	rateTol, err := parseShare("--rate-tolerance", opts.RateTolerance)
	if err != nil {
		return err
	}
	if len(opts.Access) == 0 && len(opts.App) == 0 {
		return usageErr("give the recorded run's logs: --access FILE (nginx or k6) and/or --app FILE (application log)")
	}
	// The files named, before any is opened (a sources file is read
	// here); the logs a sources file names are held to the same below.
	if err := (check.Inputs{Access: opts.Access, App: opts.App}).Stat(); err != nil {
		return usageErr("%v", err)
	}
	access, clients, err := accessLogs(opts.Access)
	if err != nil {
		return err
	}
	logs := check.Inputs{Access: access, Clients: clients, App: opts.App}
	if err := logs.Stat(); err != nil {
		return usageErr("%v", err)
	}
	if err := sameFileTwice(logs.Files()); err != nil {
		return err
	}
	// Before simulating: a doubled log is refused at once.
	if err := check.Duplicates(logs.Files()); err != nil {
		return usageErr("%v", err)
	}
	patterns := map[string]string{}
	for _, r := range opts.Routes {
		name, pattern, ok := strings.Cut(r, "=")
		if !ok || name == "" || pattern == "" {
			return usageErr("--route %q: want ROUTE=PATTERN, e.g. trip_view=/api/trips/*", r)
		}
		patterns[name] = pattern
	}
	c, l, err := opts.compile()
	if err != nil {
		return err
	}
	// After the scenario, before simulating: an application log that names no event on a
	// line, or holds no stage time, is refused at once.
	var appEvents *check.AppEvents
	if len(opts.App) > 0 {
		if appEvents, err = check.ScanApp(opts.App, opts.StageField); err != nil {
			return usageErr("%v", err)
		}
	}
	if len(opts.Access) > 0 && len(journeyRoutes(c.Graph())) == 0 {
		// Nothing would be compared with it: without an application log
		// the check would pass on no line at all. Read off the scenario,
		// not the runs: a run at a tiny multiplier calls no route either.
		instead := "leave it out"
		if len(opts.App) == 0 {
			instead = "give the application log (--app FILE) to compare the journeys"
		}
		return usageErr("--access: the scenario's journeys call no route, so an access log has nothing to be compared with; %s", instead)
	}
	var replay map[string][]sim.Time
	if opts.Replay {
		if replay, err = recordedStarts(l, opts.App); err != nil {
			return err
		}
	}

	// Before simulating, after the flags and the scenario: a file given
	// as an access log that is none is refused at once.
	for _, f := range logs.Access {
		if err := check.AccessLog(f); err != nil {
			return usageErr("%v", err)
		}
	}
	simRun := check.NewRun()
	logNames := map[string]bool{}
	failStages := map[string][]string{}
	for i := range opts.Replications {
		ro := model.RunOptions{Multiplier: opts.Multiplier, Seed: opts.Seed + uint64(i), Arrivals: replay,
			Interrupted: func() bool { return ctx.Err() != nil }}
		ro.Trace = func(e *model.TraceEvent) { collect(simRun, e, logNames, failStages) }
		if _, err := c.Run(ro); err != nil {
			if errors.Is(err, model.ErrInterrupted) {
				return withCode(exitInterrupt, errors.New("check interrupted; no output written"))
			}
			return usageErr("%v", err)
		}
	}
	// The lines are those of the scenario, of the runs and of the
	// recording together: a route, stage or journey on one side only is a
	// line that fails, not one left out. A run at a tiny multiplier calls
	// no route, and a recording of another scenario holds none of this
	// one's; each must be seen to differ.
	routes := journeyRoutes(c.Graph())
	for name := range simRun.Routes {
		routes[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(patterns)) {
		if !routes[name] {
			return usageErr("--route %s: the scenario has no route %s that a journey calls", name, name)
		}
	}
	for name := range routes {
		if _, ok := patterns[name]; !ok {
			patterns[name] = "/" + name
		}
	}
	in := check.Inputs{Access: access, Clients: clients, App: opts.App, Routes: patterns, StageField: opts.StageField, FailureStages: failStages}
	if len(opts.Access) == 0 {
		in.Routes = nil
	}
	stages, journeys := maps.Clone(logNames), map[string]bool{}
	for name := range simRun.Journeys {
		journeys[name] = true
	}
	for _, j := range l.Scenario.Journeys.Items {
		journeys[j.Name] = true
	}
	if appEvents != nil {
		for name := range appEvents.Stages {
			stages[name] = true
		}
		for name := range appEvents.Outcomes {
			if !stages[name] {
				journeys[name] = true
			}
		}
	}
	in.Stages = slices.Sorted(maps.Keys(stages))
	in.Journeys = slices.Sorted(maps.Keys(journeys))
	rec, err := check.Read(in)
	if err != nil {
		return usageErr("%v", err)
	}
	// Only what the recording can say is compared: no access log, no
	// route lines; no application log, no stage or journey lines.
	if len(opts.Access) == 0 {
		simRun.Routes = map[string]*check.Timings{}
	}
	if len(opts.App) == 0 {
		simRun.Stages, simRun.Journeys = map[string]*check.Timings{}, map[string]*check.Outcome{}
	}
	rep := check.Compare(rec, simRun, rec.Source, check.Rules{Alpha: opts.Alpha, Tolerance: tol, RateTolerance: rateTol, Resolution: opts.Resolution.Seconds()})
	if len(rep.Timings)+len(rep.Rates) == 0 {
		// No line failed because there was no line: that is no match.
		return usageErr("nothing to compare: neither the scenario, its runs nor the logs hold a route, stage or journey the logs given could time or count")
	}
	// The folder is complete before anything is printed: a reader that
	// closes stdout early (| head) must not cost it.
	if opts.Out != "" {
		if err := writeCheckFolder(opts, rep); err != nil {
			return err
		}
	}
	writeCheckText(io, rep)
	if n := rep.Failed(); n > 0 {
		lines := "lines"
		if n == 1 {
			lines = "line"
		}
		return withCode(exitMismatch, fmt.Errorf("the model does not match the recording: %d %s failed", n, lines))
	}
	return nil
}

var (
	checkTimeCols = []texttab.Column{{Name: ""}, {Name: "line", Min: 16}, {Name: "n rec", Align: texttab.Right, Drop: 3},
		{Name: "n sim", Align: texttab.Right, Drop: 3}, {Name: "mean rec", Align: texttab.Right}, {Name: "mean sim", Align: texttab.Right},
		{Name: "p95 rec", Align: texttab.Right, Drop: 2}, {Name: "p95 sim", Align: texttab.Right, Drop: 2}, {Name: "KS", Align: texttab.Right, Drop: 1}}
	checkRateCols = []texttab.Column{{Name: ""}, {Name: "journey or route", Min: 12}, {Name: "measure", Min: 12},
		{Name: "n rec", Align: texttab.Right, Drop: 2}, {Name: "n sim", Align: texttab.Right, Drop: 2},
		{Name: "recorded", Align: texttab.Right}, {Name: "simulated", Align: texttab.Right}, {Name: "z", Align: texttab.Right, Drop: 1}}
)

// writeCheckText writes the report for a person: the two tables, each
// failed line with its reason, the verdict and the rules.
func writeCheckText(io *IOStreams, rep *check.Report) {
	w, width := io.Out, io.width()
	fmt.Fprintf(w, "Times (%d lines)\n", len(rep.Timings))
	t := texttab.Table{Cols: checkTimeCols}
	for _, l := range rep.Timings {
		ks := "-"
		if l.NRecorded > 0 && l.NSimulated > 0 {
			ks = strconv.FormatFloat(l.KS, 'f', 3, 64)
		}
		t.Row(l.Verdict, l.Label(), strconv.Itoa(l.NRecorded), strconv.Itoa(l.NSimulated), check.Seconds(l.Mean[0].Value),
			check.Seconds(l.Mean[1].Value), check.Seconds(l.P95[0].Value), check.Seconds(l.P95[1].Value), ks)
	}
	t.Write(w, width, seeAll)
	fmt.Fprintf(w, "\nRates (%d lines)\n", len(rep.Rates))
	t = texttab.Table{Cols: checkRateCols}
	for _, l := range rep.Rates {
		t.Row(l.Verdict, l.Kind+" "+l.Name, l.Measure, strconv.Itoa(l.NRecorded), strconv.Itoa(l.NSimulated),
			check.Percent(l.Rate[0].Value), check.Percent(l.Rate[1].Value), strconv.FormatFloat(l.Z, 'f', 2, 64))
	}
	t.Write(w, width, seeAll)
	fmt.Fprintln(w)
	for _, l := range rep.Timings {
		if l.Verdict == check.Fail {
			texttab.WriteLines(w, texttab.Hang("FAIL ", l.Label(), "     ", width))
			texttab.WriteLines(w, texttab.Hang("     ", l.Why, "     ", width))
		}
	}
	for _, l := range rep.Rates {
		if l.Verdict == check.Fail {
			texttab.WriteLines(w, texttab.Hang("FAIL ", l.Kind+" "+l.Name+" "+l.Measure, "     ", width))
			texttab.WriteLines(w, texttab.Hang("     ", l.Why, "     ", width))
		}
	}
	texttab.WriteLines(w, texttab.Hang("", rep.Verdict(), "  ", width))
	for _, r := range rep.RulesText() {
		texttab.WriteLines(w, texttab.Hang("", r, "  ", width))
	}
}

// recordedStarts reads the recorded journeys' starts, as simulated times
// from the first of them.
func recordedStarts(l *model.Loaded, app []string) (map[string][]sim.Time, error) {
	if len(app) == 0 {
		return nil, usageErr("--replay reads the journeys' starts from their outcome events: give --app FILE")
	}
	var names []string
	for _, j := range l.Scenario.Journeys.Items {
		names = append(names, j.Name)
	}
	starts, err := check.Starts(app, names)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	origin := math.Inf(1)
	for _, ts := range starts {
		if len(ts) > 0 {
			origin = min(origin, ts[0])
		}
	}
	if math.IsInf(origin, 1) {
		return nil, usageErr("--replay: the application logs hold no outcome event of any journey (%s) with a time", strings.Join(names, ", "))
	}
	replay := map[string][]sim.Time{}
	for name, ts := range starts {
		for _, t := range ts {
			replay[name] = append(replay[name], sim.Seconds(t-origin))
		}
	}
	return replay, nil
}

// accessLogs splits --access into the access logs it names and the load
// drivers' logs of the sources files among them: a YAML file of sources:,
// each a file relative to it, those with fields: a driver's JSON lines.
func accessLogs(files []string) ([]string, []check.Client, error) {
	var access []string
	var clients []check.Client
	for _, f := range files {
		if !isPlanFile(f) {
			access = append(access, f)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, usageErr("%s: %v", f, unwrapPath(err))
		}
		srcs, err := calibration.ReadSources(f, bytes.NewReader(data))
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		for _, src := range srcs {
			path := src.File
			if !filepath.IsAbs(path) {
				path = filepath.Join(filepath.Dir(f), path)
			}
			if src.Fields == nil {
				access = append(access, path)
				continue
			}
			clients = append(clients, check.Client{Name: src.Name, File: path, Fields: *src.Fields})
		}
	}
	return access, clients, nil
}

// exitMismatch is check's verdict that the model does not match: the same
// code as a broken SLO, a test the model failed.
const exitMismatch = exitSLOFailed

// collect adds one simulated event to the run it is compared as.
func collect(sim *check.Run, e *model.TraceEvent, logNames map[string]bool, failStages map[string][]string) {
	switch {
	case e.Event == model.EvRequestEnd && e.Edge:
		t := sim.Route(e.Route)
		t.Values = append(t.Values, e.Duration)
		t.Total++
		if e.Status >= 400 {
			t.Failed++
		}
	case e.Event == model.EvJourneyEnd:
		o := sim.Journey(e.Journey)
		o.Ended++
		if e.Result == "success" {
			o.Succeeded++
		} else {
			o.Stages[e.Stage]++
			if !slices.Contains(failStages[e.Journey], e.Stage) {
				failStages[e.Journey] = append(failStages[e.Journey], e.Stage)
			}
		}
	case e.Since != "" && !strings.HasPrefix(e.Event, model.TracePrefix):
		logNames[e.Event] = true
		t := sim.Stage(e.Event)
		t.Values = append(t.Values, e.SinceS)
	}
}

func writeCheckFolder(opts *checkOptions, rep *check.Report) error {
	out, err := createOutDirOf(opts.Out, checkNames, "check")
	if err != nil {
		return err
	}
	defer out.Abort()
	charts := map[string]string{}
	for _, l := range rep.Timings {
		if len(l.Recorded) == 0 || len(l.Simulated) == 0 {
			continue
		}
		sim := l.Simulated
		qq := plots.QQ{Title: l.Label(), XLabel: "simulated quantile (s)", YLabel: "recorded quantile (s)", Observed: l.Recorded,
			Quantile: func(p float64) float64 { return sim[min(len(sim)-1, int(p*float64(len(sim))))] }}
		svg, err := qq.Render(plots.SVG, 12, 10)
		if err != nil {
			return withCode(exitError, err)
		}
		name := "charts/qq-" + l.Slug() + ".svg"
		if err := out.write(name, svg); err != nil {
			return err
		}
		charts[l.Slug()] = name
	}
	scenario := opts.Scenario
	if scenario == "" {
		scenario = "trip"
	}
	settings := []string{
		"scenario " + scenario + designSetting(opts.Design),
		loadSetting(opts),
		"access logs: " + listOrNone(opts.Access),
		"application logs: " + listOrNone(opts.App) + " (stage times from field " + opts.StageField + ")",
	}
	for _, s := range opts.Sets {
		settings = append(settings, "--set "+s)
	}
	for _, s := range opts.Scales {
		settings = append(settings, "--scale "+s)
	}
	if err := out.write("report.md", rep.Markdown("capsim check", settings, charts)); err != nil {
		return err
	}
	if err := out.write("check.csv", rep.CSV()); err != nil {
		return err
	}
	return out.Commit()
}

func loadSetting(opts *checkOptions) string {
	if opts.Replay {
		return fmt.Sprintf("the journeys started at the recorded starts (--replay), %d replications from seed %d", opts.Replications, opts.Seed)
	}
	return fmt.Sprintf("multiplier %g, %d replications from seed %d, the scenario's own load schedule", opts.Multiplier, opts.Replications, opts.Seed)
}

func designSetting(d string) string {
	if d == "" {
		return ""
	}
	return ", design " + d
}

func listOrNone(files []string) string {
	if len(files) == 0 {
		return "none"
	}
	return strings.Join(files, ", ")
}

// journeyRoutes lists the routes a journey's steps call (or start or poll a
// job on): those whose requests reach an access log.
func journeyRoutes(g model.Graph) map[string]bool {
	routes := map[string]bool{}
	for _, e := range g.Edges {
		if e.From.Layer == model.LayerJourney && e.To.Layer == model.LayerRoute {
			routes[e.To.Name] = true
		}
	}
	return routes
}
