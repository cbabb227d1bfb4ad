package calibration

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"capsim/sim/human"
	"capsim/sim/yamldoc"

	"go.yaml.in/yaml/v3"
)

// A fragment is the YAML file a scenario includes by reference
// (include: [fragment.yaml]) and whose entries it names where a
// distribution is expected (work: batch_post_save):
//
//	# written by capsim calibrate
//	distributions:
//	  # rerun: capsim calibrate k6.csv --route '/api/trips/*/photos' --name batch_post_save
//	  batch_post_save:
//	    dist: lognormal(mu=3.6, sigma=0.2)
//	    uncertainty: {n: 120, method: fisher, se: {mu: 0.0183, sigma: 0.0129}, corr: 0}
//	    source:
//	      files: [k6.csv]
//	      metric: k6 metric http_req_duration
//	      filter: "route=/api/trips/*/photos status=200"
//	      n: 120
//	      ks: 0.041
//	      aic: 512.3
//	      runner_up: gamma(shape=24.1, scale=1.64s)
//	      warnings: []
//
// An entry fitted from summary figures carries figures: and ref: instead of
// metric, filter, n, ks and aic, and no uncertainty: (figures give no n).
// uncertainty: is read by the scenario loader (model/uncertain.go); source:
// is provenance, carried and not interpreted.

// FragmentHeader opens every fragment written from scratch.
const FragmentHeader = "written by capsim calibrate; each entry names the command that produced it"

// Entry is one named distribution of a fragment, with its provenance.
type Entry struct {
	Name string
	Dist string // in scenario syntax
	// Rerun is the command that produced the entry, written as a comment
	// above it.
	Rerun string
	Files []string

	// From measured values:
	Metric string // what was read: "k6 metric http_req_duration"
	Filter string
	N      int
	KS     float64
	AIC    float64
	// Fitted is true for a parametric fit, to which KS and AIC apply; an
	// empirical distribution (or the constant of values that do not vary)
	// has neither.
	Fitted bool

	// From summary figures:
	Figures string // "mean=0.56s p95=0.9s"
	Ref     string // "FIGURES 000-30"

	// Resolution says at what granularity the values were logged and why,
	// and Clamped how many negative values within it were kept as 0.
	Resolution string
	Clamped    int

	RunnerUp string
	Warnings []string

	// Uncertainty is the fit's sampling uncertainty, written as the
	// entry's uncertainty: key; nil for figures, which give no n.
	Uncertainty *Uncertainty
}

// EntryFromFit describes a fit of measured values.
func EntryFromFit(name string, s *Sample, r *Result, rerun string) Entry {
	e := Entry{
		Name:   name,
		Dist:   r.Chosen.Dist.String(),
		Rerun:  rerun,
		Files:  s.Files,
		Metric: s.Source,
		Filter: s.FilterString(),
		N:      r.Observed.N,
		KS:     r.Chosen.KS,
		AIC:    r.Chosen.AIC,
		Fitted: r.Chosen.model != nil && r.Chosen.Family != FamilyEmpirical && !r.Chosen.ByMoments,
	}
	if r.Chosen.Family == FamilyEmpirical {
		e.Dist = EmpiricalText(s.Values)
	}
	sorted := r.Sorted
	if r.Chosen.Family == FamilyEmpirical {
		sorted = s.Values // the values written, not those fitted with zeros moved
	}
	// An estimate without a standard error still records its n; the
	// reason is not a warning about the data, so it is not one.
	u, _ := SamplingUncertainty(r.Chosen, sorted)
	e.Uncertainty = &u
	if s.Resolution > 0 {
		e.Resolution, e.Clamped = s.ResolutionText, s.Clamped
	}
	if r.RunnerUp != nil {
		e.RunnerUp = r.RunnerUp.Dist.String()
	}
	for _, w := range r.Warnings {
		e.Warnings = append(e.Warnings, w.Msg)
	}
	return e
}

// EmpiricalText writes an empirical distribution with its values inline,
// ascending, in the syntax scenarios read: empirical(0.012s, 0.015s, ...).
// The fragment then holds everything the distribution is, and no file
// beside it can be overwritten or lost.
func EmpiricalText(values []float64) string {
	x := slices.Clone(values)
	slices.Sort(x)
	var b strings.Builder
	b.WriteString("empirical(")
	for i, v := range x {
		if i > 0 {
			b.WriteString(", ")
		}
		// No clock measures below the nanosecond; digits beyond it are
		// the noise of the arithmetic that derived the value.
		b.WriteString(strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64))
		b.WriteByte('s')
	}
	b.WriteByte(')')
	return b.String()
}

