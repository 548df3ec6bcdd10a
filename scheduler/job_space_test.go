package scheduler

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/yorozu-bot/yorozu/memory"
)

type guildsOf map[string]string

func (g guildsOf) ChannelGuild(_ context.Context, channel string) (string, error) {
	if guild, ok := g[channel]; ok {
		return guild, nil
	}
	return "", errors.New("unknown channel")
}

type defaultSpace memory.Space

func (d defaultSpace) DefaultSpace(context.Context) (memory.Space, error) {
	return memory.Space(d), nil
}

// A post's memories go to the server of its channel when the bot posts it;
// a webhook's, or a channel that cannot be looked up, to the space set for
// the post, else the default one.
func TestPostSpace(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	guilds := guildsOf{"100": "900"}
	for _, tc := range []struct {
		name       string
		dest       Destination
		guilds     ChannelGuilds
		configured string
		want       string
	}{
		{"a bot message", Destination{ChannelID: "100"}, guilds, "guild:5", "guild:900"},
		{"a webhook", Destination{WebhookURL: "https://discord.test/api/webhooks/1/t", ChannelID: "100"}, guilds, "guild:5", "guild:5"},
		{"an unknown channel", Destination{ChannelID: "101"}, guilds, "guild:5", "guild:5"},
		{"no bot", Destination{ChannelID: "100"}, nil, "", "web"},
		{"nothing set", Destination{WebhookURL: "https://discord.test/api/webhooks/1/t"}, guilds, "", "web"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PostSpace(tc.configured, func() Destination { return tc.dest }, tc.guilds, defaultSpace("web"), log)(t.Context())
			if err != nil || got != tc.want {
				t.Errorf("space = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
