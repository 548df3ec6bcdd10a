package llm

import (
	"context"
	"errors"
)

// Kinds of LLM call, recorded with each Call so that metrics and logs can
// tell a user's answer from housekeeping.
const (
	KindReply     = "reply"     // a user's turn (the default)
	KindSummary   = "summary"   // folding old turns into a summary
	KindKnowledge = "knowledge" // turning web findings into knowledge
	KindEmbed     = "embed"     // an embedding
	KindJob       = "job"       // a scheduled post (weather, tips)
)

type kindKey struct{}

// WithKind returns ctx marked so that the LLM calls made under it are
// recorded as kind (one of the Kind constants).
func WithKind(ctx context.Context, kind string) context.Context {
	return context.WithValue(ctx, kindKey{}, kind)
}

// KindOf is the kind WithKind set on ctx, KindReply when none was set.
func KindOf(ctx context.Context) string {
	if k, ok := ctx.Value(kindKey{}).(string); ok && k != "" {
		return k
	}
	return KindReply
}

type spaceKey struct{}

// WithSpace returns ctx marked so that the LLM calls made under it are
// recorded as serving space (whose memory the call was for: a server, a
// user's DMs, the web page), e.g. a summary written in the background. The
// pipeline itself does not read it; recorders do.
func WithSpace(ctx context.Context, space string) context.Context {
	return context.WithValue(ctx, spaceKey{}, space)
}

// SpaceOf is the space WithSpace set on ctx, "" when none was set.
func SpaceOf(ctx context.Context) string {
	s, _ := ctx.Value(spaceKey{}).(string)
	return s
}

// Outcome classifies how a call ended, in a few fixed words fit for a
// metric label: ok, model_missing, unavailable, timeout, canceled or error.
func Outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrModelNotFound):
		return "model_missing"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	default:
		return "error"
	}
}
