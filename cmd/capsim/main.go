// Command capsim is a discrete-event capacity simulator for web back ends:
// it runs a YAML scenario of traffic, components and routes, and tells at
// which load a design first fails its SLOs, where, and how sure that is.
package main

import (
	"os"
)

func main() {
	io := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrIsTerminal: isTerminal(os.Stderr)}
	os.Exit(Main(os.Args[1:], io))
}

// isTerminal reports whether f is a character device: a terminal rather
// than a file or a pipe. That is all progress drawing needs to know.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
