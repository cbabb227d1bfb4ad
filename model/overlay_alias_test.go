package model

import (
	"os"
	"testing"
)

// app is written as an alias of db. A design, or a --set, that changes db
// changes db alone, and one that changes app leaves db as written.
func TestOverlayDoesNotWriteThroughAliases(t *testing.T) {
	data, err := os.ReadFile("../cmd/capsim/testdata/hostile/alias_overlay.yaml")
	if err != nil {
		t.Fatal(err)
	}
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
