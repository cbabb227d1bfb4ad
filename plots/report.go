package plots

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Report is a document of sections, each with optional prose, a table and
// figures. [Report.Build] turns it into a markdown file that references
// the charts as image files beside it and a self-contained HTML page with
// the charts inlined as SVG.
type Report struct {
	Title string
	// Preamble is markdown shown under the title, read like Section.Text.
	Preamble string
	Sections []Section
	// ContentsAfter, when > 0, places a list of links to the sections
	// that follow after the first ContentsAfter sections: the answer
	// stays on the first screen, and the way to the evidence just
	// below it.
	ContentsAfter int
	// PNG also draws every figure as charts/<Name>.png, which report.md
	// then shows, with a link to the SVG; without it report.md shows the
	// SVG. Rasterising and compressing a chart costs several times what
	// drawing its SVG does, so the PNG is drawn only for a reader who
	// needs one (a viewer or a slide that takes no SVG).
	PNG bool
}

// Section is one part of a report, laid out in field order.
type Section struct {
	Heading string
	// Text is markdown, copied into report.md as is and rendered for
	// report.html as CommonMark with tables, as a code host renders
	// report.md; raw HTML in it is left out of the page.
	Text    string
	Table   *Table
	Figures []Figure
	// Folded sections are shown closed (an HTML <details> element, in
	// report.md as well): reference material a reader opens on purpose.
	// They are left out of the contents.
	Folded bool
}

// Table is plain text in rows; short rows are padded with empty cells.
type Table struct {
	Header []string
	Rows   [][]string
	// Strong marks rows to stand out, such as the best design, by index.
	Strong []int
	// Prose marks the columns, by index, whose cells are sentences or
	// lists of names: in report.html they wrap and are given room to,
	// where every other cell keeps to one line, a number and its
	// interval together.
	Prose []int
}

// Figure is a chart with the base name of its files and a caption.
type Figure struct {
	// Name is the base name of the chart files, charts/<Name>.svg (and
	// charts/<Name>.png with [Report.PNG]): letters, digits, '_', '-' and '.', starting with
	// a letter or digit, unique within the report.
	Name    string
	Caption string
	Chart   Renderer
	// WidthCm and HeightCm default to 16 and 10.
	WidthCm, HeightCm float64
	// Wide figures, such as small multiples, take the page's whole width
	// in report.html, where other figures sit two to a row when the page
	// is wide enough.
	Wide bool
	// Summary, when set, shows the figure closed under this line (an
	// HTML <details> element, in report.md as well): detail, such as one
	// design's run over time, that a reader opens on purpose.
	Summary string
}

// File is one output of [Report.Build]: a slash-separated path relative to
// the report's folder, and its contents.
type File struct {
	Name string
	Data []byte
}

// Default figure size: a 16 cm chart fits an A4 page with margins.
const (
	defaultWidthCm  = 16
	defaultHeightCm = 10
)

var figureName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// figureError puts the figure's name in front of a chart's error without
// repeating the package prefix, and keeps the chart's error matchable.
type figureError struct {
	name string
	err  error
}

func (e *figureError) Error() string {
	return fmt.Sprintf("plots: figure %q: %s", e.name, strings.TrimPrefix(e.err.Error(), "plots: "))
}

func (e *figureError) Unwrap() error { return e.err }

// Build renders every figure once, in SVG (and PNG with r.PNG), and
// returns the files sorted by name: "charts/<name>.png" with r.PNG,
// "charts/<name>.svg" for each figure, "report.html" and "report.md".
func (r Report) Build() ([]File, error) {
	var files []File
	svgs := map[string][]byte{}
	for _, s := range r.Sections {
		for _, fig := range s.Figures {
			if !figureName.MatchString(fig.Name) {
				return nil, fmt.Errorf("plots: figure name %q is not a plain file name", fig.Name)
			}
			if _, dup := svgs[fig.Name]; dup {
				return nil, fmt.Errorf("plots: figure name %q is used twice", fig.Name)
			}
			if fig.Chart == nil {
				return nil, &figureError{fig.Name, errors.New("no chart")}
			}
			w, h := fig.size()
			svg, err := fig.Chart.Render(SVG, w, h)
			if err != nil {
				return nil, &figureError{fig.Name, err}
			}
			svgs[fig.Name] = svg
			files = append(files, File{Name: "charts/" + fig.Name + ".svg", Data: svg})
			if !r.PNG {
				continue
			}
			png, err := fig.Chart.Render(PNG, w, h)
			if err != nil {
				return nil, &figureError{fig.Name, err}
			}
			files = append(files, File{Name: "charts/" + fig.Name + ".png", Data: png})
		}
	}
	page, err := r.html(svgs)
	if err != nil {
		return nil, err
	}
	files = append(files,
		File{Name: "report.md", Data: r.markdown()},
		File{Name: "report.html", Data: page})
	slices.SortFunc(files, func(a, b File) int { return cmp.Compare(a.Name, b.Name) })
	return files, nil
}

