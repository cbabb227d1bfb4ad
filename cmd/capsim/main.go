// Command capsim is a discrete-event capacity simulator for web back ends:
// it runs a YAML scenario of traffic, components and routes, and tells at
// which load a design first fails its SLOs, where, and how sure that is.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// The heap stays small (tens of MB: a sweep keeps aggregates and
		// streams its runs), while drawing the report's charts allocates
		// briskly; collecting at 5x the live heap instead of 2x cut the
		// default sweep's CPU time by 13 % for 45 MB more peak memory.
		// GOGC set in the environment still decides.
		debug.SetGCPercent(400)
	}
	io := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrIsTerminal: redraws(os.Stderr),
		Width: outputWidth(os.Stdout, os.Getenv("COLUMNS")), ErrWidth: outputWidth(os.Stderr, os.Getenv("COLUMNS")), Now: time.Now}
	ctx, stop := interruptContext(io)
	code := MainContext(ctx, os.Args[1:], io)
	stop()
	os.Exit(code)
}

// interruptContext is cancelled by the first SIGINT or SIGTERM, which lets
// a sweep stop cleanly; a second one exits at once with 130, after removing
// the temporary files of outputs not yet committed.
func interruptContext(io *IOStreams) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-signals; !ok {
			return
		}
		fmt.Fprintln(io.ErrOut, "capsim: interrupted, stopping (interrupt again to quit at once)")
		interrupted.Store(true)
		cancel()
		if _, ok := <-signals; !ok {
			return
		}
		removeTemporaries()
		os.Exit(exitInterrupt)
	}()
	return ctx, func() {
		signal.Stop(signals)
		close(signals)
		cancel()
	}
}

// redraws reports whether progress may be redrawn in place on f: f is a
// terminal, and not one that declares (TERM=dumb) it cannot move the
// cursor back. Elsewhere progress is written as plain lines.
func redraws(f *os.File) bool {
	return isTerminal(f) && os.Getenv("TERM") != "dumb"
}
