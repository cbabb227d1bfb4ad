package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"capsim/sim"
	"go.yaml.in/yaml/v3"
)

// A scenario may say how uncertain a value is, in two shapes that take the
// place of the value itself:
//
//	servers: {range: [1, 3]}              # uniform over 1, 2, 3; the base run uses 2
//	wait_timeout: {triangular: [20s, 50s, 90s]}  # low, mode, high; the base run uses 50s
//
// on a count (servers, queue, repeat, an attribute…), a duration or a
// number (cores, a weight); and, on a named distribution, the sampling
// uncertainty of the fit that gave it, as capsim calibrate writes it:
//
//	upload_batch:
//	  dist: gamma(shape=4.1, scale=0.25s)
//	  uncertainty: {n: 120, method: fisher, se: {shape: 0.51, scale: 0.0322s}, corr: -0.94}
//
// method fisher: the parameters named under se are drawn from a normal
// about the written values with those standard errors (and, for two, that
// correlation), redrawn until the distribution is valid (a truncated
// normal); method bootstrap, for an empirical distribution with its values
// inline: a draw resamples the n values with replacement; no method: n
// is recorded and nothing is drawn. A range's count is drawn uniformly
// among the whole numbers in it (a triangular's rounded), a time or a
// number uniformly (or triangularly) between its ends.
//
// Every run uses the point value (a range's midpoint, a triangular's
// mode, a fit's estimate) unless a sweep draws: capsim sweep --uncertainty
// gives replication r its own values, drawn from streams named after each
// parameter's path under the replication's seed, so replication r of every
// design and multiplier draws the same values.

// The methods of a fit's uncertainty, as calibration writes them.
const (
	MethodFisher    = "fisher"
	MethodBootstrap = "bootstrap"
)

// Uncertain is one value of a loaded scenario that declares its
// uncertainty.
type Uncertain struct {
	// Path is where an override reaches the value (--set Path=…).
	Path string
	// Form is "range", "triangular", MethodFisher or MethodBootstrap
	// ("fisher", "bootstrap"); "" for a fit that records only its n.
	Form string
	// Point is the value every run without draws uses, in scenario syntax.
	Point string

	// A range's or a triangular's ends (and mode), in seconds for a time;
	// Count says the value is a whole number.
	Lo, Mode, Hi float64
	Count, Time  bool

	// A fit's distribution family and its estimates, with the standard
	// errors of those drawn (se's keys, in the written order) and the
	// correlation of two; N values were fitted.
	Family string
	N      int
	Params []string
	Est    []float64
	SE     []float64
	Corr   float64
	args   distArgs  // the written distribution, for the parameters not drawn
	values []float64 // an empirical distribution's values, for the bootstrap
}

// Uncertain lists the scenario's uncertain values as loaded (design and
// overrides applied: a value an override replaced is no longer uncertain),
// in the order the document holds them.
func (l *Loaded) Uncertain() []Uncertain { return slices.Clone(l.uncertain) }

// Draws reports whether a sweep with draws would vary anything.
func (u Uncertain) Draws() bool { return u.Form != "" }

