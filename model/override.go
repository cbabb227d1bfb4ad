package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Override is one change a command line makes to a scenario: --set
// path=value or --scale path=factor. It is parsed and checked once (see
// ParseSet, ParseScale), then applied to every design, perturbation and
// draw loaded from a Document; whether its path exists is known only once
// it meets the loaded tree, and is said then.
type Override struct {
	// Scale tells --scale path=factor from --set path=value.
	Scale bool
	// Base is a --base-set: a set applied to the base scenario before any
	// design, so that every design inherits it unless it changes the
	// value itself (a design that removes the component drops it too),
	// as a fitted value of the system should be.
	Base bool
	// Path is the dotted path the override reaches, such as
	// components.api.servers.
	Path string
	// Value is a set's value as typed, in YAML; "" removes the key.
	Value string
	// Factor is a scale's factor, a number > 0.
	Factor float64
	// Text is path=value or path=factor as typed, for messages: reports
	// and errors show what the user wrote, not a normalised form.
	Text string

	value *yaml.Node // a set's value, parsed and without positions
}

// String is the override as a command line gives it, such as
// "--set components.api.servers=8".
func (o Override) String() string {
	switch {
	case o.Scale:
		return "--scale " + o.Text
	case o.Base:
		return "--base-set " + o.Text
	}
	return "--set " + o.Text
}

