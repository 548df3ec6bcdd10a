package llm

import (
	"context"
	"slices"
	"sync"
)

// queue is a counting semaphore with FIFO waiters that learn their place.
// Background waiters (summaries, tags) stand behind every turn a user waits
// for, so housekeeping never delays an answer that is already queued.
type queue struct {
	mu      sync.Mutex
	free    int
	waiters []*waiter
}

type waiter struct {
	ready   chan struct{} // closed when the slot is handed over
	moved   chan struct{} // signalled (buffered 1) when the position improved
	granted bool          // guarded by queue.mu
	// background waiters queue behind every foreground one.
	background bool
}

func newQueue(slots int) *queue { return &queue{free: slots} }

// acquire takes a slot, waiting in line when none is free. queued is called
// with the 1-based position when the wait starts and each time it improves;
// an error from queued, or ctx ending, leaves the line. A background waiter
// lets every foreground waiter, earlier or later, go first.
func (q *queue) acquire(ctx context.Context, background bool, queued func(position int) error) error {
	q.mu.Lock()
	if q.free > 0 && len(q.waiters) == 0 {
		q.free--
		q.mu.Unlock()
		return nil
	}
	w := &waiter{ready: make(chan struct{}), moved: make(chan struct{}, 1), background: background}
	at := len(q.waiters)
	if !background {
		// In front of the first background waiter, which all move back.
		at = slices.IndexFunc(q.waiters, func(o *waiter) bool { return o.background })
		if at < 0 {
			at = len(q.waiters)
		}
	}
	q.waiters = slices.Insert(q.waiters, at, w)
	last := at + 1
	q.mu.Unlock()

	if err := queued(last); err != nil {
		q.leave(w)
		return err
	}
	for {
		select {
		case <-w.ready:
			return nil
		case <-w.moved:
			q.mu.Lock()
			pos := slices.Index(q.waiters, w) + 1
			q.mu.Unlock()
			if pos > 0 && pos < last {
				last = pos
				if err := queued(pos); err != nil {
					q.leave(w)
					return err
				}
			}
		case <-ctx.Done():
			q.leave(w)
			return ctx.Err()
		}
	}
}

// leave removes a waiter that gives up. If the slot was handed to it in the
// meantime, the slot is passed on.
func (q *queue) leave(w *waiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted {
		q.releaseLocked()
		return
	}
	i := slices.Index(q.waiters, w)
	if i < 0 {
		return
	}
	q.waiters = slices.Delete(q.waiters, i, i+1)
	q.notifyFrom(i)
}

// release returns a slot, handing it to the first waiter if any.
func (q *queue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.releaseLocked()
}

func (q *queue) releaseLocked() {
	if len(q.waiters) == 0 {
		q.free++
		return
	}
	w := q.waiters[0]
	q.waiters = q.waiters[1:]
	w.granted = true
	close(w.ready)
	q.notifyFrom(0)
}

// notifyFrom tells the waiters from index i on that they moved up.
func (q *queue) notifyFrom(i int) {
	for _, w := range q.waiters[i:] {
		select {
		case w.moved <- struct{}{}:
		default:
		}
	}
}

// len is the number of waiters.
func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiters)
}
