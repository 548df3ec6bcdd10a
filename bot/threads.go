package bot

import (
	"context"
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
// its own, with the channel's persona and model. When Discord refuses
// (no Create Public Threads), req is answered in the channel instead.
func (b *Bot) openThread(ctx context.Context, req chat.Request) chat.Request {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	ch, err := b.session.MessageThreadStartComplex(req.ChannelID, req.MessageID, &discordgo.ThreadStart{
		Name: threadName(req.Text), AutoArchiveDuration: threadArchiveMinutes, Type: discordgo.ChannelTypeGuildPublicThread,
	}, discordgo.WithContext(ctx))
	if err != nil {
		b.log.Warn("thread not started (Create Public Threads missing?): answering in the channel",
			"channel_id", req.ChannelID, "message_id", req.MessageID, "err", err)
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
