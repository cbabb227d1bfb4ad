package calibration

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A plan names every distribution of a fragment with where it comes from,
// so that the whole fragment is rebuilt by one command and identically each
// time:
//
//	sources:
//	  driver: {file: driver.jsonl}
//	  nginx:  {file: access.log, resolution: 1ms}
//	  app:    {file: app.jsonl}
//	measured:
//	  client_overhead:
//	    from: [driver, app]
//	    key: request_id
//	    where: ["driver.status == 2xx", "app.event == request_done"]
//	    expr: driver.duration_ms - app.handler_ms
//	    unit: ms
//	  per_photo_overhead:
//	    from: app
//	    key: request_id
//	    pairs: {from: derivative_done, to: derivative_done}
//	    expr: (to.time - from.time) * 1000 - to.exec_ms
//	    unit: ms
//	  upload:
//	    from: app
//	    where: event == batch_saved
//	    expr: duration_ms
//	    per: photos
//	  thumbnail:
//	    from: app
//	    expr: thumbs[].ms
//	  request_cpu:
//	    from: app
//	    key: pid
//	    difference: {of: proc_cpu_ms, per: requests_total}
//	figures:
//	  s3_save_originals: {mean: 0.56s, cv: 0.3, source: "FIGURES 000-30"}
//
// A source is a file (relative to the plan) in any format the readers know,
// detected by content unless format: says, with the resolution its times are
// logged at (nginx: 1ms unless stated). A measured entry reads one source, or
// joins several on key (each request's first record per source, requests
// present in all of them), or pairs each to: event with the latest earlier
// from: event of the same key in time order (the gap between successive
// events). where: keeps records by their fields (== != < <= > >=, with
// classes such as 2xx, and ~ for a route pattern); expr: computes the value
// in unit (inferred from the fields' names when they agree); dist: and rank:
// choose the family as --dist and --rank do. per: names a count of items
// (photos) and splits the value into two entries, NAME_base and
// NAME_per_item (see SplitFit). thumbs[].ms reads each element of an array
// (see checkArrayName). difference: divides the growth of one running total
// by another's between consecutive records of each key (see consecutive).
// A figures entry is what a figures file holds.

// Plan is a parsed calibration plan.
type Plan struct {
	File     string
	Sources  []PlanSource
	Measured []PlanEntry
	Figures  []NamedFigures
	// FiguresFirst is true when figures: comes before measured: in the
	// file, the order their entries are written in.
	FiguresFirst bool
}

// MaxResolution is the coarsest granularity, in seconds, a plan may say
// a log writes its times in, as check's --resolution.
const MaxResolution = 1.0

// PlanSource is one input file of a plan.
type PlanSource struct {
	Name   string
	Line   int    // in the plan; 0 for a source named on the command line
	File   string // as written in the plan, relative to it
	Format Format
	// Resolution is the granularity, in seconds, of the times the source
	// logs; 0 when they are taken as exact.
	Resolution float64
	// ResolutionWhy says where Resolution comes from, for provenance.
	ResolutionWhy string
	// Fields, in the sources capsim check reads (ReadSources), make the
	// file a load driver's JSON lines with these fields.
	Fields *ClientFields
}

// PlanEntry is one measured distribution of a plan.
type PlanEntry struct {
	Name  string
	Line  int
	From  []string // source names, in the order given
	Key   string
	Pairs *PairSpec
	Where []Condition
	Expr  *Expr
	Unit  Unit // 0: inferred from the fields
	Dist  string
	Rank  RankBy
	// Per names the field counting the items a value covers (photos):
	// the value is then split into a base and a time per item.
	Per string
	// Difference, when set, makes the value the growth of one counter
	// per unit of growth of another between consecutive records.
	Difference *DifferenceSpec
	// flags is true for the entry a command line states (NewPlan): its
	// messages name the flags, as a plan's name its keys and lines.
	flags bool
}

// word is what a message calls a setting of the entry: inPlan, the plan's
// key, or flag, the command line's.
func (e *PlanEntry) word(inPlan, flag string) string {
	if e.flags {
		return flag
	}
	return inPlan
}

