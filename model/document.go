package model

import (
	"io/fs"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ParseOptions choose how a parsed scenario names its files.
type ParseOptions struct {
	// DisplayName is what errors and Sources call the scenario file, such
	// as the path a user typed when fsys is the folder it names; "" for
	// the name inside fsys. Files read beside the scenario (includes,
	// empirical data) go by their path relative to it.
	DisplayName string
}

// Document is a scenario file parsed once, its includes spliced in: every
// design, override, perturbation and draw of a command is loaded from it
// (Load) without reading the scenario again, and the files compiling them
// reads (empirical data) are read once too, so all of them see the same
// bytes however long the command runs. A Document is safe for concurrent
// use.
type Document struct {
	name  string     // the scenario's name inside fsys
	root  *yaml.Node // as parsed, includes spliced in; never changed
	pos   *positions // where root's nodes come from
	files *fileCache
	// parsed are the files Parse read: the scenario, then its includes.
	parsed []Source
}

// Parse reads the scenario at name from fsys and parses it and the files
// it includes. Problems are reported with file:line:column.
func Parse(fsys fs.FS, name string, opts ParseOptions) (*Document, error) {
	data, err := readRegular(fsys, name)
	if err != nil {
		return nil, &Error{File: displayNames(name, opts.DisplayName)(name), Msg: fsErrorText(err)}
	}
	return ParseBytes(fsys, name, data, opts)
}

// ParseBytes is Parse for a scenario already in memory; its includes and
// empirical files are still read from fsys relative to name.
func ParseBytes(fsys fs.FS, name string, data []byte, opts ParseOptions) (*Document, error) {
	display := displayNames(name, opts.DisplayName)
	files := newFileCache(fsys, display)
	files.addScenario(display(name), data)
	pos := &positions{main: display(name), display: display, fileOf: map[*yaml.Node]string{}}
	root, err := parseYAML(pos.main, "a scenario", data)
	if err != nil {
		return nil, err
	}
	// Included distributions join the document before any overlay, so a
	// design or an override can replace one by its name as it would one
	// the scenario defines itself.
	if err := spliceIncludes(pos, files, name, root); err != nil {
		return nil, err
	}
	return &Document{name: name, root: root, pos: pos, files: files, parsed: files.sources()}, nil
}

// File is the scenario's name inside the fs.FS it was parsed from.
func (d *Document) File() string { return d.name }

// Sources lists every file read for the document and for every load and
// compile of it so far: the scenario first, then the others by name, each
// once. Hashing these bytes identifies exactly what a command simulated,
// even if the files change on disk afterwards.
func (d *Document) Sources() []Source { return d.files.sorted() }

// Load derives a scenario from the document: it overlays the design and
// the overrides on a copy of the parsed tree and decodes it strictly. The
// document itself is left as parsed, for the next Load.
func (d *Document) Load(opts LoadOptions) (*Loaded, error) {
	root, pos := d.tree()
	rec := &reads{cache: d.files, files: append([]Source(nil), d.parsed...)}
	designs := takeKey(root, "designs")
	cp := &copier{pos: pos}
	written := newOverlaid()
	var base []Override
	for _, o := range opts.Overrides {
		if o.Base {
			base = append(base, o)
		}
	}
	for _, o := range append(base, opts.Base...) {
		if o.Scale {
			return nil, &Error{File: o.String(), Msg: "a scale cannot apply to the base before the designs: give it as a set"}
		}
		if err := o.applySet(cp, root); err != nil {
			return nil, err
		}
	}
	if opts.Design != "" {
		// Designs joined with + apply in order, each over the result of the
		// ones before, so that a workload variant composes with a system
		// design without a third overlay that repeats both.
		names := strings.Split(opts.Design, "+")
		for _, name := range names {
			key, overlay, err := findDesign(pos, designs, name)
			if err != nil {
				return nil, err
			}
			if len(names) > 1 {
				// A later overlay merges into what an earlier one added;
				// a copy keeps the design's own definition intact.
				if overlay = cp.copy(overlay, "designs."+name); overlay == nil {
					return nil, cp.err
				}
			}
			var errs ErrorList
			written.design = name
			mergeOverlay(cp, root, overlay, "", "design "+strconv.Quote(name), &errs, written, []*yaml.Node{overlay, key})
			if cp.err != nil {
				return nil, cp.err
			}
			if len(errs) > 0 {
				return nil, errs
			}
		}
	}
	for _, s := range opts.Sets {
		o, err := ParseSet(s)
		if err != nil {
			return nil, err
		}
		if err := o.applySet(cp, root); err != nil {
			return nil, err
		}
	}
	for _, o := range opts.Overrides {
		if o.Scale || o.Base {
			continue // scales apply below, base sets applied above
		}
		if err := o.applySet(cp, root); err != nil {
			return nil, err
		}
	}
	// Ranges become their point values after the overrides (an override
	// of a range replaces it) and before the scales (which scale the point).
	uncertain, err := takeUncertain(pos, root)
	if err != nil {
		return nil, err
	}
	for _, s := range opts.Scales {
		o, err := ParseScale(s)
		if err != nil {
			return nil, err
		}
		if err := o.applyScale(pos, root); err != nil {
			return nil, err
		}
	}
	for _, o := range opts.Overrides {
		if !o.Scale {
			continue
		}
		if err := o.applyScale(pos, root); err != nil {
			return nil, err
		}
	}
	if designs != nil {
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "designs"}, designs)
	}
	dec := &decoder{pos: pos}
	sc := &Scenario{}
	dec.decode(root, reflect.ValueOf(sc).Elem(), "")
	if sd := sc.Sweep; len(dec.errs) == 0 && sd.Designs != "" {
		// The designs a sweep runs by default, read as --designs is, once
		// the scenario's designs are known: validate refuses at its line a
		// name the sweep would refuse only once it starts.
		if _, err := ChooseDesigns(sd.Designs, sc.Designs.Names()); err != nil {
			dec.fail(entry(sd.Node, "designs"), "sweep.designs", "%v", err)
		}
	}
	if len(dec.errs) > 0 {
		return nil, dec.errs.sorted()
	}
	return &Loaded{Scenario: sc, Design: opts.Design, File: d.name, fsys: rec, pos: pos, read: rec, root: root, uncertain: uncertain, overlaid: written}, nil
}

// tree returns a copy of the parsed tree for one load to change, with the
// positions of its nodes.
func (d *Document) tree() (*yaml.Node, *positions) {
	pos := &positions{main: d.pos.main, display: d.pos.display, fileOf: make(map[*yaml.Node]string, len(d.pos.fileOf))}
	root := cloneTree(d.root, func(orig, c *yaml.Node) {
		if f, ok := d.pos.fileOf[orig]; ok {
			pos.fileOf[c] = f
		}
	})
	return root, pos
}

// Load reads the scenario at name from fsys, overlays the design and the
// overrides, and decodes it strictly: Parse, then Document.Load. Every
// problem is reported with file:line:column; the error is an ErrorList
// when there are several.
func Load(fsys fs.FS, name string, opts LoadOptions) (*Loaded, error) {
	d, err := Parse(fsys, name, ParseOptions{DisplayName: opts.DisplayName})
	if err != nil {
		return nil, err
	}
	return d.Load(opts)
}

// LoadBytes is Load for a scenario already in memory; includes and
// empirical files are still read from fsys relative to name.
func LoadBytes(fsys fs.FS, name string, data []byte, opts LoadOptions) (*Loaded, error) {
	d, err := ParseBytes(fsys, name, data, ParseOptions{DisplayName: opts.DisplayName})
	if err != nil {
		return nil, err
	}
	return d.Load(opts)
}
