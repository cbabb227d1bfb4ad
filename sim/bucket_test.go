package sim

import "testing"

type take struct {
	at    Time
	limit Time
	wait  Time
	ok    bool
}

func runTakes(t *testing.T, b *TokenBucket, takes []take) {
	t.Helper()
	for i, tk := range takes {
		wait, ok := b.Take(tk.at, tk.limit)
		if wait != tk.wait || ok != tk.ok {
			t.Fatalf("take %d at %v (limit %v) = %v %v, want %v %v", i, tk.at, tk.limit, wait, ok, tk.wait, tk.ok)
		}
	}
}

// A bucket of 3 tokens refilled at 2/s, waiting at most 1 s.
//
//	0s   3 takes: the full bucket, no wait          tokens 0
//	0s   take: the next token comes in 1/2 s        tokens -1
//	0s   take: 2 tokens owed, 1 s                   tokens -2
//	0s   take: 1.5 s > 1 s, refused
//	2s   refilled by 4 to 2: 2 takes, no wait       tokens 0
//	2s   take limited to 0.4 s: 0.5 s needed, refused
//	2s   take without a limit: 0.5 s                tokens -1
//	10s  16 tokens refilled, capped at the burst of 3: 3 takes, then 0.5 s
func TestTokenBucketRefillAndWait(t *testing.T) {
	b := NewTokenBucket(BucketConfig{Rate: 2, Burst: 3, MaxWait: Second})
	ms := Millisecond
	runTakes(t, b, []take{
		{0, -1, 0, true}, {0, -1, 0, true}, {0, -1, 0, true},
		{0, -1, 500 * ms, true},
		{0, -1, Second, true},
		{0, -1, 0, false},
		{2 * Second, -1, 0, true}, {2 * Second, -1, 0, true},
		{2 * Second, 400 * ms, 0, false},
		{2 * Second, -1, 500 * ms, true},
		{10 * Second, -1, 0, true}, {10 * Second, -1, 0, true}, {10 * Second, -1, 0, true},
		{10 * Second, -1, 500 * ms, true},
	})
	if b.Admitted != 12 || b.Refused != 2 {
		t.Fatalf("admitted %d, refused %d; want 12, 2", b.Admitted, b.Refused)
	}
	if b.Wait.N() != 12 || b.Wait.Sum() != 2.5 || b.Wait.Max() != 1 {
		t.Fatalf("waits: %d summing to %v, max %v; want 12, 2.5, 1", b.Wait.N(), b.Wait.Sum(), b.Wait.Max())
	}
	if b.RateSteps != 0 || b.CurrentRate() != 2 {
		t.Fatalf("a bucket without lower rates stepped: %d steps, rate %v", b.RateSteps, b.CurrentRate())
	}
	b.Signal(10 * Second) // no lower rate to step to: ignored
	if b.CurrentRate() != 2 {
		t.Fatalf("rate %v after a signal with no lower rates", b.CurrentRate())
	}
}

// Rates 10/s, then 5/s, then 2/s; two signals within 1 s step down one
// level; each quiet 10 s since the last signal steps back up one. The
// bucket holds 1 token and the wait limit is out of the way.
//
//	0s     signal                         1 in the window
//	2s     signal: the first is 2 s old   1 in the window
//	2.5s   signal: 2 within 0.5 s         rate 5, window emptied
//	3s     signal
//	4s     signal, exactly 1 s later      rate 2 (the window includes its edge)
//	4.5s   2 more signals                 already at the lowest rate
//	4.5s   take: the full token; take: 1 token at 2/s, 0.5 s
//	14.4s  take: 9.9 s quiet, still 2/s; the token is back (capped at 1)
//	14.5s  take: 10 s quiet, rate 5: 0.1 s at 2/s gave 0.2, so 0.8/5 = 0.16 s
//	34.5s  take: two more quiet periods, rate 10 (at 24.5 s) and full again
func TestTokenBucketAdaptiveRate(t *testing.T) {
	b := NewTokenBucket(BucketConfig{Rate: 10, Burst: 1, MaxWait: Hour,
		LowerRates: []float64{5, 2}, SignalsToStep: 2, Window: Second, RecoverAfter: 10 * Second})
	ms := Millisecond
	steps := []struct {
		at   Time
		rate float64
	}{
		{0, 10}, {2 * Second, 10}, {2500 * ms, 5}, {3 * Second, 5}, {4 * Second, 2}, {4500 * ms, 2}, {4500 * ms, 2},
	}
	for _, st := range steps {
		b.Signal(st.at)
		if b.CurrentRate() != st.rate {
			t.Fatalf("after a signal at %v the rate is %v, want %v", st.at, b.CurrentRate(), st.rate)
		}
	}
	if b.RateSteps != 2 {
		t.Fatalf("%d rate steps, want 2", b.RateSteps)
	}
	runTakes(t, b, []take{
		{4500 * ms, -1, 0, true},
		{4500 * ms, -1, 500 * ms, true},
		{14400 * ms, -1, 0, true},
	})
	if b.CurrentRate() != 2 {
		t.Fatalf("rate %v after 9.9 s quiet, want still 2", b.CurrentRate())
	}
	runTakes(t, b, []take{{14500 * ms, -1, 160 * ms, true}})
	if b.CurrentRate() != 5 {
		t.Fatalf("rate %v after 10 s quiet, want 5", b.CurrentRate())
	}
	runTakes(t, b, []take{{34500 * ms, -1, 0, true}})
	if b.CurrentRate() != 10 {
		t.Fatalf("rate %v after 30 s quiet, want 10", b.CurrentRate())
	}
	// Rate: 10 for 2.5 s, 5 for 1.5 s, 2 for 10.5 s, 5 for 10 s, then 10
	// from 24.5 s: 25 + 7.5 + 21 + 50 + 100 = 203.5 over [0, 34.5 s].
	if got, want := b.Rate.Mean(34500*ms), 203.5/34.5; got < want-1e-12 || got > want+1e-12 {
		t.Fatalf("mean rate %v, want %v", got, want)
	}
}
