// Package sim is a deterministic discrete-event kernel: a virtual clock, an
// event queue ordered by (time, sequence number), cancellable timers, named
// random streams, probability distributions, resource primitives and the
// statistics they keep.
//
// A run is a pure function of its inputs and master seed. The kernel runs on
// one goroutine, reads no wall clock, does no I/O, never iterates a map where
// order could leak into a decision, and draws randomness only from the named
// streams it hands out. It knows nothing of scenarios, YAML, HTTP or files:
// the entities it schedules are opaque integers and the meaning of an event is
// the business of the handler that registered it.
package sim
