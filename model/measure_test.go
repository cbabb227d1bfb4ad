package model

import (
	"bytes"
	"encoding/gob"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A key's name is written as the CSVs have always written it, dots in the
// names of journeys, routes and components included.
func TestMetricKeyNames(t *testing.T) {
	replicaPicks, _ := MeasureNamed(SubjectReplica, "picks_count")
	cases := []struct {
		key                         MetricKey
		name, kind, entity, measure string
	}{
		{BrokenCount.OfRun(), "broken_count", "run", "", "broken_count"},
		{JourneyP95.Of("trip"), "journey.trip.p95_s", "journey", "trip", "p95_s"},
		{JourneySuccessRate.Of("v1.trip"), "journey.v1.trip.journey_success_rate", "journey", "v1.trip", "journey_success_rate"},
		{FailedAt.OfStage("trip", "upload"), "journey.trip.failed_at.upload_count", "journey", "trip", "failed_at_count"},
		{RouteP95.Of("GET /a.b"), "route.GET /a.b.p95_s", "route", "GET /a.b", "p95_s"},
		{replicaPicks.OfReplica("lb", 0), "component.lb.replica.0.picks_count", "component", "lb.replica.0", "picks_count"},
	}
	for _, c := range cases {
		k := c.key
		if k.Name() != c.name || k.Subject().Kind() != c.kind || k.EntityName() != c.entity || k.Measure.Name() != c.measure {
			t.Errorf("%+v: %q %q %q %q, want %q %q %q %q", k, k.Name(), k.Subject().Kind(), k.EntityName(), k.Measure.Name(),
				c.name, c.kind, c.entity, c.measure)
		}
	}
	// Names that would read alike keep their keys apart.
	if JourneyStarted.Of("a.failed_at.b") == FailedAt.OfStage("a", "b.started") {
		t.Error("a journey's measure and another's stage count share a key")
	}
}

// Every measure is found again by its subject and name, as a shard reads
// it back, kinds' own included; each name ends in its unit.
func TestMeasureVocabulary(t *testing.T) {
	all := Measures()
	var listed []Measure
	listed = append(listed, runMeasures...)
	listed = append(listed, journeyMeasures...)
	listed = append(listed, routeMeasures...)
	listed = append(listed, componentMeasures...)
	listed = append(listed, componentTail...)
	for _, k := range kinds {
		listed = append(listed, k.measures...)
	}
	for _, m := range listed {
		if !slices.Contains(all, m) {
			t.Errorf("%s is not in the vocabulary", m)
		}
		if got, ok := MeasureNamed(m.Subject(), m.Name()); !ok || got != m {
			t.Errorf("%s: MeasureNamed gives %v, %v: two measures share a subject and name", m, got, ok)
		}
		if !strings.HasSuffix(m.Name(), m.Unit().Suffix()) || m.Unit() == UnitNone {
			t.Errorf("%s does not end in its unit %q", m, m.Unit().Suffix())
		}
		if r, ok := m.Rate(); ok {
			if m.Unit() != UnitFraction || r.Counted == "" || r.N.Subject() != m.Subject() {
				t.Errorf("%s: a counted rate must be a fraction of its own subject's counts, saying what it counts", m)
			}
			for _, k := range r.K {
				if k.Subject() != m.Subject() || k.Unit() != UnitCount {
					t.Errorf("%s counts %s", m, k)
				}
			}
		}
	}
	if _, ok := MeasureNamed(SubjectJourney, "nosuch_count"); ok {
		t.Error("found a measure never defined")
	}
	var zero Measure
	if zero.Name() != "" || zero.Unit() != UnitNone || zero.SLOKey() != "" || zero.Sparse() {
		t.Error("the zero measure answers with something")
	}
}

// Every SLO key has its field in SLO and a measure of some subject; every
// measure that names an SLO key is in the table, and the table's counts
// and readers agree with the metrics a run lists.
func TestSLOMeasuresFromTheVocabulary(t *testing.T) {
	keys := map[string]bool{}
	for _, sm := range sloMeasures {
		keys[sm.key] = true
		if _, ok := sloField[sm.key]; !ok {
			t.Errorf("SLO key %s has no field in SLO", sm.key)
		}
		if sm.journey == nil && sm.route == nil && sm.component == nil {
			t.Errorf("SLO key %s bounds no measure", sm.key)
		}
	}
	for _, m := range Measures() {
		if k := m.SLOKey(); k != "" && !keys[k] {
			t.Errorf("%s names SLO key %s, which sloKeys lacks", m, k)
		}
	}
	j := &JourneyResult{Started: 10, Succeeded: 7, SuccessRate: 0.7, Requests: 20, RequestFailures: 3, HTTPFailureRate: 0.15}
	c := &ComponentResult{Offered: 8, Rejected: 1, TimedOut: 2}
	for _, sm := range sloMeasures {
		var k, n int64
		switch sm.key {
		case "success_rate":
			k, n = sm.counts(j, nil, nil)
			if k != 7 || n != 10 {
				t.Errorf("success_rate counts %d of %d", k, n)
			}
		case "failure_rate":
			k, n = sm.counts(j, nil, nil)
			if k != 3 || n != 10 {
				t.Errorf("failure_rate counts %d of %d", k, n)
			}
			if k, n = sm.counts(nil, &RouteResult{Calls: 5, Failures: 2}, nil); k != 2 || n != 5 {
				t.Errorf("route failure_rate counts %d of %d", k, n)
			}
		case "http_failure_rate":
			if k, n = sm.counts(j, nil, nil); k != 3 || n != 20 {
				t.Errorf("http_failure_rate counts %d of %d", k, n)
			}
		case "rejection_rate":
			if k, n = sm.counts(nil, nil, c); k != 3 || n != 8 {
				t.Errorf("rejection_rate counts %d of %d", k, n)
			}
		default:
			if sm.counts != nil {
				t.Errorf("%s counts, but is no rate of counted events", sm.key)
			}
		}
	}
}

// A metric's key crosses a gob stream, as a shard writes it, into the very
// same key; a stream naming a measure this version lacks is refused.
func TestMetricKeyGob(t *testing.T) {
	in := []Metric{
		{Key: JourneySuccessRate.Of("a.b"), Value: 0.5, K: 1, N: 2},
		{Key: FailedAt.OfStage("a", "pay"), Value: 3, Sparse: true},
		{Key: BrokenCount.OfRun()},
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(in); err != nil {
		t.Fatal(err)
	}
	var out []Metric
	if err := gob.NewDecoder(&b).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) || out[0].Key != in[0].Key {
		t.Errorf("read back %+v, want %+v", out, in)
	}
	var m Measure
	if err := m.GobDecode(append([]byte{byte(SubjectJourney)}, "nosuch_count"...)); err == nil {
		t.Error("an unknown measure was read")
	}
	if err := m.GobDecode([]byte{200, 'x'}); err == nil {
		t.Error("a measure of an unknown subject was read")
	}
}

// An interval is kept to the values its unit can take, and only there.
func TestUnitClampKeepsAnIntervalWithinItsUnit(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		u              Unit
		lo, hi, wl, wh float64
	}{
		{UnitFraction, -0.2, 1.3, 0, 1},
		{UnitFraction, 0.1, 0.9, 0.1, 0.9},
		{UnitSeconds, -1, 5, 0, 5},
		{UnitCount, -3, -1, 0, -1},
		{UnitPerSecond, -1, math.Inf(1), 0, math.Inf(1)},
		{UnitRatio, -0.5, 2, 0, 2},
		{UnitNone, -4, 4, -4, 4},
		{UnitFraction, nan, nan, nan, nan},
	} {
		lo, hi := c.u.Clamp(c.lo, c.hi)
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if !same(lo, c.wl) || !same(hi, c.wh) {
			t.Errorf("%v.Clamp(%g, %g) = %g, %g; want %g, %g", c.u.Suffix(), c.lo, c.hi, lo, hi, c.wl, c.wh)
		}
	}
}

// A flag, 1 or 0 in each run, is a share of runs over them: its interval
// stops at 1 (a t interval of 4 overloaded runs in 5 reaches 1.36). Other
// counts keep only their unit's floor.
func TestFlagMeasuresStopAtOne(t *testing.T) {
	for _, c := range []struct {
		m              Measure
		lo, hi, wl, wh float64
	}{
		{Overloaded, 0.245, 1.355, 0.245, 1},
		{BrokenCount, -0.355, 1.355, 0, 1},
		{SLOsBroken, -0.5, 2.5, 0, 2.5},
		{JourneyStarted, -1, 1e6, 0, 1e6},
	} {
		if lo, hi := c.m.Clamp(c.lo, c.hi); lo != c.wl || hi != c.wh {
			t.Errorf("%s.Clamp(%g, %g) = %g, %g; want %g, %g", c.m.Name(), c.lo, c.hi, lo, hi, c.wl, c.wh)
		}
	}
}