// at is where a message about the entry points: its line in the plan, or
// the flag that states what it computes.
func (p *Plan) at(e *PlanEntry) string {
	if e.flags {
		return "--expr"
	}
	return fmt.Sprintf("%s:%d: %s", p.File, e.Line, e.Name)
}

// DifferenceSpec reads two counters a process logs as running totals,
// such as proc_cpu_ms and requests_total: the value is Δ Of / Δ Per
// between consecutive records (of the same key, when the entry has one),
// the cost of one request over each interval.
type DifferenceSpec struct{ Of, Per string }

// PairSpec pairs each To event with the latest earlier From event of the
// same key; an empty name matches any record.
type PairSpec struct{ From, To string }

// Condition keeps records whose field compares as stated with a value.
type Condition struct {
	Text  string
	Ref   string
	Op    string
	Value string
	route *regexp.Regexp
}

// DefaultNginxResolution is the granularity of nginx's $request_time and
// $upstream_*_time, which it logs in whole milliseconds.
const DefaultNginxResolution = 1e-3

// IsPlan reports whether data, a YAML document, is a plan or a figures file
// rather than a fragment or a scenario: its top level has sources:,
// measured: or figures:.
func IsPlan(data []byte) bool {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return false
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "sources", "measured", "figures":
		default:
			return false
		}
	}
	return len(root.Content) > 0
}

var planEntryKeys = []string{"from", "key", "pairs", "difference", "where", "expr", "unit", "dist", "rank", "per"}

// ReadPlan reads the plan called name from r. All problems are reported at
// once, each prefixed with name:line:column.
func ReadPlan(name string, r io.Reader) (*Plan, error) {
	root, at, err := readTop(name, r, "sources:, measured: or figures:", "a mapping with sources:, measured: or figures:")
	if err != nil {
		return nil, err
	}
	p := &Plan{File: name}
	var errs []error
	var measured *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "sources":
			errs = append(errs, p.readSources(name, v, false)...)
		case "measured":
			measured = v
		case "figures":
			figs, ferrs := readFiguresNode(name, v)
			p.Figures, errs = figs, append(errs, ferrs...)
			p.FiguresFirst = measured == nil
		default:
			errs = append(errs, at(k, "unknown top-level key %q (want sources, measured or figures)", k.Value))
		}
	}
	if measured != nil {
		errs = append(errs, p.readMeasured(name, measured)...)
	}
	if len(errs) == 0 && len(p.Measured) == 0 && len(p.Figures) == 0 {
		errs = append(errs, at(root, "the plan names no distribution (want measured: or figures:)"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

func (p *Plan) source(name string) *PlanSource {
	for i := range p.Sources {
		if p.Sources[i].Name == name {
			return &p.Sources[i]
		}
	}
	return nil
}

// readSources reads sources:; fields: is allowed only where the sources are
// a check's (clients), since calibrate's expr: names the fields it reads.
func (p *Plan) readSources(name string, n *yaml.Node, clients bool) []error {
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", name, n.Line, n.Column, fmt.Sprintf(format, args...))
	}
	if n.Kind != yaml.MappingNode {
		return []error{at(n, "sources must map names to {file: ...}")}
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := checkName(k.Value); err != nil {
			errs = append(errs, at(k, "source %v", err))
			continue
		}
		if p.source(k.Value) != nil {
			errs = append(errs, at(k, "source %s is listed twice", k.Value))
			continue
		}
		src := PlanSource{Name: k.Value, Line: k.Line, Format: FormatAuto}
		var formatNode, resolutionNode *yaml.Node
		if v.Kind == yaml.ScalarNode {
			src.File = v.Value
		} else if v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				fk, fv := v.Content[j], v.Content[j+1]
				switch fk.Value {
				case "file":
					src.File = fv.Value
				case "format":
					formatNode = fv
					f, err := ParseFormat(fv.Value)
					if err != nil {
						errs = append(errs, at(fv, "source %s: %v", k.Value, err))
					}
					src.Format = f
				case "resolution":
					resolutionNode = fk
					res, err := ParseSeconds(fv.Value)
					switch {
					case err != nil:
						errs = append(errs, at(fv, "source %s: resolution: %v", k.Value, err))
					case res < 0 || res > MaxResolution:
						// A log's granularity is a unit of its clock: past a
						// second every time it wrote would be the same.
						errs = append(errs, at(fv, "source %s: resolution must be between 0s (exact) and 1s, got %s", k.Value, fv.Value))
					}
					src.Resolution, src.ResolutionWhy = res, "stated in the plan"
				case "fields":
					if !clients {
						errs = append(errs, at(fk, "source %s: fields: names a client log's parts for capsim check; here expr: and where: name the fields they read", k.Value))
						continue
					}
					f, ferrs := readClientFields(fv, func(n *yaml.Node, format string, args ...any) error {
						return at(n, "source %s: %s", k.Value, fmt.Sprintf(format, args...))
					})
					src.Fields, errs = f, append(errs, ferrs...)
				default:
					want := "file, format, resolution"
					if clients {
						want = "file, format, fields"
					}
					errs = append(errs, at(fk, "source %s: unknown key %q (want %s)", k.Value, fk.Value, want))
				}
			}
			switch {
			case clients && resolutionNode != nil:
				// check rounds every time alike, by its --resolution.
				errs = append(errs, at(resolutionNode, "source %s: resolution: a check takes it from --resolution", k.Value))
			case src.Fields != nil && formatNode != nil && src.Format != FormatAuto && src.Format != FormatAppLog:
				errs = append(errs, at(formatNode, "source %s: fields: reads JSON lines, not %s", k.Value, src.Format))
			}
		} else {
			errs = append(errs, at(v, "source %s must be a file name or {file: ...}", k.Value))
			continue
		}
		if src.File == "" {
			errs = append(errs, at(k, "source %s has no file", k.Value))
			continue
		}
		p.Sources = append(p.Sources, src)
	}
	return errs
}

