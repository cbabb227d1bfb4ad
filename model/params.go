package model

import (
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Param is one value of a loaded scenario that a result may hinge on: a
// named distribution, a time, a count, a branch weight or a number. Path
// is where an override reaches it (--set, --scale); Name is a shorter
// handle, unique in the scenario.
type Param struct {
	Name  string
	Path  string
	Kind  ParamKind
	Value string // as written; for a named distribution, its definition
	// Mean is a distribution's or a time's mean in seconds; NaN for the
	// other kinds and for an empirical distribution read from a file.
	Mean float64
	// Min is the smallest value a count may take (0 or 1).
	Min int
	// Label says where the value comes from, as its comment does:
	// "input" (a measured figure), "fitted" (a calibrated distribution),
	// "assumption", or "" when nothing says. Note is the comment's words.
	Label, Note string
	// Lo and Hi are the ends of the range the scenario declares for the
	// value ({range: …} or {triangular: …}), in scenario syntax; "" when
	// it declares none. Sensitivity moves a ranged value to its ends.
	Lo, Hi string
	// Design is the design whose overlay wrote the value, "" for the
	// base's. Such a value is labelled by the overlay's comments only: a
	// label of the base value it replaced says nothing of it.
	Design string
	// File and Line are where the value is written.
	File string
	Line int
}

// ParamKind tells how a parameter is perturbed: a count by whole steps,
// everything else by a factor.
type ParamKind string

const (
	ParamDistribution ParamKind = "distribution" // a named distribution, every use of it
	ParamTime         ParamKind = "time"         // a duration or a distribution written in place
	ParamCount        ParamKind = "count"        // servers, permits, a queue, a repeat, an attribute counted
	ParamWeight       ParamKind = "weight"       // a choose branch's weight: the branch's share
	ParamNumber       ParamKind = "number"       // a rate, a probability, cores, an attribute not whole
)

// specParams holds, for each component kind, the keys of its spec a
// result may hinge on and how each is perturbed, read from the spec's Go
// types: an int is a count, a float64 or a rate a number, a duration or a
// distribution a time; a nested mapping's keys are dotted (autoscale.target).
// A field tagged param:"-" (a status code) is no quantity. Built from the
// specs the decoder fills, so a kind's new key is a parameter without a
// line here.
var specParams = func() map[string]map[string]ParamKind {
	out := map[string]map[string]ParamKind{}
	for _, k := range kinds {
		keys := map[string]ParamKind{}
		paramKeysOf(reflect.TypeOf(k.newSpec()), "", keys)
		out[k.name] = keys
	}
	return out
}()

func paramKeysOf(t reflect.Type, prefix string, keys map[string]ParamKind) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" || f.Tag.Get("param") == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == reflect.TypeOf(Duration{}) || ft == reflect.TypeOf(DistRef{}):
			keys[prefix+tag] = ParamTime
		case ft == reflect.TypeOf(Rate{}) || ft.Kind() == reflect.Float64:
			keys[prefix+tag] = ParamNumber
		case ft.Kind() == reflect.Int:
			keys[prefix+tag] = ParamCount
		case ft.Kind() == reflect.Struct:
			paramKeysOf(ft, prefix+tag+".", keys)
		}
	}
}

// Count keys of components and steps, and the least each may be; time keys.
var (
	countKeys = map[string]int{"servers": 1, "permits": 1, "instances": 1, "min_instances": 0, "queue": 0,
		"admit": 1, "replicas": 1, "max": 1, "max_sessions": 1, "repeat": 1, "fanout": 1, "limit": 1,
		"attempts": 1, "clients": 1, "users": 1}
	timeKeys = map[string]bool{"wait_timeout": true, "idle_stop": true, "cold_start": true, "warm_start": true,
		"connect": true, "max_wait": true, "idle_timeout": true, "report_every": true, "ttl": true,
		"timeout": true, "deadline": true, "every": true, "work": true, "delay": true, "backoff": true,
		"max_backoff": true, "think": true, "refuse_cost": true}
	numberKeys = map[string]bool{"rate": true, "burst": true, "cores": true, "switch_cost": true, "p": true}
)

