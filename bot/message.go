package bot

import (
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/memory"
)

// toRequest turns a MESSAGE_CREATE into a chat request, or reports that the
// bot should ignore the message: its own, other bots', webhooks', system
// messages, and guild messages that do not mention it in a channel listened
// to by mention (in a free one, those freeMessage leaves out). DMs need no
// mention.
func toRequest(m *discordgo.Message, botID string, how listen, now time.Time) (chat.Request, bool) {
	if m == nil || m.Author == nil || botID == "" {
		return chat.Request{}, false
	}
	if m.Author.ID == botID || m.Author.Bot || m.WebhookID != "" {
		return chat.Request{}, false
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return chat.Request{}, false
	}
	dm := m.GuildID == ""
	switch {
	case dm:
	case how == listenFree:
		if !freeMessage(m, botID) {
			return chat.Request{}, false
		}
	case !mentions(m, botID):
		return chat.Request{}, false
	}

	session := memory.DiscordChannel(m.ChannelID)
	if dm {
		session = memory.DiscordDM(m.ChannelID)
	}
	at := m.Timestamp
	if at.IsZero() {
		at = now
	}
	req := chat.Request{
		Session:    string(session),
		Source:     "discord",
		GuildID:    m.GuildID,
		ChannelID:  m.ChannelID,
		MessageID:  m.ID,
		AuthorID:   m.Author.ID,
		AuthorName: displayName(m),
		Text:       nameMentions(stripMention(m.Content, botID), m.Mentions),
		At:         at,
		ReplyTo:    replyParent(m),
		ReplyChain: referenced(m, botID),
	}
	return req, true
}

// mentions reports whether m mentions the bot, by Discord's parsed mentions or
// by a <@id> / <@!id> in the text.
func mentions(m *discordgo.Message, botID string) bool {
	for _, u := range m.Mentions {
		if u != nil && u.ID == botID {
			return true
		}
	}
	return strings.Contains(m.Content, "<@"+botID+">") || strings.Contains(m.Content, "<@!"+botID+">")
}

// stripMention removes every mention of the bot and trims the rest.
func stripMention(content, botID string) string {
	content = strings.ReplaceAll(content, "<@!"+botID+">", "")
	content = strings.ReplaceAll(content, "<@"+botID+">", "")
	return strings.TrimSpace(content)
}

// nameMentions writes other users' mentions as @name, so the model reads
// who is meant rather than a number.
func nameMentions(content string, users []*discordgo.User) string {
	for _, u := range users {
		if u == nil || u.ID == "" {
			continue
		}
		name := u.GlobalName
		if name == "" {
			name = u.Username
		}
		if name == "" {
			continue
		}
		content = strings.ReplaceAll(content, "<@!"+u.ID+">", "@"+name)
		content = strings.ReplaceAll(content, "<@"+u.ID+">", "@"+name)
	}
	return content
}

func displayName(m *discordgo.Message) string {
	if m.Member != nil && m.Member.Nick != "" {
		return m.Member.Nick
	}
	if m.Author.GlobalName != "" {
		return m.Author.GlobalName
	}
	return m.Author.Username
}

// onMessageCreate only decides and enqueues; answering happens in the
// channel's worker so the gateway loop never waits for a reply.
func (b *Bot) onMessageCreate(_ *discordgo.Session, e *discordgo.MessageCreate) {
	defer b.recoverEvent("message_create")
	b.mu.Lock()
	botID, stopping := b.botID, b.stopping
	b.mu.Unlock()
	if stopping {
		return
	}
	how, known := b.listenIn(e.ChannelID)
	if !known && e.GuildID != "" && e.Author != nil && !e.Author.Bot && e.WebhookID == "" && !mentions(e.Message, botID) {
		// Maybe a thread of a free channel nothing here knows yet: Discord
		// is asked off the gateway loop, once for the thread.
		b.goResolve(e.Message, botID)
		return
	}
	req, ok := toRequest(e.Message, botID, how, b.now())
	b.take(req, ok, e.Message)
}

// take admits the request toRequest made of m, when it is one.
func (b *Bot) take(req chat.Request, ok bool, m *discordgo.Message) {
	if req, ok = b.accept(req, ok, m); ok {
		b.admitAny(req)
	}
}

// accept completes the request toRequest made of m (ok: one for the bot),
// reporting false when it is not answered: a server not served, or a
// message queued before.
func (b *Bot) accept(req chat.Request, ok bool, m *discordgo.Message) (chat.Request, bool) {
	if !ok || req.GuildID != "" && !b.servesGuild(req.GuildID) || !b.firstSight(req.MessageID) {
		return req, false
	}
	req = b.withAttachments(req, m)
	req.ManageChannels = b.managesChannel(m)
	return req, true
}

// admitAny admits a DM through the DISCORD_GUILDS check, any other at once.
func (b *Bot) admitAny(req chat.Request) {
	if req.GuildID == "" {
		b.admitDM(req, b.admit)
		return
	}
	b.admit(req)
}

// admit rate-limits a request of a served server or user and enqueues it.
func (b *Bot) admit(req chat.Request) {
	allowed, notify := b.limiter.Allow(req.AuthorID, b.now())
	if !allowed {
		b.log.Info("user rate limited", "author_id", req.AuthorID, "channel_id", req.ChannelID, "notified", notify)
		if notify {
			b.goNotice(req, rateLimitedReply)
		}
		return
	}
	if !b.enqueue(req) {
		b.log.Warn("channel queue full: turn refused", "author_id", req.AuthorID, "channel_id", req.ChannelID,
			"max_waiting", b.opts.MaxWaiting)
		b.goNotice(req, busyReply)
	}
}

// managesChannel reports whether m's author may manage its channel, from
// the gateway's state: the server's roles, the channel's overwrites and the
// roles the message's member has. False when the state does not know them.
func (b *Bot) managesChannel(m *discordgo.Message) bool {
	if m.GuildID == "" || m.Member == nil {
		return false
	}
	// The message's member has no user; the state wants the author.
	p, err := b.session.State.MessagePermissions(m)
	return err == nil && p&(discordgo.PermissionManageChannels|discordgo.PermissionAdministrator) != 0
}

// goResolve decides on m once Discord has said whether its channel is a
// thread, off the gateway loop.
func (b *Bot) goResolve(m *discordgo.Message, botID string) {
	b.goEvent("message_create", func() {
		req, ok := toRequest(m, botID, b.listenResolved(b.ctx, m.ChannelID), b.now())
		b.take(req, ok, m)
	})
}