func (p *Plan) readMeasured(name string, n *yaml.Node) []error {
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", name, n.Line, n.Column, fmt.Sprintf(format, args...))
	}
	if n.Kind != yaml.MappingNode {
		return []error{at(n, "measured must map names to {from: ..., expr: ...}")}
	}
	var errs []error
	// seen holds every name the fragment will have, with where it comes
	// from: a split entry writes two names of its own, which an entry
	// listed under either would silently replace.
	type origin struct {
		line  int
		split string // the entry split per item that writes the name
	}
	seen := map[string]origin{}
	for _, f := range p.Figures {
		seen[f.Name] = origin{line: f.Line}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		fail := func(n *yaml.Node, format string, args ...any) {
			errs = append(errs, at(n, "%s: %s", k.Value, fmt.Sprintf(format, args...)))
		}
		if err := checkName(k.Value); err != nil {
			errs = append(errs, at(k, "%v", err))
			continue
		}
		if o, ok := seen[k.Value]; ok {
			if o.split != "" {
				errs = append(errs, at(k, "%s is listed twice: %s (line %d) has per:, which writes %s_base and %s_per_item", k.Value, o.split, o.line, o.split, o.split))
			} else {
				errs = append(errs, at(k, "%s is listed twice", k.Value))
			}
			continue
		}
		seen[k.Value] = origin{line: k.Line}
		if v.Kind != yaml.MappingNode {
			fail(v, "expected a mapping such as {from: app, expr: handler_ms}")
			continue
		}
		e := PlanEntry{Name: k.Value, Line: k.Line}
		nerrs := len(errs)
		var exprNode *yaml.Node
		for j := 0; j+1 < len(v.Content); j += 2 {
			fk, fv := v.Content[j], v.Content[j+1]
			switch fk.Value {
			case "from":
				if fv.Kind == yaml.SequenceNode {
					for _, s := range fv.Content {
						e.From = append(e.From, s.Value)
					}
				} else {
					e.From = []string{fv.Value}
				}
				for _, s := range e.From {
					if p.source(s) == nil {
						fail(fv, "from: no source named %q under sources:", s)
					}
				}
			case "key":
				e.Key = fv.Value
			case "pairs":
				var ps PairSpec
				for m := 0; m+1 < len(fv.Content); m += 2 {
					switch fv.Content[m].Value {
					case "from":
						ps.From = fv.Content[m+1].Value
					case "to":
						ps.To = fv.Content[m+1].Value
					default:
						fail(fv.Content[m], "pairs: unknown key %q (want from, to)", fv.Content[m].Value)
					}
				}
				e.Pairs = &ps
			case "difference":
				var d DifferenceSpec
				for m := 0; m+1 < len(fv.Content); m += 2 {
					mk, mv := fv.Content[m], fv.Content[m+1]
					var to *string
					switch mk.Value {
					case "of":
						to = &d.Of
					case "per":
						to = &d.Per
					default:
						fail(mk, "difference: unknown key %q (want of, per)", mk.Value)
						continue
					}
					if x, err := ParseExpr(mv.Value); err != nil || x.root.op != 0 || x.root.ref == "" {
						fail(mv, "difference: %s: %q is not the name of a field of the record", mk.Value, mv.Value)
						continue
					}
					*to = mv.Value
				}
				if fv.Kind != yaml.MappingNode {
					fail(fv, "difference: want {of: COUNTER, per: COUNT}, such as {of: proc_cpu_ms, per: requests_total}")
				}
				e.Difference = &d
			case "where":
				items := []*yaml.Node{fv}
				if fv.Kind == yaml.SequenceNode {
					items = fv.Content
				}
				for _, it := range items {
					c, err := ParseCondition(it.Value)
					if err != nil {
						fail(it, "where: %v", err)
						continue
					}
					e.Where = append(e.Where, c)
				}
			case "expr":
				x, err := ParseExpr(fv.Value)
				if err != nil {
					fail(fv, "%v", err)
				}
				e.Expr, exprNode = x, fv
			case "unit":
				u, err := ParseUnit(fv.Value)
				if err != nil {
					fail(fv, "%v", err)
				}
				e.Unit = u
			case "dist":
				if !slices.Contains(Choosable, fv.Value) {
					fail(fv, "dist: unknown family %q (want %s)", fv.Value, ChoosableText())
				}
				e.Dist = fv.Value
			case "per":
				e.Per = fv.Value
			case "rank":
				if fv.Value != string(RankAIC) && fv.Value != string(RankKS) {
					fail(fv, "rank: want aic or ks, got %q", fv.Value)
				}
				e.Rank = RankBy(fv.Value)
			default:
				fail(fk, "unknown key %q (want %s)", fk.Value, strings.Join(planEntryKeys, ", "))
			}
		}
		switch {
		case len(e.From) == 0:
			fail(k, "no from: (the source, or the sources to join)")
		case e.Difference != nil:
			if len(errs) == nerrs {
				e.readDifference(k, exprNode, fail)
			}
		case e.Expr == nil && exprNode == nil:
			fail(k, "no expr: (a field, or arithmetic over fields)")
		case len(e.From) > 1 && e.Pairs != nil:
			fail(k, "pairs: reads one source; joining several and pairing events are separate entries")
		case (len(e.From) > 1 || e.Pairs != nil) && e.Key == "":
			fail(k, "no key: (the field that ties the records of one request together, e.g. request_id)")
		}
		if len(errs) == nerrs {
			for _, ref := range e.Expr.Refs() {
				if _, _, err := e.resolveRef(ref); err != nil {
					fail(exprNode, "%v", err)
				}
			}
			for _, c := range e.Where {
				if _, _, err := e.resolveRef(c.Ref); err != nil {
					fail(k, "where %q: %v", c.Text, err)
				}
			}
			if _, err := e.array(); err != nil {
				fail(cmp.Or(exprNode, k), "%v", err)
			}
			if e.Per != "" {
				for _, part := range []string{e.Name + "_base", e.Name + "_per_item"} {
					if o, ok := seen[part]; ok {
						if o.split != "" {
							fail(k, "per: writes %s, which %s (line %d) writes too", part, o.split, o.line)
						} else {
							fail(k, "per: writes %s_base and %s_per_item, but %s is listed at line %d", e.Name, e.Name, part, o.line)
						}
						continue
					}
					seen[part] = origin{line: k.Line, split: e.Name}
				}
				if _, _, err := e.resolveRef(e.Per); err != nil {
					fail(k, "per: %v", err)
				}
				if e.Dist != "" {
					fail(k, "per: splits the value into a base and a time per item, each fitted by moments: dist: does not apply")
				}
			}
		}
		if len(errs) == nerrs {
			p.Measured = append(p.Measured, e)
		}
	}
	return errs
}