// Params lists the parameters of the scenario as loaded (its design and
// overrides applied), in file order: the named distributions something
// uses, then each component's, journey's and route's values. A value
// written once and reached by several paths (a YAML alias) is listed once.
// Left out: the journeys' rates (the load multiplier scales them), the
// run's own settings (duration, warm-up, guards) and the SLOs.
func (l *Loaded) Params() []Param {
	w := &paramWalker{seen: map[*yaml.Node]bool{}, names: map[string]int{}, ranges: map[string]Uncertain{},
		overlaid: l.overlaid, pos: l.pos}
	if w.overlaid == nil {
		w.overlaid = newOverlaid()
	}
	for _, u := range l.uncertain {
		if u.Form == "range" || u.Form == "triangular" {
			w.ranges[u.Path] = u
		}
	}
	root := l.root
	used := map[string]bool{}
	for _, k := range []string{"components", "journeys", "routes"} {
		if j, ok := lookup(root, k); ok {
			scalars(resolve(root.Content[j+1]), used)
		}
	}
	if m := entry(root, "distributions"); m != nil {
		block := topOwner(root, "distributions")
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], resolve(m.Content[i+1])
			if !used[k.Value] {
				continue
			}
			text, note := v.Value, ""
			k, up := w.owners(k, v, block)
			label, cnote := commentLabel(k, v)
			if v.Kind == yaml.MappingNode {
				if d := entry(v, "dist"); d != nil {
					text = d.Value
				}
				if isFamilyForm(v) {
					text, _, _ = familyText(v)
				}
				if src := entry(v, "source"); src != nil && label == "" {
					label = "fitted"
					for _, key := range []string{"ref", "figures"} {
						if r := entry(src, key); r != nil && r.Kind == yaml.ScalarNode {
							note = r.Value
							break
						}
					}
				}
			}
			if label == "" {
				label, cnote = ownerLabel(up)
			}
			if note == "" {
				note = cnote
			}
			w.add(Param{Name: k.Value, Path: "distributions." + k.Value, Kind: ParamDistribution, Value: text, Label: label, Note: note}, v, k.Value)
			if isFamilyForm(v) {
				w.familyRanges(k, v, up)
			}
		}
	}
	if m := entry(root, "components"); m != nil {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, c := m.Content[i], resolve(m.Content[i+1])
			kind := ""
			if kn := entry(c, "kind"); kn != nil {
				kind = kn.Value
			}
			lk, up := w.owners(k, c, topOwner(root, "components"))
			w.spec(c, "components."+k.Value, k.Value, append([]*yaml.Node{c, lk}, up...), specParams[kind], "")
		}
	}
	if m := entry(root, "journeys"); m != nil {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, j := m.Content[i], resolve(m.Content[i+1])
			path := "journeys." + k.Value
			lk, up := w.owners(k, j, topOwner(root, "journeys"))
			owner := append([]*yaml.Node{lk}, up...)
			if a := entry(j, "attributes"); a != nil && a.Kind == yaml.MappingNode {
				// A comment ending a flow mapping's line speaks for the
				// attributes in it, and the attributes: key's comments
				// and the journey's for those without their own.
				ak, aup := w.owners(keyOf(j, "attributes"), a, owner)
				attrs := append([]*yaml.Node{a, ak}, aup...)
				for i := 0; i+1 < len(a.Content); i += 2 {
					ak, av := a.Content[i], resolve(a.Content[i+1])
					lak, aown := w.owners(ak, av, attrs)
					w.number(lak, av, path+".attributes."+ak.Value, k.Value+"."+ak.Value, 0, true, aown)
				}
			}
			w.mapping(j, path, k.Value, owner, true)
		}
	}
	if m := entry(root, "routes"); m != nil {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, r := m.Content[i], resolve(m.Content[i+1])
			lk, up := w.owners(k, r, topOwner(root, "routes"))
			w.mapping(r, "routes."+k.Value, k.Value, append([]*yaml.Node{lk}, up...), true)
		}
	}
	// Names leave out the step numbers where no other parameter then has
	// the same name; a name two parameters still share is the full path.
	compact := map[string]int{}
	for _, p := range w.out {
		compact[compactName(p.Name)]++
	}
	for i := range w.out {
		p := &w.out[i]
		switch {
		case compact[compactName(p.Name)] == 1:
			p.Name = compactName(p.Name)
		case w.names[p.Name] > 1:
			p.Name = p.Path
		}
	}
	return w.out
}

