package chat

import (
	"context"
	"errors"
	"log/slog"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/browse"
)

// KeptDocs keeps what the web tools fetch with the conversation, in memory:
// the web tools' Keeper.
type KeptDocs struct {
	Memory *memory.Memory
	Logger *slog.Logger
}

var _ browse.Keeper = KeptDocs{}

// Keep stores d with the caller's conversation; a failure is logged.
func (k KeptDocs) Keep(ctx context.Context, c tools.Caller, d browse.KeptDoc) {
	_, err := k.Memory.KeepFetched(ctx, memory.SessionKey(c.Session), memory.FetchedDoc{
		URL: d.URL, Title: d.Title, MediaType: d.MediaType, Size: d.Size, Text: d.Text, Tool: d.Tool,
		Source: c.Source, GuildID: c.GuildID, ChannelID: c.ChannelID, Space: memory.Space(c.Space),
	})
	if err != nil {
		k.Logger.Warn("keep fetched document", "session", c.Session, "tool", d.Tool, "err", err)
	}
}

// List is what the conversation keeps.
func (k KeptDocs) List(ctx context.Context, session string) ([]browse.KeptDoc, error) {
	fs, err := k.Memory.FetchedFiles(ctx, memory.SessionKey(session))
	if err != nil {
		return nil, err
	}
	out := make([]browse.KeptDoc, len(fs))
	for i, f := range fs {
		out[i] = keptDoc(f)
	}
	return out, nil
}

// Get is one kept document of the conversation; false when there is none.
func (k KeptDocs) Get(ctx context.Context, session string, id int64) (browse.KeptDoc, bool, error) {
	f, err := k.Memory.FetchedFile(ctx, memory.SessionKey(session), id)
	if errors.Is(err, db.ErrNotFound) {
		return browse.KeptDoc{}, false, nil
	}
	if err != nil {
		return browse.KeptDoc{}, false, err
	}
	return keptDoc(f), true, nil
}

func keptDoc(f db.FetchedFile) browse.KeptDoc {
	return browse.KeptDoc{
		ID: f.ID, URL: f.URL, Title: f.Title, MediaType: f.MediaType, Size: f.SizeBytes, Text: f.Content,
		Truncated: f.Truncated, Tool: f.Tool, FetchedAt: f.FetchedAt,
	}
}
