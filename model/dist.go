package model

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"capsim/sim"
	"go.yaml.in/yaml/v3"
)

// decodeNode accepts a bare distribution, {dist: ..., source: ...}, or a
// family with its parameters as keys, {family: ..., source: ...} (distfamily.go).
func (e *DistEntry) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		d.decode(n, reflect.ValueOf(&e.Dist).Elem(), path)
		return
	}
	if isFamilyForm(n) {
		text, at, msg := familyText(n)
		if msg != "" {
			d.fail(at, path+pathOfKey(n, at), "%s", msg)
			return
		}
		if err := e.Dist.parseScalar(text); err != nil {
			d.fail(n, path, "%v", err)
			return
		}
		if src := entry(n, "source"); src != nil {
			d.decode(src, reflect.ValueOf(&e.Source).Elem(), path+".source")
		}
		return
	}
	var full struct {
		Dist   *DistRef `yaml:"dist"`
		Source Raw      `yaml:"source"`
	}
	d.decode(n, reflect.ValueOf(&full).Elem(), path)
	if full.Dist == nil {
		if n.Kind == yaml.MappingNode {
			d.fail(n, path, "dist is required")
		}
		return
	}
	e.Dist, e.Source = *full.Dist, full.Source
}

// DistRef is a distribution as a scenario writes it: a literal such as
// lognormal(mean=0.56s, p95=0.9s), a bare duration (a constant), or the name
// of an entry under distributions: (often from a calibration file).
type DistRef struct {
	Text string
	Ref  string // set when Text names a distributions entry
	Dist sim.Dist
	// File is set for empirical(file=...), read when the scenario is loaded.
	File string
}

// CheckDistribution reads text as a scenario reads a distribution literal
// and holds it to the same bounds, for what writes distributions for
// scenarios to include (capsim calibrate) to refuse one that none could
// load, instead of leaving the error to the scenario.
func CheckDistribution(text string) error {
	var r DistRef
	return r.parseScalar(text)
}

func (r *DistRef) parseScalar(s string) error {
	s = strings.TrimSpace(s)
	*r = DistRef{Text: s}
	if s == "" {
		return fmt.Errorf("expected a distribution such as exponential(mean=1s), got nothing")
	}
	if !strings.Contains(s, "(") {
		if s[0] >= '0' && s[0] <= '9' || s[0] == '.' || s[0] == '-' {
			t, err := parseDuration(s)
			if err != nil {
				return err
			}
			r.Dist = sim.Constant(t.Seconds())
			return nil
		}
		if !validName(s) {
			return fmt.Errorf("expected a distribution such as exponential(mean=1s) or the name of one, got %q", s)
		}
		r.Ref = s
		return nil
	}
	d, file, err := parseDist(s)
	if err != nil {
		return err
	}
	if file != "" {
		if err := checkBeside(file); err != nil {
			return fmt.Errorf("empirical: %v", err)
		}
	} else if err := checkDist(d); err != nil {
		return fmt.Errorf("%s: %v", s[:strings.Index(s, "(")], err)
	}
	r.Dist, r.File = d, file
	return nil
}

// distArgs are the arguments of one distribution literal.
type distArgs struct {
	family string
	named  map[string]string
	order  []string // named keys in writing order, to report the first unknown
	pos    []string
}

func splitDist(s string) (distArgs, error) {
	open := strings.Index(s, "(")
	if !strings.HasSuffix(s, ")") {
		return distArgs{}, fmt.Errorf("distribution %q is missing its closing parenthesis (inside {...} a comma ends the value: quote it, \"%s, ...)\")", s, s)
	}
	a := distArgs{family: strings.TrimSpace(s[:open]), named: map[string]string{}}
	inner := strings.TrimSpace(s[open+1 : len(s)-1])
	if inner == "" {
		return a, nil
	}
	for _, part := range strings.Split(inner, ",") {
		part = strings.TrimSpace(part)
		if k, v, ok := strings.Cut(part, "="); ok {
			k = strings.TrimSpace(k)
			if _, dup := a.named[k]; dup {
				return a, fmt.Errorf("%s: parameter %s given twice", a.family, k)
			}
			a.named[k] = strings.TrimSpace(v)
			a.order = append(a.order, k)
			continue
		}
		a.pos = append(a.pos, part)
	}
	return a, nil
}

// seconds parses a time parameter, which must carry a unit.
func (a distArgs) seconds(key, v string) (float64, error) {
	t, err := parseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %v", a.family, key, err)
	}
	return t.Seconds(), nil
}

func (a distArgs) number(key, v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s must be a number, got %q", a.family, key, v)
	}
	return f, nil
}

