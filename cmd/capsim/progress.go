package main

import (
	"fmt"
	"io"

	"capsim/model/sweep"
)

// progress draws a one-line progress report on a terminal's stderr.
type progress struct {
	w        io.Writer
	scenario string
	last     string
}

func newProgress(io *IOStreams, scenario string) *progress {
	if !io.ErrIsTerminal {
		return nil
	}
	return &progress{w: io.ErrOut, scenario: scenario}
}

func (p *progress) update(pr sweep.Progress) {
	line := fmt.Sprintf("sweep %s: %s, %d of %d runs (%d%%)", p.scenario, pr.Phase, pr.Done, pr.Total, 100*pr.Done/max(pr.Total, 1))
	if line != p.last {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.last = line
	}
}

func (p *progress) finish() {
	if p != nil && p.last != "" {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
