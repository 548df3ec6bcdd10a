package bot

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory/chanlog"
)

// logHarness is a bot whose channel 500 is logged, with the log's database.
type logHarness struct {
	*harness
	pool *pgxpool.Pool
	log  *chanlog.Log
}

func startLogged(t *testing.T) *logHarness {
	t.Helper()
	h := start(t, nil)
	pool := dbtest.New(t)
	l := chanlog.New(pool, chanlog.Options{FlushEvery: 5 * time.Millisecond})
	if err := l.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Stop)
	if err := l.Set(h.ctx, guildID, chanID, "", true, "u1"); err != nil {
		t.Fatal(err)
	}
	h.bot.FollowChannelLog(l)
	return &logHarness{harness: h, pool: pool, log: l}
}

// stored is the channel log of guild 900, oldest first.
func (h *logHarness) stored() []db.ChannelMessage {
	h.t.Helper()
	ms, err := db.SearchChannelLog(h.ctx, h.pool, db.ChannelLogQuery{Space: "guild:" + guildID, Limit: 100})
	if err != nil {
		h.t.Fatal(err)
	}
	slices.Reverse(ms)
	return ms
}

// waitStored polls the log until cond holds, or fails after the harness's
// deadline.
func (h *logHarness) waitStored(what string, cond func([]db.ChannelMessage) bool) []db.ChannelMessage {
	h.t.Helper()
	for {
		ms := h.stored()
		if cond(ms) {
			return ms
		}
		select {
		case <-h.ctx.Done():
			h.t.Fatalf("%s: log holds %+v\nlog:\n%s", what, ms, h.logs)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (h *logHarness) say(channel, user, name, text string) *discordgo.Message {
	return h.srv.SendMessage(&discordgo.Message{ChannelID: channel, GuildID: guildID,
		Author: &discordgo.User{ID: user, Username: name}, Content: text})
}

func hasText(text string) func([]db.ChannelMessage) bool {
	return func(ms []db.ChannelMessage) bool {
		return slices.ContainsFunc(ms, func(m db.ChannelMessage) bool { return m.Content == text })
	}
}

// TestChannelLogFollowsDiscord: with the log on, members' messages (long
// ones, attachments only, bots' and webhooks') are stored with who wrote
// them; an edit updates, a delete and a bulk delete delete, a deleted
// channel's log goes; a channel with the log off keeps nothing.
func TestChannelLogFollowsDiscord(t *testing.T) {
	h := startLogged(t)
	h.srv.AddChannel("501") // not logged
	h.say("501", "u1", "alice", "ここは記録されない")
	first := h.say(chanID, "u1", "alice", "土曜のBBQは駅前に集合")
	long := strings.Repeat("あ", 4000)
	h.say(chanID, "u2", "bob", long)
	pic := h.srv.AddAttachment("map.png", "image/png", []byte("png"))
	h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID,
		Author: &discordgo.User{ID: "u3", Username: "carol"}, Attachments: []*discordgo.MessageAttachment{pic}})
	h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID, WebhookID: "w1",
		Author: &discordgo.User{ID: "w1", Username: "GitHub", Bot: true}, Content: "build passed"})
	reply := h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID,
		Author: &discordgo.User{ID: "u2", Username: "bob"}, Content: "了解",
		MessageReference: &discordgo.MessageReference{MessageID: first.ID, ChannelID: chanID, GuildID: guildID}})

	ms := h.waitStored("five messages", func(ms []db.ChannelMessage) bool { return len(ms) == 5 })
	if ms[0].Content != "土曜のBBQは駅前に集合" || ms[0].AuthorName != "alice" || ms[0].AuthorKind != db.AuthorMember {
		t.Errorf("first message stored as %+v", ms[0])
	}
	if ms[1].Content != long {
		t.Errorf("4,000-character message stored with %d characters", len([]rune(ms[1].Content)))
	}
	if !slices.Equal(ms[2].Attachments, []string{"map.png"}) || ms[2].Content != "" {
		t.Errorf("attachments-only message stored as %+v", ms[2])
	}
	if ms[3].AuthorKind != db.AuthorWebhook {
		t.Errorf("webhook's message stored as %q", ms[3].AuthorKind)
	}
	if ms[4].ReplyToID == nil || strconv.FormatInt(*ms[4].ReplyToID, 10) != first.ID {
		t.Errorf("reply stored with reply_to %v, want %s", ms[4].ReplyToID, first.ID)
	}
	if want := "https://discord.com/channels/" + guildID + "/" + chanID + "/" + first.ID; ms[0].JumpLink() != want {
		t.Errorf("jump link %s, want %s", ms[0].JumpLink(), want)
	}

	edited := time.Now()
	h.srv.Dispatch("MESSAGE_UPDATE", &discordgo.Message{ID: first.ID, ChannelID: chanID, GuildID: guildID,
		Author: &discordgo.User{ID: "u1", Username: "alice"}, Content: "土曜のBBQは公園に集合", EditedTimestamp: &edited})
	h.waitStored("the edit", hasText("土曜のBBQは公園に集合"))

	h.srv.Dispatch("MESSAGE_DELETE", &discordgo.MessageDelete{Message: &discordgo.Message{ID: reply.ID, ChannelID: chanID, GuildID: guildID}})
	h.waitStored("the deletion", func(ms []db.ChannelMessage) bool { return len(ms) == 4 && !hasText("了解")(ms) })
	h.srv.Dispatch("MESSAGE_DELETE_BULK", &discordgo.MessageDeleteBulk{ChannelID: chanID, GuildID: guildID, Messages: []string{ms[2].ID(), ms[3].ID()}})
	h.waitStored("the bulk deletion", func(ms []db.ChannelMessage) bool { return len(ms) == 2 })

	if err := h.log.Flush(h.ctx); err != nil {
		t.Fatal(err)
	}
	if hasText("ここは記録されない")(h.stored()) {
		t.Error("a message of a channel with the log off was stored")
	}

	h.srv.Dispatch("CHANNEL_DELETE", &discordgo.Channel{ID: chanID, GuildID: guildID, Type: discordgo.ChannelTypeGuildText})
	h.waitStored("the deleted channel's log removed", func(ms []db.ChannelMessage) bool { return len(ms) == 0 })
}

// TestChannelLogThreads: a thread of a logged channel is logged under its
// parent, found by channel.
func TestChannelLogThreads(t *testing.T) {
	h := startLogged(t)
	h.srv.AddThread("510", chanID)
	h.say("510", "u1", "alice", "スレッドでの相談")
	ms := h.waitStored("the thread's message", hasText("スレッドでの相談"))
	if ms[0].ParentID != chanID || ms[0].ChannelID != "510" {
		t.Errorf("thread message stored in %s under %q", ms[0].ChannelID, ms[0].ParentID)
	}
	found, err := db.SearchChannelLog(context.Background(), h.pool, db.ChannelLogQuery{Space: "guild:" + guildID, ChannelID: chanID, Query: "相談"})
	if err != nil || len(found) != 1 {
		t.Errorf("search of the parent channel found %+v, %v", found, err)
	}
}
