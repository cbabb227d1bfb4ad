package calibration

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A record often holds a list of like things done for one request — the
// thumbnails rendered for an upload, the queries of a page — each with its
// own time: thumbs[].ms names the field ms of every element of the array
// thumbs, and an entry reading it yields one value per element rather than
// one per record. thumbs[] alone is each element of an array of numbers.

// arraySuffix marks the array in a field name.
const arraySuffix = "[]"

// checkArrayName refuses brackets that are not an array written name[]
// followed by a dot or the end of the name, and arrays within arrays,
// whose elements would no longer be one value each.
func checkArrayName(name string) error {
	seen := false
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '[':
			if i == 0 || name[i-1] == '.' || !strings.HasPrefix(name[i:], arraySuffix) ||
				i+2 < len(name) && name[i+2] != '.' {
				return fmt.Errorf("field %q: an array is written name[] followed by . or the end of the name, such as thumbs[].ms", name)
			}
			if seen {
				return fmt.Errorf("field %q reads an array within an array: one value per element needs one array", name)
			}
			seen = true
			i++
		case ']':
			return fmt.Errorf("field %q: an array is written name[] followed by . or the end of the name, such as thumbs[].ms", name)
		}
	}
	return nil
}

// arrayOf splits a field such as thumbs[].ms into the array (thumbs) and
// the field of its elements (ms; empty for the element itself).
func arrayOf(field string) (array, elem string, ok bool) {
	array, elem, ok = strings.Cut(field, arraySuffix)
	return array, strings.TrimPrefix(elem, "."), ok
}

// entryArray is the one array an entry reads per element: the alias of
// the record holding it (as resolveRef gives it) and its name.
type entryArray struct {
	alias int
	name  string
}

// array finds the array the entry's expression, per: and conditions
// read. Two different arrays are refused: their elements pair with
// nothing.
func (e *PlanEntry) array() (*entryArray, error) {
	refs := slices.Clone(e.Expr.Refs())
	if e.Per != "" {
		refs = append(refs, e.Per)
	}
	for _, c := range e.Where {
		refs = append(refs, c.Ref)
	}
	var found *entryArray
	var first string
	inExpr := false
	for n, ref := range refs {
		alias, field, err := e.resolveRef(ref)
		if err != nil {
			continue // reported with the other references
		}
		name, _, ok := arrayOf(field)
		if !ok {
			continue
		}
		a := &entryArray{alias: max(alias, 0), name: name}
		switch {
		case found == nil:
			found, first = a, ref
		case *a != *found:
			return nil, fmt.Errorf("%s and %s read two different arrays: one value per element needs one array", first, ref)
		}
		inExpr = inExpr || n < len(e.Expr.Refs())
	}
	if found != nil && !inExpr {
		return nil, fmt.Errorf("%s reads the array %s%s but expr: does not: each record's value would be repeated once per element", first, found.name, arraySuffix)
	}
	return found, nil
}

// expand turns each tuple into one per element of the array a, each a
// copy of the tuple whose record answers a.name[]... from its element.
// The conditions on the elements (conds) keep elements, not records.
// origin[i] is the index in tuples that out[i] comes from. fs counts the
// records of the array's source: one without the array is rejected, one
// whose array is empty has no value, one whose every element the
// conditions exclude is filtered.
func (e *PlanEntry) expand(tuples [][]*row, a *entryArray, conds []fieldCond, fs *FileStats, s *Sample, lineError func(*row, string, ...any)) (out [][]*row, origin []int, err error) {
	empty, filtered := 0, 0
	prefix := a.name + arraySuffix
	for ti, t := range tuples {
		r := t[a.alias]
		text, ok := r.field(a.name)
		if !ok {
			fs.Rejected++
			lineError(r, "%s: %s: no such field (the array of %s); skipped", e.Name, a.name, prefix)
			continue
		}
		var elems []any
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		if !strings.HasPrefix(strings.TrimSpace(text), "[") || dec.Decode(&elems) != nil || dec.More() {
			fs.Rejected++
			lineError(r, "%s: %s is %q, not an array (for %s); skipped", e.Name, a.name, excerpt([]byte(text)), prefix)
			continue
		}
		if len(elems) == 0 {
			empty++
			fs.NoValue++
			continue
		}
		kept := len(out)
		for _, el := range elems {
			er := *r
			er.get = elementLookup(r.get, prefix, el)
			if !keep(&er, conds) {
				filtered++
				continue
			}
			if len(out) >= MaxValues {
				return nil, nil, fmt.Errorf("%s:%d: more than %d elements of %s; fit a part of the data (a filter, or a shorter span)", r.file, r.line, MaxValues, prefix)
			}
			nt := slices.Clone(t)
			nt[a.alias] = &er
			out = append(out, nt)
			origin = append(origin, ti)
		}
		if len(out) == kept {
			fs.Filtered++
		}
	}
	if empty > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d records had an empty %s and gave no value", empty, prefix))
	}
	if filtered > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d elements of %s were excluded by the filter", filtered, prefix))
	}
	return out, origin, nil
}

// elementLookup answers prefix (the element itself) and prefix.field from
// el, and every other field from the record's own lookup.
func elementLookup(get func(string) (string, bool), prefix string, el any) func(string) (string, bool) {
	return func(key string) (string, bool) {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			return get(key)
		}
		if rest == "" {
			return lookupString(map[string]any{"": el}, "")
		}
		m, isMap := el.(map[string]any)
		if !isMap || rest[0] != '.' {
			return "", false
		}
		return lookupString(m, rest[1:])
	}
}
