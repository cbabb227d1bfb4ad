package plots

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// prose renders report prose as CommonMark with GitHub's tables, the
// dialect report.md is read in on a code host, so report.html shows the
// same prose the same way rather than through a subset that could drift.
// Raw HTML in the prose is left out, not passed through, and link
// destinations such as javascript: are dropped: caller text never
// becomes markup of the page.
var prose = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough),
)

// mdToHTML renders markdown prose for the HTML page. Sections are <h2>,
// so a heading inside their prose ranks at least <h3>.
func mdToHTML(md string) template.HTML {
	src := []byte(clean(strings.ReplaceAll(md, "\r\n", "\n")))
	doc := prose.Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(6, max(h.Level+2, 3))
		}
		return ast.WalkContinue, nil
	})
	var b bytes.Buffer
	if err := prose.Renderer().Render(&b, src, doc); err != nil {
		// Rendering into a buffer fails only on a renderer bug; show
		// the prose as text rather than lose it.
		return template.HTML("<pre>" + template.HTMLEscapeString(md) + "</pre>")
	}
	return template.HTML(bytes.TrimSpace(b.Bytes()))
}
