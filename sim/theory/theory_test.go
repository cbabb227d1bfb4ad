package theory

import (
	"math"
	"strings"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

// Published figures are quoted to six decimals, so they are checked to half
// a unit in the last place; identities between formulas are checked to a
// few ulps of accumulated rounding.
const (
	publishedTol = 5e-7
	identityTol  = 1e-12
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g (tolerance %g)", name, got, want, tol)
	}
}

func TestErlangBPublished(t *testing.T) {
	near(t, "ErlangB(10, 5)", ErlangB(10, 5), 0.018385, publishedTol)
	// Exact: (1/2)/(1 + 1 + 1/2).
	near(t, "ErlangB(2, 1)", ErlangB(2, 1), 0.2, identityTol)
	near(t, "ErlangB(0, 3)", ErlangB(0, 3), 1, 0)
	near(t, "ErlangB(5, 0)", ErlangB(5, 0), 0, 0)
}

// Large systems would overflow A^c/c! in the textbook form; the recursion
// must agree with the same sum evaluated in log space.
func TestErlangBLargeSystemsAgainstLogSpaceSum(t *testing.T) {
	for _, tc := range []struct {
		c int
		a float64
	}{{200, 180}, {1000, 1000}, {5000, 4800}, {3000, 3500}} {
		logTerm := func(k int) float64 {
			lg, _ := math.Lgamma(float64(k) + 1)
			return float64(k)*math.Log(tc.a) - lg
		}
		top := logTerm(tc.c)
		var sum float64
		for k := 0; k <= tc.c; k++ {
			sum += math.Exp(logTerm(k) - top)
		}
		want := 1 / sum
		got := ErlangB(tc.c, tc.a)
		// Thousands of additions and Lgamma's own error leave ~1e-12
		// relative disagreement; anything near overflow would be off by far more.
		if math.Abs(got-want) > 1e-10*want {
			t.Errorf("ErlangB(%d, %g) = %.15g, want %.15g", tc.c, tc.a, got, want)
		}
	}
}

func TestErlangCPublished(t *testing.T) {
	near(t, "ErlangC(4, 3.6)", ErlangC(4, 3.6), 0.787753, publishedTol)
	// Exact for M/M/2 at A = 1: C = (1/2·2)/(1 + 1 + 1) = 1/3.
	near(t, "ErlangC(2, 1)", ErlangC(2, 1), 1.0/3, identityTol)
	// M/M/1: the probability of waiting is the utilisation.
	near(t, "ErlangC(1, 0.7)", ErlangC(1, 0.7), 0.7, identityTol)
	near(t, "ErlangC(3, 3)", ErlangC(3, 3), 1, 0)
	near(t, "ErlangC(3, 5)", ErlangC(3, 5), 1, 0)
}

func TestErlangCMatchesTextbookForm(t *testing.T) {
	for c := 1; c <= 12; c++ {
		for _, load := range []float64{0.1, 0.5, 0.9, 0.99} {
			a := load * float64(c)
			term := 1.0
			var below float64
			for k := 0; k < c; k++ {
				below += term
				term *= a / float64(k+1)
			}
			tail := term * float64(c) / (float64(c) - a)
			near(t, "ErlangC", ErlangC(c, a), tail/(below+tail), identityTol)
		}
	}
}

func TestErlangInvalidInputs(t *testing.T) {
	for _, v := range []float64{
		ErlangB(-1, 1), ErlangB(2, -1), ErlangB(2, math.NaN()), ErlangB(2, math.Inf(1)),
		ErlangC(0, 1), ErlangC(2, -1), ErlangC(2, math.NaN()), ErlangC(2, math.Inf(1)),
	} {
		if !math.IsNaN(v) {
			t.Errorf("got %g, want NaN", v)
		}
	}
}

