package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// The admin page lists logged channels with their counts (threads counted
// under their channel), turns a log off, deletes what one keeps, and its
// search finds logged messages with their Discord links.
func TestChannelLogAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	ctx := context.Background()
	if err := db.SetChannelLog(ctx, a.pool, "9", "10", "", ptrBool(true), "u1"); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	ms := []db.ChannelMessage{
		{MessageID: db.SnowflakeAt(at), Space: "guild:9", GuildID: "9", ChannelID: "10", AuthorID: "u1", AuthorName: "たろう", CreatedAt: at, Content: "明日は駅前に集合"},
		{MessageID: db.SnowflakeAt(at) + 1, Space: "guild:9", GuildID: "9", ChannelID: "11", ParentID: "10", AuthorID: "u2", CreatedAt: at, Content: "スレッドでも集合"},
		{MessageID: db.SnowflakeAt(at) + 2, Space: "guild:9", GuildID: "9", ChannelID: "20", AuthorID: "u2", CreatedAt: at, Content: "止めたチャンネル"},
	}
	if _, err := db.InsertChannelMessages(ctx, a.pool, ms); err != nil {
		t.Fatal(err)
	}
	var list []channelLogJSON
	if code := c.call("GET", "/api/channel-logs", nil, &list); code != http.StatusOK || len(list) != 2 ||
		list[0].ChannelID != "10" || !list[0].On || list[0].Messages != 2 || list[1].ChannelID != "20" || list[1].On || list[1].Messages != 1 {
		t.Fatalf("GET = %d %+v; want channel 10 on with 2 messages, channel 20 off with 1", code, list)
	}

	var hits []searchHitJSON
	if code := c.call("GET", "/api/search?q=%E9%9B%86%E5%90%88", nil, &hits); code != http.StatusOK || len(hits) != 2 {
		t.Fatalf("search 集合 = %d %+v; want both logged messages", code, hits)
	}
	if h := hits[0]; h.Role != "channel_log" || h.Link != "https://discord.com/channels/9/10/"+ms[0].ID() && h.Link != "https://discord.com/channels/9/11/"+ms[1].ID() {
		t.Errorf("hit %+v; want a channel log hit with its jump link", h)
	}

	var got channelLogJSON
	if code := c.call("PUT", "/api/channel-logs/9/10", map[string]bool{"on": false}, &got); code != http.StatusOK || got.On || got.Messages != 2 {
		t.Errorf("PUT off = %d %+v; want off, its messages kept", code, got)
	}
	if on, _ := db.ChannelLogSettings(ctx, a.pool); db.ChannelLogOn(on, "9", "10", "") {
		t.Error("channel 10 is still logged")
	}
	if code := c.call("DELETE", "/api/channel-logs/9/10", nil, &got); code != http.StatusOK || got.Messages != 0 {
		t.Errorf("DELETE = %d %+v; want nothing kept", code, got)
	}
	c.call("GET", "/api/channel-logs", nil, &list)
	if len(list) != 1 || list[0].ChannelID != "20" {
		t.Errorf("after the deletion the page lists %+v", list)
	}
	if code, _ := c.callErr("DELETE", "/api/channel-logs/9/x'1", nil); code != http.StatusNotFound {
		t.Errorf("DELETE of a forged channel = %d, want 404", code)
	}
}

func ptrBool(b bool) *bool { return &b }
