// Package theory gives closed-form steady-state results for classic queueing
// systems. The kernel's resources are tested against them: a long simulated
// run of an M/M/c pool must reproduce Erlang's formulas within its confidence
// interval.
//
// Rates are per unit time and times come out in the same unit: with λ and μ
// per second, W is in seconds.
//
// References:
//
//   - [Kleinrock] L. Kleinrock, Queueing Systems, Volume 1: Theory, Wiley, 1975.
//   - [Gross] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris,
//     Fundamentals of Queueing Theory, 4th ed., Wiley, 2008.
//   - [BCMP] F. Baskett, K. M. Chandy, R. R. Muntz, F. G. Palacios, Open,
//     closed and mixed networks of queues with different classes of
//     customers, J. ACM 22(2), 1975.
//   - [Gunther] N. J. Gunther, Guerrilla Capacity Planning, Springer, 2007
//     (the Universal Scalability Law).
package theory

import (
	"errors"
	"fmt"
	"math"
)

// Queue holds the steady-state measures of a queueing system.
type Queue struct {
	// Rho is the utilisation of each server: the fraction of time it is busy,
	// equal to Throughput/(c·μ). For the infinite-capacity systems it is the
	// offered load λ/(c·μ); for M/M/c/K it is the carried load, which stays
	// below 1 however heavy the offered load.
	Rho float64
	// PWait is the probability that an admitted arrival waits before its
	// service starts.
	PWait float64
	// Wq is the mean wait before service and W the mean time in the system
	// (wait plus service), both over admitted arrivals.
	Wq, W float64
	// Lq is the time-average number waiting and L the number in the system.
	Lq, L float64
	// PBlock is the probability that an arrival finds the system full and is
	// turned away; 0 for infinite capacity.
	PBlock float64
	// Throughput is the rate of admitted arrivals, λ·(1−PBlock).
	Throughput float64
	// Stations holds the measures of each station of a Tandem, in order;
	// nil otherwise.
	Stations []Queue
}

// ErlangB returns the probability that an arrival to an M/M/c/c loss system
// (c servers, no waiting room) finds every server busy and is lost, for an
// offered load A = λ/μ in Erlangs:
//
//	B(c, A) = (A^c/c!) / Σ_{k=0..c} A^k/k!
//
// It is computed with the recursion B(0, A) = 1,
// B(k, A) = A·B(k−1, A) / (k + A·B(k−1, A)), which involves no factorial or
// power and so neither overflows nor loses precision for thousands of servers
// [Kleinrock ch. 3, M/M/m/m; Gross ch. 2, Erlang's loss formula]. The result
// holds for any service-time distribution with mean 1/μ (Erlang's loss
// formula is insensitive to its shape).
//
// ErlangB returns NaN when servers < 0 or offered is negative, NaN or
// infinite.
func ErlangB(servers int, offered float64) float64 {
	if servers < 0 || !(offered >= 0) || math.IsInf(offered, 1) {
		return math.NaN()
	}
	b := 1.0
	for k := 1; k <= servers; k++ {
		b = offered * b / (float64(k) + offered*b)
	}
	return b
}

// ErlangC returns the probability that an arrival to an M/M/c queue has to
// wait, for an offered load A = λ/μ < c:
//
//	C(c, A) = c·B(c, A) / (c − A·(1 − B(c, A)))
//
// with B Erlang's loss formula, which is equivalent to the textbook
// expression (A^c/c!)·(c/(c−A)) / (Σ_{k<c} A^k/k! + (A^c/c!)·(c/(c−A)))
// [Kleinrock ch. 3, M/M/m, Erlang's C formula; Gross ch. 2, M/M/c] but
// inherits the stability of the Erlang B recursion.
//
// For A >= c the queue is unstable and every arrival eventually waits:
// ErlangC returns 1. It returns NaN when servers < 1 or offered is negative,
// NaN or infinite.
func ErlangC(servers int, offered float64) float64 {
	if servers < 1 || !(offered >= 0) || math.IsInf(offered, 1) {
		return math.NaN()
	}
	c := float64(servers)
	if offered >= c {
		return 1
	}
	b := ErlangB(servers, offered)
	return c * b / (c - offered*(1-b))
}

