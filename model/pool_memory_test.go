package model_test

import (
	"testing"
)

// A pool's servers must fit its memory: 200 threads of 1 MB need 200 MB.
func TestPoolMemoryMustFit(t *testing.T) {
	for _, c := range []struct{ name, pool, want string }{
		{"fits exactly", `{kind: pool, servers: 128, memory_per_server_mb: 2, memory_limit_mb: 256}`, ""},
		{"fits with decimal sizes", `{kind: pool, servers: 3, memory_per_server_mb: 0.1, memory_limit_mb: 0.3}`, ""},
		{"one too many", `{kind: pool, servers: 129, memory_per_server_mb: 2, memory_limit_mb: 256}`,
			`s.yaml:4:30: components.app.servers: 129 servers × 2 MB = 258 MB do not fit memory_limit_mb 256 MB (at most 128 servers fit)`},
		{"limit alone", `{kind: pool, servers: 8, memory_limit_mb: 256}`,
			`s.yaml:4:50: components.app.memory_limit_mb: memory_limit_mb needs memory_per_server_mb (what one server takes)`},
		{"size alone", `{kind: pool, servers: 8, memory_per_server_mb: 1}`,
			`s.yaml:4:55: components.app.memory_per_server_mb: memory_per_server_mb needs memory_limit_mb (what the servers may take)`},
		{"zero size", `{kind: pool, servers: 8, memory_per_server_mb: 0, memory_limit_mb: 256}`,
			`s.yaml:4:55: components.app.memory_per_server_mb: memory_per_server_mb must be > 0, got 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := `name: s
duration: 1s
components:
  app: ` + c.pool + `
journeys:
  j: {rate: 1/s, steps: [{use: app, work: 1s}]}
`
			if got := compileErrorText("s.yaml", src); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
