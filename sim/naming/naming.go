// Package naming holds the one rule for what may name a component,
// journey, route, distribution, design or attribute, beneath model and
// calibration alike: a calibration fragment is read by scenarios, so a
// name calibrate writes must be one a scenario accepts.
package naming

import (
	"fmt"
	"strings"
)

// Valid reports whether s can be a name: an ASCII letter, then ASCII
// letters, digits, _, - and /. A dot cannot: --set and --scale paths
// separate keys with dots, so components.a.b.servers could not reach the
// servers of a component called a.b.
func Valid(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(r >= '0' && r <= '9') && r != '_' && r != '-' && r != '/' {
			return false
		}
	}
	return true
}

// Check says why s cannot be a name, nil when it can.
func Check(s string) error {
	switch {
	case Valid(s):
		return nil
	case Valid(strings.ReplaceAll(s, ".", "_")):
		return fmt.Errorf("name %q holds a dot, which separates the keys of a --set or --scale path; use _ or - instead", s)
	}
	return fmt.Errorf("name %q must start with an ASCII letter and use only ASCII letters, digits and _ - /", s)
}