// aliases are the prefixes fields are qualified with: the sources joined,
// or from and to of a pair.
func (e *PlanEntry) aliases() []string {
	if e.Pairs != nil || e.Difference != nil {
		return []string{"from", "to"}
	}
	return e.From
}

// resolveRef splits a field reference into the alias it reads (an index
// into aliases, or -1 for an unqualified field of every record) and the
// field. A single source needs no qualification; a join or a pair does.
func (e *PlanEntry) resolveRef(ref string) (alias int, field string, err error) {
	al := e.aliases()
	if prefix, rest, ok := strings.Cut(ref, "."); ok {
		if i := slices.Index(al, prefix); i >= 0 {
			return i, rest, nil
		}
	}
	if len(e.From) == 1 {
		return -1, ref, nil
	}
	return 0, "", fmt.Errorf("field %q must name its record: %s", ref, strings.Join(qualify(al, ref), " or "))
}

func qualify(al []string, ref string) []string {
	out := make([]string, len(al))
	for i, a := range al {
		out[i] = a + "." + ref
	}
	return out
}

// condOps are the comparison operators, longest first so that <= is not
// read as <.
var condOps = []string{"==", "!=", "<=", ">=", "<", ">", "~"}

// ParseCondition reads "FIELD OP VALUE", such as "status == 2xx",
// "app.event == request_done", "photos >= 1" or "path ~ /api/trips/*".
func ParseCondition(s string) (Condition, error) {
	best, at := "", -1
	for _, op := range condOps {
		if i := strings.Index(s, op); i >= 0 && (at < 0 || i < at) {
			best, at = op, i
		}
	}
	if at < 0 {
		return Condition{}, fmt.Errorf("%q is not FIELD OP VALUE (OP one of %s)", s, strings.Join(condOps, " "))
	}
	c := Condition{Text: s, Ref: strings.TrimSpace(s[:at]), Op: best, Value: strings.TrimSpace(s[at+len(best):])}
	if len(c.Value) >= 2 && (c.Value[0] == '"' || c.Value[0] == '\'') && c.Value[len(c.Value)-1] == c.Value[0] {
		c.Value = c.Value[1 : len(c.Value)-1]
	}
	if c.Ref == "" || !isRefStart(c.Ref[0]) || strings.IndexFunc(c.Ref, func(r rune) bool { return r > 127 || !isRefByte(byte(r)) }) >= 0 {
		return Condition{}, fmt.Errorf("%q: %q is not a field name", s, c.Ref)
	}
	if err := checkArrayName(c.Ref); err != nil {
		return Condition{}, fmt.Errorf("%q: %v", s, err)
	}
	if c.Op == "~" {
		re, err := compileRoute(c.Value)
		if err != nil {
			return Condition{}, err
		}
		c.route = re
	}
	return c, nil
}