// MMc returns the steady state of the M/M/c queue: Poisson arrivals at rate
// λ, c servers with exponential service at rate μ each, unlimited waiting
// room, first come first served [Kleinrock ch. 3, M/M/m; Gross ch. 2, M/M/c]:
//
//	ρ = λ/(cμ),  PWait = C(c, λ/μ),  Wq = C/(cμ − λ),  W = Wq + 1/μ,
//	Lq = λ·Wq,   L = λ·W   (Little's law)
//
// It returns an error unless ρ < 1.
func MMc(lambda, mu float64, c int) (Queue, error) {
	if err := checkRates("mmc", lambda, mu, c); err != nil {
		return Queue{}, err
	}
	cf := float64(c)
	rho := lambda / (cf * mu)
	if !(rho < 1) {
		return Queue{}, fmt.Errorf("mmc: unstable: rho = lambda/(c·mu) = %g, must be < 1", rho)
	}
	pWait := ErlangC(c, lambda/mu)
	return unblocked(lambda, rho, pWait, pWait/(cf*mu-lambda), 1/mu), nil
}

// unblocked is the steady state of a queue that admits every arrival, at
// rate lambda, from its utilisation, probability of waiting, mean wait wq
// and mean service: the time in the system is wait plus service, and
// Little's law gives the numbers waiting and present.
func unblocked(lambda, rho, pWait, wq, service float64) Queue {
	w := wq + service
	return Queue{
		Rho:        rho,
		PWait:      pWait,
		Wq:         wq,
		W:          w,
		Lq:         lambda * wq,
		L:          lambda * w,
		Throughput: lambda,
	}
}

// mmcKRescale bounds the unnormalised state probabilities in MMcK; they grow
// like (λ/μ)^n/c! and would overflow for large loads and capacities.
const mmcKRescale = 1e250

// MMcK returns the steady state of the M/M/c/K queue: as M/M/c, but with
// room for at most K customers in the system (c in service, K−c waiting);
// an arrival that finds K present is lost. With A = λ/μ the state
// probabilities are [Kleinrock ch. 3, M/M/1/K and M/M/m/m; Gross ch. 2,
// M/M/c/K]
//
//	p_n = p_0·A^n/n!               for 0 <= n <= c
//	p_n = p_0·A^n/(c!·c^(n−c))     for c < n <= K
//
// from which PBlock = p_K, Throughput = λ(1 − p_K), L = Σ n·p_n,
// Lq = Σ (n−c)·p_n over n > c, and by Little's law over admitted customers
// W = L/Throughput and Wq = Lq/Throughput. PWait = Σ_{c<=n<K} p_n / (1 − p_K)
// is the probability that an admitted arrival waits (PASTA). The terms are
// built by the recursion p_n = p_{n−1}·A/min(n, c) and rescaled when large,
// so there are no factorials to overflow.
//
// No stability condition applies: the finite room keeps the queue stable at
// any load. K = c is Erlang's loss system, where PBlock = ErlangB(c, A).
func MMcK(lambda, mu float64, c, k int) (Queue, error) {
	if err := checkRates("mmck", lambda, mu, c); err != nil {
		return Queue{}, err
	}
	if k < c {
		return Queue{}, fmt.Errorf("mmck: capacity k must be >= servers c, got c=%d, k=%d", c, k)
	}
	offered := lambda / mu
	var (
		term     = 1.0 // unnormalised p_n
		admitted = 1.0 // Σ p_n over n < K, starting with n = 0 since K >= 1
		inSystem = 0.0 // Σ n·p_n
		waiting  = 0.0 // Σ (n−c)·p_n over n > c
		waitMass = 0.0 // Σ p_n over c <= n < K
	)
	for n := 1; n <= k; n++ {
		term *= offered / float64(min(n, c))
		inSystem += float64(n) * term
		if n > c {
			waiting += float64(n-c) * term
		}
		if n < k {
			admitted += term
			if n >= c {
				waitMass += term
			}
		}
		if admitted+term > mmcKRescale {
			term /= mmcKRescale
			admitted /= mmcKRescale
			inSystem /= mmcKRescale
			waiting /= mmcKRescale
			waitMass /= mmcKRescale
		}
	}
	total := admitted + term
	throughput := lambda * admitted / total
	l := inSystem / total
	lq := waiting / total
	return Queue{
		Rho:        throughput / (float64(c) * mu),
		PWait:      waitMass / admitted,
		Wq:         lq / throughput,
		W:          l / throughput,
		Lq:         lq,
		L:          l,
		PBlock:     term / total,
		Throughput: throughput,
	}, nil
}