// familyRanges lists the parameters of a named distribution written as a
// family with its parameters as keys that the scenario gives a range:
// each is moved to its ends like any other ranged value, besides the
// distribution's own scaling. up are the entry's owners.
func (w *paramWalker) familyRanges(k, v *yaml.Node, up []*yaml.Node) {
	keys, values := familyParams(v)
	for i, pk := range keys {
		path := "distributions." + k.Value + "." + pk.Value
		if _, ranged := w.ranges[path]; !ranged {
			continue
		}
		kind := ParamNumber
		if timeParams[pk.Value] {
			kind = ParamTime
		}
		label, note := commentLabel(pk, values[i])
		if label == "" {
			label, note = ownerLabel(append([]*yaml.Node{v, k}, up...))
		}
		w.add(Param{Path: path, Kind: kind, Value: values[i].Value, Label: label, Note: note}, values[i], k.Value+"."+pk.Value)
	}
}

// compactName drops the step numbers of a name (the numbers not after
// choose, which number branches).
func compactName(name string) string {
	segs := strings.Split(name, ".")
	out := segs[:0:0]
	for i, s := range segs {
		if _, err := strconv.Atoi(s); err == nil && i > 0 && segs[i-1] != "choose" {
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, ".")
}

type paramWalker struct {
	out   []Param
	seen  map[*yaml.Node]bool
	names map[string]int
	// ranges are the declared ranges by path: a ranged number is listed
	// even where its point value is 0, which no factor could move.
	ranges   map[string]Uncertain
	overlaid *overlaid
	pos      *positions
}

// overlaid records the values the designs' overlays put into a loaded
// tree. A value a design replaced keeps the base's key node, and a key a
// design merged into keeps the base's entry: their comments label the
// base's values, not the design's.
type overlaid struct {
	design string // the design being merged
	// placed holds, for each value an overlay put in place, the overlay's
	// key for it and the overlay's mappings and keys above it, nearest
	// first, up to the design's own key.
	placed map[*yaml.Node]placement
	// by names, for every node of what an overlay put in place, the design.
	by map[*yaml.Node]string
}

type placement struct {
	key    *yaml.Node
	owners []*yaml.Node
}

func newOverlaid() *overlaid {
	return &overlaid{placed: map[*yaml.Node]placement{}, by: map[*yaml.Node]string{}}
}

func (o *overlaid) place(k, v *yaml.Node, owners []*yaml.Node) {
	o.placed[v] = placement{key: k, owners: append([]*yaml.Node(nil), owners...)}
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		n = resolve(n)
		if n == nil || o.by[n] == o.design {
			return
		}
		o.by[n] = o.design
		for _, c := range n.Content {
			mark(c)
		}
	}
	mark(v)
}

// owners returns the key and the owners whose comments label v: for a
// value an overlay put in place, the overlay's own; else k and owner.
func (w *paramWalker) owners(k, v *yaml.Node, owner []*yaml.Node) (*yaml.Node, []*yaml.Node) {
	if pl, ok := w.overlaid.placed[v]; ok {
		return pl.key, pl.owners
	}
	return k, owner
}

func (w *paramWalker) add(p Param, n *yaml.Node, name string) {
	if w.seen[n] {
		return
	}
	p.Mean = math.NaN()
	if p.Kind == ParamDistribution || p.Kind == ParamTime {
		if t, err := parseDuration(p.Value); err == nil {
			p.Mean = t.Seconds()
		} else if d, file, err := parseDist(p.Value); err == nil && file == "" {
			p.Mean = d.Mean()
		}
	}
	if u, ok := w.ranges[p.Path]; ok {
		p.Lo, p.Hi = u.format(u.Lo), u.format(u.Hi)
	}
	w.seen[n] = true
	p.Design, p.Line, p.File = w.overlaid.by[n], n.Line, w.pos.main
	if f, ok := w.pos.fileOf[n]; ok {
		p.File = f
	}
	p.Name = name
	w.names[name]++
	w.out = append(w.out, p)
}

