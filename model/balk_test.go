package model_test

import (
	"strings"
	"testing"

	"capsim/model"
)

// M/M/1 with balking against its birth–death chain [Gross ch. 2, queues
// with discouraged arrivals]: with n in the system an arrival joins with
// probability b_n, so the chain's birth rates are λ_n = λ·b_n and its death
// rate μ, and the stationary distribution is
//
//	π_n ∝ Π_{k<n} λ·b_k/μ.
//
// By PASTA an arrival balks with probability Σ π_n·(1 − b_n), and the mean
// queue is Σ (n−1)·π_n. Here an arrival that finds the server busy sees
// n−1 waiting and balks with 0.2 from 0 waiting, 0.5 from 2 and always
// from 4, so the chain stops at 5; λ = 1.2 would overload the server
// without balking.
var balkSrc = scenarioSrc("balk", "40000s", "warmup: 100s\n", `  server:
    kind: KIND
    balk: {queue: [0, 2, 4], probability: [0.2, 0.5, 1]}
`, `  customer:
    rate: 1.2/s
    steps: [{use: server, work: exponential(mean=1s)}]
`)

func TestBalkingMatchesItsBirthDeathChain(t *testing.T) {
	t.Parallel()
	const lambda, mu = 1.2, 1.0
	balk := func(n int) float64 { // with n in the system
		switch {
		case n == 0:
			return 0
		case n-1 >= 4:
			return 1
		case n-1 >= 2:
			return 0.5
		}
		return 0.2
	}
	var pi []float64
	for n, w := 0, 1.0; w > 0; n++ {
		pi = append(pi, w)
		w *= lambda * (1 - balk(n)) / mu
	}
	var sum, pBalk, lq float64
	for _, w := range pi {
		sum += w
	}
	for n := range pi {
		pi[n] /= sum
		pBalk += pi[n] * balk(n)
		if n > 0 {
			lq += float64(n-1) * pi[n]
		}
	}
	for _, kind := range []string{"pool\n    servers: 1", "semaphore\n    permits: 1"} {
		src := strings.Replace(balkSrc, "KIND", kind, 1)
		c := mustCompileNamed(t, "balk.yaml", src, model.LoadOptions{})
		balked := func(r *model.Result) float64 {
			s := component(r, "server")
			if s.Rejected != 0 || float64(r.Journeys[0].Failed) != float64(s.Balked) {
				t.Fatalf("rejected %d, balked %d, failed journeys %d: every failure should be a balk", s.Rejected, s.Balked, r.Journeys[0].Failed)
			}
			return float64(s.Balked) / float64(s.Offered)
		}
		meanQueue := func(r *model.Result) float64 { return float64(component(r, "server").MeanQueue) }
		replicate(t, c, 20,
			metric{kind[:4] + " P(balk)", balked, pBalk},
			metric{kind[:4] + " mean queue", meanQueue, lq})
	}
}

func TestBadBalkingRulesAreRefused(t *testing.T) {
	for _, c := range []struct{ balk, want string }{
		{"{queue: [0, 2], probability: [0.5]}",
			`r.yaml:4:42: components.server.balk: balk needs queue (the queue lengths seen) and probability (of balking from each on), lists of the same length, e.g. {queue: [1, 5], probability: [0.5, 1]}`},
		{"{queue: [3, 2], probability: [0.5, 1]}",
			`r.yaml:4:50: components.server.balk.queue: queue lengths must be >= 0 and increase, got [3 2]`},
		{"{queue: [1], probability: [1.5]}",
			`r.yaml:4:68: components.server.balk.probability: probability must be between 0 and 1, got 1.5`},
	} {
		src := "name: r\nduration: 1h\ncomponents:\n  server: {kind: pool, servers: 1, balk: " + c.balk + "}\njourneys:\n  j: {rate: 1/s, steps: [{use: server, work: 1s}]}\n"
		if got := compileErrorText("r.yaml", src); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