// ParseSet parses "path=value", the argument of --set. The value is YAML:
// a number, a duration, a distribution, a mapping in flow style, or
// nothing, which removes the key.
func ParseSet(s string) (Override, error) {
	o := Override{Text: s}
	label := o.String()
	p, value, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(p) == "" {
		return Override{}, &Error{File: label, Msg: "expected path=value, e.g. components.api.servers=8"}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil {
		return Override{}, &Error{File: label, Msg: "value is not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	if len(doc.Content) > 0 {
		v = doc.Content[0]
	}
	unposition(v) // positions inside a flag value would only confuse
	o.Path, o.Value, o.value = strings.TrimSpace(p), value, v
	if errs := repeatedKeys(label, v, o.Path); len(errs) > 0 {
		return Override{}, errs
	}
	return o, nil
}

// ParseScale parses "path=factor", the argument of --scale.
func ParseScale(s string) (Override, error) {
	o := Override{Scale: true, Text: s}
	label := o.String()
	p, text, ok := strings.Cut(s, "=")
	p = strings.TrimSpace(p)
	if !ok || p == "" {
		return Override{}, &Error{File: label, Msg: "expected path=factor, e.g. distributions.service=1.1"}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return Override{}, &Error{File: label, Msg: fmt.Sprintf("the factor must be a number > 0, got %q", strings.TrimSpace(text))}
	}
	o.Path, o.Factor = p, f
	return o, nil
}

// ParseOverrides parses a command line's --set and --scale arguments, in
// that order, and reports the first that is malformed.
// ParseBaseSets parses the arguments of --base-set: sets applied to the
// base scenario before the designs (Override.Base).
func ParseBaseSets(sets []string) ([]Override, error) {
	out := make([]Override, 0, len(sets))
	for _, s := range sets {
		o, err := ParseSet(s)
		if e, ok := err.(*Error); ok {
			e.File = strings.Replace(e.File, "--set ", "--base-set ", 1)
		}
		if err != nil {
			return nil, err
		}
		o.Base = true
		out = append(out, o)
	}
	return out, nil
}

func ParseOverrides(sets, scales []string) ([]Override, error) {
	out := make([]Override, 0, len(sets)+len(scales))
	for _, s := range sets {
		o, err := ParseSet(s)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	for _, s := range scales {
		o, err := ParseScale(s)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// applySet applies a --set override to root. The value goes in as a copy:
// the tree it joins is changed further (a later override below it, a range
// replaced by its point) and the override serves other loads too.
func (o Override) applySet(cp *copier, root *yaml.Node) error {
	pos := cp.pos
	label := o.String()
	if o.value == nil {
		return &Error{File: label, Msg: "expected path=value, e.g. components.api.servers=8"}
	}
	v := cloneTree(o.value, func(_, c *yaml.Node) { pos.fileOf[c] = label })
	node := root
	var key *yaml.Node // node's key in the mapping above it; nil for root
	segs := strings.Split(o.Path, ".")
	if segs[0] == "include" {
		return &Error{File: label, Path: "include", Msg: "an override cannot include files; " + includeOnce + " (set distributions.NAME instead)"}
	}
	if other, ok := distributionNamed(segs, o.value); ok {
		// distributions.A=distributions.B: A becomes a copy of B's
		// definition as it stands, uncertain parameters and all, so that
		// a later change to either leaves the other as it was.
		dists := entry(root, "distributions")
		j, found := 0, false
		if dists != nil {
			j, found = lookup(dists, other)
		}
		if !found {
			return &Error{File: label, Msg: missingName("distribution", other, "the scenario or its includes", namedDistributions(root)).Error()}
		}
		v = cloneTree(resolve(dists.Content[j+1]), func(orig, c *yaml.Node) {
			if f, ok := pos.fileOf[orig]; ok {
				pos.fileOf[c] = f
			}
		})
	}
	for i, seg := range segs {
		last := i == len(segs)-1
		switch node.Kind {
		case yaml.MappingNode:
			j, exists := lookup(node, seg)
			if !exists && !isNull(v) {
				// A new name where only existing ones make sense is a typo
				// that would otherwise change nothing, silently.
				if err := newNameErr(root, segs[:i+1]); err != nil {
					return &Error{File: label, Msg: err.Error()}
				}
			}
			switch {
			case last && isNull(v):
				if !exists {
					return &Error{File: label, Msg: fmt.Sprintf("cannot remove %s: no such key", strings.Join(segs[:i+1], "."))}
				}
				node.Content = append(node.Content[:j], node.Content[j+2:]...)
				// A problem with the entry may be reported at its key or
				// at its mapping; either way it says what was taken out.
				pos.remove(node, seg, label)
				if key != nil {
					pos.remove(key, seg, label)
				}
			case last && exists:
				node.Content[j+1] = v
			case last:
				k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
				pos.mark(k, label)
				node.Content = append(node.Content, k, v)
			case exists:
				key = node.Content[j]
				if node = cp.own(&node.Content[j+1], strings.Join(segs[:i+1], ".")); node == nil {
					return cp.err
				}
				node = resolve(node)
			case schemaKeys(strings.Join(segs[:i], "."))[seg]:
				// A key the schema has but the scenario left at its
				// default (limits:, a component's optional map) is made.
				k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
				m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				pos.mark(k, label)
				pos.mark(m, label)
				node.Content = append(node.Content, k, m)
				node = m
			default:
				return &Error{File: label, Msg: fmt.Sprintf("no such key %s in the scenario", strings.Join(segs[:i+1], "."))}
			}
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(seg)
			if err != nil || idx < 0 || idx >= len(node.Content) {
				return &Error{File: label, Msg: fmt.Sprintf("%s is a list of %d; %q is not an index in it", strings.Join(segs[:i], "."), len(node.Content), seg)}
			}
			if last {
				node.Content[idx] = v
			} else {
				key = nil // a list's item has no key
				if node = cp.own(&node.Content[idx], strings.Join(segs[:i+1], ".")); node == nil {
					return cp.err
				}
				node = resolve(node)
			}
		default:
			return &Error{File: label, Msg: fmt.Sprintf("%s is a single value; it has no key %q", strings.Join(segs[:i], "."), seg)}
		}
	}
	return nil
}

// distributionNamed reports whether a set of distributions.A has the value
// distributions.B, naming another entry, and returns B.
func distributionNamed(segs []string, value *yaml.Node) (string, bool) {
	if len(segs) != 2 || segs[0] != "distributions" || value == nil || value.Kind != yaml.ScalarNode {
		return "", false
	}
	return strings.CutPrefix(strings.TrimSpace(value.Value), "distributions.")
}

// cloneTree copies the graph of nodes under n as it is: an alias points at
// the copy of its anchor, so that the copy behaves as the original did
// when it was parsed (aliases share, a value written once is one node).
// Expanding aliases instead would let a few lines of aliases repeating
// aliases stand for billions of nodes. Only an anchored node can be
// reached twice, through an alias, so only those are remembered. copied
// sees every node with its copy.
func cloneTree(n *yaml.Node, copied func(orig, c *yaml.Node)) *yaml.Node {
	anchored := map[*yaml.Node]*yaml.Node{}
	var clone func(n *yaml.Node) *yaml.Node
	clone = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if n.Anchor != "" {
			if c, ok := anchored[n]; ok {
				return c
			}
		}
		c := new(yaml.Node)
		*c = *n
		if n.Anchor != "" {
			anchored[n] = c
		}
		copied(n, c)
		c.Alias = clone(n.Alias)
		if n.Content != nil {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, k := range n.Content {
				c.Content[i] = clone(k)
			}
		}
		return c
	}
	return clone(n)
}

// namedDistributions lists the names under distributions:, includes'
// entries among them.
func namedDistributions(root *yaml.Node) []string {
	j, ok := lookup(root, "distributions")
	if !ok {
		return nil
	}
	m := resolve(root.Content[j+1])
	var names []string
	if m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			names = append(names, m.Content[i].Value)
		}
	}
	return names
}

// newNameErr refuses an override that names a distribution or an
// attribute that exists nowhere: it would define a new one that nothing
// uses, and the value meant would stay as it was without a word.
func newNameErr(root *yaml.Node, segs []string) error {
	switch {
	case len(segs) == 2 && segs[0] == "distributions":
		return missingName("distribution", segs[1], "the scenario or its includes", namedDistributions(root))
	case len(segs) == 4 && segs[0] == "journeys" && segs[2] == "attributes":
		var names []string
		if n, msg := findNode(root, segs[:3]); msg == "" && n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				names = append(names, n.Content[i].Value)
			}
		}
		return missingName("attribute", segs[3], "journey "+segs[1], names)
	}
	return nil
}

