package main

import (
	"context"

	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// onlyGuildSpace is the default space when DISCORD_GUILDS names exactly one
// server; otherwise memory picks it (the only server that has used the bot,
// else the web space).
func onlyGuildSpace(guilds []string) memory.Space {
	if len(guilds) == 1 {
		return memory.GuildSpace(guilds[0])
	}
	return ""
}

// postSpace gives the space of a scheduled post's destination: the one
// configured for it, else the server of its channel (a bot message), else
// the default space.
func (a *app) postSpace(configured string, dest func() scheduler.Destination) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		if configured != "" {
			return configured, nil
		}
		d := dest()
		if channel := d.ChannelID; d.WebhookURL == "" && channel != "" && a.bot != nil {
			guild, err := a.bot.ChannelGuild(ctx, channel)
			if err == nil && guild != "" {
				return string(memory.GuildSpace(guild)), nil
			}
			if err != nil {
				a.logger.Warn("space of a post's channel unknown: using the default space", "channel_id", channel, "err", err)
			}
		}
		s, err := a.memory.DefaultSpace(ctx)
		return string(s), err
	}
}