func TestMMcPublished(t *testing.T) {
	q, err := MMc(3.6, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Rho", q.Rho, 0.9, identityTol)
	near(t, "PWait", q.PWait, 0.787753, publishedTol)
	near(t, "Wq", q.Wq, 1.969383, publishedTol)
	near(t, "W", q.W, 1.969383+1, publishedTol)
	near(t, "Lq", q.Lq, 3.6*1.969383, publishedTol)
	near(t, "L", q.L, 3.6*2.969383, publishedTol)
	near(t, "Throughput", q.Throughput, 3.6, 0)
	near(t, "PBlock", q.PBlock, 0, 0)
}

func TestMM1ClosedForm(t *testing.T) {
	const mu, rho = 2.0, 0.8
	q, err := MMc(rho*mu, mu, 1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Wq", q.Wq, 4/mu, identityTol)
	near(t, "W", q.W, 1/(mu-rho*mu), identityTol)
	near(t, "L", q.L, rho/(1-rho), identityTol)
	near(t, "Lq", q.Lq, rho*rho/(1-rho), identityTol)
	near(t, "PWait", q.PWait, rho, identityTol)
}

func TestMMcUnstable(t *testing.T) {
	_, err := MMc(4, 1, 4)
	if err == nil || err.Error() != "mmc: unstable: rho = lambda/(c·mu) = 1, must be < 1" {
		t.Errorf("MMc(4, 1, 4) error = %v", err)
	}
	_, err = MMc(1, 0, 1)
	if err == nil || err.Error() != "mmc: mu must be finite and > 0, got 0" {
		t.Errorf("MMc(1, 0, 1) error = %v", err)
	}
	_, err = MMc(math.NaN(), 1, 1)
	if err == nil || err.Error() != "mmc: lambda must be finite and > 0, got NaN" {
		t.Errorf("MMc(NaN, 1, 1) error = %v", err)
	}
	_, err = MMc(1, 2, 0)
	if err == nil || err.Error() != "mmc: servers c must be >= 1, got 0" {
		t.Errorf("MMc(1, 2, 0) error = %v", err)
	}
}

func TestMMcKWithoutWaitingRoomIsErlangB(t *testing.T) {
	for _, tc := range []struct {
		c      int
		lambda float64
	}{{1, 0.5}, {10, 5}, {4, 3.6}, {30, 45}, {500, 520}} {
		q, err := MMcK(tc.lambda, 1, tc.c, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		b := ErlangB(tc.c, tc.lambda)
		near(t, "PBlock", q.PBlock, b, identityTol)
		near(t, "Throughput", q.Throughput, tc.lambda*(1-b), identityTol)
		near(t, "Wq", q.Wq, 0, 0)
		near(t, "PWait", q.PWait, 0, 0)
		// No queue: everyone admitted is served at once.
		near(t, "W", q.W, 1, identityTol)
		near(t, "L", q.L, tc.lambda*(1-b), identityTol)
	}
	near(t, "ErlangB(10, 5) via MMcK", must(MMcK(5, 1, 10, 10)).PBlock, 0.018385, publishedTol)
}

func TestMM1KClosedForm(t *testing.T) {
	for _, tc := range []struct {
		rho float64
		k   int
	}{{0.5, 1}, {0.5, 5}, {0.9, 10}, {1.5, 8}, {3, 20}} {
		const mu = 2.0
		q, err := MMcK(tc.rho*mu, mu, 1, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		r, k := tc.rho, float64(tc.k)
		pK := (1 - r) * math.Pow(r, k) / (1 - math.Pow(r, k+1))
		l := r/(1-r) - (k+1)*math.Pow(r, k+1)/(1-math.Pow(r, k+1))
		near(t, "PBlock", q.PBlock, pK, identityTol)
		near(t, "L", q.L, l, identityTol)
		near(t, "W", q.W, l/(tc.rho*mu*(1-pK)), identityTol)
		near(t, "Rho", q.Rho, r*(1-pK), identityTol)
		// One server: an admitted arrival waits unless it finds the system empty.
		p0 := (1 - r) / (1 - math.Pow(r, k+1))
		near(t, "PWait", q.PWait, 1-p0/(1-pK), identityTol)
	}
}

func TestMMcKWithLargeRoomIsMMc(t *testing.T) {
	finite := must(MMcK(3.6, 1, 4, 2000))
	infinite := must(MMc(3.6, 1, 4))
	// The mass beyond K = 2000 is ~0.9^2000 ≈ 1e-92: nothing at float64 precision.
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"PWait", finite.PWait, infinite.PWait},
		{"Wq", finite.Wq, infinite.Wq},
		{"W", finite.W, infinite.W},
		{"Lq", finite.Lq, infinite.Lq},
		{"L", finite.L, infinite.L},
		{"Rho", finite.Rho, infinite.Rho},
		{"Throughput", finite.Throughput, infinite.Throughput},
	} {
		near(t, f.name, f.got, f.want, 1e-11)
	}
	near(t, "PBlock", finite.PBlock, 0, 1e-80)
}

// Overload with a deep buffer makes A^K/c! astronomically large; the rescaled
// sums must still normalise.
func TestMMcKHeavyOverload(t *testing.T) {
	q := must(MMcK(2000, 1, 1000, 100000))
	for _, v := range []float64{q.PBlock, q.L, q.Lq, q.W, q.Wq, q.PWait, q.Rho, q.Throughput} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite measure in %+v", q)
		}
	}
	// Twice the capacity is offered: half is carried, servers saturate, the
	// buffer is nearly full.
	near(t, "PBlock", q.PBlock, 0.5, 1e-9)
	near(t, "Rho", q.Rho, 1, 1e-9)
	near(t, "PWait", q.PWait, 1, 1e-9)
	if q.L < 99000 {
		t.Errorf("L = %g, want close to K = 100000", q.L)
	}
}

