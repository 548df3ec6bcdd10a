package chat

import (
	"context"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/tools"
)

// CallLog keeps every model call in api_logs, with the turn, session and
// space it served, so the admin page can tell whose call it was.
type CallLog struct {
	DB db.Querier
}

var _ llm.Recorder = CallLog{}

// RecordCall tags the row with the space of the turn (tools.Caller), or of
// the background work or post it was for (llm.WithSpace).
func (l CallLog) RecordCall(ctx context.Context, c llm.Call) error {
	caller, _ := tools.CallerFrom(ctx)
	space := caller.Space
	if space == "" {
		space = llm.SpaceOf(ctx)
	}
	return db.InsertAPILog(ctx, l.DB, db.APILogParams{
		Space:            space,
		TurnID:           TurnID(ctx),
		Kind:             c.Kind,
		SessionKey:       caller.Session,
		Model:            c.Model,
		Request:          c.Request,
		Response:         c.Response,
		Error:            c.Err,
		Latency:          c.Latency,
		PromptTokens:     c.PromptTokens,
		CompletionTokens: c.CompletionTokens,
		CreatedAt:        c.At,
	})
}
