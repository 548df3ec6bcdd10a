package main

import (
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/metrics"
)

// newLogger writes LOG_FORMAT lines to w; a line logged with a turn's
// context carries its turn_id.
func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{ReplaceAttr: config.RedactAttr}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(chat.TurnLogHandler(h))
}

// newMetrics makes the registry; its gauges read the app's parts when
// scraped, so it may be built before them.
func (a *app) newMetrics() *metrics.Metrics {
	return metrics.New(metrics.Options{
		Version: versionString(),
		QueueLength: func() int {
			if a.llm == nil {
				return 0
			}
			return a.llm.QueueLen()
		},
		ModelServers: func() []llm.ServerStatus {
			if a.llm == nil {
				return nil
			}
			return a.llm.Pool().Status()
		},
		Gateway: a.holdsGateway,
		ChannelLogDropped: func() uint64 {
			if a.chanlog == nil {
				return 0
			}
			return a.chanlog.Dropped()
		},
	})
}

// holdsGateway is true while this process is connected to the Discord
// gateway (not standing by for another).
func (a *app) holdsGateway() bool {
	return a.bot != nil && !a.handover.Standby() && a.bot.Ready()
}

// instrumentDiscord counts the bot's REST calls and gateway reconnects.
func (a *app) instrumentDiscord(b *bot.Bot) {
	s := b.Session()
	client := *s.Client
	client.Transport = a.metrics.DiscordTransport(client.Transport)
	s.Client = &client
	s.AddHandler(func(*discordgo.Session, *discordgo.Connect) { a.metrics.DiscordConnected() })
}

// webhookTimeout bounds one webhook post of a scheduled message.
const webhookTimeout = 30 * time.Second

// webhookClient posts scheduled messages through webhooks, counted like
// the bot's own calls.
func (a *app) webhookClient() *http.Client {
	return &http.Client{Timeout: webhookTimeout, Transport: a.metrics.DiscordTransport(nil)}
}