func TestMMcKInvalid(t *testing.T) {
	_, err := MMcK(1, 1, 3, 2)
	if err == nil || err.Error() != "mmck: capacity k must be >= servers c, got c=3, k=2" {
		t.Errorf("error = %v", err)
	}
	_, err = MMcK(-1, 1, 1, 2)
	if err == nil || err.Error() != "mmck: lambda must be finite and > 0, got -1" {
		t.Errorf("error = %v", err)
	}
}

func TestMD1(t *testing.T) {
	const mu, rho = 4.0, 0.75
	q := must(MG1(rho*mu, 1/mu, 0))
	near(t, "Wq", q.Wq, rho/(2*mu*(1-rho)), identityTol)
	near(t, "W", q.W, rho/(2*mu*(1-rho))+1/mu, identityTol)
	near(t, "Lq", q.Lq, rho*rho/(2*(1-rho)), identityTol)
	near(t, "PWait", q.PWait, rho, identityTol)
}

func TestMG1WithExponentialServiceIsMM1(t *testing.T) {
	for _, rho := range []float64{0.1, 0.5, 0.95} {
		g := must(MG1(rho, 1, 1))
		m := must(MMc(rho, 1, 1))
		near(t, "Wq", g.Wq, m.Wq, identityTol)
		near(t, "W", g.W, m.W, identityTol)
		near(t, "L", g.L, m.L, identityTol)
		near(t, "Lq", g.Lq, m.Lq, identityTol)
		near(t, "PWait", g.PWait, m.PWait, identityTol)
	}
}

// Hyperexponential-like service with cv = 2 waits (1 + 4)/2 = 2.5 times as
// long as exponential service at the same load.
func TestMG1HighVariability(t *testing.T) {
	g := must(MG1(0.5, 1, 2))
	near(t, "Wq", g.Wq, 2.5*0.5/(1-0.5), identityTol)
}

func TestMG1Invalid(t *testing.T) {
	for _, tc := range []struct {
		lambda, s, cv float64
		want          string
	}{
		{1, 1, 0, "mg1: unstable: rho = lambda·meanService = 1, must be < 1"},
		{0, 1, 0, "mg1: lambda must be finite and > 0, got 0"},
		{1, math.Inf(1), 0, "mg1: meanService must be finite and > 0, got +Inf"},
		{0.5, 1, -1, "mg1: cvService must be finite and >= 0, got -1"},
	} {
		_, err := MG1(tc.lambda, tc.s, tc.cv)
		if err == nil || err.Error() != tc.want {
			t.Errorf("MG1(%g, %g, %g) error = %v, want %q", tc.lambda, tc.s, tc.cv, err, tc.want)
		}
	}
}

func TestTandem(t *testing.T) {
	q := must(Tandem(1, 2, 4, 1.25))
	// Station sojourns 1/(μ−λ): 1, 1/3, 4.
	near(t, "W", q.W, 1+1.0/3+4, identityTol)
	// Station waits ρ/(μ−λ): 1/2, 1/12, 16/5.
	near(t, "Wq", q.Wq, 0.5+1.0/12+3.2, identityTol)
	// Station populations ρ/(1−ρ): 1, 1/3, 4.
	near(t, "L", q.L, 1+1.0/3+4, identityTol)
	near(t, "Lq", q.Lq, q.Wq, identityTol)
	near(t, "Rho", q.Rho, 0.8, identityTol)
	near(t, "Throughput", q.Throughput, 1, 0)
	if !math.IsNaN(q.PWait) {
		t.Errorf("PWait = %g, want NaN", q.PWait)
	}
	if len(q.Stations) != 3 {
		t.Fatalf("len(Stations) = %d, want 3", len(q.Stations))
	}
	near(t, "Stations[1].W", q.Stations[1].W, 1.0/3, identityTol)

	single := must(Tandem(0.8, 1))
	near(t, "single-station W", single.W, must(MMc(0.8, 1, 1)).W, 0)
}