func (f Figure) size() (w, h float64) {
	w, h = f.WidthCm, f.HeightCm
	if w == 0 {
		w = defaultWidthCm
	}
	if h == 0 {
		h = defaultHeightCm
	}
	return w, h
}

// markdown writes the report for viewers that render markdown, such as a
// code host: charts are images next to the file, tables are pipe tables.
func (r Report) markdown() []byte {
	var b bytes.Buffer
	if r.Title != "" {
		fmt.Fprintf(&b, "# %s\n\n", mdText(r.Title))
	}
	writeBlock(&b, r.Preamble)
	n := 0
	for i, s := range r.Sections {
		if i == r.ContentsAfter && i > 0 {
			b.WriteString("## Contents\n\n")
			for _, e := range r.contents() {
				fmt.Fprintf(&b, "- [%s](#%s)\n", mdText(e.Heading), e.ID)
			}
			b.WriteString("\n")
		}
		switch {
		case s.Folded:
			// Blank lines around the contents let viewers render the
			// markdown inside the element.
			fmt.Fprintf(&b, "<details>\n<summary>%s</summary>\n\n", html.EscapeString(lineClean(s.Heading)))
		case s.Heading != "":
			fmt.Fprintf(&b, "## %s\n\n", mdText(s.Heading))
		}
		writeBlock(&b, s.Text)
		if s.Table != nil {
			writeMDTable(&b, *s.Table)
		}
		for _, fig := range s.Figures {
			n++
			caption := mdText(fig.Caption)
			alt := caption
			if alt == "" {
				alt = fig.Name // an image needs some alternative text
			}
			if fig.Summary != "" {
				fmt.Fprintf(&b, "<details>\n<summary>%s</summary>\n\n", html.EscapeString(lineClean(fig.Summary)))
			}
			image := "svg"
			if r.PNG {
				image = "png"
			}
			fmt.Fprintf(&b, "![%s](charts/%s.%s)\n\n", alt, fig.Name, image)
			fmt.Fprintf(&b, "*Figure %d.", n)
			if caption != "" {
				fmt.Fprintf(&b, " %s", caption)
			}
			b.WriteString("*")
			if r.PNG {
				fmt.Fprintf(&b, " ([SVG](charts/%s.svg))", fig.Name)
			}
			b.WriteString("\n\n")
			if fig.Summary != "" {
				b.WriteString("</details>\n\n")
			}
		}
		if s.Folded {
			b.WriteString("</details>\n\n")
		}
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}

func writeBlock(b *bytes.Buffer, md string) {
	md = strings.TrimSpace(strings.ReplaceAll(md, "\r\n", "\n"))
	if md != "" {
		b.WriteString(md)
		b.WriteString("\n\n")
	}
}

// mdEscaper neutralises the characters that would turn plain caller text
// (titles, captions, cells) into markup or break out of an image's alt
// text.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `\<`, `>`, `\>`, `|`, `\|`, `#`, `\#`,
)

func mdText(s string) string { return mdEscaper.Replace(lineClean(s)) }

// mdCell escapes the pipe, which would split the cell, and a "<" that
// could open an HTML tag, which most markdown viewers would render. Other
// characters stay as written: cells hold values such as "p_95", "2*cpu" or
// "p95 < 2s" that read fine and should not fill up with backslashes.
func mdCell(s string) string {
	s = strings.ReplaceAll(lineClean(s), "|", `\|`)
	return mdTagStart.ReplaceAllString(s, `\<$1`)
}

var mdTagStart = regexp.MustCompile(`<([A-Za-z/!?])`)

