package scheduler

import (
	"context"
	"log/slog"

	"github.com/yorozu-bot/yorozu/memory"
)

// ChannelGuilds tells the server of a channel; *bot.Bot satisfies it.
type ChannelGuilds interface {
	ChannelGuild(ctx context.Context, channelID string) (string, error)
}

// DefaultSpacer gives the space of what belongs to no server;
// *memory.Memory satisfies it.
type DefaultSpacer interface {
	DefaultSpace(ctx context.Context) (memory.Space, error)
}

// PostSpace gives the space of a scheduled post's destination (the
// options' Space): the server of its channel when it is a bot message and
// guilds (nil without the bot) can tell; for a webhook (or a channel that
// cannot be looked up) the one configured for it (TIPS_SPACE,
// WEATHER_SPACE), else the default space.
func PostSpace(configured string, dest func() Destination, guilds ChannelGuilds, spaces DefaultSpacer, log *slog.Logger) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		d := dest()
		if channel := d.ChannelID; d.WebhookURL == "" && channel != "" && guilds != nil {
			guild, err := guilds.ChannelGuild(ctx, channel)
			if err == nil && guild != "" {
				return string(memory.GuildSpace(guild)), nil
			}
			if err != nil {
				log.Warn("space of a post's channel unknown", "channel_id", channel, "err", err)
			}
		}
		if configured != "" {
			return configured, nil
		}
		s, err := spaces.DefaultSpace(ctx)
		return string(s), err
	}
}
