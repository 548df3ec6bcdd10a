package chat

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// Settings are the admin page's live settings; chat reads the models in
// force from them ("default_model", "reminder_model").
type Settings interface {
	Get(key string) string
}

// Chooser hands turns to a Router with the persona and model in force: the
// turn's own, else its Discord channel's (thread's, server's), else the
// settings'. Discord and the admin page both call it.
type Chooser struct {
	Router *Router
	// Channels holds each Discord channel's persona and model; nil: none.
	Channels db.Querier
	Logger   *slog.Logger

	settings atomic.Pointer[Settings]
}

// UseSettings puts the admin page's settings in force.
func (c *Chooser) UseSettings(s Settings) { c.settings.Store(&s) }

// Settings are the settings in force (nil before UseSettings).
func (c *Chooser) Settings() Settings {
	if s := c.settings.Load(); s != nil {
		return *s
	}
	return nil
}

// Respond gives the turn its persona and model and routes it.
func (c *Chooser) Respond(ctx context.Context, req Request, emit func(llm.Event) error) error {
	route, _ := c.Router.pick(req)
	req = c.applyChannel(ctx, req, route)
	if s := c.Settings(); s != nil && req.Model == "" {
		key := "default_model"
		if route == "reminder" {
			key = "reminder_model"
		}
		req.Model = s.Get(key)
	}
	return c.Router.Respond(ctx, req, emit)
}

// applyChannel gives a Discord turn its channel's persona, and its model
// unless the turn is routed to reminders: those keep REMINDER_MODEL, chosen
// for reliable tool calls and date arithmetic. A lookup that fails leaves
// the turn as it was.
func (c *Chooser) applyChannel(ctx context.Context, req Request, route string) Request {
	if c.Channels == nil || req.Source != "discord" || req.ChannelID == "" {
		return req
	}
	sctx, cancel := context.WithTimeout(ctx, defaultStoreTimeout)
	defer cancel()
	e, err := db.ChannelSettingsInForce(sctx, c.Channels, req.GuildID, req.ChannelID, req.ParentID)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			c.Logger.WarnContext(ctx, "channel settings: yorozu's defaults apply", "channel_id", req.ChannelID, "err", err)
		}
		return req
	}
	if req.Persona == "" {
		req.Persona = e.Persona
	}
	if req.Model == "" && route != "reminder" {
		req.Model = e.Model
	}
	return req
}
