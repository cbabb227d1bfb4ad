package model

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"capsim/sim/naming"

	"go.yaml.in/yaml/v3"
)

// decoder turns a YAML node tree into schema structs strictly: unknown keys,
// wrong types and malformed values are errors carrying the node's position
// and key path. yaml.v3's own Decode loses column numbers and does not carry
// KnownFields into nested custom decoders, so the walk is done here over
// struct tags.
type decoder struct {
	pos  *positions
	errs ErrorList
	// seen counts the values decoded. YAML aliases let a small file stand
	// for an exponentially large tree ("billion laughs"); past maxValues
	// decoding stops with an error instead of running out of time.
	seen int
}

// maxValues bounds the values one scenario may expand to; a large real
// scenario has a few thousand.
const maxValues = 1_000_000

// scalarValue is implemented by schema types written as one YAML scalar
// (durations, rates, distributions, thresholds).
type scalarValue interface {
	parseScalar(s string) error
}

// nodeValue is implemented by schema types that decode a whole node
// themselves (ordered maps, raw nodes, either-or shapes).
type nodeValue interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, d.pos.errAt(n, path, format, args...))
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!int":
		return "the integer " + n.Value
	case "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	case "!!null":
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	n = resolve(n)
	if d.seen++; d.seen > maxValues {
		if d.seen == maxValues+1 {
			d.fail(n, path, "the scenario expands to more than %d values (aliases repeating aliases?)", maxValues)
		}
		return
	}
	if v.CanAddr() {
		if nv, ok := v.Addr().Interface().(nodeValue); ok {
			nv.decodeNode(d, n, path)
			return
		}
		if sv, ok := v.Addr().Interface().(scalarValue); ok {
			if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
				d.fail(n, path, "expected a single value, got %s", describe(n))
				return
			}
			if err := sv.parseScalar(n.Value); err != nil {
				d.fail(n, path, "%v", err)
			}
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(n) {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), path)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, path, "expected a list, got %s", describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			d.fail(n, path, "expected a string, got %s", describe(n))
			return
		}
		if err := checkString(path, n.Value); err != nil {
			d.fail(n, path, "%v", err)
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			d.fail(n, path, "expected true or false, got %s", describe(n))
			return
		}
		v.SetBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	case reflect.Int, reflect.Int64, reflect.Int32:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			d.fail(n, path, "expected an integer, got %s", describe(n))
			return
		}
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			d.fail(n, path, "integer %s is out of range", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Uint64:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || strings.HasPrefix(n.Value, "-") {
			d.fail(n, path, "expected a non-negative integer, got %s", describe(n))
			return
		}
		u, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			d.fail(n, path, "integer %s is out of range", n.Value)
			return
		}
		v.SetUint(u)
	case reflect.Float64:
		f, ok := floatOf(n)
		if !ok {
			d.fail(n, path, "expected a number, got %s", describe(n))
			return
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.fail(n, path, "expected a finite number, got %s", n.Value)
			return
		}
		v.SetFloat(f)
	default:
		panic("model: no decoder for " + v.Type().String())
	}
}

func floatOf(n *yaml.Node) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil {
		switch strings.ToLower(n.Value) {
		case ".nan":
			return math.NaN(), true
		case ".inf", "+.inf":
			return math.Inf(1), true
		case "-.inf":
			return math.Inf(-1), true
		}
		return 0, false
	}
	return f, true
}

// structFields are a struct's YAML keys, in declaration order, and the
// index of each key's field.
type structFields struct {
	names []string
	index map[string]int
}

// fieldCache holds fieldsOf's answer per struct type: every mapping the
// decoder meets asks, once per design, perturbation and draw loaded.
var fieldCache sync.Map // reflect.Type -> structFields