// takeUncertain replaces every range and triangular in root by its point
// value and takes every distribution's uncertainty: key out, recording
// each, so that the strict decoder sees plain values.
func takeUncertain(pos *positions, root *yaml.Node) ([]Uncertain, error) {
	var out []Uncertain
	var errs ErrorList
	if dists := entry(root, "distributions"); dists != nil && dists.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(dists.Content); i += 2 {
			k, v := dists.Content[i], resolve(dists.Content[i+1])
			if isFamilyForm(v) {
				// A parameter given a range: never a count, even one
				// called max.
				for j := 1; j < len(v.Content); j += 2 {
					key := v.Content[j-1].Value
					if familyOnly[key] {
						continue
					}
					n, path, before := resolve(v.Content[j]), "distributions."+k.Value+"."+key, len(out)
					takeRange(pos, v, j, path, false, &out, &errs)
					if len(out) > before && out[before].Time != timeParams[key] {
						msg := "%s: %s is a number, not a time: give the ends without a unit"
						if timeParams[key] {
							msg = "%s: %s is a time: give the ends with a unit, such as [1s, 2s]"
						}
						errs = append(errs, pos.errAt(n, path, msg, out[before].Form, key))
						out = out[:before]
					}
				}
				continue
			}
			if v.Kind != yaml.MappingNode {
				continue
			}
			j, ok := lookup(v, "uncertainty")
			if !ok {
				continue
			}
			un := v.Content[j+1]
			path := "distributions." + k.Value
			u, err := fitUncertainty(pos, entry(v, "dist"), resolve(un), path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			v.Content = slices.Delete(v.Content, j, j+2)
			out = append(out, u)
		}
	}
	// Below each named entry: a component or journey called range is a
	// name, not a range.
	seen := map[*yaml.Node]bool{}
	for _, key := range []string{"components", "journeys", "routes"} {
		if m := entry(root, key); m != nil && m.Kind == yaml.MappingNode {
			for i := 1; i < len(m.Content); i += 2 {
				walkRanges(pos, m, i, key+"."+m.Content[i-1].Value, &out, &errs, seen)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs.sorted()
	}
	return out, nil
}

// walkRanges looks for ranges at parent.Content[at] and below.
// A node reached again through an alias is walked once, at its first
// path: aliases repeating aliases stand for exponentially many paths, and
// a range under an anchor is one value however many places name it.
func walkRanges(pos *positions, parent *yaml.Node, at int, path string, out *[]Uncertain, errs *ErrorList, seen map[*yaml.Node]bool) {
	n := resolve(parent.Content[at])
	if seen[n] {
		return
	}
	seen[n] = true
	switch n.Kind {
	case yaml.MappingNode:
		if isRange(n) {
			takeRange(pos, parent, at, path, isCountKey(path[strings.LastIndex(path, ".")+1:]), out, errs)
			return
		}
		for i := 1; i < len(n.Content); i += 2 {
			walkRanges(pos, n, i, path+"."+n.Content[i-1].Value, out, errs, seen)
		}
	case yaml.SequenceNode:
		for i := range n.Content {
			walkRanges(pos, n, i, path+"."+strconv.Itoa(i), out, errs, seen)
		}
	}
}

func isRange(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && len(n.Content) == 2 && (n.Content[0].Value == "range" || n.Content[0].Value == "triangular")
}

// takeRange records the range at parent.Content[at], if there is one, and
// puts its point value in its place; count says the value is a count.
func takeRange(pos *positions, parent *yaml.Node, at int, path string, count bool, out *[]Uncertain, errs *ErrorList) {
	n := resolve(parent.Content[at])
	if !isRange(n) {
		return
	}
	u, point, err := rangeOf(pos, n, path, count)
	if err != nil {
		*errs = append(*errs, err)
		return
	}
	// The point value stands where the range stood, with its comments: a
	// label (assumption: …) still speaks for it.
	point.Line, point.Column = n.Line, n.Column
	point.HeadComment, point.LineComment, point.FootComment = n.HeadComment, n.LineComment, n.FootComment
	if f, ok := pos.fileOf[n]; ok {
		pos.fileOf[point] = f
	}
	parent.Content[at] = point
	*out = append(*out, u)
}

// rangeOf reads {range: [a, b]} or {triangular: [lo, mode, hi]} at path
// and returns it with the scalar of its point value; count says the value
// is a count, a whole number.
func rangeOf(pos *positions, n *yaml.Node, path string, count bool) (Uncertain, *yaml.Node, *Error) {
	key := path[strings.LastIndex(path, ".")+1:]
	form, list := n.Content[0].Value, resolve(n.Content[1])
	want := 2
	if form == "triangular" {
		want = 3
	}
	shape := "{range: [low, high]}"
	if want == 3 {
		shape = "{triangular: [low, mode, high]}"
	}
	if list.Kind != yaml.SequenceNode || len(list.Content) != want {
		return Uncertain{}, nil, pos.errAt(n, path, "expected %s, got %s", shape, describe(list))
	}
	u := Uncertain{Path: path, Form: form, Count: count}
	var x []float64
	// The ends are times when the first is written with a unit.
	if _, err := parseDuration(resolve(list.Content[0]).Value); err == nil {
		u.Time = true
	}
	for _, e := range list.Content {
		e = resolve(e)
		var v float64
		var err error
		switch {
		case e.Kind != yaml.ScalarNode:
			err = fmt.Errorf("expected a value, got %s", describe(e))
		case u.Time:
			var t sim.Time
			t, err = parseDuration(e.Value)
			v = t.Seconds()
		case u.Count:
			var c int
			c, err = strconv.Atoi(e.Value)
			if err != nil {
				err = fmt.Errorf("%s is a count: expected a whole number, got %q", key, e.Value)
			}
			v = float64(c)
		default:
			v, err = strconv.ParseFloat(e.Value, 64)
			if err != nil || math.IsInf(v, 0) {
				err = fmt.Errorf("expected a number, got %q", e.Value)
			}
		}
		if err != nil {
			return Uncertain{}, nil, pos.errAt(e, path, "%s: %v", form, err)
		}
		x = append(x, v)
	}
	u.Lo, u.Hi = x[0], x[len(x)-1]
	u.Mode = (u.Lo + u.Hi) / 2
	if want == 3 {
		u.Mode = x[1]
	}
	if !(u.Lo <= u.Mode && u.Mode <= u.Hi) || u.Lo == u.Hi {
		return Uncertain{}, nil, pos.errAt(n, path, "%s: expected %s with low < high%s, got %s", form, shape,
			map[bool]string{true: " and the mode between them", false: ""}[want == 3], inline(list))
	}
	if u.Count && u.Hi-u.Lo > maxCountSpan {
		return Uncertain{}, nil, pos.errAt(n, path, "%s: a count's range spans at most %d, got [%g, %g]", form, maxCountSpan, u.Lo, u.Hi)
	}
	if !u.Count && !u.Time && math.IsInf(u.Hi-u.Lo, 0) {
		return Uncertain{}, nil, pos.errAt(n, path, "%s: the ends are too far apart to draw between", form)
	}
	if u.Count && u.Mode != math.Trunc(u.Mode) {
		return Uncertain{}, nil, pos.errAt(n, path, "range: the midpoint of [%g, %g] is %g, not a whole number: a count's base run needs one (use {triangular: [low, mode, high]} to name it)", u.Lo, u.Hi, u.Mode)
	}
	u.Point = u.format(u.Mode)
	tag := "!!float"
	switch {
	case u.Time:
		tag = "!!str"
	case u.Count:
		tag = "!!int"
	}
	return u, &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: u.Point}, nil
}

func inline(n *yaml.Node) string {
	var parts []string
	for _, c := range n.Content {
		parts = append(parts, resolve(c).Value)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// format writes a range's value as the scenario would: a whole number, a
// time in seconds to the nanosecond the clock keeps, or a number.
func (u Uncertain) format(v float64) string {
	switch {
	case u.Count:
		return strconv.Itoa(int(math.Round(v)))
	case u.Time:
		return strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64) + "s"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// fitUncertainty reads a distribution entry's uncertainty: mapping.
func fitUncertainty(pos *positions, dist, n *yaml.Node, path string) (Uncertain, *Error) {
	at := path + ".uncertainty"
	u := Uncertain{Path: path}
	if n.Kind != yaml.MappingNode {
		return u, pos.errAt(n, at, "expected {n: N, method: fisher, se: {...}} or {n: N, method: bootstrap}, got %s", describe(n))
	}
	var se *yaml.Node
	hasN, hasCorr := false, false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		switch k.Value {
		case "n":
			c, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || c < 1 {
				return u, pos.errAt(v, at+".n", "expected the number of values fitted, a whole number >= 1, got %s", inlineScalar(v))
			}
			u.N, hasN = c, true
		case "method":
			if v.Value != MethodFisher && v.Value != MethodBootstrap {
				return u, pos.errAt(v, at+".method", "expected %s or %s, got %s", MethodFisher, MethodBootstrap, inlineScalar(v))
			}
			u.Form = v.Value
		case "se":
			if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
				return u, pos.errAt(v, at+".se", "expected the standard errors by parameter, such as {mu: 0.02, sigma: 0.014}, got %s", describe(v))
			}
			se = v
		case "corr":
			c, err := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || err != nil || !(c > -1 && c < 1) {
				return u, pos.errAt(v, at+".corr", "expected a correlation strictly between -1 and 1, got %s", inlineScalar(v))
			}
			u.Corr, hasCorr = c, true
		default:
			return u, pos.errAt(k, at+"."+k.Value, "unknown key %q (expected one of: n, method, se, corr)", k.Value)
		}
	}
	if !hasN {
		return u, pos.errAt(n, at, "n is required: the number of values fitted")
	}
	if dist == nil || dist.Kind != yaml.ScalarNode || !strings.Contains(dist.Value, "(") {
		return u, pos.errAt(n, at, "uncertainty needs a distribution written with its parameters in dist:")
	}
	a, err := splitDist(strings.TrimSpace(dist.Value))
	if err != nil {
		return u, pos.errAt(dist, path+".dist", "%v", err)
	}
	u.Family, u.args = a.family, a
	u.Point = strings.TrimSpace(dist.Value)
	switch u.Form {
	case MethodBootstrap:
		if a.family != "empirical" || len(a.pos) == 0 || se != nil || hasCorr {
			return u, pos.errAt(n, at, "method bootstrap resamples an empirical distribution's values written inline, with no se or corr")
		}
		for _, p := range a.pos {
			t, err := parseDuration(p)
			if err != nil {
				return u, pos.errAt(dist, path+".dist", "empirical: %v", err)
			}
			u.values = append(u.values, t.Seconds())
		}
		if len(u.values) != u.N {
			return u, pos.errAt(n, at+".n", "n is %d but the empirical distribution holds %d values", u.N, len(u.values))
		}
	case MethodFisher:
		if se == nil {
			return u, pos.errAt(n, at, "method fisher needs se: the standard error of each parameter drawn")
		}
		for i := 0; i+1 < len(se.Content); i += 2 {
			k, v := se.Content[i], resolve(se.Content[i+1])
			written, ok := a.named[k.Value]
			if !ok {
				return u, pos.errAt(k, at+".se."+k.Value, "%s is not a parameter of %s (it gives: %s)", k.Value, u.Point, strings.Join(a.order, ", "))
			}
			est, err := argValue(a, k.Value, written)
			if err != nil {
				return u, pos.errAt(dist, path+".dist", "%v", err)
			}
			s, err := argValue(a, k.Value, v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || !(s >= 0) {
				return u, pos.errAt(v, at+".se."+k.Value, "expected a standard error >= 0 in the parameter's unit, got %s", inlineScalar(v))
			}
			u.Params, u.Est, u.SE = append(u.Params, k.Value), append(u.Est, est), append(u.SE, s)
		}
		if hasCorr && len(u.Params) != 2 {
			return u, pos.errAt(n, at+".corr", "corr is the correlation of two parameters' estimates; se gives %d", len(u.Params))
		}
	default:
		if se != nil || hasCorr {
			return u, pos.errAt(n, at, "se and corr need method: fisher")
		}
	}
	if u.Form == MethodFisher {
		if valid := u.validDraws(); valid < probeDraws/2 {
			// Draws past maxRedraws keep the point value: an uncertainty
			// this wide would come out narrower the wider it is.
			return u, pos.errAt(n, at, "its standard errors leave only %d of %d draws a valid %s: too wide to draw from (fit again from more data, or give a range)",
				valid, probeDraws, u.Family)
		}
	}
	return u, nil
}

// probeDraws is how many draws validDraws tries.
const probeDraws = 200

// validDraws counts the draws of a fit's parameters, of probeDraws from a
// fixed stream, that make a valid distribution.
func (u Uncertain) validDraws() int {
	r := rand.New(rand.NewPCG(1, 2))
	n := 0
	for range probeDraws {
		if _, ok := u.drawFit(r); ok {
			n++
		}
	}
	return n
}

func inlineScalar(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return describe(n)
}

// argValue reads one distribution parameter as parseDist does: times in
// seconds (with a unit), a rate per second, the rest plain numbers.
func argValue(a distArgs, key, v string) (float64, error) {
	switch {
	case timeParams[key]:
		return a.seconds(key, v)
	case key == "rate":
		var r Rate
		if err := r.parseScalar(v); err != nil {
			return 0, fmt.Errorf("%s: rate: %v", a.family, err)
		}
		return r.PerSecond, nil
	}
	return a.number(key, v)
}

// maxCountSpan bounds a count's range: far beyond any count a scenario
// holds, and small enough that drawing among its whole numbers is exact.
const maxCountSpan = 1_000_000_000

// maxRedraws bounds the redraws of a truncated normal; past it the point
// value is kept (a standard error so large that valid draws are rarer
// than one in a thousand describes no distribution worth simulating).
const maxRedraws = 1000

// Draw returns a value for u drawn from r, in scenario syntax.
func (u Uncertain) Draw(r *rand.Rand) string {
	switch u.Form {
	case "range":
		if u.Count {
			// Each whole number in [Lo, Hi] equally likely.
			return u.format(u.Lo + float64(r.IntN(int(u.Hi-u.Lo)+1)))
		}
		return u.format(u.Lo + (u.Hi-u.Lo)*r.Float64())
	case "triangular":
		return u.format(triangular(u.Lo, u.Mode, u.Hi, r.Float64()))
	case MethodBootstrap:
		var b strings.Builder
		b.WriteString("empirical(")
		for i := range u.values {
			if i > 0 {
				b.WriteString(", ")
			}
			v := u.values[r.IntN(len(u.values))]
			b.WriteString(strconv.FormatFloat(v, 'f', -1, 64) + "s")
		}
		b.WriteByte(')')
		return b.String()
	case MethodFisher:
		for range maxRedraws {
			if text, ok := u.drawFit(r); ok {
				return text
			}
		}
	}
	return u.Point
}

// drawFit draws a fit's parameters once from their normal about the
// estimates (correlated for two) and says whether they make a valid
// distribution.
func (u Uncertain) drawFit(r *rand.Rand) (string, bool) {
	z1, z2 := r.NormFloat64(), r.NormFloat64()
	x := make([]float64, len(u.Params))
	for i := range x {
		z := z1
		if i == 1 {
			z = u.Corr*z1 + math.Sqrt(1-u.Corr*u.Corr)*z2
		} else if i > 1 {
			z = r.NormFloat64()
		}
		x[i] = u.Est[i] + u.SE[i]*z
	}
	return u.fitText(x)
}

// triangular is the inverse CDF of the triangular distribution on
// [lo, hi] with mode c at p.
func triangular(lo, c, hi, p float64) float64 {
	if f := (c - lo) / (hi - lo); p < f {
		return lo + math.Sqrt(p*(hi-lo)*(c-lo))
	}
	return hi - math.Sqrt((1-p)*(hi-lo)*(hi-c))
}

// fitText writes the distribution with the drawn parameters x, the others
// as written, and reports whether it is a valid distribution.
func (u Uncertain) fitText(x []float64) (string, bool) {
	parts := make([]string, 0, len(u.args.order))
	for _, k := range u.args.order {
		v := u.args.named[k]
		if i := slices.Index(u.Params, k); i >= 0 {
			if (timeParams[k] || k == "rate") && !(x[i] > 0 || x[i] == 0 && k != "rate") {
				return "", false
			}
			switch {
			case timeParams[k]:
				v = strconv.FormatFloat(math.Round(x[i]*1e9)/1e9, 'f', -1, 64) + "s"
			case k == "rate":
				v = strconv.FormatFloat(x[i], 'g', 10, 64) + "/s"
			default:
				v = strconv.FormatFloat(x[i], 'g', 10, 64)
			}
		}
		parts = append(parts, k+"="+v)
	}
	text := u.Family + "(" + strings.Join(parts, ", ") + ")"
	d, file, err := parseDist(text)
	if err != nil || file != "" || checkDist(d) != nil {
		return "", false
	}
	return text, true
}

// DrawSets returns replication seed's draw of every uncertain value as
// path=value overrides, in the order of us. Each value comes from its own
// stream, named "param/" and its path, under the replication's seed: the
// same for every design and multiplier of a replication, and unchanged
// when another value is added or removed.
func DrawSets(us []Uncertain, seed uint64) []string {
	var sets []string
	for _, u := range us {
		if !u.Draws() {
			continue
		}
		r := rand.New(sim.StreamSource(seed, "param/"+u.Path))
		sets = append(sets, u.Path+"="+u.Draw(r))
	}
	return sets
}

// DrawOverrides is DrawSets as overrides to load with (LoadOptions.Overrides
// after the command line's): the draw of replication seed.
func DrawOverrides(us []Uncertain, seed uint64) ([]Override, error) {
	var out []Override
	for _, s := range DrawSets(us, seed) {
		o, err := ParseSet(s)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
