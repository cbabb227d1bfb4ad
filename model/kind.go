package model

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"capsim/sim"

	"go.yaml.in/yaml/v3"
)

// A component kind is a unit. Each kind lives in one file, kind_<name>.go,
// which holds its YAML spec (a plain struct decoded strictly, so a key of
// another kind or a typo is an error), the compile step that checks the
// spec, and the runtime that reacts to the interpreter's acquire, release
// and abandon. This file holds what every kind shares: the registry (the
// only list of kinds), the decoding of a component mapping, and the
// interfaces of a kind's spec and compiled form. The interfaces a kind's
// runtime offers the interpreter, the results and the time series
// (component and its kin) are run.go's, beside the run that holds them.
//
// Adding a kind means sim/<kind>.go for the primitive, model/kind_<kind>.go
// for the spec, compile step and runtime, one line in kinds, docs and tests.

// kinds is the registry of component kinds, in the order error messages
// list them.
var kinds = []*kindDef{poolKind, semaphoreKind, lockKind, bucketKind, workerKind, balancerKind, cpuKind, connectionsKind}

// kindDef describes one kind to the generic parts of the model: how to
// decode it, what steps may do with it, and how its results read.
type kindDef struct {
	name string
	// newSpec returns an empty spec to decode a component's own keys into.
	newSpec func() kindSpec
	// status is the default HTTP status of a refusal or a timed-out wait.
	status int32
	// reportAs is the kind its results name, when not its own.
	reportAs string

	// What steps may do with a component of this kind.
	keyed    bool // use/hold take a key: waits are per key (a row lock)
	sessions bool // use/hold may count as a session (a balancer)
	noHold   bool // it hands something out and takes nothing back: use only
	runsWork bool // use runs its work there (shared cores): work only, no steps
	// priorities: waiters are served by priority class, highest first.
	priorities bool
	signals    bool // calls may report overload signals to it (signal:)
	// capacity: it has servers, instances or cores a balancer can read as
	// its load.
	capacity bool
	// capacityUnit names what its result's Capacity counts (servers,
	// cores…); empty for a kind whose capacity is not a number.
	capacityUnit string
	// passThrough: callers never wait in line or hold a server here (they
	// sleep or are sent on), so its peak busy and peak queue are not
	// defined.
	passThrough bool
	// measures are the kind's own, listed after every component's; a
	// replica measure is listed for each replica behind the component.
	measures []Measure
}

