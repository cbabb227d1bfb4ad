// Package yamldoc decodes the bytes of a file that must hold one YAML
// document, for model and calibration alike; it never opens a file.
// yaml.Unmarshal reads the first document of its input and drops the
// rest without a word, so that a design pasted after a --- would never
// be seen.
package yamldoc

import (
	"bytes"
	"io"

	"go.yaml.in/yaml/v3"
)

// Decode decodes the first document of data into doc. second is the line
// where a document after it begins, 0 when there is none; err is the
// first document's syntax error, or io.EOF when data holds no document
// (nothing but blanks and comments).
func Decode(data []byte) (doc yaml.Node, second int, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return doc, 0, err
	}
	var next yaml.Node
	if dec.Decode(&next) == io.EOF {
		return doc, 0, nil
	}
	from := doc.Line
	if len(doc.Content) > 0 {
		from = doc.Content[0].Line
	}
	return doc, secondLine(data, from), nil
}

// secondLine is the line where the document after the first begins: the
// first --- after line from, or the first line with content after a ...
// there. A marker at the start of a line ends a block or quoted scalar
// too, so no value of the first document can hold one.
func secondLine(data []byte, from int) int {
	lines := bytes.Split(data, []byte("\n"))
	ended := false
	for i := max(from, 0); i < len(lines); i++ {
		l := bytes.TrimRight(lines[i], "\r")
		if ended {
			if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
				return i + 1
			}
			continue
		}
		marker := len(l) >= 3 && (len(l) == 3 || l[3] == ' ' || l[3] == '\t')
		switch {
		case marker && bytes.HasPrefix(l, []byte("---")):
			return i + 1
		case marker && bytes.HasPrefix(l, []byte("...")):
			ended = true
		}
	}
	return max(from, 1)
}
