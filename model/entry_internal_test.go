package model

import "testing"

// A journey of one use: step enters its frame at the scope's body, one
// scope skipped; an optional scope is never skipped, since a failure
// inside it must unwind to its own frame.
func TestBlockEntrySkipsOnlyPlainScopes(t *testing.T) {
	src := `name: entry
duration: 10s
components:
  server: {kind: pool, servers: 1}
journeys:
  plain:
    rate: 1/s
    steps:
      - use: server
        work: constant(1s)
  guarded:
    rate: 1/s
    steps:
      - use: server
        work: constant(1s)
        optional: true
`
	l, err := LoadBytes(nil, "entry.yaml", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Compile()
	if err != nil {
		t.Fatal(err)
	}
	p := c.prog
	plain, guarded := &p.blocks[p.journeys[0].body], &p.blocks[p.journeys[1].body]
	if want := p.blocks[p.journeys[0].body].ops[0].body; plain.entry != want || plain.entryTails != 1 {
		t.Errorf("plain journey: entry %d with %d tails, want %d with 1", plain.entry, plain.entryTails, want)
	}
	if guarded.entry != p.journeys[1].body || guarded.entryTails != 0 {
		t.Errorf("optional step: entry %d with %d tails, want its own block %d with 0", guarded.entry, guarded.entryTails, p.journeys[1].body)
	}
}
