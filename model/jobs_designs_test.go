package model_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"capsim/model"
)

const composeYAML = `
name: compose
duration: 10s
arrivals: even
components:
  app: {kind: pool, servers: 1}
journeys:
  visit:
    rate: 1/s
    steps: [{use: app, work: 100ms}]
designs:
  bigger: {components: {app: {servers: 4}}}
  smaller: {components: {app: {servers: 2}}}
  busier: {journeys: {visit: {rate: 2/s}}}
  cached: {components: {cache: {kind: pool, servers: 1}}}
  bigcache: {components: {cache: {servers: 3}}}
`

func loadCompose(t *testing.T, design string) (*model.Loaded, error) {
	t.Helper()
	fsys := fstest.MapFS{"compose.yaml": {Data: []byte(composeYAML)}}
	return model.Load(fsys, "compose.yaml", model.LoadOptions{Design: design})
}

// Designs joined with + apply left to right, each over the result of the
// ones before.
func TestDesignsCompose(t *testing.T) {
	l, err := loadCompose(t, "bigger+busier")
	if err != nil {
		t.Fatal(err)
	}
	app, _ := l.Scenario.Components.Get("app")
	visit, _ := l.Scenario.Journeys.Get("visit")
	if *app.Spec.(*model.PoolSpec).Servers != 4 || visit.Rate.PerSecond != 2 {
		t.Errorf("bigger+busier: servers %d, rate %g/s; want 4 and 2/s", *app.Spec.(*model.PoolSpec).Servers, visit.Rate.PerSecond)
	}
	if l.Design != "bigger+busier" {
		t.Errorf("design name %q, want bigger+busier", l.Design)
	}

	l, err = loadCompose(t, "bigger+smaller")
	if err != nil {
		t.Fatal(err)
	}
	if app, _ := l.Scenario.Components.Get("app"); *app.Spec.(*model.PoolSpec).Servers != 2 {
		t.Errorf("bigger+smaller: servers %d, want 2 (the later design wins)", *app.Spec.(*model.PoolSpec).Servers)
	}

	// A later design may change what an earlier one added, without
	// changing the earlier design's own definition.
	l, err = loadCompose(t, "cached+bigcache")
	if err != nil {
		t.Fatal(err)
	}
	if cache, ok := l.Scenario.Components.Get("cache"); !ok || *cache.Spec.(*model.PoolSpec).Servers != 3 {
		t.Fatalf("cached+bigcache: cache %+v, want servers 3", cache)
	}
	cached, _ := l.Scenario.Designs.Get("cached")
	var def struct {
		Components map[string]struct{ Servers int } `yaml:"components"`
	}
	if err := cached.Node.Decode(&def); err != nil {
		t.Fatal(err)
	}
	if def.Components["cache"].Servers != 1 {
		t.Errorf("design cached now says servers %d, want its own 1", def.Components["cache"].Servers)
	}

	_, err = loadCompose(t, "bigger+nosuch")
	if err == nil || !strings.Contains(err.Error(), `unknown design "nosuch" (available: bigger, smaller, busier, cached, bigcache)`) {
		t.Errorf("bigger+nosuch: error %v, want it to name the unknown design", err)
	}
}

const asyncYAML = `
name: async
duration: 1s
arrivals: even
journeys:
  polled:
    rate: 1/s
    count: 1
    steps:
      - job: save
        async: true
      - poll: {call: status, every: 1s, until: jobs}
        stage: waiting
  awaited:
    rate: 1/s
    count: 1
    steps:
      - job: save
        async: true
      - await: jobs
  fine:
    rate: 1/s
    count: 1
    steps:
      - call: status
      - job: saved
        async: true
      - await: jobs
routes:
  save:
    steps:
      - work: 3s
      - stage: result_persist
      - fail: {p: 1, status: 500}
  saved:
    steps: [{work: 3s}]
  status:
    steps: [{work: 1ms}]
`

// A client that waits for its async jobs learns that one failed: the wait
// fails with the job's status and stage. A journey whose jobs succeed is
// not affected.
func TestAsyncJobFailureReachesTheWait(t *testing.T) {
	c := compileIn(t, fstest.MapFS{"async.yaml": {Data: []byte(asyncYAML)}}, "async.yaml", model.LoadOptions{})
	var ends []model.TraceEvent
	var starts []model.TraceEvent
	res := mustRun(t, c, model.RunOptions{Seed: 1, Trace: func(e *model.TraceEvent) {
		switch e.Event {
		case model.EvJourneyEnd:
			ends = append(ends, *e)
		case "capsim.request_start", "capsim.job_start":
			if e.Journey == "fine" {
				starts = append(starts, *e)
			}
		}
	}})
	want := map[string][]model.StageResult{
		"polled":  {{Stage: "result_persist", Count: 1}},
		"awaited": {{Stage: "result_persist", Count: 1}},
		"fine":    nil,
	}
	for _, j := range res.Journeys {
		if j.Started != 1 || len(j.Stages) != len(want[j.Name]) || len(j.Stages) == 1 && j.Stages[0] != want[j.Name][0] {
			t.Errorf("%s: started %d, failures %v; want %v", j.Name, j.Started, j.Stages, want[j.Name])
		}
	}
	for _, e := range ends {
		if e.Journey != "fine" && (e.Status != 500 || e.Stage != "result_persist") {
			t.Errorf("%s ended with status %d at %q, want 500 at result_persist", e.Journey, e.Status, e.Stage)
		}
	}

	// The journey's end names the last request and job it made, as an
	// application's outcome log line does.
	if len(starts) != 2 || len(ends) != 3 {
		t.Fatalf("trace: %d starts of journey fine, %d journey ends; want 2 and 3", len(starts), len(ends))
	}
	for _, e := range ends {
		if e.Journey == "fine" && (e.RequestID != starts[0].RequestID || e.JobID != starts[1].JobID || e.JobID == 0) {
			t.Errorf("fine ended with request_id %d, job_id %d; want %d and %d", e.RequestID, e.JobID, starts[0].RequestID, starts[1].JobID)
		}
	}
}
