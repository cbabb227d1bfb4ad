package sweep

import (
	"context"
	"sync"
	"testing"
	"time"
)

// A budget never lets more runs hold a core than it has, and when a core
// comes free it goes to a waiting foreground run before any background one.
func TestBudgetServesForegroundFirst(t *testing.T) {
	b := NewBudget(2)
	ctx := context.Background()
	if err := b.Acquire(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := b.Acquire(ctx, false); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	wait := func(name string, foreground bool) {
		defer wg.Done()
		if err := b.Acquire(ctx, foreground); err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
		b.Release()
	}
	// The background waiter queues first; the foreground one still goes
	// ahead of it.
	wg.Add(1)
	go wait("background", false)
	waitQueued(t, b, 0, 1)
	wg.Add(1)
	go wait("foreground", true)
	waitQueued(t, b, 1, 1)
	b.Release()
	wg.Wait()
	if len(order) != 2 || order[0] != "foreground" || order[1] != "background" {
		t.Fatalf("served %v, want [foreground background]", order)
	}
	// Both cores are back: one held since the start, one free.
	b.Release()
	if b.free != 2 {
		t.Fatalf("%d cores free after every release, want 2", b.free)
	}
}

// A waiter whose context ends holds nothing and leaves the queue, so the
// core it would have had goes to the next.
func TestBudgetAcquireCancelled(t *testing.T) {
	b := NewBudget(1)
	if err := b.Acquire(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error)
	go func() { errs <- b.Acquire(ctx, false) }()
	waitQueued(t, b, 0, 1)
	cancel()
	if err := <-errs; err != context.Canceled {
		t.Fatalf("cancelled Acquire returned %v, want context.Canceled", err)
	}
	b.Release()
	if b.free != 1 || len(b.background) != 0 {
		t.Fatalf("after the cancelled waiter: %d free, %d queued; want 1, 0", b.free, len(b.background))
	}
}

// waitQueued waits until the budget's queues have the given lengths.
func waitQueued(t *testing.T, b *Budget, foreground, background int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b.mu.Lock()
		f, g := len(b.foreground), len(b.background)
		b.mu.Unlock()
		if f == foreground && g == background {
			return
		}
	}
	t.Fatalf("queues never reached %d foreground, %d background waiters", foreground, background)
}
