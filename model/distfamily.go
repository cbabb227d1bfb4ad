package model

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A named distribution may give its family and its parameters as keys
// instead of one literal:
//
//	derivative_heic_photo:
//	  family: lognormal
//	  mean: {range: [5s, 7s]}   # assumption: the report gives 6 s
//	  cv: 0.3
//
// reads as lognormal(mean=6s, cv=0.3), the keys in the order written. Each
// parameter is then a value of the scenario like any other: a range or a
// triangular in its place is an uncertain value that sweep --uncertainty
// draws and sensitivity moves to its ends, --set reaches it at
// distributions.NAME.PARAM, and its own comment labels it.

// familyKey names the family in that form; every other key but source is
// a parameter.
const familyKey = "family"

// familyOnly are the keys of the form that are not parameters.
var familyOnly = map[string]bool{familyKey: true, "source": true}

func isFamilyForm(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	_, ok := lookup(n, familyKey)
	return ok
}

// familyParams returns the parameter keys of a family-form entry and their
// values, in the order written.
func familyParams(n *yaml.Node) (keys, values []*yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !familyOnly[n.Content[i].Value] {
			keys, values = append(keys, n.Content[i]), append(values, resolve(n.Content[i+1]))
		}
	}
	return keys, values
}

// familyText writes a family-form entry as the literal it stands for, or
// says which node is wrong and why.
func familyText(n *yaml.Node) (text string, at *yaml.Node, msg string) {
	fam := entry(n, familyKey)
	if fam.Kind != yaml.ScalarNode {
		return "", fam, fmt.Sprintf("expected a family such as lognormal, got %s", describe(fam))
	}
	if formsOf(fam.Value) == nil {
		return "", fam, unknownFamily(fam.Value).Error()
	}
	keys, values := familyParams(n)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := values[i]
		switch {
		case k.Value == "uncertainty":
			return "", k, "a fit's uncertainty: goes with its dist: literal; in this form give a parameter a range instead"
		case v.Kind != yaml.ScalarNode:
			return "", v, fmt.Sprintf("expected the parameter's value, such as 2s or 0.3, or a range, got %s", describe(v))
		case strings.ContainsAny(v.Value, ",()=") || strings.TrimSpace(v.Value) == "":
			return "", v, fmt.Sprintf("expected one value, such as 2s or 0.3, got %q", v.Value)
		}
		parts[i] = k.Value + "=" + strings.TrimSpace(v.Value)
	}
	return fam.Value + "(" + strings.Join(parts, ", ") + ")", nil, ""
}

// pathOfKey is ".key" for the key of n whose key or value is at, "" when
// at is n itself.
func pathOfKey(n, at *yaml.Node) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i] == at || resolve(n.Content[i+1]) == at {
			return "." + n.Content[i].Value
		}
	}
	return ""
}
