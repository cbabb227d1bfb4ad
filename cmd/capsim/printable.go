package main

import (
	"strconv"
	"strings"
	"unicode"
)

// printable returns s as it may reach a terminal: unchanged when every
// character prints, else quoted with Go escapes, so that a newline or an
// escape sequence in a name can neither forge a line of output nor drive
// the terminal.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' || r == unicode.ReplacementChar }) < 0 {
		return s
	}
	return strconv.Quote(s)
}
