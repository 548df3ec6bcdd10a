package bot

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/memory/talk"
)

// The channel's recent talk: every member message of a guild channel or
// thread goes into b.talk from the gateway (edits and deletions followed),
// so a turn there is given what was said since yorozu last answered without
// a query. A channel not seen since the start has its history read once.

// talkHistory is how many messages of a channel's history are read once.
const talkHistory = 50

// addTalkHandlers follows the gateway's messages into b.talk.
func (b *Bot) addTalkHandlers(s *discordgo.Session) {
	s.AddHandler(b.onTalkCreate)
	s.AddHandler(b.onTalkUpdate)
	s.AddHandler(b.onTalkDelete)
	s.AddHandler(b.onTalkDeleteBulk)
}

func (b *Bot) onTalkCreate(_ *discordgo.Session, e *discordgo.MessageCreate) {
	defer b.recoverEvent("message_create talk")
	if e.GuildID == "" || e.Author == nil {
		return // a DM's history is its conversation already
	}
	botID := b.UserID()
	b.keepTalk(e.ChannelID, e.Message, botID)
}

func (b *Bot) onTalkUpdate(_ *discordgo.Session, e *discordgo.MessageUpdate) {
	defer b.recoverEvent("message_update talk")
	if e.GuildID == "" || e.Message == nil || e.Author == nil {
		return
	}
	if text, ok := talkText(e.Message); ok {
		b.talk.Edit(e.ChannelID, e.ID, text)
	}
}

func (b *Bot) onTalkDelete(_ *discordgo.Session, e *discordgo.MessageDelete) {
	defer b.recoverEvent("message_delete talk")
	if e.Message != nil {
		b.talk.Delete(e.ChannelID, e.ID)
	}
}

func (b *Bot) onTalkDeleteBulk(_ *discordgo.Session, e *discordgo.MessageDeleteBulk) {
	defer b.recoverEvent("message_delete_bulk talk")
	b.talk.Delete(e.ChannelID, e.Messages...)
}

// keepTalk puts m into its channel's talk. yorozu's own messages are not
// talk: its answers are the conversation's, and a turn that is answered
// ends the talk up to its question (answered).
func (b *Bot) keepTalk(channelID string, m *discordgo.Message, botID string) {
	if botID == "" || m.Author.ID == botID {
		return
	}
	if text, ok := talkText(m); ok {
		b.talk.Add(channelID, talk.Message{ID: m.ID, Author: talkAuthor(m), Text: text, At: m.Timestamp})
	}
}

// talkAuthor is the speaker as the model reads it: the member's name, with
// other bots and webhooks labelled so they are not taken for members.
func talkAuthor(m *discordgo.Message) string {
	name := displayName(m)
	if m.Author.Bot || m.WebhookID != "" {
		return "[bot] " + name
	}
	return name
}

// talkText is m's text as the model reads it: mentions as names, and what
// has no words of its own (files, stickers, embeds) named in brackets.
// System messages (joins, pins, …) are not talk.
func talkText(m *discordgo.Message) (string, bool) {
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return "", false
	}
	parts := []string{nameMentions(m.Content, m.Mentions)}
	for _, a := range m.Attachments {
		if a != nil {
			parts = append(parts, "[添付: "+a.Filename+"]")
		}
	}
	for _, s := range m.StickerItems {
		if s != nil {
			parts = append(parts, "[スタンプ: "+s.Name+"]")
		}
	}
	if strings.TrimSpace(m.Content) == "" && len(m.Embeds) > 0 {
		parts = append(parts, "[埋め込み]")
	}
	text := strings.TrimSpace(strings.Join(parts, " "))
	return text, text != ""
}

// channelTalk is what members said in req's channel since yorozu last
// answered there, within talk.Window before the message. A channel whose
// history was never read has it read first, once; a channel whose history
// yorozu may not read has only what the gateway brought.
func (b *Bot) channelTalk(ctx context.Context, req chat.Request) []talk.Message {
	if req.GuildID == "" {
		return nil
	}
	if b.talk.NeedsHistory(req.ChannelID) {
		rctx, cancel := context.WithTimeout(ctx, restTimeout)
		msgs, err := b.session.ChannelMessages(req.ChannelID, talkHistory, "", "", "", discordgo.WithContext(rctx))
		cancel()
		var rest *discordgo.RESTError
		switch {
		case errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == http.StatusForbidden:
			b.log.Info("channel talk: no Read Message History here; only messages seen from now on are given",
				slog.String("channel_id", req.ChannelID))
		case err != nil:
			b.log.Warn("channel talk: read channel history", slog.String("channel_id", req.ChannelID), slog.Any("err", err))
		default:
			b.fillTalk(req.ChannelID, msgs)
		}
	}
	return b.talk.Since(req.ChannelID, req.At.Add(-talk.Window), req.At, req.MessageID)
}

// fillTalk gives a channel's talk the history read from Discord (newest
// first, as Discord answers).
func (b *Bot) fillTalk(channelID string, msgs []*discordgo.Message) {
	botID := b.UserID()
	at := map[string]time.Time{}
	for _, m := range msgs {
		if m != nil {
			at[m.ID] = m.Timestamp
		}
	}
	var said []talk.Message
	var answers []time.Time
	for _, m := range slices.Backward(msgs) {
		if m == nil || m.Author == nil {
			continue
		}
		if m.Author.ID == botID {
			// An answer ends the talk up to its question; without one in
			// sight, up to itself.
			if q, ok := at[replyParent(m)]; ok {
				answers = append(answers, q)
			} else {
				answers = append(answers, m.Timestamp)
			}
			continue
		}
		if text, ok := talkText(m); ok {
			said = append(said, talk.Message{ID: m.ID, Author: talkAuthor(m), Text: text, At: m.Timestamp})
		}
	}
	b.talk.Fill(channelID, said, answers)
}

// answered ends req's channel's talk up to its question: what was said
// until then has been heard. What members said while yorozu was answering
// stays for the next turn.
func (b *Bot) answered(req chat.Request) {
	if req.GuildID != "" && req.MessageID != "" {
		b.talk.Answered(req.ChannelID, req.At)
	}
}
