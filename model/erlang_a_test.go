package model_test

import (
	"testing"

	"capsim/model"
)

// Erlang A (M/M/c+M): Poisson arrivals at λ, c servers of rate μ, and each
// waiting caller abandons after an exponential patience of rate θ. The
// number in system is a birth-death chain (birth λ, death min(n,c)μ +
// max(0,n−c)θ); its stationary law, solved here numerically far past any
// reachable state, gives P(abandon) = θ·E[queue]/λ and the mean wait of
// every caller E[Wq] = E[queue]/λ (Little's law on the queue).
func erlangA(lambda, mu, theta float64, c int) (pAbandon, meanWait float64) {
	const states = 400
	p := make([]float64, states)
	p[0] = 1
	total := 1.0
	for n := 1; n < states; n++ {
		death := float64(min(n, c))*mu + float64(max(0, n-c))*theta
		p[n] = p[n-1] * lambda / death
		total += p[n]
	}
	queue := 0.0
	for n := c; n < states; n++ {
		queue += float64(n-c) * p[n] / total
	}
	return theta * queue / lambda, queue / lambda
}

// M/M/4+M at λ = 3.6/s, mean service 1 s, mean patience 2 s: a wait_timeout
// drawn per caller from exponential(mean=2s) is that patience.
func TestPatienceMatchesErlangA(t *testing.T) {
	src := scenarioSrc("erlang-a", "20000s", "warmup: 500s\n",
		"  server: {kind: pool, servers: 4, wait_timeout: exponential(mean=2s)}\n", `  customer:
    rate: 3.6/s
    steps: [{use: server, work: exponential(mean=1s)}]
`)
	c := compileSource(t, src)
	pAbandon, wq := erlangA(3.6, 1, 0.5, 4)
	replicate(t, c, 12,
		metric{"P(abandon)", func(r *model.Result) float64 {
			s := component(r, "server")
			return float64(s.TimedOut) / float64(s.Offered)
		}, pAbandon},
		metric{"mean wait of every caller", func(r *model.Result) float64 {
			s := component(r, "server")
			// The wait tally holds those served; abandoned callers waited
			// their patience, which the queue's time average counts.
			return float64(s.MeanQueue) / (float64(s.Offered) / (r.SimTime - 500))
		}, wq},
	)
}

// Two non-preemptive priority classes at an M/M/1 server (Cobham): with
// σ_k the load of classes k and above, class k waits
// W0 / ((1 − σ_{k−1})(1 − σ_k)), W0 = Σ λ_i E[S_i²] / 2. At λ_high = 0.3/s,
// λ_low = 0.5/s and exponential 1 s service, W0 = 0.8 s: the high class
// waits 0.8/0.7 = 1.142857 s and the low 0.8/(0.7·0.2) = 5.714286 s; their
// journeys last that plus the 1 s of service.
func TestPriorityClassesMatchCobham(t *testing.T) {
	src := scenarioSrc("cobham", "200000s", "warmup: 1000s\n",
		"  server: {kind: pool, servers: 1}\n", `  high:
    rate: 0.3/s
    priority: 1
    steps: [{use: server, work: exponential(mean=1s)}]
  low:
    rate: 0.5/s
    steps: [{use: server, work: exponential(mean=1s)}]
`)
	c := compileSource(t, src)
	replicate(t, c, 12,
		metric{"high class sojourn", func(r *model.Result) float64 { return float64(r.Journeys[0].Latency.Mean) }, 0.8/0.7 + 1},
		metric{"low class sojourn", func(r *model.Result) float64 { return float64(r.Journeys[1].Latency.Mean) }, 0.8/(0.7*0.2) + 1},
	)
}