// distForms is the one list of distribution forms: a family, the named
// parameters of one way to give it, and its constructor. A family's forms
// are tried in this order; the first whose keys are all present wins, and
// the error for a wrong set lists them all.
var distForms = []struct {
	family string
	params []string
	build  func(v map[string]float64) (sim.Dist, error)
}{
	{"constant", []string{"value"}, func(v map[string]float64) (sim.Dist, error) {
		if v["value"] < 0 {
			return sim.Dist{}, fmt.Errorf("constant: value must be >= 0")
		}
		return sim.Constant(v["value"]), nil
	}},
	{"uniform", []string{"min", "max"}, func(v map[string]float64) (sim.Dist, error) { return sim.Uniform(v["min"], v["max"]) }},
	{"exponential", []string{"mean"}, func(v map[string]float64) (sim.Dist, error) { return sim.Exponential(v["mean"]) }},
	{"exponential", []string{"rate"}, func(v map[string]float64) (sim.Dist, error) {
		if v["rate"] <= 0 {
			return sim.Dist{}, fmt.Errorf("exponential: rate must be > 0")
		}
		return sim.Exponential(1 / v["rate"])
	}},
	{"normal", []string{"mean", "sd"}, func(v map[string]float64) (sim.Dist, error) { return sim.Normal(v["mean"], v["sd"]) }},
	{"lognormal", []string{"mu", "sigma"}, func(v map[string]float64) (sim.Dist, error) { return sim.LogNormal(v["mu"], v["sigma"]) }},
	{"lognormal", []string{"mean", "p95"}, func(v map[string]float64) (sim.Dist, error) { return sim.LogNormalMeanP95(v["mean"], v["p95"]) }},
	{"lognormal", []string{"p50", "p95"}, func(v map[string]float64) (sim.Dist, error) { return sim.LogNormalP50P95(v["p50"], v["p95"]) }},
	{"lognormal", []string{"mean", "cv"}, func(v map[string]float64) (sim.Dist, error) { return sim.LogNormalMeanCV(v["mean"], v["cv"]) }},
	{"gamma", []string{"shape", "scale"}, func(v map[string]float64) (sim.Dist, error) { return sim.Gamma(v["shape"], v["scale"]) }},
	{"gamma", []string{"mean", "cv"}, func(v map[string]float64) (sim.Dist, error) { return sim.GammaMeanCV(v["mean"], v["cv"]) }},
	{"gamma", []string{"mean", "p95"}, func(v map[string]float64) (sim.Dist, error) { return sim.GammaMeanP95(v["mean"], v["p95"]) }},
	{"weibull", []string{"shape", "scale"}, func(v map[string]float64) (sim.Dist, error) { return sim.Weibull(v["shape"], v["scale"]) }},
	// The values of an empirical distribution are read by the compiler,
	// relative to the scenario's file.
	{"empirical", []string{"file"}, nil},
}

// formsOf lists the parameter sets of a family, in the order they are
// tried; nil for an unknown family.
func formsOf(family string) [][]string {
	var sets [][]string
	for _, f := range distForms {
		if f.family == family {
			sets = append(sets, f.params)
		}
	}
	return sets
}

func unknownFamily(family string) error {
	var fams []string
	for _, f := range distForms {
		if !slices.Contains(fams, f.family) {
			fams = append(fams, f.family)
		}
	}
	sort.Strings(fams)
	return fmt.Errorf("unknown distribution %q (expected one of: %s)", family, strings.Join(fams, ", "))
}

// timeParams are the parameters measured in seconds (written with a unit).
var timeParams = map[string]bool{"value": true, "min": true, "max": true, "mean": true, "sd": true,
	"p50": true, "p95": true, "scale": true, "shift": true}

// shiftParam is the parameter every family but those in unshifted may add
// to its form: a fixed time in every draw, the floor below which no draw
// falls (lognormal(mean=1s, cv=0.5, shift=2s) is 2 s plus a lognormal of
// mean 1 s, so its mean is 3 s). The form's other parameters describe the
// distribution before the shift, as a three-parameter lognormal's mu and
// sigma are those of ln(X − shift).
const shiftParam = "shift"

// unshifted are the families a shift means nothing for, with the reason.
var unshifted = map[string]string{
	"constant":  "a constant has no floor but its value: write the sum as the value",
	"empirical": "its values are the times themselves, floor included: add the shift to them",
}

