package calibration

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestExprEval(t *testing.T) {
	t.Parallel()
	fields := map[string]float64{"driver.duration_ms": 52.5, "app.handler_ms": 50, "hold_ms": 120, "sleeps": 4, "to.time": 12.5, "from.time": 11.25}
	get := func(ref string) (float64, error) {
		v, ok := fields[ref]
		if !ok {
			return 0, fmt.Errorf("%s: no such field", ref)
		}
		return v, nil
	}
	for in, want := range map[string]float64{
		"driver.duration_ms - app.handler_ms": 2.5,
		"hold_ms / sleeps":                    30,
		"(to.time - from.time) * 1000 - 250":  1000,
		"to.time - from.time * 2":             -10,
		"-hold_ms + 2 * (3 - 1) / 4":          -119,
		"1.5e3 / 10 - -2":                     152,
		"hold_ms / sleeps / 2":                15,
		"12 - 4 - 3":                          5,
	} {
		e, err := ParseExpr(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		got, err := e.Eval(get)
		if err != nil || got != want {
			t.Errorf("%q = %v, %v; want %v", in, got, err, want)
		}
	}
	e, _ := ParseExpr("hold_ms / (sleeps - 4)")
	if _, err := e.Eval(get); err == nil || err.Error() != "division by zero" {
		t.Errorf("division by zero: %v", err)
	}
	if got := strings.Join(e.Refs(), ","); got != "hold_ms,sleeps" {
		t.Errorf("refs %s", got)
	}
}

func TestExprErrors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                 `expression "", at column 1: expected a number, a field or ( but found end of expression`,
		"a -":              `expression "a -", at column 4: expected a number, a field or ( but found end of expression`,
		"(a - b":           `expression "(a - b", at column 7: expected ) but found end of expression`,
		"a b":              `expression "a b", at column 3: unexpected "b"`,
		"a % b":            `expression "a % b", at column 3: unexpected character "%"`,
		"app. - x":         `expression "app. - x", at column 1: field "app." is not a name such as app.handler_ms`,
		"1.2.3 + a":        `expression "1.2.3 + a", at column 1: expected a number, a field or ( but found character "1.2.3"`,
		"a * (b - c)) + d": `expression "a * (b - c)) + d", at column 12: unexpected ")"`,
		"a[].b[].c_ms":     `expression "a[].b[].c_ms", at column 1: field "a[].b[].c_ms" reads an array within an array: one value per element needs one array`,
		"a[]b":             `expression "a[]b", at column 1: field "a[]b": an array is written name[] followed by . or the end of the name, such as thumbs[].ms`,
		"a.[].b":           `expression "a.[].b", at column 1: field "a.[].b": an array is written name[] followed by . or the end of the name, such as thumbs[].ms`,
		"a] + 1":           `expression "a] + 1", at column 1: field "a]": an array is written name[] followed by . or the end of the name, such as thumbs[].ms`,
	} {
		_, err := ParseExpr(in)
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", in, err, want)
		}
	}
}

func TestCondition(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cond, value string
		present     bool
		want        bool
	}{
		{"status == 2xx", "204", true, true},
		{"status == 2xx", "503", true, false},
		{"status != 2xx", "503", true, true},
		{"photos >= 10", "10", true, true},
		{"photos < 10", "9.5", true, true},
		{"photos > 10", "ten", true, false},
		{"event == 'request_done'", "request_done", true, true},
		{"ratio == 1", "1.0", true, true},
		{"path ~ /api/trips/*/photos", "/api/trips/7/photos?x=1", true, true},
		{"path ~ /api/trips/*/photos", "/api/trips/7/photos/1", true, false},
		{"error != timeout", "", false, true},
		{"error == timeout", "", false, false},
	} {
		cond, err := ParseCondition(c.cond)
		if err != nil {
			t.Errorf("%q: %v", c.cond, err)
			continue
		}
		if got := cond.match(c.value, c.present); got != c.want {
			t.Errorf("%q on %q: %v, want %v", c.cond, c.value, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"status 200":  `"status 200" is not FIELD OP VALUE (OP one of == != <= >= < > ~)`,
		"== 200":      `"== 200": "" is not a field name`,
		"a-b == 1":    `"a-b == 1": "a-b" is not a field name`,
		"path ~ ~[a-": "route \"~[a-\": error parsing regexp: missing closing ]: `[a-`",
	} {
		_, err := ParseCondition(in)
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", in, err, want)
		}
	}
}

