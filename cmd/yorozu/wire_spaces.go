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

// postSpace gives the space of a scheduled post's destination: the server
// of its channel when it is a bot message; for a webhook (or a channel the
// bot cannot look up) the one configured for it (TIPS_SPACE,
// WEATHER_SPACE), else the default space.
func (a *app) postSpace(configured string, dest func() scheduler.Destination) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		d := dest()
		if channel := d.ChannelID; d.WebhookURL == "" && channel != "" && a.bot != nil {
			guild, err := a.bot.ChannelGuild(ctx, channel)
			if err == nil && guild != "" {
				return string(memory.GuildSpace(guild)), nil
			}
			if err != nil {
				a.logger.Warn("space of a post's channel unknown", "channel_id", channel, "err", err)
			}
		}
		if configured != "" {
			return configured, nil
		}
		s, err := a.memory.DefaultSpace(ctx)
		return string(s), err
	}
}