// match tests a field's value, present or not.
func (c *Condition) match(v string, present bool) bool {
	if !present {
		return c.Op == "!="
	}
	switch c.Op {
	case "~":
		return c.route.MatchString(urlPath(v))
	case "==", "!=":
		eq := v == c.Value
		if p, err := parseStatusPattern(c.Value); err == nil && strings.HasSuffix(strings.ToLower(c.Value), "xx") {
			n, err := strconv.Atoi(v)
			eq = err == nil && n >= p.lo && n <= p.hi
		} else if a, b, ok := bothNumbers(v, c.Value); ok {
			eq = a == b
		}
		return eq == (c.Op == "==")
	}
	a, b, ok := bothNumbers(v, c.Value)
	if !ok {
		return false
	}
	switch c.Op {
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}

func bothNumbers(x, y string) (float64, float64, bool) {
	a, err1 := strconv.ParseFloat(strings.TrimSpace(x), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(y), 64)
	return a, b, err1 == nil && err2 == nil
}

// OpenFunc opens a file a plan names, relative to the plan.
type OpenFunc func(path string) (io.Reader, func() error, error)

// PlanFit is the outcome of one entry of a plan.
type PlanFit struct {
	Name    string
	Sample  *Sample     // measured entries
	Result  *Result     // measured entries
	Figures *SummaryFit // figures entries
	Split   *SplitFit   // the two entries of a value split per item
	Entry   Entry
}

// Run computes every entry of the plan, reading each source once, in the
// order the plan lists them (figures and measured entries in the order of
// their sections). open reads a file named relative to the plan; nil opens
// it from the file system. rerun is the command recorded in each entry.
func (p *Plan) Run(open OpenFunc, rerun string) ([]PlanFit, error) {
	if open == nil {
		dir := filepath.Dir(p.File)
		open = func(path string) (io.Reader, func() error, error) {
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			return OpenFile(path)
		}
	}
	cache := map[string]*rowFile{}
	read := func(src *PlanSource) (*rowFile, error) {
		if rf, ok := cache[src.Name]; ok {
			return rf, nil
		}
		// A source of the plan is named by its line; one named on the
		// command line by its file, which the message already names.
		at := fmt.Sprintf("%s:%d: source %s: ", p.File, src.Line, src.Name)
		hint := notRecognised(calibrateFlags.Format)
		if src.Line == 0 {
			at = ""
		} else {
			hint = fmt.Errorf("%w; give the source a format:", ErrNotRecognised)
		}
		in, closeFn, err := open(src.File)
		if err != nil {
			return nil, fmt.Errorf("%s%w", at, err)
		}
		defer closeFn()
		rf, err := readRows(src.File, in, src.Format)
		if errors.Is(err, ErrNotRecognised) {
			return nil, fmt.Errorf("%s%s: %w", at, src.File, hint)
		}
		if err != nil {
			return nil, fmt.Errorf("%s%w", at, err)
		}
		// What the file turned out to be decides how its fields are read
		// and, for nginx, the resolution assumed.
		src.Format = rf.stats.Format
		if src.Resolution == 0 && src.ResolutionWhy == "" {
			if f := rf.stats.Format; f == FormatNginxJSON || f == FormatNginxCombined {
				src.Resolution, src.ResolutionWhy = DefaultNginxResolution, "nginx logs times in whole milliseconds"
			}
		}
		cache[src.Name] = rf
		return rf, nil
	}
	var figs, meas []PlanFit
	for _, nf := range p.Figures {
		fit, err := FitFigures(nf.Figures)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", p.File, nf.Line, nf.Name, err)
		}
		figs = append(figs, PlanFit{Name: nf.Name, Figures: fit, Entry: EntryFromFigures(nf.Name, []string{filepath.Base(p.File)}, fit, rerun)})
	}
	for i := range p.Measured {
		e := &p.Measured[i]
		var files []*rowFile
		for _, name := range e.From {
			rf, err := read(p.source(name))
			if err != nil {
				return nil, err
			}
			files = append(files, rf)
		}
		s, err := p.sample(e, files)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.at(e), err)
		}
		if e.Per != "" {
			sp, err := FitSplit(s.Values, s.Counts)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p.at(e), err)
			}
			if w, ok := MixedStatuses(s.Statuses); ok {
				sp.Warnings = append(sp.Warnings, w)
			}
			for _, part := range sp.entries(e.Name, e.Per, s, rerun) {
				meas = append(meas, PlanFit{Name: part.Name, Sample: s, Split: sp, Entry: part})
			}
			continue
		}
		res, err := Fit(s.Values, s.Times, FitOptions{Rank: e.Rank, Choose: e.Dist, Resolution: s.Resolution, Raw: s.Raw, Roundings: s.Roundings, Statuses: s.Statuses})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p.at(e), err)
		}
		meas = append(meas, PlanFit{Name: e.Name, Sample: s, Result: res, Entry: EntryFromFit(e.Name, s, res, rerun)})
	}
	if p.FiguresFirst {
		return append(figs, meas...), nil
	}
	return append(meas, figs...), nil
}