// mapping walks a component, a journey, a route, a step or a nested map
// (poll:, retry:, fail:). owner holds the nodes of the entry or step
// whose comments may speak for the values it holds.
func (w *paramWalker) mapping(m *yaml.Node, path, name string, owner []*yaml.Node, steps bool) {
	if m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		p, n := path+"."+k.Value, name+"."+k.Value
		k, owner := w.owners(k, v, owner)
		switch {
		case (k.Value == "steps" || k.Value == "on_failure") && v.Kind == yaml.SequenceNode:
			// A route's on_failure steps cost time too (the error
			// response a handler writes): they are parameters as its
			// steps are, named as such.
			stepName := name
			if k.Value == "on_failure" {
				stepName = n
			}
			for s, st := range v.Content {
				idx := strconv.Itoa(s)
				st = resolve(st)
				step := []*yaml.Node{st}
				if st.Kind == yaml.MappingNode && len(st.Content) > 0 {
					step = append(step, st.Content[0])
				}
				// The steps: key and what holds it speak for a step
				// that has no label of its own.
				step = append(append(step, k), owner...)
				w.mapping(st, p+"."+idx, stepName+"."+idx, step, true)
			}
		case k.Value == "choose" && v.Kind == yaml.SequenceNode:
			// The last branch's weight is what the others leave: with two
			// branches, perturbing both would say one thing twice.
			for b, br := range v.Content {
				br = resolve(br)
				bp, bn := p+"."+strconv.Itoa(b), n+"."+strconv.Itoa(b)
				if wt := entry(br, "weight"); wt != nil && b < len(v.Content)-1 {
					w.factor(keyOf(br, "weight"), wt, bp+".weight", bn+".weight", ParamWeight, owner)
				}
				if st := entry(br, "steps"); st != nil {
					w.mapping(br, bp, bn, owner, true)
				}
			}
		case k.Value == "attributes" || k.Value == "rate" && steps || k.Value == "stages" || k.Value == "count":
			// attributes are walked by the caller; a journey's rate and
			// count are the load, which the multiplier already varies.
		case (k.Value == "poll" || k.Value == "retry" || k.Value == "fail") && v.Kind == yaml.MappingNode:
			// A comment ending `retry: {…}`'s line is the flow mapping's.
			w.mapping(v, p, n, append([]*yaml.Node{v}, owner...), true)
		case v.Kind != yaml.ScalarNode:
		case timeKeys[k.Value]:
			w.time(k, v, p, n, owner)
		case countKeys[k.Value] >= 0 && isCountKey(k.Value):
			w.number(k, v, p, n, countKeys[k.Value], false, owner)
		case numberKeys[k.Value]:
			w.factor(k, v, p, n, ParamNumber, owner)
		}
	}
}

// spec walks a component's mapping by its kind's keys (specParams);
// prefix is the dotted path of a nested mapping's keys inside the spec.
func (w *paramWalker) spec(m *yaml.Node, path, name string, owner []*yaml.Node, keys map[string]ParamKind, prefix string) {
	if m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		p, n, key := path+"."+k.Value, name+"."+k.Value, prefix+k.Value
		k, owner := w.owners(k, v, owner)
		if v.Kind == yaml.MappingNode {
			w.spec(v, p, n, append([]*yaml.Node{v}, owner...), keys, key+".")
			continue
		}
		if v.Kind != yaml.ScalarNode {
			continue
		}
		kind, ok := keys[key]
		switch {
		case !ok:
		case kind == ParamTime:
			w.time(k, v, p, n, owner)
		case kind == ParamCount:
			w.number(k, v, p, n, max(0, countKeys[k.Value]), false, owner)
		default:
			w.factor(k, v, p, n, ParamNumber, owner)
		}
	}
}

func isCountKey(k string) bool { _, ok := countKeys[k]; return ok }

