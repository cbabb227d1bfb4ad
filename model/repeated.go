package model

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// repeatedKeys reports every key written twice in one mapping of the tree at
// n, at the repeat, naming where the key first appeared. yaml.v3 keeps both
// entries in a node tree without a word, and the decoder would then use one
// of them: a component defined twice, or a key set twice, would validate
// and run with a value the author may not have meant.
//
// Only keys written in the same mapping count. A key that a merge (<<)
// would bring in may be set again beside it, as YAML merges intend; the
// decoder refuses << anyway. A design setting a key of the base is an
// overlay, not a repeat: it is another mapping. Keys compare by their text,
// as the decoder reads them, so 1 and "1" are the same key. Aliases are not
// followed: the node an alias names is checked where it is written, and
// following them would multiply the work as aliases multiply the tree.
//
// A node without a position (a --set value) gets a message without one.
func repeatedKeys(file string, n *yaml.Node, path string) ErrorList {
	var errs ErrorList
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		case yaml.MappingNode:
			first := map[string]*yaml.Node{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				key := resolve(k)
				if key.Kind != yaml.ScalarNode {
					continue // not a key the schema can have; the decoder says so
				}
				p := joinPath(path, key.Value)
				if f, ok := first[key.Value]; ok {
					msg := fmt.Sprintf("key %q repeated", key.Value)
					if f.Line > 0 {
						// The same mapping is always in the same file, so the
						// line and column are enough, and stay right when the
						// file name is relabelled for display.
						msg += fmt.Sprintf(" (first at line %d, column %d)", f.Line, f.Column)
					}
					errs = append(errs, &Error{File: file, Line: k.Line, Col: k.Column, Path: p, Msg: msg})
				} else {
					first[key.Value] = k
				}
				walk(n.Content[i+1], p)
			}
		}
	}
	walk(n, path)
	return errs
}
