package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"capsim/sim/yamldoc"

	"go.yaml.in/yaml/v3"
)

// LoadOptions choose what to load on top of the base scenario.
type LoadOptions struct {
	Design string // a name under designs:, overlaid on the base; "" for the base; "a+b" applies a, then b
	// Overrides are parsed --set and --scale overrides (ParseOverrides).
	// The sets apply after the design, in order; the scales after the
	// sets and after ranges become their point values, in order.
	Overrides []Override
	// Base are set overrides applied to the base scenario before any
	// design: values of the system every design inherits unless it
	// changes them itself, as a fit's point is (a design that removes the
	// component drops the value with it). Scales are refused here.
	Base []Override
	// Sets and Scales are overrides as text, parsed as they are applied:
	// each set before the sets of Overrides, each scale before its
	// scales. A scale multiplies the value at path (a distribution, a
	// duration or a number) by factor, a distribution keeping its shape;
	// a named distribution, included ones too, is scaled at
	// distributions.NAME for every use of it.
	Sets   []string
	Scales []string
	// DisplayName is, for Load and LoadBytes, what errors and Sources
	// call the scenario file (see ParseOptions); a Document keeps the
	// name it was parsed with.
	DisplayName string
}

// Loaded is a decoded scenario ready to compile, with the positions needed
// to report problems found later.
type Loaded struct {
	Scenario *Scenario
	Design   string
	File     string // the scenario's name inside the fs.FS it was loaded from
	fsys     fs.FS
	pos      *positions
	read     *reads
	root     *yaml.Node // the document as decoded: base, includes, design, overrides
	// uncertain holds the ranges and fit uncertainties taken out of root
	// (see uncertain.go).
	uncertain []Uncertain
	// overlaid says which values of root the designs wrote (see Params).
	overlaid *overlaid
}

func fsErrorText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML parses one document and insists on a mapping at the top; what
// is what the file is, "a scenario" or "an included file", for messages.
func parseYAML(name, what string, data []byte) (*yaml.Node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{File: name, Msg: "the file is empty; a scenario needs at least duration, components and journeys"}
	}
	if e := checkText(name, data); e != nil {
		return nil, e
	}
	doc, second, err := yamldoc.Decode(data)
	if err != nil && err != io.EOF {
		e := &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			// yaml.v3 reports a line but no column for syntax errors; point
			// at the line's first non-blank character.
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = "invalid YAML: " + m[2]
			e.Col = firstColumn(data, e.Line, "")
			if strings.HasPrefix(m[2], "did not find expected") {
				// Parser errors count lines from 0 and point at the flow
				// collection left open: name its bracket.
				e.Line++
				e.Col = firstColumn(data, e.Line, "{[")
				e.Msg += " (a { or [ opened here is not closed)"
			}
		}
		return nil, e
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: name, Msg: "the file has no content; a scenario needs at least duration, components and journeys"}
	}
	if second > 0 {
		return nil, &Error{File: name, Line: second, Col: 1, Msg: "a second YAML document starts here; " + what + " is one document"}
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: name, Line: root.Line, Col: root.Column, Msg: "a scenario must be a mapping of keys (name:, duration:, components:, ...), got " + describe(root)}
	}
	// Repeats are reported alone: until the author picks one of the two
	// values, problems found in either may be in the one to delete.
	if errs := repeatedKeys(name, root, ""); len(errs) > 0 {
		return nil, errs
	}
	return root, nil
}

// firstColumn is the 1-based column of the first of chars on line, or of
// its first non-blank character.
func firstColumn(data []byte, line int, chars string) int {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 1
	}
	l := lines[line-1]
	if i := bytes.IndexAny(l, chars); chars != "" && i >= 0 {
		return i + 1
	}
	return len(l) - len(bytes.TrimLeft(l, " \t")) + 1
}

// copier makes deep copies of node trees for overlays, within the value
// budget the decoder keeps: a copy expands aliases, so a design of a few
// lines of aliases repeating aliases would otherwise stand for billions of
// nodes before the decoder counted one.
type copier struct {
	pos    *positions
	copied int
	err    error
}

