package model

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is one problem in a scenario, located in the file that caused it.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem has no position (an empty file)
	Col  int
	Path string // dotted key path, e.g. components.api.servers
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in a scenario, in file order. Reporting
// them all at once saves the edit-run-edit loop one message at a time.
type ErrorList []*Error

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// sorted orders the problems by file and position, the order a reader
// fixes them in; compilation finds them in dependency order instead.
func (l ErrorList) sorted() ErrorList {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return l
}

// positions remembers which file each node came from: the scenario, a file
// it includes, or a --set override, each under the name errors give it.
type positions struct {
	main    string // the scenario's display name
	display func(name string) string
	fileOf  map[*yaml.Node]string
	// removed says, of a mapping an override took keys out of, which
	// override removed which key: a problem found there, such as a key
	// now missing, was made by the command line and not by the file.
	removed map[*yaml.Node][]string
}

func (p *positions) remove(m *yaml.Node, key, by string) {
	if p.removed == nil {
		p.removed = map[*yaml.Node][]string{}
	}
	p.removed[m] = append(p.removed[m], by+" removed "+key)
}

func (p *positions) mark(n *yaml.Node, file string) {
	if n == nil {
		return
	}
	p.fileOf[n] = file
	for _, c := range n.Content {
		p.mark(c, file)
	}
}

func (p *positions) errAt(n *yaml.Node, path, format string, args ...any) *Error {
	e := &Error{File: p.main, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		if f, ok := p.fileOf[n]; ok {
			e.File = f
		}
		e.Line, e.Col = n.Line, n.Column
		for _, r := range p.removed[n] {
			e.Msg += "; " + r
		}
	}
	return e
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
