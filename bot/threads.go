package bot

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/memory"
)

// maxThreadName is Discord's limit of a thread's name, in characters.
const maxThreadName = 100

// threadArchiveMinutes is how long a quiet thread stays open (a day).
const threadArchiveMinutes = 1440

// defaultThreadName names a thread whose question has no words.
const defaultThreadName = "よろずとの会話"

// movedToThreadText replaces a waiting notice whose answer went to a
// thread.
func movedToThreadText(threadID string) string {
	return "スレッド <#" + threadID + "> で答えました。"
}

// opensThread reports whether req, a mention in a channel whose mode is
// thread, is answered in a thread of its own.
func (b *Bot) opensThread(req chat.Request) bool {
	how, _ := b.listenIn(req.ChannelID)
	return req.GuildID != "" && req.MessageID != "" && how == listenOpenThread
}

// openThread starts a public thread from req's message, named from the
// question, and returns req moved there: the thread is a conversation of
// its own, with the channel's persona and model. When Discord refuses,
// req is answered in the channel instead, and Discord's answer is logged:
// a missing permission is one reason among several (a thread already
// started from the message, an archived parent, a server's thread limit).
func (b *Bot) openThread(ctx context.Context, req chat.Request) chat.Request {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	ch, err := b.session.MessageThreadStartComplex(req.ChannelID, req.MessageID, &discordgo.ThreadStart{
		Name: threadName(req.Text), AutoArchiveDuration: threadArchiveMinutes, Type: discordgo.ChannelTypeGuildPublicThread,
	}, discordgo.WithContext(ctx))
	if err != nil {
		attrs := []any{"channel_id", req.ChannelID, "message_id", req.MessageID}
		var rest *discordgo.RESTError
		if errors.As(err, &rest) && rest.Response != nil {
			attrs = append(attrs, "status", rest.Response.StatusCode)
			if rest.Message != nil {
				attrs = append(attrs, "code", rest.Message.Code, "discord_message", rest.Message.Message)
			}
		}
		b.log.Warn("thread not started: answering in the channel", append(attrs, "err", err)...)
		return req
	}
	b.mu.Lock()
	if len(b.parents) >= maxParents {
		clear(b.parents)
	}
	b.parents[ch.ID] = req.ChannelID
	b.mu.Unlock()
	req.ParentID = req.ChannelID
	req.ChannelID = ch.ID
	req.Session = string(memory.DiscordChannel(ch.ID))
	return req
}

// threadName is the question's first line, at most maxThreadName
// characters.
func threadName(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.Join(strings.Fields(line), " ")
	if line == "" {
		return defaultThreadName
	}
	if utf8.RuneCountInString(line) > maxThreadName {
		line = string([]rune(line)[:maxThreadName-1]) + "…"
	}
	return line
}
