package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

// A channel's mode is shown and set through /api/channels, inherited by
// its threads, refused for a server or with an unknown value, and reset
// with the rest.
func TestChannelModeAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	seedChannelAndThread(t, a)
	var got channelJSON
	if code := c.call("PUT", "/api/channels/10", map[string]string{"mode": "thread"}, &got); code != http.StatusOK ||
		got.Mode == nil || *got.Mode != db.ModeThread || got.ModeInForce != db.ModeThread || got.ModeFrom != db.FromChannel {
		t.Fatalf("PUT mode = %d %+v", code, got)
	}
	var list []channelJSON
	c.call("GET", "/api/channels", nil, &list)
	for _, ch := range list {
		if ch.ChannelID == "12" && (ch.ModeInForce != db.ModeThread || ch.ModeFrom != db.FromChannel || ch.Mode != nil) {
			t.Errorf("the thread shows %+v, want its channel's mode inherited", ch)
		}
	}
	for _, tc := range []struct {
		name, path, mode, has string
	}{
		{"unknown mode", "/api/channels/10", "loud", "mention・free・thread"},
		{"a server", "/api/servers/9", "free", "チャンネルとスレッドにだけ"},
	} {
		code, e := c.callErr("PUT", tc.path, map[string]string{"mode": tc.mode})
		if code != http.StatusBadRequest || e.Field != "mode" || !strings.Contains(e.Error, tc.has) {
			t.Errorf("%s: = %d %+v", tc.name, code, e)
		}
	}
	if code := c.call("DELETE", "/api/channels/10", nil, &got); code != http.StatusOK || got.Mode != nil || got.ModeInForce != db.ModeMention {
		t.Errorf("DELETE = %d %+v", code, got)
	}
}

// seedChannelAndThread makes channel 10 of server 9 known (a conversation
// there) and its thread 12 (a persona of its own).
func seedChannelAndThread(t *testing.T, a *apiServer) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.UpsertSession(ctx, a.pool, db.SessionParams{Key: "discord:channel:10", Source: "discord", GuildID: "9", ChannelID: "10", Space: "guild:9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateChannelSetting(ctx, a.pool, db.ChannelSettingUpdate{GuildID: "9", ChannelID: "12", ParentID: "10", Persona: ptr("忍者")}); err != nil {
		t.Fatal(err)
	}
}