// copy returns a deep copy of n with aliases replaced by copies of what
// they point to and anchors dropped, so nothing in it is shared; nil once
// the budget is spent (c.err says so).
func (c *copier) copy(n *yaml.Node, path string) *yaml.Node {
	n = resolve(n)
	if c.err != nil {
		return nil
	}
	if c.copied++; c.copied > maxValues {
		c.err = c.pos.errAt(n, path, "the scenario expands to more than %d values (aliases repeating aliases?)", maxValues)
		return nil
	}
	cp := *n
	cp.Anchor = ""
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		if cp.Content[i] = c.copy(k, path); cp.Content[i] == nil {
			return nil
		}
		if i%2 == 0 && n.Kind == yaml.MappingNode {
			c.copied-- // a key is part of its value, as the decoder counts
		}
	}
	return &cp
}

// own returns the node in slot *at ready to be changed in place: when it is
// shared — an alias, or the anchor aliases point to — the slot gets a copy
// first. Without it, shrinking db in a design would also shrink app when
// the file wrote app: *db.
func (c *copier) own(at **yaml.Node, path string) *yaml.Node {
	n := *at
	if n.Kind != yaml.AliasNode && n.Anchor == "" {
		return n
	}
	cp := c.copy(n, path)
	if cp == nil {
		return nil
	}
	if fileOf, ok := c.pos.fileOf[resolve(n)]; ok {
		c.pos.mark(cp, fileOf)
	}
	*at = cp
	return cp
}

// takeKey removes key from a mapping and returns its value.
func takeKey(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return resolve(v)
		}
	}
	return nil
}

// findDesign returns the overlay of the design name and its key under
// designs:.
func findDesign(pos *positions, designs *yaml.Node, name string) (key, overlay *yaml.Node, err error) {
	var names []string
	if designs != nil && designs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(designs.Content); i += 2 {
			if k := designs.Content[i]; k.Value == name {
				v := resolve(designs.Content[i+1])
				if isNull(v) {
					return k, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
				}
				if v.Kind != yaml.MappingNode {
					return nil, nil, pos.errAt(v, "designs."+name, "a design must be a mapping of keys to overlay, got %s", describe(v))
				}
				return k, v, nil
			}
			names = append(names, designs.Content[i].Value)
		}
	}
	if len(names) == 0 {
		return nil, nil, &Error{File: pos.main, Msg: fmt.Sprintf("unknown design %q: the scenario defines no designs", name)}
	}
	return nil, nil, &Error{File: pos.main, Msg: fmt.Sprintf("unknown design %q (available: %s)", name, strings.Join(names, ", "))}
}

// namedMaps are the mappings whose keys the author chooses: a design may add
// entries to them. Everywhere else the keys are the schema's, and a key the
// base lacks is almost always a typo.
var namedMaps = map[string]string{"components": "kind", "journeys": "steps", "routes": "steps", "distributions": ""}

// mergeOverlay deep-merges overlay into base: mappings merge key by key, a
// null removes the key, anything else replaces the base value.
//
// rec notes each value the overlay puts in place, with owners: the
// overlay's mappings and keys above it, nearest first (overlay itself
// first), whose comments label it.
func mergeOverlay(cp *copier, base, overlay *yaml.Node, path, who string, errs *ErrorList, rec *overlaid, owners []*yaml.Node) {
	pos := cp.pos
	for i := 0; i+1 < len(overlay.Content); i += 2 {
		k, v := overlay.Content[i], resolve(overlay.Content[i+1])
		p := joinPath(path, k.Value)
		if why, ok := baseOnly[p]; ok {
			*errs = append(*errs, pos.errAt(k, p, "%s %s", who, why))
			continue
		}
		j, exists := lookup(base, k.Value)
		if isNull(v) {
			if !exists {
				*errs = append(*errs, pos.errAt(k, p, "%s removes %s, which the base scenario does not have", who, p))
				continue
			}
			base.Content = append(base.Content[:j], base.Content[j+2:]...)
			continue
		}
		if !exists {
			if required, named := namedMaps[path]; named && required != "" && v.Kind == yaml.MappingNode {
				if _, ok := lookup(v, required); !ok {
					*errs = append(*errs, pos.errAt(k, p, "%s overlays %s, which does not exist in the base scenario (a new entry needs %s:)", who, p, required))
					continue
				}
			}
			if _, named := namedMaps[path]; !named {
				if keys := schemaKeys(path); keys != nil && !keys[k.Value] {
					*errs = append(*errs, pos.errAt(k, p, "%s overlays %s, which does not exist in the base scenario", who, p))
					continue
				}
			}
			base.Content = append(base.Content, k, v)
			rec.place(k, v, owners)
			continue
		}
		if bv := resolve(base.Content[j+1]); bv.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
			if bv = cp.own(&base.Content[j+1], p); bv == nil {
				return
			}
			mergeOverlay(cp, bv, v, p, who, errs, rec, append([]*yaml.Node{v, k}, owners...))
			continue
		}
		base.Content[j+1] = v
		rec.place(k, v, owners)
	}
}

