package sim_test

import (
	"fmt"

	"capsim/sim"
)

// A single-server queue driven by the kernel directly: two handlers, a
// pool, and named streams. The model package builds the same shape from a
// scenario; this is what it reduces to.
func Example() {
	s := sim.New()
	streams := sim.NewStreams(1)
	arrivals, service := streams.Get("arrivals"), streams.Get("service")
	work, _ := sim.Exponential(1) // mean service 1 s
	var served int

	var depart sim.Kind
	server := sim.NewPool(1, sim.Unbounded, func(id int32) {
		// A waiting customer got the server: its service starts now.
		s.After(sim.Seconds(work.Sample(service)), depart, int64(id))
	})
	depart = s.Handle(func(int64) {
		served++
		server.Release(s.Now())
	})
	var arrive sim.Kind
	next := int32(0)
	arrive = s.Handle(func(int64) {
		next++
		if server.Acquire(s.Now(), next) == sim.Granted {
			s.After(sim.Seconds(work.Sample(service)), depart, int64(next))
		}
		s.After(sim.Seconds(arrivals.ExpFloat64()/0.8), arrive, 0) // λ = 0.8/s
	})
	s.At(0, arrive, 0)
	s.RunUntil(100000 * sim.Second)

	fmt.Printf("served %d customers, utilisation %.2f, mean wait %.1f s (theory 4.0)\n",
		served, server.Busy.Mean(s.Now()), server.Wait.Mean())
	// Output:
	// served 80089 customers, utilisation 0.80, mean wait 4.1 s (theory 4.0)
}
