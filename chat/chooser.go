package chat

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

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
	// ChannelsRefresh is how long the channels' settings are kept in
	// memory before they are read again (a change made elsewhere applies
	// within it; ReloadChannels applies one made here at once); default
	// 30 s.
	ChannelsRefresh time.Duration
	Logger          *slog.Logger

	settings atomic.Pointer[Settings]
	initOnce sync.Once
	channels *channelCache // nil without Channels
}

// defaultChannelsRefresh is the default Chooser.ChannelsRefresh, the bot's
// ModeRefresh.
const defaultChannelsRefresh = 30 * time.Second

func (c *Chooser) init() {
	c.initOnce.Do(func() {
		if c.Channels == nil {
			return
		}
		refresh := c.ChannelsRefresh
		if refresh <= 0 {
			refresh = defaultChannelsRefresh
		}
		c.channels = &channelCache{q: c.Channels, refresh: refresh}
	})
}

// ReloadChannels reads the channels' settings again, so the next turn has
// them: the admin page and the slash commands call it after they stored a
// change. On failure the next turn past ChannelsRefresh tries again.
func (c *Chooser) ReloadChannels(ctx context.Context) error {
	c.init()
	if c.channels == nil {
		return nil
	}
	return c.channels.reload(ctx)
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
	route, h := c.Router.pick(req)
	req = c.applyChannel(ctx, req, route)
	if s := c.Settings(); s != nil && req.Model == "" {
		key := "default_model"
		if route == RouteReminder {
			key = "reminder_model"
		}
		req.Model = s.Get(key)
	}
	return c.Router.respond(ctx, req, route, h, emit)
}

// applyChannel gives a Discord turn its channel's persona, leaves out the
// channel's talk where /channel context is off, and gives it its model
// unless the turn is routed to reminders: those keep REMINDER_MODEL, chosen
// for reliable tool calls and date arithmetic. A lookup that fails leaves
// the turn as it was.
func (c *Chooser) applyChannel(ctx context.Context, req Request, route string) Request {
	c.init()
	if c.channels == nil || req.Source != "discord" || req.ChannelID == "" {
		return req
	}
	sctx, cancel := context.WithTimeout(ctx, defaultStoreTimeout)
	defer cancel()
	e, err := c.channels.inForce(sctx, req.GuildID, req.ChannelID, req.ParentID)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			c.Logger.WarnContext(ctx, "channel settings: yorozu's defaults apply", "channel_id", req.ChannelID, "err", err)
		}
		return req
	}
	if !e.Talk {
		req.Talk = nil
	}
	if req.Persona == "" {
		req.Persona = e.Persona
	}
	if req.Model == "" && route != "reminder" {
		req.Model = e.Model
	}
	return req
}
