package sim

import "math"

// TokenBucket is a rate limiter: tokens refill continuously at a rate up to a
// burst size, and each admission takes one. A request that finds the bucket
// empty reserves the next token and waits for it, unless that wait would
// exceed MaxWait, in which case it is refused at once. Reservations let the
// bucket run negative, so waiters are served in arrival order without a
// queue of their own.
//
// An optional adaptive rule lowers the refill rate step by step on overload
// signals (timeouts, 429s) and raises it again after a quiet period.
type TokenBucket struct {
	levels  []float64 // refill rates in tokens/s, from the normal rate down
	level   int
	burst   float64
	maxWait Time
	tokens  float64
	last    Time

	// adaptive rule
	signalsToStep int
	window        Time
	recoverAfter  Time
	signals       []Time // recent signal times, oldest first
	lastSignal    Time

	Wait      Tally // seconds waited by admitted requests
	Admitted  int64
	Refused   int64
	RateSteps int64 // times the rate was lowered
	Rate      TimeWeighted
}

// BucketConfig describes a token bucket. Rates are tokens per second.
type BucketConfig struct {
	Rate    float64
	Burst   float64
	MaxWait Time
	// Adaptive refill: lower rates to step through, the number of signals
	// within Window that triggers one step down, and the quiet time after
	// which the rate steps back up one level.
	LowerRates    []float64
	SignalsToStep int
	Window        Time
	RecoverAfter  Time
}

// NewTokenBucket returns a full bucket.
func NewTokenBucket(c BucketConfig) *TokenBucket {
	b := &TokenBucket{
		levels:        append([]float64{c.Rate}, c.LowerRates...),
		burst:         c.Burst,
		maxWait:       c.MaxWait,
		tokens:        c.Burst,
		signalsToStep: max(1, c.SignalsToStep),
		window:        c.Window,
		recoverAfter:  c.RecoverAfter,
	}
	b.Rate.Set(0, c.Rate)
	return b
}

// CurrentRate is the refill rate in force, tokens per second.
func (b *TokenBucket) CurrentRate() float64 { return b.levels[b.level] }

func (b *TokenBucket) refill(now Time) {
	if b.level > 0 && b.recoverAfter > 0 {
		// Recover lazily: each full quiet period since the last signal (or
		// the last step up) earns one level back.
		for b.level > 0 && now-b.lastSignal >= b.recoverAfter {
			b.advance(b.lastSignal + b.recoverAfter)
			b.lastSignal += b.recoverAfter
			b.level--
			b.Rate.Set(b.lastSignal, b.levels[b.level])
		}
	}
	b.advance(now)
}

func (b *TokenBucket) advance(now Time) {
	if now > b.last {
		b.tokens = math.Min(b.burst, b.tokens+(now-b.last).Seconds()*b.levels[b.level])
		b.last = now
	}
}

// Take asks for one token at now. It returns how long the requester must
// wait for it, or ok=false when that wait would exceed the bucket's MaxWait
// or the caller's own limit (limit < 0 means none).
// NextWait is how long a request arriving now would wait for a token: 0
// when one is there. It takes nothing.
func (b *TokenBucket) NextWait(now Time) Time {
	b.refill(now)
	if b.tokens >= 1 {
		return 0
	}
	return Seconds((1 - b.tokens) / b.levels[b.level])
}

func (b *TokenBucket) Take(now Time, limit Time) (wait Time, ok bool) {
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		b.Admitted++
		b.Wait.Add(0)
		return 0, true
	}
	wait = Seconds((1 - b.tokens) / b.levels[b.level])
	if wait > b.maxWait || (limit >= 0 && wait > limit) {
		b.Refused++
		return 0, false
	}
	b.tokens--
	b.Admitted++
	b.Wait.Add(wait.Seconds())
	return wait, true
}

// Signal reports an overload symptom downstream (a timeout or a 429). Enough
// of them within the window lower the refill rate by one level.
func (b *TokenBucket) Signal(now Time) {
	if len(b.levels) == 1 {
		return
	}
	b.refill(now)
	b.lastSignal = now
	b.signals = append(b.signals, now)
	cut := 0
	for cut < len(b.signals) && now-b.signals[cut] > b.window {
		cut++
	}
	b.signals = append(b.signals[:0], b.signals[cut:]...)
	if len(b.signals) >= b.signalsToStep && b.level < len(b.levels)-1 {
		b.level++
		b.RateSteps++
		b.signals = b.signals[:0]
		b.Rate.Set(now, b.levels[b.level])
	}
}

// ResetStats starts the statistics afresh at now, keeping the current state.
func (b *TokenBucket) ResetStats(now Time) {
	b.Wait.Reset()
	b.Admitted, b.Refused, b.RateSteps = 0, 0, 0
	b.Rate.Reset(now)
}
