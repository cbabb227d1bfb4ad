package model_test

import (
	"strings"
	"testing"

	"capsim/model"
)

// BenchmarkMMc runs the M/M/4 model of the speed yardstick: 100,000
// customers per iteration, two model events each. Compare ns/op with the
// hand-written loop on the same model (see README, "Speed").
func BenchmarkMMc(b *testing.B) {
	c := compileEmbedded(b, "mmc", model.LoadOptions{Sets: []string{"journeys.customer.count=100000", "duration=1000000s", "warmup=0s"}})
	runCustomers(b, c)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2e5, "ns/event")
}

// BenchmarkCPU runs 100,000 customers of M/M/4 on a 4-core cpu under each
// discipline; rr slices each job's mean second of work into 10 ms quanta,
// about a hundred events a job.
func BenchmarkCPU(b *testing.B) {
	for _, d := range []string{"ps", "fifo", "rr, quantum: 10ms"} {
		b.Run(strings.TrimSuffix(strings.Fields(d)[0], ","), func(b *testing.B) {
			c := compileSource(b, `name: bench
duration: 1000000s
components:
  cpu: {kind: cpu, cores: 4, discipline: `+d+`}
journeys:
  customer:
    rate: 3.6/s
    count: 100000
    steps: [{use: cpu, work: "exponential(mean=1s)"}]
`)
			runCustomers(b, c)
		})
	}
}

// runCustomers runs c b.N times, with seeds 1, 2, …, each run to complete
// its 100,000 customers.
func runCustomers(b *testing.B, c *model.Compiled) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := mustRun(b, c, model.RunOptions{Seed: uint64(i + 1)})
		if res.Journeys[0].Succeeded != 100000 {
			b.Fatalf("completed %d customers", res.Journeys[0].Succeeded)
		}
	}
}
