package main

import "io"

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
}
