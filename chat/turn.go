package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

type turnIDKey struct{}

// WithTurnID returns ctx carrying id as the turn id: every log line written
// with that context, and every LLM call recorded under it, names the turn.
func WithTurnID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, turnIDKey{}, id)
}

// TurnID is the turn id on ctx, or "" outside a turn.
func TurnID(ctx context.Context) string {
	id, _ := ctx.Value(turnIDKey{}).(string)
	return id
}

// NewTurnID returns a fresh random turn id (16 hex digits).
func NewTurnID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Middleware wraps the handler a request was routed to; route is the
// route's name ("chat", "reminder", …). Metrics and tracing use it.
type Middleware func(route string, next Handler) Handler
