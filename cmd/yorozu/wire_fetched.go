package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/web"
)

// keptDocs keeps what the web tools fetch with the conversation, in memory:
// the web tools' Keeper.
type keptDocs struct {
	memory *memory.Memory
	logger *slog.Logger
}

var _ web.Keeper = keptDocs{}

func (k keptDocs) Keep(ctx context.Context, c tools.Caller, d web.KeptDoc) {
	_, err := k.memory.KeepFetched(ctx, memory.SessionKey(c.Session), memory.FetchedDoc{
		URL: d.URL, Title: d.Title, MediaType: d.MediaType, Size: d.Size, Text: d.Text, Tool: d.Tool,
		Source: c.Source, GuildID: c.GuildID, ChannelID: c.ChannelID, Space: memory.Space(c.Space),
	})
	if err != nil {
		k.logger.Warn("keep fetched document", "session", c.Session, "tool", d.Tool, "err", err)
	}
}

func (k keptDocs) List(ctx context.Context, session string) ([]web.KeptDoc, error) {
	fs, err := k.memory.FetchedFiles(ctx, memory.SessionKey(session))
	if err != nil {
		return nil, err
	}
	out := make([]web.KeptDoc, len(fs))
	for i, f := range fs {
		out[i] = keptDoc(f)
	}
	return out, nil
}

func (k keptDocs) Get(ctx context.Context, session string, id int64) (web.KeptDoc, bool, error) {
	f, err := k.memory.FetchedFile(ctx, memory.SessionKey(session), id)
	if errors.Is(err, db.ErrNotFound) {
		return web.KeptDoc{}, false, nil
	}
	if err != nil {
		return web.KeptDoc{}, false, err
	}
	return keptDoc(f), true, nil
}

func keptDoc(f db.FetchedFile) web.KeptDoc {
	return web.KeptDoc{
		ID: f.ID, URL: f.URL, Title: f.Title, MediaType: f.MediaType, Size: f.SizeBytes, Text: f.Content,
		Truncated: f.Truncated, Tool: f.Tool, FetchedAt: f.FetchedAt,
	}
}
