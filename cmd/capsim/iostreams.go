package main

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"capsim/plots/texttab"
)

// IOStreams are the process's standard streams, injected so that commands can
// be tested over buffers. Only main touches os.Stdin/Stdout/Stderr.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrIsTerminal reports whether ErrOut is an interactive terminal
	// that can redraw a line: progress is then drawn in place, else
	// written as plain lines.
	ErrIsTerminal bool
	// Width is the number of columns tables and notes on Out keep to,
	// ErrWidth those on ErrOut (calibrate's fit tables, progress); 0 is
	// defaultWidth. main sets them (see outputWidth).
	Width, ErrWidth int
	// Wide (--wide) lets tables be as wide as they need, every column
	// shown.
	Wide bool
	// Now reads the wall clock, for the time a sweep's progress shows
	// elapsed and left; nil shows none (tests).
	Now func() time.Time
}

// defaultWidth is the width of output that goes to no terminal: a file,
// a pipe, a test's buffer. Fixed, so that what a script or a golden file
// reads does not depend on the window it was started from.
const defaultWidth = 100

// width is the columns tables on Out keep to: 0 (no limit) with --wide.
func (s *IOStreams) width() int { return s.fit(s.Width) }

// errWidth is the columns tables and progress on ErrOut keep to.
func (s *IOStreams) errWidth() int { return s.fit(s.ErrWidth) }

func (s *IOStreams) fit(w int) int {
	switch {
	case s.Wide:
		return 0
	case w > 0:
		return w
	}
	return defaultWidth
}

// note writes a line of prose on Out, wrapped to the width.
func (s *IOStreams) note(text string) {
	texttab.WriteLines(s.Out, texttab.Hang("", text, "  ", s.width()))
}

// noteErr is note on ErrOut, where calibrate writes its account and
// warnings.
func (s *IOStreams) noteErr(text string) {
	texttab.WriteLines(s.ErrOut, texttab.Hang("", text, "  ", s.errWidth()))
}

// seeAll is what a table's footnote says shows the columns it left out.
const seeAll = "--wide shows them"

// outputWidth decides the width of capsim's output on out: COLUMNS when
// it is set to a whole number (the user's word wins), else the width of
// the terminal out is, else defaultWidth. Tables narrower than 40
// columns help nobody; 40 is the least.
func outputWidth(out *os.File, columns string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n > 0 {
		return max(n, minWidth)
	}
	if isTerminal(out) {
		if n := terminalWidth(out); n > 0 {
			return max(n, minWidth)
		}
	}
	return defaultWidth
}

// minWidth is the narrowest output capsim lays out for.
const minWidth = 40