// MG1 returns the steady state of the M/G/1 queue: Poisson arrivals at rate
// λ, one server whose service times are independent with mean S and
// coefficient of variation cv (so E[S²] = S²(1 + cv²)), first come first
// served. The Pollaczek–Khinchine mean-value formula [Kleinrock ch. 5, the
// mean queue length; Gross, M/G/1 in General Arrival or Service Patterns]
// gives
//
//	ρ = λS,  Wq = λE[S²]/(2(1 − ρ)) = ρ·S·(1 + cv²)/(2(1 − ρ)),  W = Wq + S,
//	Lq = λ·Wq,  L = λ·W,  PWait = ρ (an arrival waits iff the server is busy)
//
// cv = 0 is M/D/1 and cv = 1 gives back M/M/1. It returns an error unless
// ρ < 1.
func MG1(lambda, meanService, cvService float64) (Queue, error) {
	if err := checkPositive("mg1", "lambda", lambda); err != nil {
		return Queue{}, err
	}
	if err := checkPositive("mg1", "meanService", meanService); err != nil {
		return Queue{}, err
	}
	if math.IsNaN(cvService) || math.IsInf(cvService, 0) || cvService < 0 {
		return Queue{}, fmt.Errorf("mg1: cvService must be finite and >= 0, got %g", cvService)
	}
	rho := lambda * meanService
	if !(rho < 1) {
		return Queue{}, fmt.Errorf("mg1: unstable: rho = lambda·meanService = %g, must be < 1", rho)
	}
	wq := rho * meanService * (1 + cvService*cvService) / (2 * (1 - rho))
	return unblocked(lambda, rho, rho, wq, meanService), nil
}

// Tandem returns the steady state of M/M/1 stations in series, each with its
// own exponential server, fed by Poisson arrivals at rate λ. By Burke's
// theorem the departures of a stable M/M/1 queue are again Poisson at rate λ,
// so each station behaves as an isolated M/M/1 (Jackson's product form)
// [Kleinrock ch. 4, networks of Markovian queues; Gross, series queues in
// Networks, Series, and Cyclic Queues]:
//
//	W = Σ 1/(μ_i − λ),  Wq = Σ ρ_i/(μ_i − λ),  L = Σ ρ_i/(1 − ρ_i),  Lq = λ·Wq
//
// Rho is the utilisation of the busiest station, the bottleneck. PWait is
// NaN: the waits of one customer at successive stations are not independent,
// so no product formula gives the chance that it waits somewhere. Stations
// holds each station's own M/M/1 measures. It returns an error unless every
// station has ρ_i = λ/μ_i < 1.
func Tandem(lambda float64, mus ...float64) (Queue, error) {
	if len(mus) == 0 {
		return Queue{}, errors.New("tandem: need at least one station")
	}
	total := Queue{PWait: math.NaN(), Throughput: lambda, Stations: make([]Queue, len(mus))}
	for i, mu := range mus {
		station, err := MMc(lambda, mu, 1)
		if err != nil {
			return Queue{}, fmt.Errorf("tandem: station %d: %w", i+1, err)
		}
		total.Stations[i] = station
		total.Rho = max(total.Rho, station.Rho)
		total.Wq += station.Wq
		total.W += station.W
		total.Lq += station.Lq
		total.L += station.L
	}
	return total, nil
}

