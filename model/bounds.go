package model

import (
	"fmt"
	"math"
	"reflect"

	"capsim/sim"
)

// MaxDuration is the longest span a scenario may write, for any duration,
// and the most a distribution's mean or 99th percentile may be (see
// sim.MaxDuration).
const MaxDuration = sim.MaxDuration

// MinQuantum is the shortest time slice a cpu may give (discipline rr):
// each slice is an event, and a nanosecond quantum would take a billion of
// them per second of work, a run that never ends. Kernels and runtimes
// slice in milliseconds.
const MinQuantum = sim.Millisecond / 1000

// MaxRate is the highest rate a scenario may write: one arrival per
// nanosecond, the clock's resolution. A rate must also be 0 or at least
// one per MaxDuration, or its mean gap would pass the clock.
const MaxRate = 1e9

// MaxClients bounds a closed workload's population, times the load
// multiplier: each client is scheduled at the start of a run, and beyond
// a million the start alone takes gigabytes.
const MaxClients = 1_000_000

// checkDist refuses a distribution whose mean or 99th percentile passes
// MaxDuration: sampled, it would stand for times the clock cannot reach
// (or for infinity, as a heavy-tailed mean does).
func checkDist(d sim.Dist) error {
	limit := MaxDuration.Seconds()
	if m := d.Mean(); !(m <= limit) {
		return fmt.Errorf("its mean (%s) passes %s, the longest time capsim simulates", secondsText(m), sim.MaxDurationText)
	}
	if q := d.Quantile(0.99); !(q <= limit) {
		return fmt.Errorf("its 99th percentile (%s) passes %s, the longest time capsim simulates", secondsText(q), sim.MaxDurationText)
	}
	return nil
}

func secondsText(s float64) string {
	if math.IsInf(s, 1) || math.IsNaN(s) {
		return "infinite"
	}
	return fmt.Sprintf("%.3gs", s)
}

// intBound is the range some schema keys allow, checked where they are
// decoded so that the message carries the line; compilation checks the
// rest of each value's meaning.
type intBound struct {
	t        reflect.Type
	key      string // "" for every key of t
	min, max int64
}

// The ranges of keys are their bound tags (keys.go); the one here lifts
// the guards' limits above MaxCount, counted as they are in 64 bits.
var intBounds = []intBound{
	{reflect.TypeOf(Limits{}), "", 1, math.MaxInt64},
}

// MaxReplications bounds the replications of one sweep point; more would
// narrow no interval a design decision needs, and the runs multiply.
const MaxReplications = 10_000

// MaxCount is the largest whole number a scenario may write for a count,
// a status, a priority or any other integer key without a bound of its
// own: the interpreter keeps them in 32 bits, and a larger value would be
// cut silently (a repeat of 2^32+3 running 3 times).
const MaxCount = math.MaxInt32

// checkInt returns the problem with the integer in field, decoded from
// key of a struct of type t, if it is outside the key's bound, or outside
// ±MaxCount for a key without one.
func checkInt(t reflect.Type, key string, field reflect.Value) error {
	for field.Kind() == reflect.Pointer {
		if field.IsNil() {
			return nil
		}
		field = field.Elem()
	}
	if k := field.Kind(); k != reflect.Int && k != reflect.Int64 {
		return nil
	}
	i := field.Int()
	for _, b := range intBounds {
		if b.t != t || b.key != "" && b.key != key {
			continue
		}
		switch {
		case i < b.min && b.max == math.MaxInt64:
			return fmt.Errorf("must be >= %d, got %d", b.min, i)
		case i < b.min || i > b.max:
			return fmt.Errorf("must be between %d and %d, got %d", b.min, b.max, i)
		}
		return nil
	}
	if i > MaxCount || i < -MaxCount {
		return fmt.Errorf("must be at most %d in size, the largest count capsim keeps, got %d", MaxCount, i)
	}
	return nil
}

// MaxMultiplier bounds a load multiplier: a million times a scenario's
// load is far past any failure a sweep looks for.
const MaxMultiplier = 1e6
