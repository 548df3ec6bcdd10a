package web

import (
	"context"
	"sync"
)

// lanes answers the turns of one conversation in order, as the Discord bot
// does per channel: a second message sent from another tab waits until the
// first answer is done.
type lanes struct {
	mu sync.Mutex
	m  map[string]*lane
	// live are the turns in flight, for the pages that follow them
	// (chat_turns.go).
	live liveTurns
}

type lane struct {
	waiters []chan struct{} // closed when the turn is handed over
}

// enter waits for key's turn. queued is called with the 1-based place in
// line when the turn must wait; an error from it, or ctx ending, leaves the
// line. The returned func hands the turn on; call it exactly once.
func (l *lanes) enter(ctx context.Context, key string, queued func(position int) error) (func(), error) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*lane{}
	}
	ln, busy := l.m[key]
	if !busy {
		l.m[key] = &lane{}
		l.mu.Unlock()
		return func() { l.leave(key) }, nil
	}
	ready := make(chan struct{})
	ln.waiters = append(ln.waiters, ready)
	pos := len(ln.waiters)
	l.mu.Unlock()

	err := queued(pos)
	if err == nil {
		select {
		case <-ready:
			return func() { l.leave(key) }, nil
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, w := range ln.waiters {
		if w == ready {
			ln.waiters = append(ln.waiters[:i], ln.waiters[i+1:]...)
			return nil, err
		}
	}
	// The turn was handed over meanwhile: pass it on.
	l.leaveLocked(key)
	return nil, err
}

func (l *lanes) leave(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leaveLocked(key)
}

func (l *lanes) leaveLocked(key string) {
	ln := l.m[key]
	if ln == nil {
		return
	}
	if len(ln.waiters) == 0 {
		delete(l.m, key)
		return
	}
	next := ln.waiters[0]
	ln.waiters = ln.waiters[1:]
	close(next)
}
