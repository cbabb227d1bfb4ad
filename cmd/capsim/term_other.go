//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

import "os"

// isTerminal reports whether f is a character device, the best guess
// without terminal attributes to ask for. A null device counts, and gets
// progress drawn that nobody sees.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// terminalWidth is 0, unknown, without terminal attributes to ask.
func terminalWidth(*os.File) int { return 0 }
