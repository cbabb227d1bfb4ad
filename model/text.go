package model

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkText finds the first byte of data that YAML does not allow in a
// file: invalid UTF-8, or a control character other than tab, line feed
// and carriage return (YAML 1.2, section 5.1). The parser refuses them too,
// but without saying where; this names the line and column.
func checkText(name string, data []byte) *Error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return &Error{File: name, Line: line, Col: col, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02x); a scenario is UTF-8 text", data[i])}
		case !yamlPrintable(r):
			return &Error{File: name, Line: line, Col: col, Msg: fmt.Sprintf("control character %U is not allowed in YAML; inside double quotes write it as an escape, such as \\t", r)}
		}
		i += size
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return nil
}

func yamlPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return true
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return false
	case r == 0xfffe || r == 0xffff:
		return false
	}
	return true
}

// checkString refuses a control character in a decoded string (one an
// escape such as "\e" put there): names, labels and values are printed on
// terminals and into CSV and Markdown, where an escape sequence would take
// effect or a line break would forge a row. A description may span lines.
func checkString(path, s string) error {
	multiline := path == "description" || strings.HasSuffix(path, ".description")
	for _, r := range s {
		if r == '\n' && multiline || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return fmt.Errorf("the text %q holds the control character %U; write it without", s, r)
		}
		// Line separators and format characters (a right-to-left
		// override, say) rearrange what a terminal shows without a trace;
		// only prose may hold them.
		if !multiline && (r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)) {
			return fmt.Errorf("the text %q holds the invisible character %U; write it without", s, r)
		}
	}
	return nil
}

// reservedName refuses the design names the command line gives a meaning
// of its own: base, the scenario as written, and all, every design; a
// design so called could not be told from them. (A metric's name,
// kind.entity.measure, needs no such rule: names hold no dot, so none can
// pose as a balancer's replica, lb.replica.0, or a failure stage,
// journey.<j>.failed_at.<stage>_count.)
func reservedName(mapping, name string) error {
	switch {
	case mapping == "designs" && name == "base":
		return fmt.Errorf("the name base is reserved for the scenario without a design, as reports, sweep --designs and sensitivity --design call it; rename the design")
	case mapping == "designs" && name == "all":
		return fmt.Errorf("the name all is reserved: sweep --designs all means every design; rename the design")
	}
	return nil
}
