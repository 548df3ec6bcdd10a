package chat

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimiter bounds how many turns each user may start: Limit per Window
// (USER_RATE_LIMIT), as a token bucket per user that starts full. Users idle
// for a window are forgotten, so the map does not grow with every user ever
// seen. The limit can change while running (the admin page's settings).
type RateLimiter struct {
	mu        sync.Mutex
	limit     int
	window    time.Duration
	users     map[string]*userBucket
	lastSweep time.Time
}

type userBucket struct {
	lim    *rate.Limiter
	seen   time.Time
	warned bool
}

// NewRateLimiter returns a limiter of limit turns per window; limit 0 lets
// everything through.
func NewRateLimiter(limit int, window time.Duration) *RateLimiter {
	l := &RateLimiter{users: map[string]*userBucket{}}
	l.Set(limit, window)
	return l
}

// Set changes the limit; every user starts again with a full bucket.
func (l *RateLimiter) Set(limit int, window time.Duration) {
	if window <= 0 {
		window = time.Minute
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limit, l.window = max(limit, 0), window
	clear(l.users)
}

// Allow takes a turn for user at now if the user has one left. When not
// allowed, notify is true the first time only, so a user hammering the bot
// gets one notice per episode.
func (l *RateLimiter) Allow(user string, now time.Time) (allowed, notify bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit == 0 {
		return true, false
	}
	if now.Sub(l.lastSweep) >= l.window {
		for u, b := range l.users {
			if now.Sub(b.seen) >= l.window {
				delete(l.users, u)
			}
		}
		l.lastSweep = now
	}
	b := l.users[user]
	if b == nil {
		b = &userBucket{lim: rate.NewLimiter(rate.Every(l.window/time.Duration(l.limit)), l.limit)}
		l.users[user] = b
	}
	b.seen = now
	if b.lim.AllowN(now, 1) {
		b.warned = false
		return true, false
	}
	notify = !b.warned
	b.warned = true
	return false, notify
}
