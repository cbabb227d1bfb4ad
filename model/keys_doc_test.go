package model

import (
	"strings"
	"testing"

	"capsim/cmd/golden"
)

// TestKeyReferenceIsCurrent keeps docs/keys.md the table NumericKeys
// reads from the schema's tags: a key added, or a bound changed, changes
// the page.
func TestKeyReferenceIsCurrent(t *testing.T) {
	var b strings.Builder
	b.WriteString(`# Numeric keys

Every key of the scenario language that holds a number, with the range the loader allows. A
value outside it is refused where it is written, with the file, line and column. The table is
generated from the schema (` + "`go test ./model -run TestKeyReferenceIsCurrent -update`" + `), and
a test moves every key to its ends, one past them, and to NaN, ±Inf, 0, -1, 2^31+3, 2^63,
1e308 and 1e-308: each is refused with a positioned message or runs.

Beyond each row's range, the bounds every value of a kind shares: a time is at most 100 years
(and a positive time at least 1ns, the clock's resolution), a rate at most 10⁹/s, a count at
most 2147483647, and what a scenario's numbers size must fit the memory budget of 1 GB per run
(see [the language's bounds](language.md#bounds-on-what-a-scenario-may-say)). A check of a
value's context (a pool's ` + "`admit`" + ` at least its servers, a stop after the start) may
refuse a value inside its row's range. The commands' numeric flags are walked the same way, each
at the values no flag can mean (a refusal names the flag and exits 2; see docs/cli.md for each).

` + "`<name>`" + ` is a name the author chooses, ` + "`<pool>`" + ` a component of that kind,
` + "`[]`" + ` any item of a list. Under "0 means", – is an ordinary 0 (no time, no
weight, the lowest class).

| key | written as | allowed | 0 means |
|---|---|---|---|
`)
	for _, k := range NumericKeys {
		zero := k.Zero
		if zero == "" && k.Bound.Contains(0) {
			zero = "–"
		}
		if !k.Bound.Contains(0) {
			zero = "refused"
		}
		b.WriteString("| `" + k.Path + "` | " + string(k.Type) + " | " + k.Bound.Words(k.Value) + " | " + zero + " |\n")
	}
	golden.Check(t, "../docs/keys.md", []byte(b.String()))
}
