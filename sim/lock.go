package sim

// KeyedLock is a family of mutexes, one per key, such as row locks taken with
// SELECT … FOR UPDATE: holders of different keys never wait for each other,
// holders of the same key queue in FIFO order. Like Pool it is passive: the
// caller schedules wait timeouts and calls Abandon when one fires.
type KeyedLock struct {
	byKey map[int64]*keyState // lookup only; never iterated
	spare []*keyState
	index waitIndex // shared by the keys' queues
	grant func(id int32)

	Held      TimeWeighted // keys currently locked
	Waiting   TimeWeighted // requesters queued over all keys
	Wait      Tally        // seconds from request to grant
	Granted   int64
	Abandoned int64
}

type keyState struct {
	queue fifo
}

// NewKeyedLock returns an empty lock family; grant is called with the id of a
// waiter that has just been given its key.
func NewKeyedLock(grant func(id int32)) *KeyedLock {
	return &KeyedLock{byKey: map[int64]*keyState{}, grant: grant}
}

// Acquire locks key for id, or queues id behind the current holder. id
// must not be negative.
func (l *KeyedLock) Acquire(now Time, key int64, id int32) Outcome {
	k, held := l.byKey[key]
	if !held {
		if n := len(l.spare); n > 0 {
			k = l.spare[n-1]
			l.spare = l.spare[:n-1]
		} else {
			k = &keyState{}
		}
		l.byKey[key] = k
		l.Held.Add(now, 1)
		l.Granted++
		l.Wait.Add(0)
		return Granted
	}
	k.queue.push(waiter{id: id, since: now}, &l.index)
	l.Waiting.Add(now, 1)
	return Queued
}

// Release unlocks key, passing it to the oldest waiter for the same key.
func (l *KeyedLock) Release(now Time, key int64) {
	k, held := l.byKey[key]
	if !held {
		panic("sim: KeyedLock.Release of a key not held")
	}
	if w, ok := k.queue.pop(l.index); ok {
		l.Waiting.Add(now, -1)
		l.Granted++
		l.Wait.Add((now - w.since).Seconds())
		l.grant(w.id)
		return
	}
	delete(l.byKey, key)
	// The queue is empty and keeps its buffer and positions for the next
	// key: positions are never reused, so a stale index entry cannot
	// match a new waiter.
	l.spare = append(l.spare, k)
	l.Held.Add(now, -1)
}

// Abandon withdraws id from the queue of key (its wait timed out).
func (l *KeyedLock) Abandon(now Time, key int64, id int32) bool {
	k, held := l.byKey[key]
	if !held {
		return false
	}
	if _, ok := k.queue.remove(id, l.index); !ok {
		return false
	}
	l.Waiting.Add(now, -1)
	l.Abandoned++
	return true
}

// ResetStats starts the statistics afresh at now, keeping the current state.
func (l *KeyedLock) ResetStats(now Time) {
	l.Held.Reset(now)
	l.Waiting.Reset(now)
	l.Wait.Reset()
	l.Granted, l.Abandoned = 0, 0
}
