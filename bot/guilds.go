package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
)

// dmCheckTTL is how long a DM user's membership of the allowed servers is
// remembered before Discord is asked again; noticeTTL how long an ignored
// server or user stays logged (after it, the next message is logged once
// more). filterSweep is the size at which the filter's maps forget what is
// past those times: they do not grow with every user ever seen.
const (
	dmCheckTTL  = 10 * time.Minute
	noticeTTL   = 24 * time.Hour
	filterSweep = 1024
)

// guildFilter is DISCORD_GUILDS: the servers served, and what was learnt of
// DM users' membership of them.
type guildFilter struct {
	noticed map[string]time.Time // servers (and DM users) logged as ignored, when
	dm      map[string]dmVerdict // user id -> shares an allowed server
	// waiting holds, per user being looked up, the DMs that came meanwhile,
	// in order: one lookup per user, and the DMs are answered in order.
	waiting map[string][]chat.Request
}

// notice records that key was logged as ignored at now, reporting whether
// it should be logged (not within noticeTTL). b.mu is held.
func (f *guildFilter) notice(key string, now time.Time) bool {
	if at, ok := f.noticed[key]; ok && now.Sub(at) < noticeTTL {
		return false
	}
	if f.noticed == nil {
		f.noticed = map[string]time.Time{}
	}
	if len(f.noticed) >= filterSweep {
		for k, at := range f.noticed {
			if now.Sub(at) >= noticeTTL {
				delete(f.noticed, k)
			}
		}
	}
	f.noticed[key] = now
	return true
}

// remember keeps a DM user's verdict; once the map is large, verdicts past
// dmCheckTTL (which would be asked again anyway) are forgotten. b.mu is held.
func (f *guildFilter) remember(user string, v dmVerdict) {
	if f.dm == nil {
		f.dm = map[string]dmVerdict{}
	}
	if len(f.dm) >= filterSweep {
		for u, old := range f.dm {
			if v.at.Sub(old.at) > dmCheckTTL {
				delete(f.dm, u)
			}
		}
	}
	f.dm[user] = v
}

type dmVerdict struct {
	ok bool
	at time.Time
}

// servesGuild reports whether messages in guildID are answered: every server
// when Options.Guilds is empty, else only those. An ignored server is logged
// once.
func (b *Bot) servesGuild(guildID string) bool {
	if len(b.opts.Guilds) == 0 || slices.Contains(b.opts.Guilds, guildID) {
		return true
	}
	b.mu.Lock()
	first := b.filter.notice("guild:"+guildID, b.now())
	b.mu.Unlock()
	if first {
		b.log.Warn("ignoring a server not in DISCORD_GUILDS", "guild_id", guildID)
	}
	return false
}

// admitDM lets a DM through to enqueue when its author shares one of the
// allowed servers (always when Options.Guilds is empty). An unknown user is
// looked up off the gateway loop, once however many DMs they send
// meanwhile; those are then enqueued in order, or dropped.
func (b *Bot) admitDM(req chat.Request, enqueue func(chat.Request)) {
	if len(b.opts.Guilds) == 0 {
		enqueue(req)
		return
	}
	b.mu.Lock()
	v, known := b.filter.dm[req.AuthorID]
	if known && b.now().Sub(v.at) > dmCheckTTL {
		known = false
	}
	if _, looking := b.filter.waiting[req.AuthorID]; looking && !b.stopping {
		b.filter.waiting[req.AuthorID] = append(b.filter.waiting[req.AuthorID], req)
		b.mu.Unlock()
		return
	}
	if known || b.stopping {
		b.mu.Unlock()
		if known {
			b.dmVerdict(req, v.ok, enqueue)
		}
		return
	}
	if b.filter.waiting == nil {
		b.filter.waiting = map[string][]chat.Request{}
	}
	b.filter.waiting[req.AuthorID] = []chat.Request{req}
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		defer b.recoverEvent("dm_check")
		ok, err := b.sharesAllowedGuild(b.ctx, req.AuthorID)
		b.mu.Lock()
		reqs := b.filter.waiting[req.AuthorID]
		delete(b.filter.waiting, req.AuthorID)
		if err == nil {
			b.filter.remember(req.AuthorID, dmVerdict{ok: ok, at: b.now()})
		}
		b.mu.Unlock()
		if err != nil {
			b.log.Error("check a DM user's servers: DM not answered", "author_id", req.AuthorID, "dms", len(reqs), "err", err)
			return
		}
		for _, r := range reqs {
			b.dmVerdict(r, ok, enqueue)
		}
	}()
}

func (b *Bot) dmVerdict(req chat.Request, ok bool, enqueue func(chat.Request)) {
	if ok {
		enqueue(req)
		return
	}
	b.mu.Lock()
	first := b.filter.notice("dm:"+req.AuthorID, b.now())
	b.mu.Unlock()
	if first {
		b.log.Warn("ignoring DMs from a user who shares no server in DISCORD_GUILDS", "author_id", req.AuthorID)
	}
}

// sharesAllowedGuild asks Discord whether userID is a member of one of the
// allowed servers.
func (b *Bot) sharesAllowedGuild(ctx context.Context, userID string) (bool, error) {
	for _, g := range b.opts.Guilds {
		_, err := b.session.GuildMember(g, userID, discordgo.WithContext(ctx))
		var re *discordgo.RESTError
		switch {
		case err == nil:
			return true, nil
		case errors.As(err, &re) && re.Response != nil &&
			(re.Response.StatusCode == http.StatusNotFound || re.Response.StatusCode == http.StatusForbidden):
			continue // not a member, or a server the bot has left
		default:
			return false, err
		}
	}
	return false, nil
}

// notServedReply answers a command used in a server not in DISCORD_GUILDS.
const notServedReply = "このサーバーではよろずを使えません（管理者の設定によるものです）。"

// goRespond answers an interaction with an ephemeral text off the gateway
// loop.
func (b *Bot) goRespond(s *discordgo.Session, i *discordgo.InteractionCreate, text string) {
	b.goEvent("interaction_response", func() {
		ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
		defer cancel()
		if err := respond(ctx, s, i, commands.Text(text)); err != nil {
			b.log.Error("interaction response", "guild_id", i.GuildID, "err", err)
		}
	})
}

// ChannelGuild returns the server of channelID ("" for a DM channel), from
// the gateway's state when it has the channel, else from Discord.
func (b *Bot) ChannelGuild(ctx context.Context, channelID string) (string, error) {
	if c, err := b.session.State.Channel(channelID); err == nil && c != nil {
		return c.GuildID, nil
	}
	c, err := b.session.Channel(channelID, discordgo.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("look up channel %s: %w", channelID, err)
	}
	return c.GuildID, nil
}
