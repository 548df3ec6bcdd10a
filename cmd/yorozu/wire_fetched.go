package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/browse"
)

// keptDocs keeps what the web tools fetch with the conversation, in memory:
// the web tools' Keeper.
type keptDocs struct {
	memory *memory.Memory
	logger *slog.Logger
}

var _ browse.Keeper = keptDocs{}

func (k keptDocs) Keep(ctx context.Context, c tools.Caller, d browse.KeptDoc) {
	_, err := k.memory.KeepFetched(ctx, memory.SessionKey(c.Session), memory.FetchedDoc{
		URL: d.URL, Title: d.Title, MediaType: d.MediaType, Size: d.Size, Text: d.Text, Tool: d.Tool,
		Source: c.Source, GuildID: c.GuildID, ChannelID: c.ChannelID, Space: memory.Space(c.Space),
	})
	if err != nil {
		k.logger.Warn("keep fetched document", "session", c.Session, "tool", d.Tool, "err", err)
	}
}

func (k keptDocs) List(ctx context.Context, session string) ([]browse.KeptDoc, error) {
	fs, err := k.memory.FetchedFiles(ctx, memory.SessionKey(session))
	if err != nil {
		return nil, err
	}
	out := make([]browse.KeptDoc, len(fs))
	for i, f := range fs {
		out[i] = keptDoc(f)
	}
	return out, nil
}

func (k keptDocs) Get(ctx context.Context, session string, id int64) (browse.KeptDoc, bool, error) {
	f, err := k.memory.FetchedFile(ctx, memory.SessionKey(session), id)
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
