package calibration

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxSummaryBytes bounds how much of a summary is read; real ones are a few
// hundred kilobytes.
const maxSummaryBytes = 64 << 20

// k6 end-of-test summaries come in three shapes, told apart by their keys:
//
//   - --summary-export=FILE (deprecated but common): {"root_group": ...,
//     "metrics": {"http_req_duration": {"avg": ..., "med": ..., "p(95)": ...}}},
//     each metric's statistics directly under its name;
//   - the data handed to handleSummary(), as scripts write it with
//     JSON.stringify(data): {"root_group", "options", "state", "metrics":
//     {"http_req_duration": {"type": "trend", "contains": "time",
//     "values": {...}}}};
//   - the versioned machine-readable summary (k6 1.5+,
//     --new-machine-readable-summary): {"version", "metadata", "config",
//     "results": {"metrics": [{"name", "type", "contains", "category",
//     "values": {..., "count"}}]}}.
//
// Submetrics appear under names such as
// "http_req_duration{expected_response:true}" in all three.

type k6SummaryMetric struct {
	Type     string             `json:"type"`
	Contains string             `json:"contains"`
	Values   map[string]float64 `json:"values"`
}

// ReadK6Summary reads the figures of one metric (default http_req_duration)
// from a k6 end-of-test summary. The filter selects a submetric: its tags
// (and a route, matched against the name tag, and a status) must be exactly
// the submetric's tags. A time window cannot apply to a summary.
func ReadK6Summary(name string, r io.Reader, metric string, f Filter) (Figures, error) {
	if metric == "" {
		metric = DefaultK6Metric
	}
	if !f.Since.IsZero() || !f.Until.IsZero() {
		return Figures{}, fmt.Errorf("%s is an end-of-test summary: a time window cannot select from it", name)
	}
	data, err := io.ReadAll(io.LimitReader(r, maxSummaryBytes))
	if err != nil {
		return Figures{}, fmt.Errorf("%s: %w", name, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Figures{}, fmt.Errorf("%s: invalid JSON: %s", name, jsonErrText(err))
	}
	metrics, shape, err := summaryMetrics(top)
	if err != nil {
		return Figures{}, fmt.Errorf("%s: %v", name, err)
	}
	key, err := selectSubmetric(metrics, metric, f)
	if err != nil {
		return Figures{}, fmt.Errorf("%s: %v", name, err)
	}
	m := metrics[key]
	if m.Type != "" && m.Type != "trend" {
		return Figures{}, fmt.Errorf("%s: %s is a %s, not a trend of durations", name, key, m.Type)
	}
	unit := k6Millisecond
	if m.Contains != "" && m.Contains != "time" {
		return Figures{}, fmt.Errorf("%s: %s holds %s values, not times", name, key, m.Contains)
	}
	fig := NewFigures()
	get := func(k string) float64 {
		if v, ok := m.Values[k]; ok {
			return v * float64(unit)
		}
		return math.NaN()
	}
	fig.Mean, fig.P50, fig.P90, fig.P95, fig.P99 = get("avg"), get("med"), get("p(90)"), get("p(95)"), get("p(99)")
	fig.Min, fig.Max = get("min"), get("max")
	if c, ok := m.Values["count"]; ok {
		fig.Count = int(c)
	}
	fig.Ref = fmt.Sprintf("k6 %s %s", shape, key)
	if !has(fig.Mean) && !has(fig.P50) && !has(fig.P95) {
		return Figures{}, fmt.Errorf("%s: %s has none of avg, med, p(95)", name, key)
	}
	return fig, nil
}

// summaryMetrics finds the metrics of any of the three shapes.
func summaryMetrics(top map[string]json.RawMessage) (map[string]k6SummaryMetric, string, error) {
	if results, ok := top["results"]; ok {
		var r struct {
			Metrics []struct {
				Name string `json:"name"`
				k6SummaryMetric
			} `json:"metrics"`
		}
		if err := json.Unmarshal(results, &r); err != nil {
			return nil, "", fmt.Errorf("results: %s", jsonErrText(err))
		}
		out := make(map[string]k6SummaryMetric, len(r.Metrics))
		for _, m := range r.Metrics {
			out[m.Name] = m.k6SummaryMetric
		}
		return out, "summary v1", nil
	}
	raw, ok := top["metrics"]
	if !ok {
		return nil, "", fmt.Errorf("neither metrics nor results: not a k6 end-of-test summary")
	}
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byName); err != nil {
		return nil, "", fmt.Errorf("metrics: %s", jsonErrText(err))
	}
	out := make(map[string]k6SummaryMetric, len(byName))
	shape := "summary-export"
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		v := byName[k]
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(v, &fields); err != nil {
			return nil, "", fmt.Errorf("metrics.%s: %s", k, jsonErrText(err))
		}
		if _, nested := fields["values"]; nested {
			shape = "handleSummary data"
			var m k6SummaryMetric
			if err := json.Unmarshal(v, &m); err != nil {
				return nil, "", fmt.Errorf("metrics.%s: %s", k, jsonErrText(err))
			}
			out[k] = m
			continue
		}
		// The export's flat form mixes numbers with "thresholds"; keep the
		// numbers.
		m := k6SummaryMetric{Values: map[string]float64{}}
		for sk, sv := range fields {
			if f, err := strconv.ParseFloat(string(sv), 64); err == nil {
				m.Values[sk] = f
			}
		}
		out[k] = m
	}
	return out, shape, nil
}

