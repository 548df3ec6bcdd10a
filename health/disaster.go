package health

import (
	"context"
	"fmt"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/disaster"
	"github.com/yorozu-bot/yorozu/jma"
)

// doctorDisaster checks the disaster posts when they are on: where they go
// (the webhook exists, or the bot may post in the channel) and one read of
// each JMA list they follow. Nothing is posted.
func doctorDisaster(ctx context.Context, cfg *config.Config) []finding {
	d := cfg.Disaster
	if !d.Enabled() {
		return []finding{{group: "disaster", label: "disaster",
			message: "地震・津波・警報の投稿はオフです / the disaster posts are off (no QUAKE_WEBHOOK_URL or QUAKE_CHANNEL_ID)"}}
	}
	var out []finding
	cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	f := finding{group: "disaster", label: "the disaster posts"}
	switch {
	case d.QuakeWebhookURL != "":
		if diag := bot.CheckWebhook(cctx, nil, d.QuakeWebhookURL); diag != nil {
			f = fromDiagnosis("disaster", "the disaster posts", levelFail, *diag)
			f.message = "the disaster posts (QUAKE_WEBHOOK_URL): " + f.message
		} else {
			f.message = "地震・津波・警報の投稿の Webhook があります / the disaster posts' webhook (QUAKE_WEBHOOK_URL) exists"
		}
	default:
		opts := discordOptions(cfg)
		opts.Responder = nobody{}
		b, err := bot.New(opts)
		if err != nil {
			return []finding{{group: "disaster", level: levelFail, message: "Discord を確かめられません / cannot check Discord: " + err.Error()}}
		}
		defer b.Stop()
		if diag := b.CheckChannel(cctx, d.QuakeChannelID, bot.PostPermissions); diag != nil {
			f = fromDiagnosis("disaster", "the disaster posts", levelFail, *diag)
			f.message = "the disaster posts (QUAKE_CHANNEL_ID): " + f.message
		} else {
			f.message = fmt.Sprintf("地震・津波・警報の投稿のチャンネル %s にボットが投稿できます / the bot may post in channel %s, for the disaster posts", d.QuakeChannelID, d.QuakeChannelID)
		}
	}
	out = append(out, f)

	client := jma.NewClient(jma.ClientOptions{BaseURL: cfg.JMABaseURL})
	for _, l := range []struct {
		ja, en, path string
		parse        func([]byte) error
	}{
		{"地震情報", "the earthquake list", disaster.QuakeListPath, func(b []byte) error { _, _, err := disaster.ParseQuakeList(b); return err }},
		{"津波情報", "the tsunami list", disaster.TsunamiListPath, func(b []byte) error { _, _, err := disaster.ParseTsunamiList(b); return err }},
		{"気象警報 (" + cfg.WeatherAreaCode + ")", "the warnings of WEATHER_AREA_CODE " + cfg.WeatherAreaCode, disaster.WarningPath(cfg.WeatherAreaCode),
			func(b []byte) error { _, err := disaster.ParseWarnings(cfg.WeatherAreaCode, b); return err }},
	} {
		f := finding{group: "disaster", label: "JMA " + l.path}
		body, err := client.Get(cctx, l.path)
		if err == nil {
			err = l.parse(body)
		}
		if err != nil {
			f.level = levelFail
			f.message = fmt.Sprintf("気象庁の%sを読めません / cannot read JMA's %s: %v", l.ja, l.en, err)
			f.fix = "JMA_BASE_URL とネットワーク（プロキシ）を確認してください / check JMA_BASE_URL and the network (a proxy)"
		} else {
			f.message = fmt.Sprintf("気象庁の%sを読めます / JMA's %s can be read", l.ja, l.en)
		}
		out = append(out, f)
	}
	return out
}