// SwitchedPS returns X(n), the cores' worth of useful work n jobs receive
// on a processor-sharing server of cores cores that loses a share sigma of
// its throughput to each job beyond the cores (context switches and the
// cache misses after them):
//
//	X(n) = min(n, c) / (1 + σ·max(0, n − max(c, 1)))
//
// the contention term of the Universal Scalability Law applied to the
// runnable jobs in excess of the cores [Gunther ch. 4]. A lone job on a
// fractional core is throttled, not switched, hence max(c, 1).
func SwitchedPS(cores, sigma float64, n int) float64 {
	x := min(float64(n), cores)
	if e := float64(n) - max(cores, 1); e > 0 {
		x /= 1 + sigma*e
	}
	return x
}

// ClosedPS returns the steady state of a closed loop: clients users each
// thinking for a mean think, then sending one job of mean work seconds to
// a processor-sharing server whose useful throughput with n jobs is
// SwitchedPS(cores, sigma, n). The network of an infinite-server station
// (the think) and a processor-sharing station with a load-dependent rate
// has product form, insensitive to both distributions beyond their means
// [BCMP]; the population at the server is then the birth-death chain
//
//	π(n) ∝ Z^(N−n)/(N−n)! · S^n / Π_{k=1..n} X(k)
//
// with Z = think, S = work and N = clients (Z = 0: all N are always at
// the server). Throughput is Σ π(n)·X(n)/S, L = Σ n·π(n), W = L/Throughput
// (Little), Lq = Σ max(0, n−c)·π(n) the jobs beyond the cores, and Rho the
// busy share of the cores Σ min(n, c)·π(n)/c, as a dashboard shows it. Wq
// and PWait are NaN: nobody waits, the work slows.
func ClosedPS(clients int, think, work, cores, sigma float64) (Queue, error) {
	switch {
	case clients < 1:
		return Queue{}, fmt.Errorf("closed PS: clients must be >= 1, got %d", clients)
	case math.IsNaN(think) || math.IsInf(think, 0) || think < 0:
		return Queue{}, fmt.Errorf("closed PS: think must be finite and >= 0, got %g", think)
	case math.IsNaN(sigma) || math.IsInf(sigma, 0) || sigma < 0:
		return Queue{}, fmt.Errorf("closed PS: sigma must be finite and >= 0, got %g", sigma)
	}
	if err := checkPositive("closed PS", "work", work); err != nil {
		return Queue{}, err
	}
	if err := checkPositive("closed PS", "cores", cores); err != nil {
		return Queue{}, err
	}
	// Weights in log space: Z^N/N! overflows for a few hundred clients.
	logw := make([]float64, clients+1)
	top := math.Inf(-1)
	sumLogX := 0.0
	for n := 0; n <= clients; n++ {
		if n > 0 {
			sumLogX += math.Log(SwitchedPS(cores, sigma, n))
		}
		k := float64(clients - n)
		lg, _ := math.Lgamma(k + 1)
		switch {
		case think > 0:
			logw[n] = k*math.Log(think) - lg + float64(n)*math.Log(work) - sumLogX
		case n == clients:
			logw[n] = 0 // no think: the only state is every client at the server
		default:
			logw[n] = math.Inf(-1)
		}
		top = max(top, logw[n])
	}
	var sum, x, l, lq, busy float64
	for n := 0; n <= clients; n++ {
		p := math.Exp(logw[n] - top)
		sum += p
		x += p * SwitchedPS(cores, sigma, n)
		l += p * float64(n)
		lq += p * max(0, float64(n)-cores)
		busy += p * min(float64(n), cores)
	}
	q := Queue{PWait: math.NaN(), Wq: math.NaN(), L: l / sum, Lq: lq / sum, Rho: busy / sum / cores,
		Throughput: x / sum / work}
	q.W = q.L / q.Throughput
	return q, nil
}

func checkRates(model string, lambda, mu float64, c int) error {
	if err := checkPositive(model, "lambda", lambda); err != nil {
		return err
	}
	if err := checkPositive(model, "mu", mu); err != nil {
		return err
	}
	if c < 1 {
		return fmt.Errorf("%s: servers c must be >= 1, got %d", model, c)
	}
	return nil
}

func checkPositive(model, name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || !(v > 0) {
		return fmt.Errorf("%s: %s must be finite and > 0, got %g", model, name, v)
	}
	return nil
}
