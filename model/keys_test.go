package model

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestEveryNumericKeyHasABound holds the table to the schema: every field
// that holds a number declares its range.
func TestEveryNumericKeyHasABound(t *testing.T) {
	for _, p := range keyProblems {
		t.Error(p)
	}
	if len(NumericKeys) < 100 {
		t.Fatalf("the table has %d keys; the schema has more than 100", len(NumericKeys))
	}
}

// keyID names a key wherever it is written.
type keyID struct {
	owner reflect.Type
	key   string
}

// keyCorpus are the scenarios that write every numeric key at an ordinary
// value: the test moves each from there.
var keyCorpus = []string{"testdata/keys/open.yaml", "testdata/keys/closed.yaml"}

// keySite is where a corpus writes a key: the file's tree and the value's
// node in it.
type keySite struct {
	file string
	root *yaml.Node
	node *yaml.Node
}

// findKeys walks a scenario's tree beside the schema's types, as the
// decoder does, and records the first place each numeric key is written.
func findKeys(n *yaml.Node, t reflect.Type, file string, root *yaml.Node, found map[keyID]keySite) {
	t = deref(t)
	n = resolve(n)
	switch {
	case strings.HasPrefix(t.Name(), "Named["):
		if n.Kind != yaml.MappingNode {
			return
		}
		elem := t.Field(0).Type.Elem().Field(1).Type
		for i := 1; i < len(n.Content); i += 2 {
			findKeys(n.Content[i], elem, file, root, found)
		}
	case t.Kind() == reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				findKeys(c, t.Elem(), file, root, found)
			}
		}
	case t == reflect.TypeOf(Component{}):
		spec := reflect.Type(nil)
		if k := entry(n, "kind"); k != nil {
			if def := kindNamed(k.Value); def != nil {
				spec = reflect.TypeOf(def.newSpec())
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if k == "status" {
				record(found, keyID{t, k}, keySite{file, root, v})
			} else if spec != nil {
				findField(deref(spec), k, v, file, root, found)
			}
		}
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			findField(t, n.Content[i].Value, n.Content[i+1], file, root, found)
		}
	}
}

func findField(t reflect.Type, key string, v *yaml.Node, file string, root *yaml.Node, found map[keyID]keySite) {
	_, index := fieldsOf(t)
	fi, ok := index[key]
	if !ok {
		return
	}
	ft := deref(t.Field(fi).Type)
	elem := ft
	switch {
	case ft.Kind() == reflect.Slice:
		elem = deref(ft.Elem())
	case strings.HasPrefix(ft.Name(), "Named["):
		elem = ft.Field(0).Type.Elem().Field(1).Type
	}
	if _, numeric := keyTypes[elem]; !numeric {
		findKeys(v, ft, file, root, found)
		return
	}
	v = resolve(v)
	if elem != ft { // a list or a mapping of values: move its first
		switch {
		case v.Kind == yaml.SequenceNode && len(v.Content) > 0:
			v = v.Content[0]
		case v.Kind == yaml.MappingNode && len(v.Content) > 1:
			v = v.Content[1]
		default:
			return
		}
	}
	record(found, keyID{t, key}, keySite{file, root, v})
}

func record(found map[keyID]keySite, id keyID, s keySite) {
	if _, ok := found[id]; !ok {
		found[id] = s
	}
}

// edge is one value a key is tried at: its text and the number it stands
// for (NaN for a text that is no number).
type edge struct {
	text string
	v    float64
}

// edgesOf are the values a key of this type is tried at: its bounds and
// one past each, and the values that break arithmetic.
func edgesOf(k NumericKey) []edge {
	b := k.Bound
	whole := k.Type == KeyCount || k.Type == KeyCountOrAttr || k.Type == KeyObserved
	var vs []float64
	for _, x := range []float64{b.Lo, b.Hi} {
		if !math.IsInf(x, 0) {
			vs = append(vs, x)
		}
	}
	// One past each end: a whole step for a count, the clock's
	// nanosecond for a time, the next float for any other number.
	timed := k.Type == KeyTime || k.Type == KeyDistribution || k.Type == KeyQuantity
	if !math.IsInf(b.Lo, 0) {
		switch {
		case whole:
			vs = append(vs, b.Lo-1)
		case timed:
			vs = append(vs, b.Lo-1e-9)
		default:
			vs = append(vs, math.Nextafter(b.Lo, math.Inf(-1)))
		}
	}
	if !math.IsInf(b.Hi, 0) {
		switch {
		case whole:
			vs = append(vs, b.Hi+1)
		case timed:
			vs = append(vs, b.Hi+1e-9*math.Max(1, b.Hi/1e6))
		default:
			vs = append(vs, math.Nextafter(b.Hi, math.Inf(1)))
		}
	}
	vs = append(vs, 0, -1, 1<<31+3, 1<<63, 1e308, -1e308, math.NaN(), math.Inf(1))
	if !whole {
		vs = append(vs, 1e-308, 0.5, math.Inf(-1))
	} else {
		vs = append(vs, 1.5)
	}
	var out []edge
	seen := map[string]bool{}
	for _, v := range vs {
		text := numberText(v, whole)
		switch k.Type {
		case KeyTime, KeyDistribution:
			text += "s"
		case KeyRate, KeyTarget:
			text += "/s"
		case KeyThreshold:
			text = "<= " + text
			if strings.Contains(k.Bound.Text, "time") {
				text += "s"
			}
		case KeyQuantity:
			text += "s"
		case KeyObserved:
			text = "0/" + text
		}
		if !seen[text] {
			seen[text] = true
			out = append(out, edge{text, v})
		}
	}
	return out
}