// selectSubmetric returns the key of metric, or of its submetric whose tag
// set is exactly what the filter asks for.
//
// metric may name a submetric as the summary writes it,
// http_req_duration{expected_response:true}: its tags are then asked for as
// if given by the filter.
func selectSubmetric(metrics map[string]k6SummaryMetric, metric string, f Filter) (string, error) {
	want := map[string]string{}
	for _, t := range f.Tags {
		want[t.Key] = t.Value
	}
	if strings.Contains(metric, "{") {
		base, tags := splitSubmetric(metric)
		for k, v := range tags {
			if w, ok := want[k]; ok && w != v {
				return "", fmt.Errorf("metric %s has %s:%s but the filter asks for %s=%s", metric, k, v, k, w)
			}
			want[k] = v
			f.Tags = append(f.Tags, Tag{k, v})
		}
		metric = base
	}
	if len(f.Status) > 1 {
		return "", fmt.Errorf("a summary's submetric has one status; got %s", strings.Join(f.Status, ","))
	}
	if len(f.Status) == 1 {
		want["status"] = f.Status[0]
	}
	var route *matcher
	if f.Route != "" {
		m, err := (Filter{Route: f.Route}).compile()
		if err != nil {
			return "", err
		}
		route = m
	}
	var found []string
	var available []string
	for key := range metrics {
		base, tags := splitSubmetric(key)
		if base != metric {
			continue
		}
		available = append(available, key)
		n := len(want)
		if route != nil {
			n++
		}
		if len(tags) != n {
			continue
		}
		ok := true
		for k, v := range want {
			if tags[k] != v {
				ok = false
			}
		}
		if route != nil {
			nm, present := tags["name"]
			ok = ok && present && route.match(&record{name: nm, time: math.NaN()})
		}
		if ok {
			found = append(found, key)
		}
	}
	slices.Sort(found)
	slices.Sort(available)
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", fmt.Errorf("the filter selects several submetrics: %s", strings.Join(found, ", "))
	case len(available) == 0:
		names := slices.Sorted(maps.Keys(metrics))
		return "", fmt.Errorf("no metric %s (the summary has %s)", metric, strings.Join(names, ", "))
	}
	return "", fmt.Errorf("no submetric of %s matches filter %q (the summary has %s)", metric, f.String(), strings.Join(available, ", "))
}

// splitSubmetric splits "http_req_duration{expected_response:true,name:x}"
// into the metric name and its tags.
func splitSubmetric(key string) (string, map[string]string) {
	base, rest, ok := strings.Cut(key, "{")
	tags := map[string]string{}
	if !ok {
		return key, tags
	}
	rest = strings.TrimSuffix(rest, "}")
	for pair := range strings.SplitSeq(rest, ",") {
		if k, v, ok := strings.Cut(pair, ":"); ok {
			tags[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return base, tags
}
