package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
)

// The names the fake Discord gives its server, channel, thread and member.
const (
	guildName   = "ボドゲ部"
	channelName = "雑談"
	threadName  = "土曜の卓"
	aliceNick   = "アリス（GM）"
)

// openNamedAdmin is the admin page of a yorozu whose fake Discord names
// its server 「ボドゲ部」 with the channel #雑談 and its thread 土曜の卓.
func openNamedAdmin(t *testing.T) *adminBrowser {
	t.Helper()
	return openAdminPrepared(t, nil, func(h *harness) {
		h.discord.SetGuilds(guildID)
		h.discord.PutChannelInGuild(channelID, guildID)
		h.discord.AddThread(threadID, channelID)
		h.discord.SetName(guildID, guildName)
		h.discord.SetName(channelID, channelName)
		h.discord.SetName(threadID, threadName)
	})
}

// TestAdminPageShowsNames: with a fake Discord that names its server,
// channel, thread and member, the admin page shows those names, and no id,
// in the space picker, the conversation list, 予定, the channel settings and
// the channel logs, and the model call logs — at 1280 and at 390 px wide.
func TestAdminPageShowsNames(t *testing.T) {
	a := openNamedAdmin(t)
	h, ctx := a.h, context.Background()
	h.script()
	// Alice, with her nickname in the server, asks the bot.
	h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID, GuildID: guildID, Content: "<@" + h.discord.BotID() + "> こんにちは",
		Author:   &discordgo.User{ID: aliceID, Username: "alice", GlobalName: "Alice"},
		Member:   &discordgo.Member{Nick: aliceNick},
		Mentions: []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
	})
	h.waitReply(t, 1, func(string) bool { return true })
	h.waitCount(t, `SELECT count(*) FROM discord_names WHERE name IN ('`+guildName+`', '`+channelName+`', '`+threadName+`', '`+aliceNick+`')`, 4)

	// A reminder of Alice's in the channel, the channel's log on, and the
	// thread's own persona.
	if _, err := db.CreateReminder(ctx, h.pool, db.ReminderParams{GuildID: guildID, ChannelID: channelID, UserID: aliceID,
		Content: "土曜の持ち物を確認", DueAt: time.Now().Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	on := true
	if err := db.SetChannelLog(ctx, h.pool, guildID, channelID, "", &on, aliceID); err != nil {
		t.Fatal(err)
	}
	persona := "あなたはゲームマスターです。"
	if _, err := db.UpdateChannelSetting(ctx, h.pool, db.ChannelSettingUpdate{GuildID: guildID, ChannelID: threadID, ParentID: channelID,
		Persona: &persona, By: "admin"}); err != nil {
		t.Fatal(err)
	}

	noIDs := `!document.querySelector('main').innerText.includes('` + guildID + `') &&
		!document.querySelector('main').innerText.includes('` + channelID + `') &&
		!document.querySelector('main').innerText.includes('` + aliceID + `')`
	for _, tc := range []struct {
		name, path, ready string
		want              []string
	}{
		{"chat", "/", `document.querySelectorAll('#session-list li button').length === 1`,
			[]string{"Discord #" + channelName, "［" + guildName + "］"}},
		{"schedules", "/reminders", `document.querySelectorAll('#reminders .entry').length === 1`,
			[]string{aliceNick, "#" + channelName, "［" + guildName + "］"}},
		{"channels", "/channels", `document.querySelectorAll('#channels form').length >= 3 && document.querySelectorAll('#channel-logs .entry').length === 1`,
			[]string{"#" + channelName, guildName + " の既定", "スレッド #" + channelName + " › " + threadName}},
		{"logs", "/logs", `document.querySelectorAll('#logs tr[data-id]').length >= 1`,
			[]string{guildName, "Discord #" + channelName}},
	} {
		a.open(tc.path)
		a.waitJS(tc.name, tc.ready)
		text := evalIn[string](a.browserPage, `document.querySelector('main').innerText`)
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not read %q:\n%s", tc.name, w, text)
			}
		}
		if !evalIn[bool](a.browserPage, noIDs) {
			t.Errorf("%s shows an id where a name is known:\n%s", tc.name, text)
		}
		for _, width := range []int64{1280, 390} {
			a.viewport(width, 844, width < 600)
			a.screenshot(fmt.Sprintf("names-%s-%d", tc.name, width))
		}
		a.viewport(1280, 800, false)
		a.noProblems(tc.name)
	}
	// The space picker of the chat screen.
	a.open("/")
	a.waitJS("the space picker", `[...document.querySelectorAll('#space option')].some((o) => o.textContent.startsWith('`+guildName+`（'))`)
	a.noProblems("the space picker")
}