// baseOnly are the top-level keys only the base scenario may write, with
// why: each is read from the base whatever design runs, so a design's
// value would change nothing.
var baseOnly = map[string]string{
	// The includes were spliced in when the file was parsed, before any
	// design.
	"include": "cannot include files; " + includeOnce + " (a design may set distributions: itself)",
	"sweep": "cannot set sweep:; capsim sweep and sensitivity read the sweep defaults from " +
		"the base scenario, whatever design runs (set them there, or give --multipliers)",
	"designs": "cannot define designs; designs are listed once, under the base scenario's " +
		"designs: (compose two with --design a+b)",
	"observations": "cannot hold observations; a hindcast reads them from the base scenario, " +
		"each naming the design it was measured under with design:",
}

// schemaKeys returns the keys the schema allows at a path below a named
// entry (components.X, journeys.X, ...), so a design may set a key the base
// left at its default but not one that exists nowhere.
func schemaKeys(path string) map[string]bool {
	parts := strings.Split(path, ".")
	var t reflect.Type
	switch {
	case path == "":
		t = reflect.TypeOf(Scenario{})
	case len(parts) == 2 && parts[0] == "components":
		return componentKeys()
	case len(parts) == 2 && parts[0] == "journeys":
		t = reflect.TypeOf(Journey{})
	case len(parts) == 2 && parts[0] == "routes":
		t = reflect.TypeOf(Route{})
	case len(parts) == 1 && parts[0] == "limits":
		t = reflect.TypeOf(Limits{})
	case len(parts) == 1 && parts[0] == "sweep":
		t = reflect.TypeOf(SweepDefaults{})
	default:
		return nil
	}
	_, idx := fieldsOf(t)
	keys := map[string]bool{}
	for k := range idx {
		keys[k] = true
	}
	return keys
}

func unposition(n *yaml.Node) {
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		unposition(c)
	}
}

// includeOnce says why only the scenario itself may name files to
// include, and what to do instead.
const includeOnce = "include: is read once, at the top of the scenario, before any design or override applies"

// spliceIncludes adds the distributions of every file named by the base's
// include: to its distributions: mapping, marked with their file for
// errors. A name defined both in an included file and in the scenario is
// an error: which of the two is meant cannot be told.
func spliceIncludes(pos *positions, fsys *fileCache, file string, root *yaml.Node) error {
	j, ok := lookup(root, "include")
	if !ok {
		return nil
	}
	list := resolve(root.Content[j+1])
	if list.Kind != yaml.SequenceNode {
		return nil // the decoder reports what include: should be
	}
	var dists *yaml.Node
	dk, hasDists := lookup(root, "distributions")
	if hasDists {
		dists = resolve(root.Content[dk+1])
		if !isNull(dists) && dists.Kind != yaml.MappingNode {
			return nil // the decoder reports what distributions: should be
		}
	}
	for idx, it := range list.Content {
		it = resolve(it)
		at := fmt.Sprintf("include[%d]", idx)
		if it.Kind != yaml.ScalarNode {
			return nil
		}
		inc := it.Value
		if err := checkBeside(inc); err != nil {
			return pos.errAt(it, at, "%v", err)
		}
		name := path.Join(path.Dir(file), inc)
		data, err := fsys.ReadFile(name)
		if err != nil {
			return pos.errAt(it, at, "cannot read %s: %s", inc, fsErrorText(err))
		}
		shown := pos.display(name)
		inroot, err := parseYAML(shown, "an included file", data)
		if err != nil {
			return err
		}
		pos.mark(inroot, shown)
		// An included file holds distributions and nothing else; its
		// entries are decoded with the scenario's, where they end up.
		var frag struct {
			Distributions Raw `yaml:"distributions"`
		}
		d := &decoder{pos: pos}
		d.decode(inroot, reflect.ValueOf(&frag).Elem(), "")
		if len(d.errs) > 0 {
			return d.errs
		}
		in := frag.Distributions.Node
		if in == nil || isNull(in) {
			continue
		}
		if in.Kind != yaml.MappingNode {
			return pos.errAt(in, "distributions", "expected a mapping of names, got %s", describe(in))
		}
		if dists == nil || isNull(dists) {
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "distributions"}
			dists = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			if hasDists {
				root.Content[dk+1] = dists
			} else {
				root.Content = append(root.Content, k, dists)
			}
		}
		for i := 0; i+1 < len(in.Content); i += 2 {
			k := in.Content[i]
			if at, dup := lookup(dists, k.Value); dup {
				// Both places are named: the scenario's own entry, or the
				// file included earlier that brought it.
				first := pos.errAt(dists.Content[at], "", "")
				where := "the scenario"
				if first.File != pos.main {
					where = first.File
				}
				return pos.errAt(k, "distributions."+k.Value, "defined both in %s (line %d) and in %s", where, first.Line, shown)
			}
			dists.Content = append(dists.Content, k, in.Content[i+1])
		}
	}
	return nil
}

