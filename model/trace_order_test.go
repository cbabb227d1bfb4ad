package model_test

import (
	"testing"

	"capsim/model"
)

// A release that hands its server to a waiter at once is traced before
// the waiter's start: in_flight never reads more than the pool holds (it
// read 5 on a 4-server pool for most starts of an M/M/4).
func TestTracedInFlightNeverPassesTheServers(t *testing.T) {
	src := scenarioSrc("m", "500s", "", "  server: {kind: pool, servers: 4}\n", `  customer:
    rate: 3.6/s
    steps: [{use: server, work: exponential(mean=1s)}]
`)
	_, events := runYAML(t, src, model.RunOptions{Seed: 1})
	starts, over := 0, 0
	for _, e := range events {
		if e.Event == model.EvStart && e.Component == "server" {
			starts++
			if e.InFlight > 4 {
				over++
			}
		}
	}
	if starts < 1000 || over > 0 {
		t.Errorf("%d starts at the pool, %d of them with in_flight above its 4 servers", starts, over)
	}
}
