package chat

import (
	"context"
	"strings"

	"github.com/yorozu-bot/yorozu/llm"
)

// Responder answers turns as the adapters call them: *Router and *Chooser.
type Responder interface {
	Respond(ctx context.Context, req Request, emit func(llm.Event) error) error
}

// Answer runs one turn through r and returns its visible answer whole, for
// a caller that posts it at once: a scheduled post. Progress events are
// dropped; the turn is kept in memory as any is.
func Answer(ctx context.Context, r Responder, req Request) (string, error) {
	var b strings.Builder
	err := r.Respond(ctx, req, func(e llm.Event) error {
		if t, ok := e.(llm.Text); ok {
			b.WriteString(t.Text)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}