// kindNamed returns the kind called name, or nil.
func kindNamed(name string) *kindDef {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// reported is the kind named in results.
func (k *kindDef) reported() string {
	if k.reportAs != "" {
		return k.reportAs
	}
	return k.name
}

// CapacityUnit names what n of a component of the kind's Capacity
// count, as a reader says it ("4 cores" for a cpu, "1 server" for a
// pool); empty for a kind without one (a lock, a bucket) or no kind.
func CapacityUnit(kind string, n float64) string {
	k := kindNamed(kind)
	if k == nil {
		return ""
	}
	if n == 1 {
		return strings.TrimSuffix(k.capacityUnit, "s") // every unit's plural ends in s
	}
	return k.capacityUnit
}

// kindNames lists the kinds for messages: "a, b or c".
func kindNames() string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// kindSpec is the YAML-facing form of one kind: exported fields with yaml
// tags, decoded strictly, and the step that compiles them.
type kindSpec interface {
	// compile checks the spec, sets what the generic part of cp needs
	// (status, wait timeout) and returns the kind's compiled form.
	compile(c *compiler, cp *compProg, at site) kindProg
}

// site locates a component's mapping, for errors found while compiling it.
type site struct {
	node *yaml.Node // the component's mapping (or its key)
	path string     // components.<name>
}

// failKey reports a problem with key of the component at s.
func (c *compiler) failAt(s site, key, format string, args ...any) {
	c.failKey(s.node, key, joinPath(s.path, key), format, args...)
}

// kindProg is a compiled component of one kind: immutable after
// compilation and shared by every run (and every replica copy) of the
// program.
type kindProg interface {
	// newRuntime builds the component's state for one run. ci is its
	// program index; streams are derived from cp.seedName.
	newRuntime(r *run, ci int32, cp *compProg, st *sim.Streams) component
}

// keyedProg is a compiled kind whose uses take a key, with the attribute
// that names it when a step does not ("" for the journey's user).
type keyedProg interface {
	keyAttr() string
}

// Component is one part that holds or limits work: the keys every kind
// shares, and the kind's own keys in Spec.
type Component struct {
	Kind        string
	Description string
	Status      *int // status of a refusal or timeout; default per kind
	// Behind names a balancer: the component then has one copy per replica
	// and a use reaches the copy of the replica the balancer picked for
	// the request (see kind_balancer.go).
	Behind string
	Source Raw
	Spec   kindSpec // nil when the kind is missing or unknown

	Node *yaml.Node
}

// commonKeys are the keys of every component, in the order messages list
// them.
var commonKeys = []string{"kind", "description", "status", "behind", "source"}

// specKeys lists the YAML keys of a kind's spec in declaration order.
func specKeys(k *kindDef) []string {
	names, _ := fieldsOf(reflect.TypeOf(k.newSpec()).Elem())
	return names
}

// componentKeys is every key some component may have.
func componentKeys() map[string]bool {
	keys := map[string]bool{}
	for _, k := range commonKeys {
		keys[k] = true
	}
	for _, kd := range kinds {
		for _, k := range specKeys(kd) {
			keys[k] = true
		}
	}
	return keys
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decodeNode decodes a component: kind first, then every other key into
// the shared fields or the kind's spec. A key of another kind is reported
// as not applying to this one; a key of no kind as unknown.
func (cs *Component) decodeNode(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping, got %s", describe(n))
		return
	}
	cs.Node = n
	if kn := resolve(valueNode(n, "kind")); kn != n {
		d.decode(kn, reflect.ValueOf(&cs.Kind).Elem(), joinPath(path, "kind"))
	}
	def := kindNamed(cs.Kind)
	var spec reflect.Value
	var own map[string]int
	known := commonKeys
	if def != nil {
		cs.Spec = def.newSpec()
		spec = reflect.ValueOf(cs.Spec).Elem()
		var names []string
		names, own = fieldsOf(spec.Type())
		known = append(append([]string(nil), commonKeys...), names...)
	}
	all := componentKeys()
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := joinPath(path, k.Value)
		switch k.Value {
		case "kind":
		case "description":
			d.decode(val, reflect.ValueOf(&cs.Description).Elem(), p)
		case "status":
			d.decode(val, reflect.ValueOf(&cs.Status).Elem(), p)
			if err := checkInt(reflect.TypeOf(*cs), k.Value, reflect.ValueOf(&cs.Status).Elem()); err != nil {
				d.fail(resolve(val), p, "%v", err)
			}
		case "behind":
			d.decode(val, reflect.ValueOf(&cs.Behind).Elem(), p)
		case "source":
			d.decode(val, reflect.ValueOf(&cs.Source).Elem(), p)
		default:
			if fi, ok := own[k.Value]; ok {
				before := len(d.errs)
				d.decode(val, spec.Field(fi), p)
				if len(d.errs) == before {
					d.checkField(spec.Type(), fi, spec.Field(fi), k.Value, val, p)
				}
				continue
			}
			if def == nil && all[k.Value] {
				continue // the missing or unknown kind is reported when compiling
			}
			if def == nil {
				msg := unknownKey(k.Value, sortedKeys(all))
				if !strings.Contains(msg, "did you mean") {
					// Listing every kind's keys would bury the point.
					msg = fmt.Sprintf("unknown key %q (a component takes %s and the keys of its kind)", k.Value, strings.Join(commonKeys, ", "))
				}
				d.fail(k, p, "%s", msg)
				continue
			}
			if all[k.Value] {
				d.fail(resolve(val), p, "%s does not apply to a component of kind %s", k.Value, cs.Kind)
				continue
			}
			d.fail(k, p, "%s", unknownKey(k.Value, known))
		}
	}
}

// component compiles one entry of components:.
func (c *compiler) component(name string, cs *Component, key *yaml.Node) {
	at := site{node: cs.Node, path: "components." + name}
	if at.node == nil {
		at.node = key
	}
	def := kindNamed(cs.Kind)
	switch {
	case cs.Kind == "":
		c.failAt(at, "kind", "kind is required (%s)", kindNames())
		return
	case def == nil:
		c.failAt(at, "kind", "unknown kind %q (expected %s)", cs.Kind, kindNames())
		return
	}
	cp := compProg{name: name, seedName: name, kind: def, status: def.status, behind: -1, waitTimeout: -1}
	if cs.Status != nil {
		if *cs.Status < 400 || *cs.Status > 599 {
			c.failAt(at, "status", "status must be an HTTP error status (400-599), got %d", *cs.Status)
		}
		cp.status = int32(*cs.Status)
	}
	cp.prog = cs.Spec.compile(c, &cp, at)
	c.compIdx[name] = int32(len(c.p.comps))
	c.p.comps = append(c.p.comps, cp)
}

// componentSpec returns the spec of the component at program index ci, as
// written in the scenario (a replica's copy has its component's spec).
func (c *compiler) componentSpec(ci int32) kindSpec {
	return c.sc.Components.Items[ci].Value.Spec
}