// EntryFromFigures describes a fit of summary figures read from files.
func EntryFromFigures(name string, files []string, f *SummaryFit, rerun string) Entry {
	e := Entry{
		Name:    name,
		Dist:    f.Chosen.Dist.String(),
		Rerun:   rerun,
		Files:   files,
		Figures: f.Figures.String(),
		Ref:     f.Figures.Ref,
	}
	if f.RunnerUp != nil {
		e.RunnerUp = f.RunnerUp.Dist.String()
	}
	for _, w := range f.Warnings {
		e.Warnings = append(e.Warnings, w.Msg)
	}
	return e
}

// MergeFragment returns the fragment existing (nil for a new one) with
// entries added, or replacing the entries of the same name. Everything else
// in existing — other entries, comments, other top-level keys — is kept.
func MergeFragment(existing []byte, entries []Entry) ([]byte, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(existing)) > 0 {
		var err error
		if doc, err = decodeFragment(existing); err != nil {
			return nil, err
		}
	}
	if len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{
			Kind: yaml.MappingNode, HeadComment: FragmentHeader,
		}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("not a calibration fragment: the top level is not a mapping")
	}
	var dists *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "distributions" {
			dists = root.Content[i+1]
		}
	}
	if dists == nil {
		if len(root.Content) > 0 {
			return nil, errors.New("not a calibration fragment: no top-level distributions key")
		}
		dists = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, scalar("distributions", 0), dists)
	}
	if dists.Kind != yaml.MappingNode {
		return nil, errors.New("not a calibration fragment: distributions is not a mapping")
	}
	for _, e := range entries {
		if err := checkName(e.Name); err != nil {
			return nil, err
		}
		key, val := e.nodes()
		replaced := false
		for i := 0; i+1 < len(dists.Content); i += 2 {
			if dists.Content[i].Value == e.Name {
				dists.Content[i], dists.Content[i+1] = key, val
				replaced = true
			}
		}
		if !replaced {
			dists.Content = append(dists.Content, key, val)
		}
	}
	return encodeFragment(&doc)
}

// SecondDocumentError says where an existing fragment has a second YAML
// document, which writing the fragment back would drop.
type SecondDocumentError struct{ Line int }

const secondDocument = "a second YAML document starts here; a calibration fragment is one document"

func (e *SecondDocumentError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, secondDocument)
}

// In is the message with the fragment's name, as file:line:column.
func (e *SecondDocumentError) In(file string) string {
	return fmt.Sprintf("%s:%d:1: %s", file, e.Line, secondDocument)
}

// decodeFragment decodes an existing fragment, which is one YAML document:
// writing it back would drop any after the first.
func decodeFragment(existing []byte) (yaml.Node, error) {
	doc, second, err := yamldoc.Decode(existing)
	switch {
	case err == io.EOF:
		return yaml.Node{}, nil
	case err != nil:
		return doc, fmt.Errorf("not a calibration fragment: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	case second > 0:
		return doc, &SecondDocumentError{Line: second}
	}
	return doc, nil
}

func encodeFragment(doc *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// RemoveFromFragment returns the fragment existing without the entries
// named. Everything else is kept. Naming an entry the fragment does not
// have is an error, listing those it has: a misspelt name must not pass
// for a removal.
func RemoveFromFragment(existing []byte, names []string) ([]byte, error) {
	if len(bytes.TrimSpace(existing)) == 0 {
		return nil, fmt.Errorf("no fragment to remove %s from", strings.Join(names, ", "))
	}
	doc, err := decodeFragment(existing)
	if err != nil {
		return nil, err
	}
	var dists *yaml.Node
	if len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
		root := doc.Content[0]
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "distributions" && root.Content[i+1].Kind == yaml.MappingNode {
				dists = root.Content[i+1]
			}
		}
	}
	if dists == nil {
		return nil, errors.New("not a calibration fragment: no top-level distributions mapping")
	}
	for _, name := range names {
		found := false
		var have []string
		for i := 0; i+1 < len(dists.Content); i += 2 {
			if dists.Content[i].Value == name {
				dists.Content = slices.Delete(dists.Content, i, i+2)
				found = true
				break
			}
			have = append(have, dists.Content[i].Value)
		}
		if !found {
			return nil, &MissingEntryError{Name: name, Have: have}
		}
	}
	return encodeFragment(&doc)
}

// MissingEntryError is a name given to remove that the fragment does not
// have, a mistake in the command rather than in the file.
type MissingEntryError struct {
	Name string
	Have []string // the entries the fragment has
}

func (e *MissingEntryError) Error() string {
	return fmt.Sprintf("no entry %q to remove (the fragment has: %s)", e.Name, strings.Join(e.Have, ", "))
}