// time lists a duration or a distribution written in place; a name is a
// named distribution's use, listed under distributions.
func (w *paramWalker) time(k, v *yaml.Node, path, name string, owner []*yaml.Node) {
	s := strings.TrimSpace(v.Value)
	if !strings.Contains(s, "(") {
		if _, err := parseDuration(s); err != nil {
			return
		}
	} else if strings.HasPrefix(s, "empirical(file") {
		return
	}
	label, note := commentLabel(k, v)
	if label == "" {
		label, note = ownerLabel(owner)
	}
	w.add(Param{Path: path, Kind: ParamTime, Value: s, Label: label, Note: note}, v, name)
}

// number lists a whole number as a count and anything else as a number
// (attributes: a share is not counted); names (attribute references) are
// listed where they are defined.
func (w *paramWalker) number(k, v *yaml.Node, path, name string, least int, attribute bool, owner []*yaml.Node) {
	if v.Kind != yaml.ScalarNode {
		return
	}
	label, note := commentLabel(k, v)
	if label == "" {
		label, note = ownerLabel(owner)
	}
	if _, err := strconv.Atoi(v.Value); err == nil {
		w.add(Param{Path: path, Kind: ParamCount, Value: v.Value, Min: least, Label: label, Note: note}, v, name)
		return
	}
	if _, err := strconv.ParseFloat(v.Value, 64); err == nil && attribute {
		w.add(Param{Path: path, Kind: ParamNumber, Value: v.Value, Label: label, Note: note}, v, name)
	}
}

func (w *paramWalker) factor(k, v *yaml.Node, path, name string, kind ParamKind, owner []*yaml.Node) {
	if v.Kind != yaml.ScalarNode {
		return
	}
	if x, err := strconv.ParseFloat(v.Value, 64); err != nil || !(x > 0) {
		if _, ranged := w.ranges[path]; !ranged || err != nil {
			return
		}
	}
	label, note := commentLabel(k, v)
	if label == "" {
		label, note = ownerLabel(owner)
	}
	w.add(Param{Path: path, Kind: kind, Value: v.Value, Label: label, Note: note}, v, name)
}

var (
	labelWord = regexp.MustCompile(`\b(input|fitted|assumption)s?\b:?`)
	figureRef = regexp.MustCompile(`\b\d{3}-[A-Z]?\d+\b`)
)

// commentLabel reads a label from the comments on a value's own line or
// just above its key: "assumption: ..." and the like, or a reference to
// a figure ("000-122"), which makes the value an input.
func commentLabel(k, v *yaml.Node) (string, string) {
	for _, c := range []string{v.LineComment, k.LineComment, k.HeadComment} {
		if l, n := classify(c); l != "" {
			return l, n
		}
	}
	return "", ""
}

// ownerLabel reads a label from the comments of the blocks that hold a
// value, nearest first: the comment ending a block's line (a one-line
// component, a key with its mapping below) or the comment on its own line
// just above it. A label so placed speaks for every value inside the block
// that has none nearer, as a heading does.
func ownerLabel(owner []*yaml.Node) (string, string) {
	for _, n := range owner {
		for _, c := range []string{n.LineComment, n.HeadComment} {
			if l, note := classify(c); l != "" {
				return l, note
			}
		}
	}
	return "", ""
}

// topOwner is the owner list of an entry of one of the document's
// top-level blocks: that block's key, whose comments speak for all of it.
func topOwner(root *yaml.Node, key string) []*yaml.Node {
	if j, ok := lookup(root, key); ok {
		return []*yaml.Node{root.Content[j]}
	}
	return nil
}

func classify(c string) (string, string) {
	c = strings.Join(strings.Fields(strings.ReplaceAll(c, "#", " ")), " ")
	if c == "" {
		return "", ""
	}
	if m := labelWord.FindStringSubmatchIndex(c); m != nil {
		return c[m[2]:m[3]], strings.TrimSpace(c[m[1]:])
	}
	if figureRef.MatchString(c) {
		return "input", c
	}
	return "", ""
}

func keyOf(m *yaml.Node, key string) *yaml.Node {
	j, _ := lookup(m, key)
	return m.Content[j]
}

// scalars collects every scalar value below n.
func scalars(n *yaml.Node, into map[string]bool) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		into[n.Value] = true
	}
	for _, c := range n.Content {
		scalars(c, into)
	}
}