func writeMDTable(b *bytes.Buffer, t Table) {
	cols := t.width()
	if cols == 0 {
		return
	}
	row := func(cells []string) {
		b.WriteString("|")
		for i := range cols {
			cell := ""
			if i < len(cells) {
				cell = mdCell(cells[i])
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	row(t.Header)
	b.WriteString("|" + strings.Repeat(" --- |", cols) + "\n")
	for i, r := range t.Rows {
		if slices.Contains(t.Strong, i) {
			strong := make([]string, len(r))
			for k, c := range r {
				if c = mdCell(c); c != "" {
					c = "**" + c + "**"
				}
				strong[k] = c
			}
			rawRow(b, cols, strong)
			continue
		}
		row(r)
	}
	b.WriteString("\n")
}

// rawRow writes cells already escaped.
func rawRow(b *bytes.Buffer, cols int, cells []string) {
	b.WriteString("|")
	for i := range cols {
		cell := ""
		if i < len(cells) {
			cell = cells[i]
		}
		b.WriteString(" " + cell + " |")
	}
	b.WriteString("\n")
}

// contentsEntry is a link in the contents: a section's heading and the
// id of its anchor.
type contentsEntry struct {
	Heading, ID string
}

// contents lists the sections after ContentsAfter that are not folded.
func (r Report) contents() []contentsEntry {
	var out []contentsEntry
	for i, s := range r.Sections {
		if i >= r.ContentsAfter && !s.Folded && s.Heading != "" {
			out = append(out, contentsEntry{lineClean(s.Heading), anchor(s.Heading)})
		}
	}
	return out
}

// anchor is the id a report's heading gets, made of the heading as it is
// shown, so the same link works in report.md and report.html.
func anchor(heading string) string { return Anchor(lineClean(heading)) }

// Anchor is the id markdown viewers such as GitHub's give a heading, for a
// link to it: lower case, spaces to hyphens, other punctuation dropped.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (t Table) width() int {
	w := len(t.Header)
	for _, r := range t.Rows {
		w = max(w, len(r))
	}
	return w
}

// padded returns the table's cells with every row cols wide, which keeps
// the HTML table rectangular.
func (t Table) padded() (header []string, rows [][]string) {
	cols := t.width()
	pad := func(cells []string) []string {
		out := make([]string, cols)
		for i := range out {
			if i < len(cells) {
				out[i] = lineClean(cells[i])
			}
		}
		return out
	}
	if len(t.Header) > 0 {
		header = pad(t.Header)
	}
	for _, r := range t.Rows {
		rows = append(rows, pad(r))
	}
	return header, rows
}

// The page is a single file with no external assets, so it can be mailed
// or archived as is; html/template escapes all caller text.
var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Arial,sans-serif;max-width:64rem;margin:1rem auto;padding:0 1rem;line-height:1.45;color:#222}
h1{font-size:1.6rem;margin:.5rem 0}
h1,h2,h3{line-height:1.2}
h2{font-size:1.3rem;margin:1.2rem 0 .5rem}
p{margin:.4rem 0}
code{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f3f3f3;padding:0 .2em}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:.25rem .4rem;text-align:left;vertical-align:top}
td{white-space:nowrap}
td.prose{white-space:normal}
th{background:#f0f0f0}
tbody tr:nth-child(even){background:#fafafa}
tr.strong td{font-weight:600;background:#eef6ee}
nav ul{columns:3;margin:.3rem 0}
details{margin:1rem 0;border:1px solid #ddd;padding:.3rem .8rem}
summary{font-weight:600;cursor:pointer}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(28rem,1fr));gap:0 1.5rem}
figure{margin:1rem 0}
figure.wide,details.wide{grid-column:1/-1}
details.figure{margin:.3rem 0;padding:.2rem .8rem}
figure svg{width:100%;height:auto;display:block}
figcaption{font-size:.9rem;color:#555;margin-top:.3rem}
</style>
</head>
<body>
{{with .Title}}<h1>{{.}}</h1>
{{end}}{{.Preamble}}
{{range .Sections}}{{with .Contents}}<nav id="contents">
<h2>Contents</h2>
<ul>
{{range .}}<li><a href="#{{.ID}}">{{.Heading}}</a></li>
{{end}}</ul>
</nav>
{{end}}{{if .Folded}}<details id="{{.ID}}">
<summary>{{.Heading}}</summary>
{{else}}<section id="{{.ID}}">
{{with .Heading}}<h2>{{.}}</h2>
{{end}}{{end}}{{.Text}}
{{with .Table}}<div class="scroll"><table>
{{with .Header}}<thead><tr>{{range .}}<th>{{.}}</th>{{end}}</tr></thead>
{{end}}<tbody>
{{range .Rows}}<tr{{if .Strong}} class="strong"{{end}}>{{range .Cells}}<td{{if .Prose}} class="prose"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}{{with .Figures}}<div class="figures">
{{range .}}{{if .Summary}}<details class="figure{{if .Wide}} wide{{end}}">
<summary>{{.Summary}}</summary>
{{end}}<figure id="fig-{{.Name}}"{{if and .Wide (not .Summary)}} class="wide"{{end}}>
{{.SVG}}
<figcaption>Figure {{.Number}}.{{with .Caption}} {{.}}{{end}}</figcaption>
</figure>
{{if .Summary}}</details>
{{end}}{{end}}</div>
{{end}}{{if .Folded}}</details>{{else}}</section>{{end}}
{{end}}</body>
</html>
`))

type pageData struct {
	Title    string
	Preamble template.HTML
	Sections []pageSection
}

type pageSection struct {
	Heading, ID string
	Folded      bool
	Contents    []contentsEntry // the contents, placed before this section
	Text        template.HTML
	Table       *pageTable
	Figures     []pageFigure
}

type pageTable struct {
	Header []string
	Rows   []pageRow
}

type pageRow struct {
	Cells  []pageCell
	Strong bool
}

type pageCell struct {
	Text  string
	Prose bool
}

type pageFigure struct {
	Wide    bool
	Summary string
	Name    string
	Number  int
	Caption string
	SVG     template.HTML
}

func (r Report) html(svgs map[string][]byte) ([]byte, error) {
	d := pageData{Title: lineClean(r.Title), Preamble: mdToHTML(r.Preamble)}
	n := 0
	for i, s := range r.Sections {
		ps := pageSection{Heading: lineClean(s.Heading), ID: anchor(s.Heading), Folded: s.Folded, Text: mdToHTML(s.Text)}
		if i == r.ContentsAfter && i > 0 {
			ps.Contents = r.contents()
		}
		if s.Table != nil && s.Table.width() > 0 {
			h, rows := s.Table.padded()
			ps.Table = &pageTable{Header: h}
			for k, row := range rows {
				pr := pageRow{Strong: slices.Contains(s.Table.Strong, k)}
				for c, text := range row {
					pr.Cells = append(pr.Cells, pageCell{Text: text, Prose: slices.Contains(s.Table.Prose, c)})
				}
				ps.Table.Rows = append(ps.Table.Rows, pr)
			}
		}
		for _, fig := range s.Figures {
			n++
			ps.Figures = append(ps.Figures, pageFigure{
				Wide:    fig.Wide,
				Summary: lineClean(fig.Summary),
				Name:    fig.Name,
				Number:  n,
				Caption: lineClean(fig.Caption),
				SVG:     inlineSVG(svgs[fig.Name]),
			})
		}
		d.Sections = append(d.Sections, ps)
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("plots: writing html: %w", err)
	}
	return b.Bytes(), nil
}

// inlineSVG drops the XML declaration and comment that precede the <svg>
// element: they are not allowed in the middle of an HTML document. The
// rest is trusted as markup because the SVG writer escapes every text it
// draws and chart text has been cleaned of control characters.
func inlineSVG(svg []byte) template.HTML {
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		svg = svg[i:]
	}
	return template.HTML(bytes.TrimSpace(svg))
}

// MinChars is the narrowest a table can be laid out in report.html, in
// characters and columns: every column as wide as its widest cell, which
// keeps to one line, or as its longest word in a Prose column and in the
// header, whose words wrap. It is what holds a table to a page's width
// without a browser.
func (t Table) MinChars() (chars, cols int) {
	header, rows := t.padded()
	for c := range t.width() {
		w := 0
		if c < len(header) {
			w = longestWord(header[c])
		}
		for _, r := range rows {
			if slices.Contains(t.Prose, c) {
				w = max(w, longestWord(r[c]))
			} else {
				w = max(w, utf8.RuneCountInString(r[c]))
			}
		}
		chars += w
	}
	return chars, t.width()
}

func longestWord(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		n = max(n, utf8.RuneCountInString(w))
	}
	return n
}
