// Package texttab lays out the tables and notes capsim prints for a
// person: aligned columns that fit a terminal's width. A table wider than
// the width leaves out its least important columns first, then cuts its
// names with …, and says which columns it left out; prose is wrapped.
// Every line comes without trailing spaces.
//
// Widths are counted in runes: capsim's own output uses only characters
// a terminal draws one column wide (×, µ, –, ±, │, …).
package texttab

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Align is where a cell's text sits in its column.
type Align int

const (
	Left Align = iota
	Right
)

// Column describes one column of a Table.
type Column struct {
	Name  string // the header
	Align Align
	// Drop orders the columns left out when the table does not fit: the
	// highest first. 0 is never left out.
	Drop int
	// Min, when above 0, lets the column's cells be cut to that many
	// characters (with …) when leaving out columns is not enough.
	Min int
	// Max, when above 0, cuts the column's cells to that many characters
	// whatever the width: a long name would otherwise crowd out columns.
	Max int
	// CutFirst cuts the column down to Min before any column is left
	// out: prose such as a note, useful in part.
	CutFirst bool
	// KeepEnd cuts a cell's start rather than its end: a dotted name's
	// last part tells it from its neighbours.
	KeepEnd bool
	// Sep goes before the column; "" is two spaces.
	Sep string
	// Note names the column in the footnote when its header is
	// ambiguous on its own ("change when lowered"); "" is Name.
	Note string
	// Width, when wider than the cells, is the column's width: tables
	// printed one under another line up (see Alike).
	Width int
	// Out leaves the column out whatever the width, named in the
	// footnote as left out to fit: another table printed with this one
	// had to (see Alike).
	Out bool
}

// Table is a header row and rows of cells. A row with fewer cells than
// columns ends in a cell that spans the rest: it is wrapped, not counted
// in the columns' widths.
type Table struct {
	Indent string // before every line
	Cols   []Column
	Rows   [][]string
	// NoHeader leaves the header row out.
	NoHeader bool
}

// Row adds a row.
func (t *Table) Row(cells ...string) { t.Rows = append(t.Rows, cells) }

// Len is s's width in columns.
func Len(s string) int { return utf8.RuneCountInString(s) }

// Cut shortens s to at most n columns, ending it with … when it is cut.
func Cut(s string, n int) string {
	if Len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return string([]rune(s)[:n-1]) + "…"
}

// CutStart shortens s to at most n columns keeping its end, starting it
// with … when it is cut.
func CutStart(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return "…" + string(r[len(r)-n+1:])
}

func (c *Column) sep() string {
	if c.Sep == "" {
		return "  "
	}
	return c.Sep
}

// Lines lays the table out within width columns (0 or less: as wide as
// it needs) and returns its lines and the columns it left out, by their
// Note or Name, in the table's order.
func (t *Table) Lines(width int) (lines []string, dropped []string) {
	n := len(t.Cols)
	w := t.widths()
	keep := make([]bool, n)
	for i, c := range t.Cols {
		keep[i] = !c.Out
	}
	total := func() int {
		sum, first := Len(t.Indent), true
		for i, c := range t.Cols {
			if !keep[i] {
				continue
			}
			if !first {
				sum += Len(c.sep())
			}
			sum += w[i]
			first = false
		}
		return sum
	}
	// Prose is cut first; then columns go before names are cut: a cut
	// name may no longer say which row it is, a left-out column is named
	// in the footnote.
	for i, c := range t.Cols {
		if over := total() - width; width > 0 && over > 0 && c.CutFirst && c.Min > 0 {
			w[i] = max(c.Min, w[i]-over)
		}
	}
	for width > 0 && total() > width {
		next := -1
		for i, c := range t.Cols {
			if keep[i] && c.Drop > 0 && (next < 0 || c.Drop >= t.Cols[next].Drop) {
				next = i
			}
		}
		if next < 0 {
			cutNames(t.Cols, keep, w, total()-width)
			break
		}
		keep[next] = false
	}
	for i, c := range t.Cols {
		if !keep[i] {
			name := c.Note
			if name == "" {
				name = c.Name
			}
			dropped = append(dropped, name)
		}
	}
	if !t.NoHeader {
		header := make([]string, n)
		for i, c := range t.Cols {
			header[i] = c.Name
		}
		lines = append(lines, t.line(header, keep, w, width)...)
	}
	for _, row := range t.Rows {
		lines = append(lines, t.line(row, keep, w, width)...)
	}
	return lines, dropped
}

// widths are the columns' widths before any is left out or cut.
func (t *Table) widths() []int {
	n := len(t.Cols)
	w := make([]int, n)
	for i, c := range t.Cols {
		w[i] = c.Width
		if !t.NoHeader {
			w[i] = max(w[i], Len(c.Name))
		}
	}
	for _, row := range t.Rows {
		for i, cell := range row {
			if i < n && (len(row) == n || i < len(row)-1) {
				w[i] = max(w[i], Len(cell))
			}
		}
	}
	for i, c := range t.Cols {
		if c.Max > 0 {
			w[i] = min(w[i], c.Max)
		}
	}
	return w
}