// FragmentEntry is an entry a fragment already holds.
type FragmentEntry struct {
	Name string
	Line int
	// Commented is true when the entry carries comments besides the
	// rerun line capsim writes, which replacing it does not keep.
	Commented bool
}

// FragmentEntries lists the entries of an existing fragment, for saying
// which of them a merge replaces; a fragment that cannot be read has none
// (MergeFragment reports why).
func FragmentEntries(existing []byte) []FragmentEntry {
	if len(bytes.TrimSpace(existing)) == 0 {
		return nil
	}
	doc, err := decodeFragment(existing)
	if err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	var out []FragmentEntry
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "distributions" || root.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		d := root.Content[i+1]
		for j := 0; j+1 < len(d.Content); j += 2 {
			k, v := d.Content[j], d.Content[j+1]
			out = append(out, FragmentEntry{Name: k.Value, Line: k.Line, Commented: handComments(k, true) || handComments(v, false)})
		}
	}
	return out
}

// handComments reports whether n or a node within it has a comment other
// than, on an entry's key, the rerun line.
func handComments(n *yaml.Node, key bool) bool {
	head := n.HeadComment
	if key {
		var kept []string
		for _, line := range strings.Split(head, "\n") {
			if t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#")); t != "" && !strings.HasPrefix(t, "rerun: ") {
				kept = append(kept, line)
			}
		}
		head = strings.Join(kept, "\n")
	}
	if head != "" || n.LineComment != "" || n.FootComment != "" {
		return true
	}
	return slices.ContainsFunc(n.Content, func(c *yaml.Node) bool { return handComments(c, false) })
}

func (e Entry) nodes() (key, val *yaml.Node) {
	key = scalar(e.Name, 0)
	if e.Rerun != "" {
		key.HeadComment = "rerun: " + e.Rerun
	}
	src := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) { src.Content = append(src.Content, scalar(k, 0), v) }
	files := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, f := range e.Files {
		files.Content = append(files.Content, scalar(f, 0))
	}
	add("files", files)
	if e.Figures != "" {
		add("figures", scalar(e.Figures, yaml.DoubleQuotedStyle))
		if e.Ref != "" {
			add("ref", scalar(e.Ref, yaml.DoubleQuotedStyle))
		}
	} else {
		if e.Metric != "" {
			add("metric", scalar(e.Metric, yaml.DoubleQuotedStyle))
		}
		add("filter", scalar(e.Filter, yaml.DoubleQuotedStyle))
		add("n", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(e.N)})
		if e.Fitted {
			add("ks", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: human.Significant(e.KS, 3)})
			add("aic", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(e.AIC, 'f', 1, 64)})
		}
		if e.Resolution != "" {
			add("resolution", scalar(e.Resolution, yaml.DoubleQuotedStyle))
			add("clamped", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(e.Clamped)})
		}
	}
	if e.RunnerUp != "" {
		add("runner_up", scalar(e.RunnerUp, 0))
	}
	warns := &yaml.Node{Kind: yaml.SequenceNode}
	if len(e.Warnings) == 0 {
		warns.Style = yaml.FlowStyle
	}
	for _, w := range e.Warnings {
		warns.Content = append(warns.Content, scalar(w, yaml.DoubleQuotedStyle))
	}
	add("warnings", warns)
	val = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("dist", 0), scalar(e.Dist, 0)}}
	if e.Uncertainty != nil {
		val.Content = append(val.Content, scalar("uncertainty", 0), e.Uncertainty.node())
	}
	val.Content = append(val.Content, scalar("source", 0), src)
	return key, val
}

// node writes u as the one-line mapping scenarios read:
//
//	uncertainty: {n: 120, method: fisher, se: {shape: 0.51, scale: 0.0322s}, corr: -0.94}
//
// Standard errors and the correlation carry three significant digits: a
// standard error is itself uncertain by about 1/√2n, so more would be
// noise.
func (u *Uncertainty) node() *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	add := func(k string, v *yaml.Node) { m.Content = append(m.Content, scalar(k, 0), v) }
	num := func(v string, tag string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v} }
	add("n", num(strconv.Itoa(u.N), "!!int"))
	if u.Method != "" {
		add("method", scalar(u.Method, 0))
	}
	if len(u.SE) > 0 {
		se := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for i, p := range u.Params {
			v := human.Significant(u.SE[i], 3)
			tag := "" // plain: the encoder tags a number as its text reads
			if u.Time[i] {
				v, tag = v+"s", "!!str"
			}
			se.Content = append(se.Content, scalar(p, 0), num(v, tag))
		}
		add("se", se)
		if len(u.SE) == 2 {
			add("corr", num(human.Significant(u.Corr, 3), ""))
		}
	}
	return m
}

func scalar(v string, style yaml.Style) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style}
}
