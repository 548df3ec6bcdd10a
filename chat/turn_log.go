package chat

import (
	"context"
	"log/slog"
)

// TurnLogHandler wraps h so that a line logged with a turn's context
// carries its turn_id.
func TurnLogHandler(h slog.Handler) slog.Handler { return turnIDHandler{h} }

// turnIDHandler adds the turn_id of the record's context, if any.
type turnIDHandler struct{ slog.Handler }

func (h turnIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := TurnID(ctx); id != "" {
		r.AddAttrs(slog.String("turn_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h turnIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return turnIDHandler{h.Handler.WithAttrs(as)}
}

func (h turnIDHandler) WithGroup(name string) slog.Handler {
	return turnIDHandler{h.Handler.WithGroup(name)}
}
