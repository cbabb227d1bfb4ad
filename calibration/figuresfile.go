package calibration

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"capsim/sim/naming"
	"capsim/sim/yamldoc"

	"go.yaml.in/yaml/v3"
)

// A figures file lists named summary figures, each traced to its source:
//
//	figures:
//	  s3_save_10_photos: {mean: 0.56s, source: "FIGURES 000-30"}
//	  post_save_batch:   {mean: 39s, cv: 0.3, source: "FIGURES 000-31"}
//	  worker_cold_start: {min: 36s, max: 40s, source: "FIGURES 000-37"}
//
// Durations carry their unit (ns, us, ms, s, m, h, or compounds like
// 3m45s); cv is a plain number. The keys of an entry are mean, p50 (or
// median), p90, p95, p99, min, max, sd, cv, value, dist (to restrict the
// family) and source. Anything else is an error, reported with its line and
// column, as is an entry whose figures admit no distribution.

// NamedFigures is one entry of a figures file.
type NamedFigures struct {
	Name    string
	Figures Figures
	Line    int // where the entry starts, for messages
}

// figureKeys are the keys of an entry, in the order listed in messages.
var figureKeys = []string{"mean", "p50", "median", "p90", "p95", "p99", "min", "max", "sd", "cv", "value", "dist", "source"}

// ReadFiguresFile reads the figures file at path.
func ReadFiguresFile(path string) ([]NamedFigures, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFigures(path, f)
}

// ReadFigures reads a figures file called name from r. All problems are
// reported at once, each prefixed with name:line:column.
func ReadFigures(name string, r io.Reader) ([]NamedFigures, error) {
	root, at, err := readTop(name, r, "a top-level figures: mapping", "a mapping with a figures: key")
	if err != nil {
		return nil, err
	}
	var figs *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "figures" {
			return nil, at(k, "unknown top-level key %q (want figures)", k.Value)
		}
		figs = v
	}
	if figs == nil {
		return nil, at(root, "no figures: key")
	}
	out, errs := readFiguresNode(name, figs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// readFiguresNode reads the mapping under a figures: key, of a figures file
// or of a plan, and returns every problem found.
func readFiguresNode(name string, figs *yaml.Node) ([]NamedFigures, []error) {
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", name, n.Line, n.Column, fmt.Sprintf(format, args...))
	}
	if figs.Kind != yaml.MappingNode {
		return nil, []error{at(figs, "figures must be a mapping of names to figures")}
	}
	var (
		out  []NamedFigures
		errs []error
		seen = map[string]bool{}
	)
	for i := 0; i+1 < len(figs.Content); i += 2 {
		k, v := figs.Content[i], figs.Content[i+1]
		if seen[k.Value] {
			errs = append(errs, at(k, "%s is listed twice", k.Value))
			continue
		}
		seen[k.Value] = true
		if err := checkName(k.Value); err != nil {
			errs = append(errs, at(k, "%v", err))
			continue
		}
		if v.Kind != yaml.MappingNode {
			errs = append(errs, at(v, "%s: expected a mapping such as {mean: 0.56s, p95: 0.9s}", k.Value))
			continue
		}
		nf := NamedFigures{Name: k.Value, Figures: NewFigures(), Line: k.Line}
		ok := true
		for j := 0; j+1 < len(v.Content); j += 2 {
			fk, fv := v.Content[j], v.Content[j+1]
			if err := setFigure(&nf.Figures, fk.Value, fv); err != nil {
				errs = append(errs, at(fk, "%s: %v", k.Value, err))
				ok = false
			}
		}
		if !ok {
			continue
		}
		if _, err := FitFigures(nf.Figures); err != nil {
			errs = append(errs, at(k, "%s: %v", k.Value, err))
			continue
		}
		out = append(out, nf)
	}
	if len(errs) == 0 && len(out) == 0 {
		errs = append(errs, at(figs, "figures is empty"))
	}
	return out, errs
}

func setFigure(f *Figures, key string, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode {
		return fmt.Errorf("%s must be a single value", key)
	}
	durations := map[string]*float64{
		"mean": &f.Mean, "p50": &f.P50, "median": &f.P50, "p90": &f.P90, "p95": &f.P95,
		"p99": &f.P99, "min": &f.Min, "max": &f.Max, "sd": &f.SD, "value": &f.Value,
	}
	if dst, ok := durations[key]; ok {
		s, err := ParseSeconds(v.Value)
		if err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
		if has(*dst) {
			return fmt.Errorf("%s given twice", key)
		}
		*dst = s
		return nil
	}
	switch key {
	case "cv":
		c, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			return fmt.Errorf("cv: %q is not a number", v.Value)
		}
		f.CV = c
	case "dist":
		f.Family = v.Value
	case "source":
		f.Ref = v.Value
	default:
		return fmt.Errorf("unknown key %q (want %s)", key, strings.Join(figureKeys, ", "))
	}
	return nil
}

// checkName refuses names a scenario could not refer to, by the rule
// scenarios themselves apply to their names.
func checkName(name string) error { return naming.Check(name) }

// readTop reads a YAML file of at most 16 MB whose top is a mapping, and
// returns it with a function that prefixes a message with name:line:col.
// empty and top say, for messages, what the file should hold.
func readTop(name string, r io.Reader, empty, top string) (*yaml.Node, func(*yaml.Node, string, ...any) error, error) {
	data, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	doc, second, err := yamldoc.Decode(data)
	if err != nil && err != io.EOF {
		return nil, nil, fmt.Errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", name, n.Line, n.Column, fmt.Sprintf(format, args...))
	}
	if len(doc.Content) == 0 {
		return nil, nil, fmt.Errorf("%s: empty file; expected %s", name, empty)
	}
	if second > 0 {
		return nil, nil, fmt.Errorf("%s:%d:1: a second YAML document starts here; the file is one document", name, second)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, at(root, "expected %s", top)
	}
	return root, at, nil
}
