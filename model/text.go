package model

import (
	"fmt"
	"regexp"
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

var (
	replicaPart  = regexp.MustCompile(`(^|\.)replica\.[0-9]+(\.|$)`)
	failedAtPart = regexp.MustCompile(`(^|\.)failed_at(\.|$)`)
)

// reservedName refuses the names whose metrics would be written under
// another entity's names. Within capsim a metric is known by its key,
// which no name confuses; but the CSVs write each as a name,
// kind.entity.measure, and its parts, and those must stay apart for a
// notebook to tell the rows apart. Names may hold dots (v1.trip,
// db.primary), so two parts of a name are kept for the simulator's own
// use: a balancer lb's replicas are written as component lb.replica.0
// (component.lb.replica.0.picks_count), so a balancer called lb.replica.0
// would write the same rows; and a journey's failure stages are
// journey.<j>.failed_at.<stage>_count, which a journey called
// <j>.failed_at.<stage> would write too (a stage label may hold dots).
// Two design names are the command line's: base, the scenario as written,
// and all, every design; a design so called could not be told from them.
func reservedName(mapping, name string) error {
	switch {
	case mapping == "components" && replicaPart.MatchString(name):
		return fmt.Errorf("name %q holds replica.<number>, which metric names keep for a balancer's replicas (component.<balancer>.replica.0.picks_count); rename it", name)
	case (mapping == "journeys" || mapping == "components" || mapping == "routes") && failedAtPart.MatchString(name):
		return fmt.Errorf("name %q holds failed_at, which metric names keep for failure stages (journey.<journey>.failed_at.<stage>_count); rename it", name)
	case mapping == "designs" && name == "base":
		return fmt.Errorf("the name base is reserved for the scenario without a design, as reports, sweep --designs and sensitivity --design call it; rename the design")
	case mapping == "designs" && name == "all":
		return fmt.Errorf("the name all is reserved: sweep --designs all means every design; rename the design")
	}
	return nil
}