// Alike lays out tables printed one under another, such as one per
// design, the same way within width: a column, matched by name, is as
// wide in every table as in the widest, and one that a table leaves out
// to fit is left out of every table, so that no table shows a column
// another hides. A table may lack a column the others have.
func Alike(tables []*Table, width int) {
	widest := map[string]int{}
	for _, t := range tables {
		for i, w := range t.widths() {
			widest[t.Cols[i].Name] = max(widest[t.Cols[i].Name], w)
		}
	}
	for _, t := range tables {
		for i := range t.Cols {
			t.Cols[i].Width = widest[t.Cols[i].Name]
		}
	}
	out := map[string]bool{}
	for _, t := range tables {
		_, dropped := t.Lines(width)
		for _, name := range dropped {
			out[name] = true
		}
	}
	for _, t := range tables {
		for i, c := range t.Cols {
			name := c.Note
			if name == "" {
				name = c.Name
			}
			t.Cols[i].Out = c.Out || out[name]
		}
	}
}

// cutNames takes over columns off the cuttable columns, the widest first.
func cutNames(cols []Column, keep []bool, w []int, over int) {
	for over > 0 {
		widest := -1
		for i, c := range cols {
			if keep[i] && c.Min > 0 && w[i] > c.Min && (widest < 0 || w[i] > w[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		w[widest]--
		over--
	}
}

func (t *Table) line(row []string, keep []bool, w []int, width int) []string {
	var b strings.Builder
	b.WriteString(t.Indent)
	first := true
	for i, c := range t.Cols {
		if i >= len(row) {
			break
		}
		span := len(row) < len(t.Cols) && i == len(row)-1
		if !keep[i] && !span {
			continue
		}
		if !first {
			b.WriteString(c.sep())
		}
		first = false
		cell := row[i]
		if span {
			// Wrapped under itself.
			return Hang(b.String(), cell, strings.Repeat(" ", Len(b.String())), width)
		}
		if Len(cell) > w[i] {
			if c.KeepEnd {
				cell = CutStart(cell, w[i])
			} else {
				cell = Cut(cell, w[i])
			}
		}
		pad := strings.Repeat(" ", w[i]-Len(cell))
		if c.Align == Right {
			b.WriteString(pad + cell)
		} else {
			b.WriteString(cell + pad)
		}
	}
	return []string{strings.TrimRight(b.String(), " ")}
}

// Write writes the table within width and, when it left columns out, a
// footnote naming them and how to see them.
func (t *Table) Write(w io.Writer, width int, howToSee string) {
	lines, dropped := t.Lines(width)
	for _, l := range lines {
		io.WriteString(w, l+"\n")
	}
	if len(dropped) > 0 {
		WriteLines(w, Footnote(t.Indent, dropped, width, howToSee))
	}
}

// Footnote says which columns a table left out to fit width, and how to
// see them.
func Footnote(indent string, dropped []string, width int, howToSee string) []string {
	s := "(" + strings.Join(dropped, ", ") + " left out to fit " + strconv.Itoa(width) + " columns"
	if howToSee != "" {
		s += "; " + howToSee
	}
	return Hang(indent, s+")", indent+" ", width)
}

// Hang wraps text at spaces into lines of at most width columns, the
// first starting with first, the others with rest (0 or less: one line).
// A word longer than a line is cut with ….
func Hang(first, text, rest string, width int) []string {
	if width <= 0 || Len(first)+Len(text) <= width {
		return []string{strings.TrimRight(first+text, " ")}
	}
	return Fill(first, rest, strings.Fields(text), " ", width)
}

// Fill puts items on lines of at most width columns with sep between
// them, the first line starting with first, the others with rest. An
// item longer than a line is cut with ….
func Fill(first, rest string, items []string, sep string, width int) []string {
	if width <= 0 {
		return []string{strings.TrimRight(first+strings.Join(items, sep), " ")}
	}
	var lines []string
	line, empty := first, true
	for _, item := range items {
		if !empty && Len(line)+Len(sep)+Len(item) > width {
			lines = append(lines, strings.TrimRight(line, " "))
			line, empty = rest, true
		}
		if !empty {
			line += sep
		}
		if room := width - Len(line); Len(item) > room {
			item = Cut(item, max(room, 1))
		}
		line += item
		empty = false
	}
	return append(lines, strings.TrimRight(line, " "))
}

// Wrap is Hang with the same indent on every line.
func Wrap(indent, text string, width int) []string { return Hang(indent, text, indent, width) }

// WriteLines writes each line with a line break.
func WriteLines(w io.Writer, lines []string) {
	for _, l := range lines {
		io.WriteString(w, l+"\n")
	}
}
