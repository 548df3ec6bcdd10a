package db

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// How often Watch pings: often while the database is away, so its return is
// seen within a second; seldom while it answers — the parts that fail
// first (River's, whose listening connection is pinged every 5 s) ask
// Check at once, and Check wakes Run when it finds the database away, so
// the ping while up is only a backstop, and not what an idle process costs.
const (
	watchWhileDown = time.Second
	watchWhileUp   = 5 * time.Minute
	watchTimeout   = 2 * time.Second
)

// Watch follows whether the database answers, for the parts whose own
// retries would each log an outage again and again (River's producers): it
// logs one ERROR when the database stops answering and one INFO when it is
// back, and those parts log at debug level while it is away.
type Watch struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu     sync.Mutex // held through a ping: callers at once share its answer
	down   bool
	since  time.Time // when it went away
	pinged time.Time
	// away tells Run that Check found the database away, so it pings
	// until it is back.
	away chan struct{}
}

// NewWatch returns a Watch of pool's database; Run keeps it current.
func NewWatch(pool *pgxpool.Pool, log *slog.Logger) *Watch {
	return &Watch{pool: pool, log: log.With(slog.String("component", "database")), away: make(chan struct{}, 1)}
}

// Down reports whether the database was away at the last check.
func (w *Watch) Down() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.down
}

// Check reports whether the database is away: it pings, unless it found it
// away less than a second ago.
func (w *Watch) Check(ctx context.Context) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.down && time.Since(w.pinged) < watchWhileDown {
		return true
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), watchTimeout)
	defer cancel()
	err := w.pool.Ping(ctx)
	w.pinged = time.Now()
	switch {
	case err != nil && !w.down:
		w.down, w.since = true, w.pinged
		w.log.Error("the database does not answer; retrying, and the parts that need it wait", "err", err)
		select {
		case w.away <- struct{}{}:
		default:
		}
	case err == nil && w.down:
		w.down = false
		w.log.Info("the database answers again", "away", w.pinged.Sub(w.since).Round(time.Millisecond).String())
	}
	return w.down
}

// Run checks until ctx ends: every second while the database is away,
// seldom while it answers.
func (w *Watch) Run(ctx context.Context) {
	for {
		wait := watchWhileUp
		if w.Check(ctx) {
			wait = watchWhileDown
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-w.away:
			t.Stop()
		}
	}
}