func TestTandemInvalid(t *testing.T) {
	_, err := Tandem(1)
	if err == nil || err.Error() != "tandem: need at least one station" {
		t.Errorf("error = %v", err)
	}
	_, err = Tandem(1, 2, 0.8)
	if err == nil || !strings.HasPrefix(err.Error(), "tandem: station 2: mmc: unstable: rho = lambda/(c·mu) = 1.25") {
		t.Errorf("error = %v", err)
	}
}

func must(q Queue, err error) Queue {
	if err != nil {
		panic(err)
	}
	return q
}

func TestSwitchedPS(t *testing.T) {
	near(t, "X(2) on 1 core, σ=0.5", SwitchedPS(1, 0.5, 2), 1/1.5, identityTol)
	near(t, "X(3) on 4 cores", SwitchedPS(4, 0.5, 3), 3, 0)
	near(t, "X(10) on 4 cores, σ=0.1", SwitchedPS(4, 0.1, 10), 4/1.6, identityTol)
	near(t, "X(1) on half a core", SwitchedPS(0.5, 1, 1), 0.5, 0)
	near(t, "X(2) on half a core, σ=1", SwitchedPS(0.5, 1, 2), 0.25, 0)
	near(t, "X(100) without switch cost", SwitchedPS(2, 0, 100), 2, 0)
}

// Two clients, one core, σ = 0.5, think and work of 1 s, by hand: the
// weights Z^(N−n)/(N−n)! · S^n/ΠX(k) are 1/2, 1 and 1/(2/3) = 3/2, so
// π = 1/6, 1/3, 1/2 and the throughput 1/3·1 + 1/2·2/3 = 2/3 per second.
func TestClosedPSByHand(t *testing.T) {
	q := must(ClosedPS(2, 1, 1, 1, 0.5))
	near(t, "Throughput", q.Throughput, 2.0/3, identityTol)
	near(t, "L", q.L, 1.0/3+2*0.5, identityTol)
	near(t, "W", q.W, (4.0/3)/(2.0/3), identityTol)
	near(t, "Lq", q.Lq, 0.5, identityTol)
	near(t, "Rho", q.Rho, 1.0/3+0.5, identityTol)
}

// Without think time every client is always at the server: the
// throughput is the law's c/(1 + σ(N − c)) jobs per unit of work.
func TestClosedPSWithoutThink(t *testing.T) {
	q := must(ClosedPS(10, 0, 0.5, 4, 0.1))
	near(t, "Throughput", q.Throughput, 4/(1+0.1*6)/0.5, identityTol)
	near(t, "L", q.L, 10, identityTol)
	near(t, "Rho", q.Rho, 1, identityTol)
}

// With σ = 0 and one core the loop is the machine-repair model M/M/1//N,
// whose idle probability is 1/Σ_n N!/(N−n)! (S/Z)^n [Gross §2.7]; with as
// many cores as clients nobody shares and the cycle is Z + S.
func TestClosedPSWithoutSwitchCost(t *testing.T) {
	const n, z, s = 5, 4.0, 1.0
	sum, term := 0.0, 1.0
	for k := 0; k <= n; k++ {
		sum += term
		term *= float64(n-k) * s / z
	}
	q := must(ClosedPS(n, z, s, 1, 0))
	near(t, "M/M/1//5 throughput", q.Throughput, (1-1/sum)/s, identityTol)
	free := must(ClosedPS(n, z, s, n, 0))
	near(t, "uncontended throughput", free.Throughput, n/(z+s), identityTol)
	near(t, "uncontended W", free.W, s, identityTol)
	big := must(ClosedPS(400, 2, 0.01, 4, 0.02))
	if math.IsNaN(big.Throughput) || big.Throughput <= 0 {
		t.Errorf("400 clients: throughput %g, want a finite positive value", big.Throughput)
	}
}

func TestClosedPSInvalid(t *testing.T) {
	for _, c := range []struct {
		n                  int
		z, s, cores, sigma float64
		want               string
	}{
		{0, 1, 1, 1, 0, "clients must be >= 1"},
		{1, -1, 1, 1, 0, "think must be finite and >= 0"},
		{1, 1, 0, 1, 0, "work must be finite and > 0"},
		{1, 1, 1, 0, 0, "cores must be finite and > 0"},
		{1, 1, 1, 1, -0.1, "sigma must be finite and >= 0"},
	} {
		if _, err := ClosedPS(c.n, c.z, c.s, c.cores, c.sigma); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ClosedPS(%d, %g, %g, %g, %g) error = %v, want %q", c.n, c.z, c.s, c.cores, c.sigma, err, c.want)
		}
	}
}
