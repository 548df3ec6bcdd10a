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

// aliceAsks has Alice, with her nickname in the server, mention the bot in
// the channel, and waits for the answer and for the names to be kept.
func aliceAsks(t *testing.T, h *harness) {
	t.Helper()
	h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID, GuildID: guildID, Content: "<@" + h.discord.BotID() + "> こんにちは",
		Author:   &discordgo.User{ID: aliceID, Username: "alice", GlobalName: "Alice"},
		Member:   &discordgo.Member{Nick: aliceNick},
		Mentions: []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
	})
	h.waitReply(t, 1, func(string) bool { return true })
	h.waitCount(t, `SELECT count(*) FROM discord_names WHERE name IN ('`+guildName+`', '`+channelName+`', '`+threadName+`', '`+aliceNick+`')`, 4)
}

// screenshots keeps the page as it is at 1280 and at 390 px wide (name-1280,
// name-390), then makes it 1280 px wide again.
func (b *browserPage) screenshots(name string) {
	b.t.Helper()
	for _, width := range []int64{1280, 390} {
		b.viewport(width, 844, width < 600)
		b.screenshot(fmt.Sprintf("%s-%d", name, width))
	}
	b.viewport(1280, 844, false)
}

// TestAdminPageShowsNames: with a fake Discord that names its server,
// channel, thread and member, the admin page shows those names, and no id,
// in the space picker, the conversation list, 予定, the channel settings and
// the channel logs, and the model call logs — at 1280 and at 390 px wide.
func TestAdminPageShowsNames(t *testing.T) {
	a := openNamedAdmin(t)
	h, ctx := a.h, context.Background()
	h.script()
	aliceAsks(t, h)

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
		a.screenshots("names-" + tc.name)
		a.noProblems(tc.name)
	}
	// The settings pick the weather post's channel by name, and say the
	// chosen one by name.
	a.open("/settings")
	a.waitJS("the channel picker", `document.querySelector('#set-weather_channel_id')?.tagName === 'SELECT' &&
		[...document.querySelectorAll('#set-weather_channel_id optgroup')].some((g) => g.label === '`+guildName+`')`)
	evalIn[bool](a.browserPage, `(() => { const s = document.querySelector('#set-weather_channel_id');
		s.value = [...s.options].find((o) => o.textContent === '#`+channelName+`').value; return true; })()`)
	a.clickText("#settings-form button", "保存")
	a.waitJS("the channel saved", `document.querySelector('#set-weather_channel_id')?.selectedOptions[0]?.textContent === '#`+channelName+`' &&
		[...document.querySelectorAll('#settings .source')].some((e) => e.textContent.startsWith('この画面で設定'))`)
	var stored string
	if err := h.pool.QueryRow(ctx, `SELECT convert_from(value, 'UTF8') FROM app_settings WHERE key = 'setting:weather_channel_id'`).Scan(&stored); err != nil || stored != channelID {
		t.Errorf("weather channel stored as %q (%v), want %s", stored, err, channelID)
	}
	if !evalIn[bool](a.browserPage, noIDs) {
		t.Errorf("settings show an id where a name is known:\n%s", evalIn[string](a.browserPage, `document.querySelector('main').innerText`))
	}
	a.screenshots("names-settings")
	a.noProblems("settings")

	// The space picker of the chat screen.
	a.open("/")
	a.waitJS("the space picker", `[...document.querySelectorAll('#space option')].some((o) => o.textContent.startsWith('`+guildName+`（'))`)
	a.noProblems("the space picker")
}