// fieldsOf lists a struct's YAML keys in declaration order. Both results
// are shared by every caller, who must not change them.
func fieldsOf(t reflect.Type) (names []string, index map[string]int) {
	if f, ok := fieldCache.Load(t); ok {
		return f.(structFields).names, f.(structFields).index
	}
	index = map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		name := strings.Split(tag, ",")[0]
		names = append(names, name)
		index[name] = i
	}
	// Clipped, so that a caller's append copies instead of writing into
	// the shared array.
	names = slices.Clip(names)
	fieldCache.Store(t, structFields{names, index})
	return names, index
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping, got %s", describe(n))
		return
	}
	names, index := fieldsOf(v.Type())
	if f := v.FieldByName("Node"); f.IsValid() && f.Type() == reflect.TypeOf((*yaml.Node)(nil)) {
		f.Set(reflect.ValueOf(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		fi, ok := index[k.Value]
		if !ok {
			d.fail(k, joinPath(path, k.Value), "%s", unknownKey(k.Value, names))
			continue
		}
		n := len(d.errs)
		d.decode(val, v.Field(fi), joinPath(path, k.Value))
		if len(d.errs) == n {
			d.checkField(v.Type(), fi, v.Field(fi), k.Value, val, joinPath(path, k.Value))
		}
	}
}

// checkField holds a decoded field of a struct of type t to what its tags
// declare: a list tagged nonempty may not be empty (the tag says what to
// write instead), a number must lie in its bound tag's range (keys.go)
// and an integer within its intBound or ±MaxCount.
func (d *decoder) checkField(t reflect.Type, fi int, field reflect.Value, key string, val *yaml.Node, path string) {
	if what, ok := t.Field(fi).Tag.Lookup("nonempty"); ok && field.Kind() == reflect.Slice && field.Len() == 0 {
		d.fail(resolve(val), path, "%s: [] means nothing; %s", key, what)
		return
	}
	if err := checkBound(t, fi, field); err != nil {
		d.fail(resolve(val), path, "%s %v", key, err)
	} else if err := checkInt(t, key, field); err != nil {
		d.fail(resolve(val), path, "%v", err)
	}
}

// unknownKey explains a key the schema does not have, suggesting the
// nearest known one when it is a plausible typo.
func unknownKey(key string, known []string) string {
	if best := Nearest(key, known, 3); best != "" {
		return fmt.Sprintf("unknown key %q; did you mean %q?", key, best)
	}
	return fmt.Sprintf("unknown key %q (expected one of: %s)", key, strings.Join(sortedCopy(known), ", "))
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// Named is a YAML mapping from user-chosen names to values, kept in file
// order: components, journeys and routes are reported, seeded and iterated
// in the order the author wrote them, never in map order.
type Named[T any] struct {
	Items []NamedItem[T]
}

// NamedItem is one entry of a Named mapping.
type NamedItem[T any] struct {
	Name  string
	Value T
	node  *yaml.Node // the key, for error positions
}

// Get returns the entry called name.
func (m *Named[T]) Get(name string) (*T, bool) {
	for i := range m.Items {
		if m.Items[i].Name == name {
			return &m.Items[i].Value, true
		}
	}
	return nil, false
}

// Names lists the entries' names in file order.
func (m *Named[T]) Names() []string {
	out := make([]string, len(m.Items))
	for i, it := range m.Items {
		out[i] = it.Name
	}
	return out
}

func (m *Named[T]) decodeNode(d *decoder, n *yaml.Node, path string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping of names, got %s", describe(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], resolve(n.Content[i+1])
		p := joinPath(path, k.Value)
		if err := checkName(k.Value); err != nil {
			d.fail(k, p, "%v", err)
			continue
		}
		if err := reservedName(path, k.Value); err != nil {
			d.fail(k, p, "%v", err)
			continue
		}
		it := NamedItem[T]{Name: k.Value, node: k}
		d.decode(val, reflect.ValueOf(&it.Value).Elem(), p)
		m.Items = append(m.Items, it)
	}
}

// validName reports whether s can name a component, journey, route,
// distribution, design or attribute; the rule lives in sim/naming so
// that calibrate writes only names a scenario accepts.
func validName(s string) bool { return naming.Valid(s) }

// checkName says why s cannot be a name, nil when it can.
func checkName(s string) error { return naming.Check(s) }

// Raw keeps a node undecoded: provenance notes and other documentation that
// the simulator carries but does not interpret.
type Raw struct{ Node *yaml.Node }

func (r *Raw) decodeNode(_ *decoder, n *yaml.Node, _ string) { r.Node = n }

func entry(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	if j, ok := lookup(m, key); ok {
		return resolve(m.Content[j+1])
	}
	return nil
}

func lookup(m *yaml.Node, key string) (int, bool) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i, true
		}
	}
	return 0, false
}
