package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"capsim/model/sweep"
	"capsim/plots/texttab"
)

// progress reports on stderr how far a sweep has got: redrawn in place on
// a terminal, else as plain lines a log file can keep. A sweep's total
// grows as each refinement round is planned, so the line shows the phase
// it is in, the grid then "refine round 1 of 2", with that phase's own
// count and percentage, which only go up; with a clock, the time elapsed
// and an estimate of the time left.
type progress struct {
	w      io.Writer
	label  string // the command and scenario: "sweep trip"
	redraw bool
	width  int // a redrawn line is cut to it, or it would wrap
	// rounds is the number of refinement rounds planned; 0 when the
	// command runs one phase of its own (a shard); below 0 for a command
	// without phases, whose line says only how far it has got.
	rounds int
	unit   string           // what it counts: "runs" unless the command says
	now    func() time.Time // nil: no elapsed time or estimate
	start  time.Time
	last   string

	// The phase: round 0 is the grid; its runs are those counted from
	// roundStart (excluded) to roundEnd.
	round, roundStart, roundEnd, gridRuns int
	// lastRound and lastTenth are where the last plain line was written:
	// plain lines come at each phase and each tenth of it, so a log holds
	// a dozen lines per phase, not one per run.
	lastRound, lastTenth int
}

// newProgress reports the progress of command on scenario, which plans
// rounds refinement rounds after its grid; it is nil, reporting nothing,
// with quiet.
func newProgress(io *IOStreams, command, scenario string, rounds int, quiet bool) *progress {
	if quiet {
		return nil
	}
	p := &progress{w: io.ErrOut, label: command + " " + scenario, redraw: io.ErrIsTerminal, width: io.errWidth(),
		rounds: rounds, now: io.Now, lastRound: -1}
	if p.now != nil {
		p.start = p.now()
	}
	return p
}

func (p *progress) update(pr sweep.Progress) {
	if pr.Done <= p.roundStart && pr.Phase != "merge" && p.roundEnd > 0 {
		// The count started again: a shard that merged the rounds before
		// its own now counts its own runs from nothing.
		p.roundStart, p.roundEnd = 0, 0
	}
	if pr.Total > p.roundEnd {
		// A phase begins: the sweep adds a round's runs to its total as
		// it plans the round.
		if p.roundEnd > 0 || pr.Phase == "refine" {
			p.round++
		}
		p.roundStart, p.roundEnd = p.roundEnd, pr.Total
		if p.round == 0 {
			p.gridRuns = p.roundEnd
		}
	}
	done, n := pr.Done-p.roundStart, p.roundEnd-p.roundStart
	pct := 100 * done / max(n, 1)
	var phase string
	switch {
	case p.rounds < 0:
	case p.rounds == 0 && pr.Phase == "refine":
		phase = "refine" // a shard: its phase is the sweep's word for it
	case p.round == 0:
		phase = "grid"
	case p.rounds == 0:
		phase = "refine"
	default:
		phase = fmt.Sprintf("grid %d/%d · refine round %d of %d:", p.gridRuns, p.gridRuns, p.round, p.rounds)
	}
	if pr.Phase == "merge" {
		phase = "merging " + phase
	}
	unit := p.unit
	if unit == "" {
		unit = "runs"
	}
	if phase != "" {
		phase += " "
	}
	line := fmt.Sprintf("%s: %s%d/%d %s (%d%%)", p.label, phase, done, n, unit, pct)
	if p.now != nil && pr.Done > 0 {
		line += p.timing(pr.Done, n-done)
	}
	if line == p.last {
		return
	}
	p.last = line
	if p.redraw {
		if p.width > 0 {
			line = texttab.Cut(line, p.width-1)
		}
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		return
	}
	if p.round == p.lastRound && pct/10 == p.lastTenth {
		return
	}
	p.lastRound, p.lastTenth = p.round, pct/10
	fmt.Fprintln(p.w, line)
}

// timing is the time elapsed and an estimate of the time left, at the
// mean time per run so far: the runs left in this phase, and in each
// refinement round still to come as many as in this one. During the grid
// the rounds to come are not planned yet: the estimate is the grid's.
func (p *progress) timing(runs, left int) string {
	elapsed := p.now().Sub(p.start)
	s := " · " + fmtElapsed(elapsed) + " elapsed"
	rest := left
	if p.round > 0 && p.rounds > p.round {
		rest += (p.rounds - p.round) * (p.roundEnd - p.roundStart)
	}
	eta := time.Duration(float64(elapsed) / float64(runs) * float64(rest))
	switch {
	case rest == 0:
		return s
	case p.round == 0 && p.rounds > 0:
		return s + " · about " + fmtElapsed(eta) + " left in the grid"
	}
	return s + " · about " + fmtElapsed(eta) + " left"
}

// fmtElapsed writes a wall-clock time to the second, as 42s or 1m05s.
func fmtElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	if d < time.Hour {
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func (p *progress) finish() {
	if p != nil && p.redraw && p.last != "" {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// watch runs job, a sweep-shaped piece of work of command on scenario,
// drawing its progress through *hook (the job's Progress field) unless
// quiet. An interrupt becomes exit 130 with "<what> interrupted; no
// output written", any other failure exit 1.
func watch[T any](io *IOStreams, command, what, scenario string, rounds int, quiet bool, hook *func(sweep.Progress), job func() (T, error)) (T, error) {
	return watchWith(newProgress(io, command, scenario, rounds, quiet), what, hook, job)
}

// watchCount is watch for a command of one phase that counts unit: its
// line says only how many of them are done.
func watchCount[T any](io *IOStreams, command, scenario, unit string, quiet bool, hook *func(done, total int), job func() (T, error)) (T, error) {
	prog := newProgress(io, command, scenario, -1, quiet)
	var h func(sweep.Progress)
	if prog != nil {
		prog.unit = unit
		*hook = func(done, total int) { h(sweep.Progress{Done: done, Total: total}) }
	}
	return watchWith(prog, command, &h, job)
}

func watchWith[T any](prog *progress, what string, hook *func(sweep.Progress), job func() (T, error)) (T, error) {
	if prog != nil {
		*hook = prog.update
	}
	res, err := job()
	prog.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return res, withCode(exitInterrupt, errors.New(what+" interrupted; no output written"))
		}
		return res, withCode(exitError, err)
	}
	return res, nil
}
