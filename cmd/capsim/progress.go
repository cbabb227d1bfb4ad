package main

import (
	"fmt"
	"io"

	"capsim/model/sweep"
)

// progress reports on stderr how far a sweep has got: redrawn in place on
// a terminal, else as plain lines a log file can keep.
type progress struct {
	w      io.Writer
	label  string // the command and scenario: "sweep trip"
	redraw bool
	last   string
	// lastPhase and lastTenth are where the last plain line was written:
	// plain lines come at each phase and each tenth of it, so a log holds
	// a dozen lines per phase, not one per run.
	lastPhase string
	lastTenth int
}

// newProgress reports the progress of command on scenario; it is nil,
// reporting nothing, with quiet.
func newProgress(io *IOStreams, command, scenario string, quiet bool) *progress {
	if quiet {
		return nil
	}
	return &progress{w: io.ErrOut, label: command + " " + scenario, redraw: io.ErrIsTerminal}
}

func (p *progress) update(pr sweep.Progress) {
	pct := 100 * pr.Done / max(pr.Total, 1)
	line := fmt.Sprintf("%s: %s, %d of %d runs (%d%%)", p.label, pr.Phase, pr.Done, pr.Total, pct)
	if line == p.last {
		return
	}
	p.last = line
	if p.redraw {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		return
	}
	if pr.Phase == p.lastPhase && pct/10 == p.lastTenth {
		return
	}
	p.lastPhase, p.lastTenth = pr.Phase, pct/10
	fmt.Fprintln(p.w, line)
}

func (p *progress) finish() {
	if p != nil && p.redraw && p.last != "" {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