// TestPlanErrors pins the messages of plans that cannot run, each with its
// line and column, all reported at once.
func TestPlanErrors(t *testing.T) {
	t.Parallel()
	plan := `sources:
  app: {file: app.jsonl, resolution: 1}
  ngx: {file: access.log, format: har}
measured:
  a: {from: nope, expr: x_ms}
  b: {from: [app, ngx], expr: handler_ms - request_time}
  c: {from: [app, ngx], key: request_id, expr: app.handler_ms - other.x}
  d: {from: app, expr: "x_ms +", colour: red}
  e: {from: app, expr: x_ms, dist: pareto, rank: bic}
`
	_, err := ReadPlan("plan.yaml", strings.NewReader(plan))
	want := `plan.yaml:2:38: source app: resolution: "1" has no unit (write for example 1s or 1ms)
plan.yaml:3:35: source ngx: unknown format "har" (want auto, k6-csv, k6-json, k6-summary, nginx-json, nginx-combined, applog, csv)
plan.yaml:5:13: a: from: no source named "nope" under sources:
plan.yaml:6:3: b: no key: (the field that ties the records of one request together, e.g. request_id)
plan.yaml:7:48: c: field "other.x" must name its record: app.other.x or ngx.other.x
plan.yaml:8:24: d: expression "x_ms +", at column 7: expected a number, a field or ( but found end of expression
plan.yaml:8:34: d: unknown key "colour" (want from, key, pairs, difference, where, expr, unit, dist, rank, per)
plan.yaml:9:36: e: dist: unknown family "pareto" (want lognormal, gamma, weibull, normal, exponential, lognormal+shift, exponential+shift, uniform or empirical)
plan.yaml:9:50: e: rank: want aic or ks, got "bic"`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

// TestExprBounds holds the parser to its depth and length bounds: a
// pasted file of minus signs or of terms is refused at once, with the
// bound, instead of recursing a million levels deep.
func TestExprBounds(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("-", MaxExprDepth) + "a"
	if _, err := ParseExpr(deep); err != nil {
		t.Errorf("%d minus signs: %v", MaxExprDepth, err)
	}
	nested := strings.Repeat("(", MaxExprDepth) + "a" + strings.Repeat(")", MaxExprDepth)
	if _, err := ParseExpr(nested); err != nil {
		t.Errorf("%d parentheses: %v", MaxExprDepth, err)
	}
	for _, c := range []struct{ in, want string }{
		{strings.Repeat("-", MaxExprDepth+1) + "a",
			`expression "` + strings.Repeat("-", 65) + `a", at column 65: nested more than 64 deep (unary minus and parentheses)`},
		{strings.Repeat("(", MaxExprDepth+1) + "a" + strings.Repeat(")", MaxExprDepth+1),
			`expression "` + strings.Repeat("(", 65) + "a" + strings.Repeat(")", 14) + `...", at column 65: nested more than 64 deep (unary minus and parentheses)`},
		{strings.Repeat("- (", 40) + "a" + strings.Repeat(")", 40),
			`expression "` + strings.Repeat("- (", 27)[:80] + `...", at column 97: nested more than 64 deep (unary minus and parentheses)`},
		{strings.Repeat("-", 2<<20),
			`expression "` + strings.Repeat("-", 80) + `...", at column 1: 2097152 characters long, more than the 4096 an expression may have`},
		{"a" + strings.Repeat("-a", 1<<20),
			`expression "a` + strings.Repeat("-a", 39) + `-...", at column 1: 2097153 characters long, more than the 4096 an expression may have`},
	} {
		start := time.Now()
		_, err := ParseExpr(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("%.20q (%d bytes):\n got %v\nwant %s", c.in, len(c.in), err, c.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%.20q took %v", c.in, d)
		}
	}
}

// A source's resolution is a log clock's unit: 0s (exact) to 1s. A
// negative one, or one that makes every time the same, is refused.
func TestPlanResolutionBounds(t *testing.T) {
	t.Parallel()
	for res, want := range map[string]string{
		"0s": "", "1s": "", "1ms": "",
		"-1ms":    `plan.yaml:2:38: source app: resolution must be between 0s (exact) and 1s, got -1ms`,
		"876000h": `plan.yaml:2:38: source app: resolution must be between 0s (exact) and 1s, got 876000h`,
	} {
		plan := "sources:\n  app: {file: app.jsonl, resolution: " + res + "}\nmeasured:\n  a: {from: app, expr: x_ms}\n"
		_, err := ReadPlan("plan.yaml", strings.NewReader(plan))
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
			t.Errorf("resolution %s: got %v, want %q", res, err, want)
		}
	}
}
