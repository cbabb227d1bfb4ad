package sweep

import (
	"context"
	"sync"
)

// Budget is a number of runs that may execute at once, shared by analyses
// that run side by side: a sweep and the hindcast beside it together keep
// --workers cores busy, and never more. A sweep's rounds end in a tail
// where the last runs finish one by one and the next round cannot start;
// a second analysis holding the background share (Acquire(ctx, false))
// fills those idle cores, while the sweep's own runs (Acquire(ctx, true))
// always go first, so the sweep is delayed by at most one background run
// per core.
//
// Which analysis gets a core when decides only when a run is made, never
// its seed or its place in a result, so results do not depend on it.
type Budget struct {
	mu         sync.Mutex
	free       int
	foreground []chan struct{} // waiters, first come first served
	background []chan struct{}
}

// NewBudget returns a budget of n runs at once (at least 1).
func NewBudget(n int) *Budget { return &Budget{free: max(n, 1)} }

// Acquire takes a free core or waits for one; foreground waiters are
// served before any background one. It returns ctx's error if ctx ends first, holding
// nothing then.
func (b *Budget) Acquire(ctx context.Context, foreground bool) error {
	b.mu.Lock()
	if b.free > 0 { // a free core means no one waits: Release hands cores to waiters first
		b.free--
		b.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	queue := &b.background
	if foreground {
		queue = &b.foreground
	}
	*queue = append(*queue, ready)
	b.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, c := range *queue {
			if c == ready {
				*queue = append((*queue)[:i], (*queue)[i+1:]...)
				return ctx.Err()
			}
		}
		// Handed a core just as ctx ended: give it on.
		b.releaseLocked()
		return ctx.Err()
	}
}

// Release returns a core taken by Acquire.
func (b *Budget) Release() {
	b.mu.Lock()
	b.releaseLocked()
	b.mu.Unlock()
}

func (b *Budget) releaseLocked() {
	for _, queue := range []*[]chan struct{}{&b.foreground, &b.background} {
		if len(*queue) > 0 {
			next := (*queue)[0]
			*queue = (*queue)[1:]
			close(next)
			return
		}
	}
	b.free++
}
