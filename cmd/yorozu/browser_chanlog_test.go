package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// TestChannelLogPageInBrowser: the channels page lists a logged channel
// with its count; a person stops its log, then deletes what it keeps; the
// chat page's search finds a logged message with its Discord link.
func TestChannelLogPageInBrowser(t *testing.T) {
	a := openAdmin(t, nil)
	h, b := a.h, a.browserPage
	ctx := context.Background()
	on := true
	if err := db.SetChannelLog(ctx, h.pool, guildID, channelID, "", &on, "u1"); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	if _, err := db.InsertChannelMessages(ctx, h.pool, []db.ChannelMessage{
		{MessageID: db.SnowflakeAt(at), Space: "guild:" + guildID, GuildID: guildID, ChannelID: channelID, AuthorID: "u1", AuthorName: "たろう", CreatedAt: at, Content: "土曜は駅前に集合"},
		{MessageID: db.SnowflakeAt(at) + 1, Space: "guild:" + guildID, GuildID: guildID, ChannelID: channelID, AuthorID: "u2", AuthorName: "はなこ", CreatedAt: at, Content: "了解"},
	}); err != nil {
		t.Fatal(err)
	}

	a.open("/")
	b.typeInto("#search", "集合")
	b.waitJS("the logged message with its link", `[...document.querySelectorAll('#search-results a')].some(a =>
		a.href === 'https://discord.com/channels/`+guildID+`/`+channelID+`/`+strconv.FormatInt(db.SnowflakeAt(at), 10)+`' && a.textContent.includes('土曜は駅前に集合') && a.textContent.includes('たろう'))`)

	a.open("/channels")
	// Both lists drawn, so neither moves the other under a click.
	b.waitJS("the logged channel", `document.querySelector('#channel-logs').textContent.includes('記録中・2 件') &&
		document.querySelector('#channels form') !== null`)
	b.clickText("#channel-logs button", "記録を止める")
	b.waitJS("stopped", `document.querySelector('#channel-logs').textContent.includes('記録していません・2 件')`)
	b.clickText("#channel-logs button", "記録を消す")
	b.clickText("#channel-logs button", "本当に消す")
	b.waitJS("deleted", `document.querySelector('#channel-logs').textContent.includes('記録していません・0 件')`)
	b.screenshot("channel-logs")
	b.noProblems("channel logs")
	var n int
	if err := h.pool.QueryRow(ctx, "SELECT count(*) FROM channel_messages").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d logged messages left (%v)", n, err)
	}
	if ss, _ := db.ChannelLogSettings(ctx, h.pool); db.ChannelLogOn(ss, guildID, channelID, "") {
		t.Error("the channel is still logged")
	}
}
