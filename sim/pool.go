package sim

// Outcome is what a request for a resource got.
type Outcome uint8

const (
	Granted  Outcome = iota // the resource is held from now
	Queued                  // the requester waits; a grant callback will follow
	Rejected                // no server and no room to wait
)

// Unbounded is the queue capacity of a pool that never turns anyone away.
const Unbounded = -1

// Pool is a set of identical servers with a FIFO queue in front: a thread
// pool, a connection pool, a semaphore, a stream-slot limit. It is passive
// bookkeeping: the caller schedules service completions and timeouts, and the
// pool calls grant when a queued requester obtains a server.
type Pool struct {
	servers  int
	queueCap int // Unbounded, or the number of requesters allowed to wait
	busy     int
	queue    fifo    // class 0, the default
	higher   []*fifo // classes 1, 2, …: served before class 0, highest first
	waiting  int     // over all classes
	index    waitIndex
	grant    func(id int32)

	Busy      TimeWeighted // servers in use
	QueueLen  TimeWeighted // requesters waiting
	Wait      Tally        // seconds from request to grant, for everyone granted
	Granted   int64
	Delayed   int64 // granted only after waiting in the queue
	Rejected  int64
	Abandoned int64 // left the queue before a server freed (timeout)
}

// NewPool returns a pool of servers with room for queueCap waiters
// (Unbounded for no limit). grant is called with the id of a waiter that has
// just been given a server.
func NewPool(servers, queueCap int, grant func(id int32)) *Pool {
	return &Pool{servers: servers, queueCap: queueCap, grant: grant}
}

// Servers is the number of servers.
func (p *Pool) Servers() int { return p.servers }

// InUse is the number of busy servers.
func (p *Pool) InUse() int { return p.busy }

// Waiting is the number of queued requesters.
func (p *Pool) Waiting() int { return p.waiting }

// Acquire asks for a server on behalf of id, which must not be negative,
// in the default priority class 0.
func (p *Pool) Acquire(now Time, id int32) Outcome { return p.AcquireClass(now, id, 0) }

// AcquireClass asks for a server in priority class class >= 0: waiters of
// a higher class are served first, FIFO within a class; nobody is
// preempted.
func (p *Pool) AcquireClass(now Time, id int32, class int) Outcome {
	if p.busy < p.servers {
		p.busy++
		p.Busy.Set(now, float64(p.busy))
		p.Granted++
		p.Wait.Add(0)
		return Granted
	}
	if p.queueCap != Unbounded && p.waiting >= p.queueCap {
		p.Rejected++
		return Rejected
	}
	q := &p.queue
	if class > 0 {
		for len(p.higher) < class {
			// Pointers: the index points at the fifos, which must not move.
			p.higher = append(p.higher, &fifo{})
		}
		q = p.higher[class-1]
	}
	q.push(waiter{id: id, since: now}, &p.index)
	p.waiting++
	p.QueueLen.Set(now, float64(p.waiting))
	return Queued
}

// next takes the waiter to serve next: the oldest of the highest class.
func (p *Pool) next() (waiter, bool) {
	for i := len(p.higher) - 1; i >= 0; i-- {
		if w, ok := p.higher[i].pop(p.index); ok {
			p.waiting--
			return w, true
		}
	}
	if w, ok := p.queue.pop(p.index); ok {
		p.waiting--
		return w, true
	}
	return waiter{}, false
}

// SetServers changes the number of servers at now. More servers take
// waiters at once, oldest first; fewer let the work in service finish (no
// preemption) and grant no one until the servers in use drop below the new
// count.
func (p *Pool) SetServers(now Time, n int) {
	p.servers = n
	for p.busy < p.servers {
		w, ok := p.next()
		if !ok {
			return
		}
		p.busy++
		p.Busy.Set(now, float64(p.busy))
		p.QueueLen.Set(now, float64(p.waiting))
		p.Granted++
		p.Delayed++
		p.Wait.Add((now - w.since).Seconds())
		p.grant(w.id)
	}
}

// Release frees a server, handing it straight to the oldest waiter if any.
func (p *Pool) Release(now Time) {
	if p.busy > p.servers {
		// Capacity was cut while this work was in service: the server
		// goes, nobody takes it.
		p.busy--
		p.Busy.Set(now, float64(p.busy))
		return
	}
	if w, ok := p.next(); ok {
		p.QueueLen.Set(now, float64(p.waiting))
		p.Granted++
		p.Delayed++
		p.Wait.Add((now - w.since).Seconds())
		p.grant(w.id)
		return
	}
	if p.busy == 0 {
		panic("sim: Pool.Release without a server in use")
	}
	p.busy--
	p.Busy.Set(now, float64(p.busy))
}

// Abandon withdraws a queued requester (its wait timed out) and reports
// whether it was still waiting.
func (p *Pool) Abandon(now Time, id int32) bool {
	_, ok := p.queue.remove(id, p.index)
	for i := 0; !ok && i < len(p.higher); i++ {
		_, ok = p.higher[i].remove(id, p.index)
	}
	if !ok {
		return false
	}
	p.waiting--
	p.QueueLen.Set(now, float64(p.waiting))
	p.Abandoned++
	return true
}

// ResetStats starts the statistics afresh at now (end of warm-up), keeping
// the current state.
func (p *Pool) ResetStats(now Time) {
	p.Busy.Reset(now)
	p.QueueLen.Reset(now)
	p.Wait.Reset()
	p.Granted, p.Delayed, p.Rejected, p.Abandoned = 0, 0, 0, 0
}
