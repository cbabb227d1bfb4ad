package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Streams hands out independent random streams by name. Each stream is
// seeded from (master seed, name) alone, so adding a component, renaming
// another, or switching a design never shifts the draws of an unchanged
// stream: two designs run with the same seed see the same arrivals (common
// random numbers), and their difference measures the design, not the dice.
type Streams struct {
	master uint64
	byName map[string]*rand.Rand // lookup only; never iterated
}

// NewStreams returns the stream factory for one run.
func NewStreams(master uint64) *Streams {
	return &Streams{master: master, byName: map[string]*rand.Rand{}}
}

// Get returns the stream called name, creating it on first use. Asking twice
// for a name returns the same stream.
func (s *Streams) Get(name string) *rand.Rand {
	if r, ok := s.byName[name]; ok {
		return r
	}
	r := rand.New(StreamSource(s.master, name))
	s.byName[name] = r
	return r
}

// StreamSource is the generator behind stream name under master seed: a PCG
// whose two seed words are scrambled by splitmix64 from the master seed and
// the name's FNV-1a hash, so neighbouring seeds and similar names still give
// unrelated sequences.
func StreamSource(master uint64, name string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(name))
	key := h.Sum64()
	return rand.NewPCG(splitmix64(master^splitmix64(key)), splitmix64(key+0x9e3779b97f4a7c15*master))
}

// splitmix64 is Steele, Lea and Flood's 64-bit finaliser (SplitMix64, 2014):
// a bijection that spreads every input bit over the output.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
