package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// applyScale applies a --scale override: the value at its path times its
// factor. A distribution keeps its family and shape (sim.Dist.Scale), a
// duration and a number are multiplied; a count must stay whole.
//
// The value changes in place, so that every alias of it changes with it,
// as it would in the file; it is the flag's value now, and errors about
// it name the flag, not the line that held the value before.
func (o Override) applyScale(pos *positions, root *yaml.Node) error {
	label := o.String()
	made := func(n *yaml.Node) {
		pos.fileOf[n] = label
		n.Line, n.Column = 0, 0
	}
	p, f := o.Path, o.Factor
	if p == "" || !(f > 0) || math.IsInf(f, 0) {
		return &Error{File: label, Msg: "expected path=factor, e.g. distributions.service=1.1"}
	}
	segs := strings.Split(p, ".")
	n, msg := findNode(root, segs)
	if msg != "" {
		return &Error{File: label, Msg: msg}
	}
	if isFamilyForm(n) && len(segs) == 2 && segs[0] == "distributions" {
		if err := scaleFamily(n, f, made); err != nil {
			return &Error{File: label, Msg: fmt.Sprintf("%s: %v", p, err)}
		}
		made(n) // its checks are of the whole distribution, which the flag changed
		return nil
	}
	if n.Kind == yaml.MappingNode && len(segs) == 2 && segs[0] == "distributions" {
		j, ok := lookup(n, "dist")
		if !ok {
			return &Error{File: label, Msg: p + " has no dist: to scale"}
		}
		n = resolve(n.Content[j+1])
	}
	if n.Kind != yaml.ScalarNode {
		return &Error{File: label, Msg: fmt.Sprintf("%s is %s; only a distribution, a duration or a number can be scaled", p, describe(n))}
	}
	scaled, err := scaleText(root, n.Value, f)
	if err != nil {
		return &Error{File: label, Msg: fmt.Sprintf("%s: %v", p, err)}
	}
	n.Value, n.Tag, n.Style = scaled, "!!str", 0
	made(n)
	if _, err := strconv.ParseFloat(scaled, 64); err == nil {
		n.Tag = "!!float"
		if _, err := strconv.ParseInt(scaled, 10, 64); err == nil {
			n.Tag = "!!int"
		}
	}
	return nil
}

// scaleText returns the text of value × f.
func scaleText(root *yaml.Node, value string, f float64) (string, error) {
	value = strings.TrimSpace(value)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	if x, err := strconv.ParseFloat(value, 64); err == nil {
		if _, err := strconv.ParseInt(value, 10, 64); err == nil {
			y := x * f
			if y != math.Round(y) {
				return "", fmt.Errorf("%s is a whole number and %s × %s = %s is not; give the new value with --set", value, value, num(f), num(y))
			}
		}
		return num(x * f), nil
	}
	if !strings.Contains(value, "(") {
		if t, err := parseDuration(value); err == nil {
			return num(t.Seconds()*f) + "s", nil
		}
		if validName(value) {
			if dists := namedDistributions(root); slices.Contains(dists, value) {
				return "", fmt.Errorf("names the distribution %s: scale distributions.%s (every use of it) instead", value, value)
			}
		}
		return "", fmt.Errorf("%q is not a distribution, a duration or a number", value)
	}
	a, err := splitDist(value)
	if err != nil {
		return "", err
	}
	if a.family == "empirical" && len(a.pos) > 0 {
		// String() prints an empirical distribution by its size only:
		// scale its values one by one instead.
		vals := make([]string, len(a.pos))
		for i, v := range a.pos {
			x, err := a.seconds("value", v)
			if err != nil {
				return "", err
			}
			vals[i] = num(x*f) + "s"
		}
		return "empirical(" + strings.Join(vals, ", ") + ")", nil
	}
	d, file, err := parseDist(value)
	if err != nil {
		return "", err
	}
	if file != "" {
		return "", fmt.Errorf("an empirical distribution read from %s cannot be scaled here; scale the file's values", file)
	}
	return d.Scale(f).String(), nil
}

// scaleFamily scales a distribution written as a family with its
// parameters as keys, one parameter at a time and in place, so that the
// parameters stay reachable by their paths: times (a shift among them) are
// multiplied, a rate divided, a lognormal's mu (of ln seconds) moved by
// ln f; shapes, sigmas and cvs stay. That is sim.Dist.Scale, parameter by
// parameter, for every form of the forms table. made marks each parameter
// it changes as the flag's.
func scaleFamily(n *yaml.Node, f float64, made func(*yaml.Node)) error {
	a := distArgs{family: entry(n, familyKey).Value}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	keys, values := familyParams(n)
	for i, k := range keys {
		v := values[i]
		if v.Kind != yaml.ScalarNode {
			continue // the decoder says what is wrong with it
		}
		var scaled string
		switch {
		case timeParams[k.Value]:
			x, err := a.seconds(k.Value, v.Value)
			if err != nil {
				return err
			}
			scaled = num(x*f) + "s"
		case k.Value == "rate":
			var r Rate
			if err := r.parseScalar(v.Value); err != nil {
				return fmt.Errorf("%s: rate: %v", a.family, err)
			}
			scaled = num(r.PerSecond/f) + "/s"
		case k.Value == "mu":
			x, err := a.number(k.Value, v.Value)
			if err != nil {
				return err
			}
			scaled = num(x + math.Log(f))
		default:
			continue
		}
		v.Value, v.Tag, v.Style = scaled, "!!str", 0
		made(v)
	}
	return nil
}
