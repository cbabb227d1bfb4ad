// Command capsim is a discrete-event capacity simulator for web back ends:
// it runs a YAML scenario of traffic, components and routes, and tells at
// which load a design first fails its SLOs, where, and how sure that is.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	io := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrIsTerminal: isTerminal(os.Stderr)}
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

// isTerminal reports whether f is a character device: a terminal rather
// than a file or a pipe. That is all progress drawing needs to know.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
