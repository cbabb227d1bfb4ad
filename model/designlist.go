package model

import (
	"fmt"
	"slices"
	"strings"
)

// BaseDesign names the scenario without any design overlay; no design may
// take the name.
const BaseDesign = "base"

// ChooseDesigns turns "all" or "a,b" into design names, in the order given
// ("all": the scenario's order, or the base when it defines none).
func ChooseDesigns(spec string, available []string) ([]string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "all" {
		if len(available) == 0 {
			return []string{BaseDesign}, nil
		}
		return available, nil
	}
	known := append([]string{BaseDesign}, available...)
	var names []string
	for _, n := range strings.Split(spec, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("expected design names separated by commas, or all, got %q", spec)
		case strings.Contains(n, "+"):
			// A composed design, as run --design a+b takes it: each part
			// one of the scenario's designs, applied left to right.
			for _, part := range strings.Split(n, "+") {
				if !slices.Contains(available, part) {
					return nil, fmt.Errorf("unknown design %q in %q%s (available to compose: %s)", part, n, DidYouMean(part, available), strings.Join(available, ", "))
				}
			}
		case !slices.Contains(known, n):
			return nil, fmt.Errorf("unknown design %q%s (available: %s)", n, DidYouMean(n, known), strings.Join(known, ", "))
		}
		if slices.Contains(names, n) {
			return nil, fmt.Errorf("design %q is listed twice", n)
		}
		names = append(names, n)
	}
	return names, nil
}
