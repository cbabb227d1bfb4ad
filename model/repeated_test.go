package model_test

import (
	"testing"
)

// Anchors, aliases, merges and overlays are not repeats: only a key written
// twice in one mapping is. An anchored mapping with a repeat is reported
// once, where it is written, however often an alias reuses it.
func TestOnlyKeysWrittenTwiceInOneMappingRepeat(t *testing.T) {
	const head = "name: r\nduration: 1h\n"
	for _, c := range []struct{ name, src, want string }{
		{"alias reused", head + `components:
  app: &pool {kind: pool, servers: 2}
  db: *pool
journeys:
  visit:
    rate: 1/h
    steps: [&step {use: app, work: 1s}, *step, *step]
`, ""},
		{"design overriding the base", head + `components:
  app: {kind: pool, servers: 2}
journeys:
  visit: {rate: 1/h, steps: [{use: app, work: 1s}]}
designs:
  bigger: {components: {app: {servers: 4}}}
`, ""},
		{"repeat in an anchored mapping", head + `components:
  app: &pool {kind: pool, servers: 2, servers: 3}
  db: *pool
  cache: *pool
journeys:
  visit: {rate: 1/h, steps: [{use: app, work: 1s}]}
`, `s.yaml:4:39: components.app.servers: key "servers" repeated (first at line 4, column 27)`},
		// A key set beside a merge is YAML's override, not a repeat; the
		// merge itself is refused as a key the schema does not have.
		{"merge overridden", head + `components:
  app: &pool {kind: pool, servers: 2}
  db:
    <<: *pool
    servers: 3
journeys:
  visit: {rate: 1/h, steps: [{use: app, work: 1s}]}
`, `s.yaml:6:5: components.db.<<: unknown key "<<" (a component takes kind, description, status, behind, source and the keys of its kind)`},
		{"merge written twice", head + `components:
  app: &pool {kind: pool, servers: 2}
  db:
    <<: *pool
    <<: *pool
journeys:
  visit: {rate: 1/h, steps: [{use: app, work: 1s}]}
`, `s.yaml:7:5: components.db.<<: key "<<" repeated (first at line 6, column 5)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := compileErrorText("s.yaml", c.src); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
