package memory

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// repeatWindow is how long after a warning from memory's background work
// another one is logged at INFO instead. While the database is away every
// turn's tags and summary fail the same way; the operator needs one line
// about it, not one per turn.
const repeatWindow = time.Minute

// quietRepeats wraps a handler so that a WARN within repeatWindow of the
// last one is logged at INFO. ERROR is never lowered.
func quietRepeats(h slog.Handler) slog.Handler {
	return &quietHandler{next: h, last: &lastWarn{}}
}

type lastWarn struct {
	mu sync.Mutex
	at time.Time
}

// lower reports whether a warning at t repeats an earlier one; it moves
// the window on only for a warning that is logged as one.
func (l *lastWarn) lower(t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.at.IsZero() && t.Sub(l.at) < repeatWindow {
		return true
	}
	l.at = t
	return false
}

type quietHandler struct {
	next slog.Handler
	last *lastWarn
}

func (q *quietHandler) Enabled(ctx context.Context, level slog.Level) bool {
	if level == slog.LevelWarn {
		return q.next.Enabled(ctx, slog.LevelInfo) || q.next.Enabled(ctx, level)
	}
	return q.next.Enabled(ctx, level)
}

func (q *quietHandler) Handle(ctx context.Context, r slog.Record) error {
	at := r.Time
	if at.IsZero() {
		at = time.Now()
	}
	if r.Level == slog.LevelWarn && q.last.lower(at) {
		r.Level = slog.LevelInfo
		if !q.next.Enabled(ctx, r.Level) {
			return nil
		}
	}
	return q.next.Handle(ctx, r)
}

func (q *quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &quietHandler{next: q.next.WithAttrs(attrs), last: q.last}
}

func (q *quietHandler) WithGroup(name string) slog.Handler {
	return &quietHandler{next: q.next.WithGroup(name), last: q.last}
}