// NewPlan is the plan of one measured entry over sources, as a command line
// states it rather than a file. An entry without From reads every source,
// in order. The first problem found is returned.
func NewPlan(sources []PlanSource, e PlanEntry) (*Plan, error) {
	p := &Plan{}
	for _, src := range sources {
		if err := checkName(src.Name); err != nil {
			return nil, fmt.Errorf("source %v", err)
		}
		if p.source(src.Name) != nil {
			return nil, fmt.Errorf("source %s is named twice", src.Name)
		}
		if src.File == "" {
			return nil, fmt.Errorf("source %s has no file", src.Name)
		}
		if src.Format == "" {
			src.Format = FormatAuto
		}
		p.Sources = append(p.Sources, src)
	}
	if err := checkName(e.Name); err != nil {
		return nil, err
	}
	if len(e.From) == 0 {
		for _, src := range p.Sources {
			e.From = append(e.From, src.Name)
		}
	}
	for _, s := range e.From {
		if p.source(s) == nil {
			return nil, fmt.Errorf("no source named %q", s)
		}
	}
	switch {
	case len(e.From) == 0:
		return nil, errors.New("no source to read")
	case e.Expr == nil:
		return nil, errors.New("no expression to compute")
	case len(e.From) > 1 && e.Pairs != nil:
		return nil, errors.New("pairs read one source; joining several and pairing events are separate fits")
	case (len(e.From) > 1 || e.Pairs != nil) && e.Key == "":
		return nil, errors.New("no key: the field that ties the records of one request together, e.g. request_id")
	}
	refs := slices.Clone(e.Expr.Refs())
	for _, c := range e.Where {
		refs = append(refs, c.Ref)
	}
	if e.Per != "" {
		refs = append(refs, e.Per)
	}
	for _, ref := range refs {
		if _, _, err := e.resolveRef(ref); err != nil {
			return nil, err
		}
	}
	e.flags = true
	p.Measured = []PlanEntry{e}
	return p, nil
}

// readDifference checks a difference: entry and writes its expression,
// so that units, rounding and line errors are those of any other value.
func (e *PlanEntry) readDifference(k, exprNode *yaml.Node, fail func(*yaml.Node, string, ...any)) {
	d := e.Difference
	switch {
	case d.Of == "" || d.Per == "":
		fail(k, "difference: wants of: and per:, such as {of: proc_cpu_ms, per: requests_total}")
	case exprNode != nil:
		fail(exprNode, "difference: computes the value; expr: does not apply")
	case len(e.From) > 1 || e.Pairs != nil:
		fail(k, "difference: compares consecutive records of one source; it does not join or pair")
	case e.Per != "":
		fail(k, "difference: already divides by %s; per: does not apply", d.Per)
	case strings.Contains(d.Of+d.Per, arraySuffix):
		fail(k, "difference: compares counters of whole records, not of an array's elements")
	case d.Per == "time":
		fail(k, "difference: per: time would be a rate of %s per second, not a duration", d.Of)
	default:
		x, err := ParseExpr(fmt.Sprintf("(to.%s - from.%s) / (to.%s - from.%s)", d.Of, d.Of, d.Per, d.Per))
		if err != nil {
			fail(k, "%v", err)
		}
		e.Expr = x
	}
}
