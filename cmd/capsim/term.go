package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal: whether it has terminal
// attributes. Being a character device is not enough: /dev/null is one.
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the number of columns of the terminal f is, 0 when it
// is none or does not say.
func terminalWidth(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}
