package main

import (
	"context"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/db"
)

// channelModes reads the channels' modes for the bot.
type channelModes struct{ q db.Querier }

var _ bot.ChannelModes = channelModes{}

func (c channelModes) ChannelModes(ctx context.Context) ([]db.ChannelMode, error) {
	return db.ChannelModes(ctx, c.q)
}
