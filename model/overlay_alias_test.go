package model

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// app is written as an alias of db. A design, or a --set, that changes db
// changes db alone, and one that changes app leaves db as written.
func TestOverlayDoesNotWriteThroughAliases(t *testing.T) {
	data := mustReadFile(t, "../cmd/capsim/testdata/hostile/alias_overlay.yaml")
	servers := func(opts LoadOptions) (db, app int) {
		t.Helper()
		l, err := LoadBytes(nil, "s.yaml", data, opts)
		if err != nil {
			t.Fatal(err)
		}
		get := func(name string) int {
			c, ok := l.Scenario.Components.Get(name)
			if !ok {
				t.Fatalf("no component %s", name)
			}
			return *c.Spec.(*PoolSpec).Servers
		}
		return get("db"), get("app")
	}
	for _, tc := range []struct {
		opts    LoadOptions
		db, app int
	}{
		{LoadOptions{}, 4, 4},
		{LoadOptions{Design: "small-db"}, 1, 4},
		{LoadOptions{Sets: []string{"components.db.servers=2"}}, 2, 4},
		{LoadOptions{Sets: []string{"components.app.servers=3"}}, 4, 3},
		{LoadOptions{Design: "small-db", Sets: []string{"components.app.servers=7"}}, 1, 7},
	} {
		if db, app := servers(tc.opts); db != tc.db || app != tc.app {
			t.Errorf("%+v: db %d, app %d servers; want %d, %d", tc.opts, db, app, tc.db, tc.app)
		}
	}
}

// Ranges are taken out of the tree before the decoder counts its values,
// so that walk must not follow aliases into every place they repeat: 20
// levels of nine aliases each stand for 9^20 steps, which a walk along
// every path would take millennia over. The decoder's budget then refuses
// the scenario, at once.
func TestAnAliasBombWithARangeIsRefusedAtOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: bomb\nduration: 1h\ncomponents:\n  app: {kind: pool, servers: {range: [1, 3]}}\nfigures:\n")
	b.WriteString("  x0: &a0 {use: app, work: {range: [1s, 2s]}}\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "  x%d: &a%d {repeat: 1, steps: [%s]}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", "))
	}
	b.WriteString("journeys:\n  j:\n    rate: 1/h\n    steps: [*a20]\n")
	_, err := Load(fstest.MapFS{"bomb.yaml": {Data: []byte(b.String())}}, "bomb.yaml", LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "the scenario expands to more than 1000000 values (aliases repeating aliases?)") {
		t.Fatalf("err %v, want the expansion refused", err)
	}
}