func missingName(what, name, where string, known []string) error {
	if len(known) == 0 {
		return fmt.Errorf("no %s %q in %s, which defines none", what, name, where)
	}
	if best := Nearest(name, known, 3); best != "" {
		return fmt.Errorf("no %s %q in %s; did you mean %q?", what, name, where, best)
	}
	return fmt.Errorf("no %s %q in %s (defined: %s)", what, name, where, strings.Join(known, ", "))
}

// findNode follows a dotted path of keys and list indexes; the message
// says why it cannot when it cannot.
func findNode(root *yaml.Node, segs []string) (*yaml.Node, string) {
	node := root
	for i, seg := range segs {
		switch node.Kind {
		case yaml.MappingNode:
			j, ok := lookup(node, seg)
			if !ok {
				if err := newNameErr(root, segs[:i+1]); err != nil {
					return nil, err.Error()
				}
				return nil, fmt.Sprintf("no such key %s in the scenario", strings.Join(segs[:i+1], "."))
			}
			node = resolve(node.Content[j+1])
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(seg)
			if err != nil || idx < 0 || idx >= len(node.Content) {
				return nil, fmt.Sprintf("%s is a list of %d; %q is not an index in it", strings.Join(segs[:i], "."), len(node.Content), seg)
			}
			node = resolve(node.Content[idx])
		default:
			return nil, fmt.Sprintf("%s is a single value; it has no key %q", strings.Join(segs[:i], "."), seg)
		}
	}
	return node, ""
}
