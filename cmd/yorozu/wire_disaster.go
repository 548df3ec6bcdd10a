package main

import (
	"context"
	"fmt"

	"github.com/yorozu-bot/yorozu/disaster"
	"github.com/yorozu-bot/yorozu/scheduler"
	"github.com/yorozu-bot/yorozu/tools/disasterinfo"
	"github.com/yorozu-bot/yorozu/web"
)

// buildDisaster wires JMA's disaster information when QUAKE_WEBHOOK_URL or
// QUAKE_CHANNEL_ID is set: the poll (job "disaster") and the model's
// disaster_info tool. Off, neither exists.
func (a *app) buildDisaster() error {
	cfg := a.cfg.Disaster
	if !cfg.Enabled() {
		return nil
	}
	least, err := disaster.ParseIntensity(cfg.QuakeMinIntensity)
	if err != nil {
		return fmt.Errorf("QUAKE_MIN_INTENSITY: %w", err)
	}
	from, err := disaster.ParseIntensity(cfg.QuakeMentionFrom)
	if err != nil {
		return fmt.Errorf("QUAKE_MENTION: %w", err)
	}
	dest := scheduler.DisasterDest{WebhookURL: cfg.QuakeWebhookURL, ChannelID: cfg.QuakeChannelID, HTTPClient: a.webhookClient()}
	if a.bot != nil {
		dest.Discord = a.bot.Session()
		a.bot.OwnWebhook(cfg.QuakeWebhookURL)
	}
	a.disaster = scheduler.NewDisaster(scheduler.DisasterOptions{
		JMA:  a.jma,
		DB:   a.db.pool,
		Dest: dest, MinIntensity: least, Areas: cfg.QuakeAreas, Poll: cfg.QuakePoll, MaxAge: cfg.QuakeMaxAge,
		MentionRole: cfg.QuakeMentionRole, MentionFrom: from,
		Office: a.cfg.WeatherAreaCode, IncludeAdvisories: cfg.WarningIncludeAdvisories,
		Now: clock, Logger: a.logger,
	})
	if err := a.disaster.Register(a.sched); err != nil {
		return err
	}
	return a.tools.Register(disasterinfo.Tool(a.db.pool, a.cfg.Location, clock))
}

// disasterChecks is the disaster part of /readyz, only when it is on: a JMA
// list that did not read last time degrades it (yorozu stays ready).
func (a *app) disasterChecks() []web.Check {
	if a.disaster == nil {
		return nil
	}
	return []web.Check{{Name: "disaster", Fn: func(ctx context.Context) error {
		if err := a.disaster.Unreachable(ctx); err != nil {
			return web.Degraded(err)
		}
		return nil
	}}}
}
