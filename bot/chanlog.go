package bot

import (
	"context"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
)

// ChannelLog is where the channel log's events go (memory/chanlog.Log):
// every method but Logged and Watched queues and returns at once, so the
// gateway never waits on the database.
type ChannelLog interface {
	// Logged reports whether channelID (a thread when parentID is set) is
	// logged; Watched whether anything of guildID is or was. Both read
	// memory only.
	Logged(guildID, channelID, parentID string) bool
	Watched(guildID string) bool
	Add(m db.ChannelMessage)
	Edit(e db.ChannelMessageEdit)
	Delete(ids ...int64)
	DropChannel(guildID, channelID string)
}

// FollowChannelLog sends the messages of logged channels to l, with their
// edits and deletions, and a deleted channel's (or thread's) log to be
// dropped. Call it before Start.
func (b *Bot) FollowChannelLog(l ChannelLog) {
	s := b.session
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.MessageCreate) {
		defer b.recoverEvent("channel_log_create")
		b.logMessage(l, e.Message)
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.MessageUpdate) {
		defer b.recoverEvent("channel_log_update")
		m := e.Message
		// An update without an edit time is Discord adding a link's
		// preview, not the author changing the text.
		if m == nil || m.GuildID == "" || m.EditedTimestamp == nil || !l.Watched(m.GuildID) {
			return
		}
		id, err := strconv.ParseInt(m.ID, 10, 64)
		if err != nil {
			return
		}
		l.Edit(db.ChannelMessageEdit{MessageID: id, Content: m.Content, Attachments: attachmentNames(m), EditedAt: *m.EditedTimestamp})
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.MessageDelete) {
		defer b.recoverEvent("channel_log_delete")
		if e.Message == nil || e.GuildID == "" || !l.Watched(e.GuildID) {
			return
		}
		if id, err := strconv.ParseInt(e.ID, 10, 64); err == nil {
			l.Delete(id)
		}
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.MessageDeleteBulk) {
		defer b.recoverEvent("channel_log_delete_bulk")
		if e.GuildID == "" || !l.Watched(e.GuildID) {
			return
		}
		ids := make([]int64, 0, len(e.Messages))
		for _, s := range e.Messages {
			if id, err := strconv.ParseInt(s, 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
		l.Delete(ids...)
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.ChannelDelete) {
		defer b.recoverEvent("channel_log_channel_delete")
		if e.Channel != nil && e.GuildID != "" && l.Watched(e.GuildID) {
			l.DropChannel(e.GuildID, e.ID)
		}
	})
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.ThreadDelete) {
		defer b.recoverEvent("channel_log_thread_delete")
		if e.Channel != nil && e.GuildID != "" && l.Watched(e.GuildID) {
			l.DropChannel(e.GuildID, e.ID)
		}
	})
}

// logMessage queues m when its channel is logged. A thread nothing here
// knows is looked up off the gateway's goroutine.
func (b *Bot) logMessage(l ChannelLog, m *discordgo.Message) {
	if m == nil || m.GuildID == "" || m.Author == nil || !l.Watched(m.GuildID) || !b.servesGuild(m.GuildID) {
		return
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return // joins, pins, thread notices: nobody said them
	}
	b.mu.Lock()
	parent, known := b.knownThreadLocked(m.ChannelID)
	botID := b.botID
	b.mu.Unlock()
	if known {
		if l.Logged(m.GuildID, m.ChannelID, parent) {
			l.Add(logged(m, parent, botID))
		}
		return
	}
	go func() {
		defer b.recoverEvent("channel_log_resolve")
		ctx, cancel := context.WithTimeout(b.ctx, restTimeout)
		defer cancel()
		parent, err := b.ThreadParent(ctx, m.ChannelID)
		if err != nil {
			b.log.Debug("channel log: channel unknown, message not logged", "channel_id", m.ChannelID, "err", err)
			return
		}
		if l.Logged(m.GuildID, m.ChannelID, parent) {
			l.Add(logged(m, parent, botID))
		}
	}()
}

// logged is m as the channel log keeps it.
func logged(m *discordgo.Message, parent, botID string) db.ChannelMessage {
	id, _ := strconv.ParseInt(m.ID, 10, 64)
	c := db.ChannelMessage{
		MessageID: id, Space: "guild:" + m.GuildID, GuildID: m.GuildID, ChannelID: m.ChannelID, ParentID: parent,
		AuthorID: m.Author.ID, AuthorName: authorName(m), AuthorKind: db.AuthorMember,
		CreatedAt: m.Timestamp, Content: m.Content, Attachments: attachmentNames(m), EditedAt: m.EditedTimestamp,
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = db.SnowflakeTime(id)
	}
	switch {
	case m.Author.ID == botID:
		c.AuthorKind = db.AuthorSelf
	case m.WebhookID != "":
		c.AuthorKind = db.AuthorWebhook
	case m.Author.Bot:
		c.AuthorKind = db.AuthorBot
	}
	if ref := m.MessageReference; ref != nil && ref.MessageID != "" {
		if r, err := strconv.ParseInt(ref.MessageID, 10, 64); err == nil {
			c.ReplyToID = &r
		}
	}
	return c
}

// authorName is the name m's author shows in the server.
func authorName(m *discordgo.Message) string {
	switch {
	case m.Member != nil && m.Member.Nick != "":
		return m.Member.Nick
	case m.Author.GlobalName != "":
		return m.Author.GlobalName
	}
	return m.Author.Username
}

// attachmentNames are the names of m's files and stickers, so a message of
// only a picture or a sticker is still there.
func attachmentNames(m *discordgo.Message) []string {
	var names []string
	for _, a := range m.Attachments {
		if a != nil {
			names = append(names, a.Filename)
		}
	}
	for _, s := range m.StickerItems {
		if s != nil {
			names = append(names, "sticker:"+s.Name)
		}
	}
	return names
}