func parseDist(s string) (sim.Dist, string, error) {
	a, err := splitDist(s)
	if err != nil {
		return sim.Dist{}, "", err
	}
	sets := formsOf(a.family)
	if sets == nil {
		return sim.Dist{}, "", unknownFamily(a.family)
	}
	shift, shifted := a.named[shiftParam]
	if shifted {
		if why, ok := unshifted[a.family]; ok {
			return sim.Dist{}, "", fmt.Errorf("%s takes no shift: %s", a.family, why)
		}
		delete(a.named, shiftParam)
	}
	// Positional arguments fill the first form in order: uniform(36s, 40s),
	// constant(2s), exponential(1s), empirical(1s, 2s, 3s).
	if a.family == "empirical" && len(a.pos) > 0 {
		if len(a.named) > 0 {
			return sim.Dist{}, "", fmt.Errorf("empirical: give either file=... or a list of values, not both")
		}
		vals := make([]float64, len(a.pos))
		for i, p := range a.pos {
			if vals[i], err = a.seconds("value", p); err != nil {
				return sim.Dist{}, "", err
			}
		}
		d, err := sim.Empirical(vals)
		return d, "", err
	}
	if len(a.pos) > 0 {
		if len(a.named) > 0 || len(a.pos) != len(sets[0]) {
			return sim.Dist{}, "", fmt.Errorf("%s takes %s", a.family, describeForms(a.family))
		}
		for i, p := range a.pos {
			a.named[sets[0][i]] = p
		}
	}
	var form []string
	for _, f := range sets {
		if len(f) == len(a.named) && hasAll(a.named, f) {
			form = f
			break
		}
	}
	if form == nil {
		return sim.Dist{}, "", fmt.Errorf("%s takes %s", a.family, describeForms(a.family))
	}
	if a.family == "empirical" {
		return sim.Dist{}, a.named["file"], nil
	}
	v := map[string]float64{}
	for _, k := range form {
		var x float64
		if timeParams[k] {
			x, err = a.seconds(k, a.named[k])
		} else if k == "rate" {
			var r Rate
			if err = r.parseScalar(a.named[k]); err == nil {
				x = r.PerSecond
			} else {
				err = fmt.Errorf("exponential: rate: %v", err)
			}
		} else {
			x, err = a.number(k, a.named[k])
		}
		if err != nil {
			return sim.Dist{}, "", err
		}
		v[k] = x
	}
	d, err := build(a.family, form, v)
	if err != nil || !shifted {
		return d, "", err
	}
	floor, err := a.seconds(shiftParam, shift)
	if err != nil {
		return sim.Dist{}, "", err
	}
	d, err = d.Shifted(floor)
	return d, "", err
}

func build(family string, form []string, v map[string]float64) (sim.Dist, error) {
	for _, f := range distForms {
		if f.family == family && slices.Equal(f.params, form) {
			return f.build(v)
		}
	}
	panic("model: distribution form without a constructor: " + family)
}

func hasAll(m map[string]string, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func describeForms(family string) string {
	var alts []string
	for _, f := range formsOf(family) {
		alts = append(alts, "("+strings.Join(f, "=, ")+"=)")
	}
	text := strings.Join(alts, " or ")
	if _, ok := unshifted[family]; !ok {
		text += ", each with an optional shift="
	}
	return text
}

// DistEntry is a named distribution, with optional provenance.
type DistEntry struct {
	Dist   DistRef
	Source Raw
}

// A named distribution may give its family and its parameters as keys
// instead of one literal:
//
//	derivative_heic_photo:
//	  family: lognormal
//	  mean: {range: [5s, 7s]}   # assumption: the report gives 6 s
//	  cv: 0.3
//
// reads as lognormal(mean=6s, cv=0.3), the keys in the order written. Each
// parameter is then a value of the scenario like any other: a range or a
// triangular in its place is an uncertain value that sweep --uncertainty
// draws and sensitivity moves to its ends, --set reaches it at
// distributions.NAME.PARAM, and its own comment labels it.

// familyKey names the family in that form; every other key but source is
// a parameter.
const familyKey = "family"

// familyOnly are the keys of the form that are not parameters.
var familyOnly = map[string]bool{familyKey: true, "source": true}

func isFamilyForm(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	_, ok := lookup(n, familyKey)
	return ok
}

// familyParams returns the parameter keys of a family-form entry and their
// values, in the order written.
func familyParams(n *yaml.Node) (keys, values []*yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !familyOnly[n.Content[i].Value] {
			keys, values = append(keys, n.Content[i]), append(values, resolve(n.Content[i+1]))
		}
	}
	return keys, values
}

// familyText writes a family-form entry as the literal it stands for, or
// says which node is wrong and why.
func familyText(n *yaml.Node) (text string, at *yaml.Node, msg string) {
	fam := entry(n, familyKey)
	if fam.Kind != yaml.ScalarNode {
		return "", fam, fmt.Sprintf("expected a family such as lognormal, got %s", describe(fam))
	}
	if formsOf(fam.Value) == nil {
		return "", fam, unknownFamily(fam.Value).Error()
	}
	keys, values := familyParams(n)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := values[i]
		switch {
		case k.Value == "uncertainty":
			return "", k, "a fit's uncertainty: goes with its dist: literal; in this form give a parameter a range instead"
		case v.Kind != yaml.ScalarNode:
			return "", v, fmt.Sprintf("expected the parameter's value, such as 2s or 0.3, or a range, got %s", describe(v))
		case strings.ContainsAny(v.Value, ",()=") || strings.TrimSpace(v.Value) == "":
			return "", v, fmt.Sprintf("expected one value, such as 2s or 0.3, got %q", v.Value)
		}
		parts[i] = k.Value + "=" + strings.TrimSpace(v.Value)
	}
	return fam.Value + "(" + strings.Join(parts, ", ") + ")", nil, ""
}

// pathOfKey is ".key" for the key of n whose key or value is at, "" when
// at is n itself.
func pathOfKey(n, at *yaml.Node) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i] == at || resolve(n.Content[i+1]) == at {
			return "." + n.Content[i].Value
		}
	}
	return ""
}
