package main

import (
	"context"
	"strings"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/scheduler"
	"github.com/yorozu-bot/yorozu/tools/browse"
	"github.com/yorozu-bot/yorozu/tools/fetch"
	"github.com/yorozu-bot/yorozu/web"
)

// webDeps gives the admin page the parts it works on. A part that cannot be
// built is logged and left out: its routes answer 503, the rest works.
func (a *app) webDeps(ctx context.Context) web.Deps {
	deps := web.Deps{
		Chat:      a.chooser,
		Memory:    a.memory,
		Limiter:   a.limiter,
		Reminders: a.sched.Reminders(),
		Schedules: a.sched.Reminders(),
		Words:     a.words,
		Models:    a.llm.Pool(),
		Revisions: a.memory,

		ChannelSaved:  a.channelSaved,
		ChannelLogSet: a.chanlog.Set,
	}
	a.jobsUI = a.sched.JobsUI(a.logger)
	deps.Jobs = a.jobsUI
	settings, err := web.NewSettings(ctx, a.db.pool, settingDefs(a.cfg))
	if err != nil {
		a.logger.Error("settings page unavailable; environment values are used", "err", err)
		return deps
	}
	deps.Settings = settings
	a.settings = settings
	a.chooser.UseSettings(settings)
	a.applySettings(settings, deps.Limiter)
	settings.OnChange(func(key, value string) {
		a.logger.Info("setting changed on the admin page", "key", key)
		a.applySettings(settings, deps.Limiter)
		if strings.HasSuffix(key, "_model") {
			a.health.Recheck()
		}
	})
	return deps
}

// applySettings puts the live settings in force.
func (a *app) applySettings(s *web.Settings, limiter *chat.RateLimiter) {
	if n, window, err := config.ParseRate(s.Get("user_rate_limit")); err == nil {
		limiter.Set(n, window)
	}
	a.applyPostSettings(s)
	searcher, err := a.newSearcher(s.Get("search_backend"), s.Get("searxng_url"), s.Get("tavily_api_key"))
	if err != nil {
		a.logger.Warn("search backend from the settings not usable; keeping the previous one", "err", err)
		return
	}
	a.search.Set(searcher)
}

// applyPostSettings puts the scheduled posts' settings in force. A bad
// schedule keeps that post's previous settings (the page checked it first).
func (a *app) applyPostSettings(s *web.Settings) {
	if err := a.weather.Apply(scheduler.PostSettings{
		Dest:  a.dest(s.Get("weather_webhook_url"), s.Get("weather_channel_id")),
		Model: s.Get("weather_notify_model"), Cron: s.Get("weather_cron"),
	}); err != nil {
		a.logger.Warn("weather post settings not usable; keeping the previous ones", "err", err)
	}
	if err := a.tips.Apply(scheduler.PostSettings{
		Dest:  a.dest(s.Get("tips_webhook_url"), s.Get("tips_channel_id")),
		Model: s.Get("default_model"), Cron: s.Get("tips_cron"),
	}); err != nil {
		a.logger.Warn("tips settings not usable; keeping the previous ones", "err", err)
	}
}

// dest is a scheduled post's destination: the webhook when one is set,
// else the channel, through the bot (which knows the webhook's posts as
// its own).
func (a *app) dest(webhook, channel string) scheduler.Destination {
	d := scheduler.Destination{WebhookURL: webhook, ChannelID: channel, HTTPClient: a.webhookClient()}
	if a.bot != nil {
		d.Discord = a.bot
		a.bot.OwnWebhook(webhook)
	}
	return d
}

// settingDefs are the admin page's settings of cfg.
func settingDefs(cfg *config.Config) []web.SettingDef {
	return web.SettingDefs(cfg, func(expr string) error {
		_, err := scheduler.ParseCron(expr, cfg.Location)
		return err
	})
}

func (a *app) newSearcher(backend, url, key string) (browse.Searcher, error) {
	return browse.NewSearcher(browse.SearchOptions{Backend: backend, BaseURL: url, APIKey: key, UserAgent: fetch.UserAgent(version)})
}

// startWeb makes sure there is an admin password (writing a generated one
// to DATA_DIR/admin-password, never to the log) and starts the HTTP server.
func (a *app) startWeb(ctx context.Context) error {
	if err := web.EnsurePasswordFile(ctx, a.db.pool, a.cfg.AdminPassword, web.PasswordFile(a.cfg.DataDir), a.logger); err != nil {
		return err
	}
	a.jobsUI.Start(ctx)
	return a.web.Start(ctx)
}

// channelSaved puts a place's settings, as the admin page or a slash
// command stored them, in force at once: the turns' persona and model, and
// the bot's mode.
func (a *app) channelSaved(ctx context.Context, s db.ChannelSetting) {
	if err := a.chooser.ReloadChannels(ctx); err != nil {
		a.logger.Warn("channel settings stored; the turns have them once read again", "err", err)
	}
	if a.bot != nil && s.ChannelID != "" {
		mode := ""
		if s.Mode != nil {
			mode = *s.Mode
		}
		a.bot.SetChannelMode(s.ChannelID, mode)
	}
}