func numberText(v float64, whole bool) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case whole && v == math.Trunc(v) && math.Abs(v) <= 1<<63:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// accepts reports whether the table says the key takes value v: inside
// its bound, whole where it counts, and for a time at least the clock's
// nanosecond (a shorter positive time would silently become 0).
func accepts(k NumericKey, v float64) bool {
	if !k.Bound.Contains(v) {
		return false
	}
	switch k.Type {
	case KeyCount, KeyCountOrAttr, KeyObserved:
		return v == math.Trunc(v)
	case KeyTime, KeyDistribution, KeyQuantity:
		return v == 0 || v >= 1e-9
	}
	return true
}

var positioned = regexp.MustCompile(`([\w./-]+\.yaml):(\d+):`)

// TestEveryNumericKeyAtItsEdges tries every key of the table at its
// bounds, one past them and at NaN, ±Inf, 0, -1, 2^31+3, 2^63, 1e308 and
// 1e-308, from the place the corpus writes it. A value the table refuses
// must be refused, by a message whose position is the value's line; a
// value it takes must load, compile and run (or be refused by a budget
// or a check of its context, again at its line), and the key's lower
// bound itself must run. Nothing may panic, hang or allocate past the
// memory budget.
func TestEveryNumericKeyAtItsEdges(t *testing.T) {
	found := map[keyID]keySite{}
	for _, f := range keyCorpus {
		data := mustReadFile(t, f)
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		findKeys(doc.Content[0], reflect.TypeOf(Scenario{}), f, doc.Content[0], found)
		if err := loadAndRun(filepath.Base(f), data); err != nil {
			t.Fatalf("the corpus must run as written: %v", err)
		}
	}
	for _, k := range NumericKeys {
		site, ok := found[keyID{k.Owner, k.Key}]
		if !ok {
			t.Errorf("%s: no scenario of the corpus (%s) writes it", k.Path, strings.Join(keyCorpus, ", "))
			continue
		}
		for _, e := range edgesOf(k) {
			tryEdge(t, k, site, e)
		}
	}
}

func tryEdge(t *testing.T, k NumericKey, site keySite, e edge) {
	t.Helper()
	saved := *site.node
	*site.node = yaml.Node{Kind: yaml.ScalarNode, Value: e.text, Line: saved.Line, Column: saved.Column}
	data, err := yaml.Marshal(site.root)
	*site.node = saved
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(site.file)
	case_ := fmt.Sprintf("%s: %s", k.Path, e.text)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		done <- loadAndRun(name, data)
	}()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Errorf("%s: still running after 20 s", case_)
		return
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > MemoryBudget {
		t.Errorf("%s: allocated %d bytes, past the memory budget of %d", case_, grew, int64(MemoryBudget))
	}
	if err != nil && strings.HasPrefix(err.Error(), "panic: ") {
		t.Errorf("%s: %v", case_, err)
		return
	}
	// Refused where it is written: the message is positioned in the file
	// and names the key (a check of the value's context may point at
	// the mapping that holds it).
	refusedHere := err != nil && positioned.MatchString(err.Error()) && strings.Contains(err.Error(), k.Key)
	switch {
	case !accepts(k, e.v) && err == nil:
		t.Errorf("%s: outside %s, but accepted and run", case_, k.Bound.Text)
	case !accepts(k, e.v) && !refusedHere:
		t.Errorf("%s: outside %s; refused, but not by a positioned message naming the key: %v", case_, k.Bound.Text, err)
	case accepts(k, e.v) && err != nil && !positioned.MatchString(err.Error()) && !errorIsAGuard(err):
		t.Errorf("%s: inside %s, refused by a message without a position: %v", case_, k.Bound.Text, err)
	case accepts(k, e.v) && e.v == k.Bound.Lo && err != nil:
		t.Errorf("%s: the least value %s allows is refused: %v", case_, k.Bound.Text, err)
	}
}

func loadAndRun(name string, data []byte) error {
	l, err := LoadBytes(nil, name, data, LoadOptions{})
	if err != nil {
		return err
	}
	c, err := l.Compile()
	if err != nil {
		return err
	}
	_, err = c.Run(RunOptions{Seed: 1})
	return err
}

// errorIsAGuard: a run stopped by one of the limits the corpus sets
// (events, simulated time), a refusal of the run, not of the value.
func errorIsAGuard(err error) bool {
	return strings.Contains(err.Error(), "limits.")
}