// CheckMultiplierRange refuses a load multiplier no scenario can run at:
// not a number > 0, or above MaxMultiplier. Commands ask it of a flag
// before reading anything, and CheckMultiplier asks it first.
func CheckMultiplierRange(m float64) error {
	if !(m > 0 && m <= MaxMultiplier) {
		return fmt.Errorf("a load multiplier must be > 0 and at most %g, got %g", float64(MaxMultiplier), m)
	}
	return nil
}

// CheckMultiplier reports whether the scenario can run at load multiplier
// m: a multiplier scales every rate and client count, and the scaled ones
// must keep within MaxRate and MaxClients too.
func (l *Loaded) CheckMultiplier(m float64) error {
	if err := CheckMultiplierRange(m); err != nil {
		return err
	}
	for _, it := range l.Scenario.Journeys.Items {
		j := it.Value
		if j.Scaled != nil && !*j.Scaled {
			continue // the multiplier leaves it as written
		}
		if j.Clients != nil && math.Round(float64(*j.Clients)*m) > MaxClients {
			return fmt.Errorf("at multiplier %g, journeys.%s.clients: %d stands for %.0f clients; at most %d are allowed",
				m, it.Name, *j.Clients, math.Round(float64(*j.Clients)*m), MaxClients)
		}
		for i, st := range j.Stages {
			if st.Target.IsCount && math.Round(float64(st.Target.Clients)*m) > MaxClients {
				return fmt.Errorf("at multiplier %g, journeys.%s.stages[%d].target: %d stands for %.0f clients; at most %d are allowed",
					m, it.Name, i, st.Target.Clients, math.Round(float64(st.Target.Clients)*m), MaxClients)
			}
		}
		if j.Rate != nil && j.Rate.PerSecond*m > MaxRate {
			return fmt.Errorf("at multiplier %g, journeys.%s.rate: %s stands for %.3g/s; at most %g/s is allowed",
				m, it.Name, j.Rate.Text, j.Rate.PerSecond*m, float64(MaxRate))
		}
		if w := j.Wave; j.Rate != nil && w != nil && w.Amplitude != nil && j.Rate.PerSecond*m*(1+*w.Amplitude) > MaxRate {
			peak := j.Rate.PerSecond * m * (1 + *w.Amplitude)
			return fmt.Errorf("at multiplier %g, journeys.%s.wave: %s at amplitude %g peaks at %.3g/s; at most %g/s is allowed",
				m, it.Name, j.Rate.Text, *w.Amplitude, peak, float64(MaxRate))
		}
	}
	return nil
}

// Sources lists every file read to load the scenario and, once compiled,
// to compile it: the scenario first, then the others in the order they were
// first read, each once. Hashing these bytes identifies exactly what was
// simulated, even if the files change on disk afterwards.
func (l *Loaded) Sources() []Source {
	l.read.mu.Lock()
	defer l.read.mu.Unlock()
	return append([]Source(nil), l.read.files...)
}
