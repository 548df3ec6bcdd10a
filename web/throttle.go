package web

import (
	"sync"
	"time"
)

// Login throttling: more failures than this from one address within the
// window and further attempts are refused (429) until the oldest of them
// leaves the window.
const (
	loginFailures = 5
	loginWindow   = 15 * time.Minute
	// throttleSweepAt is how many addresses are kept before stale ones are
	// swept, so a flood of addresses cannot grow the map without bound.
	throttleSweepAt = 10_000
)

// bcryptSlots is how many password comparisons run at once, process-wide:
// each takes about 50 ms of a core.
const bcryptSlots = 2

// throttle counts failed logins per address in a sliding window.
type throttle struct {
	limit  int
	window time.Duration

	mu       sync.Mutex
	failures map[string][]time.Time
}

func newThrottle(limit int, window time.Duration) *throttle {
	return &throttle{limit: limit, window: window, failures: map[string][]time.Time{}}
}

// wait returns how long addr must wait before it may try again; 0 means now.
func (t *throttle) wait(addr string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.recent(addr, now)
	if len(fs) < t.limit {
		return 0
	}
	return fs[len(fs)-t.limit].Add(t.window).Sub(now)
}

// attempt counts a login attempt from addr at now as failed before its
// password is compared (a success resets it), so attempts at once cannot
// all pass the check: it returns how long addr must wait instead, without
// counting, when it is over the limit.
func (t *throttle) attempt(addr string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if fs := t.recent(addr, now); len(fs) >= t.limit {
		return fs[len(fs)-t.limit].Add(t.window).Sub(now)
	}
	if len(t.failures) >= throttleSweepAt {
		for a := range t.failures {
			t.recent(a, now)
		}
	}
	t.failures[addr] = append(t.recent(addr, now), now)
	return 0
}

// reset forgets addr's failures after a successful login.
func (t *throttle) reset(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.failures, addr)
}

// recent drops addr's failures older than the window and returns the rest.
func (t *throttle) recent(addr string, now time.Time) []time.Time {
	fs := t.failures[addr]
	i := 0
	for i < len(fs) && now.Sub(fs[i]) >= t.window {
		i++
	}
	fs = fs[i:]
	if len(fs) == 0 {
		delete(t.failures, addr)
		return nil
	}
	t.failures[addr] = fs
	return fs
}
