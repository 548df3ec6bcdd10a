package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

// Whether a channel's talk is given is shown and set through
// /api/channels, inherited by its threads, refused with an unknown value
// or in a DM, and reset with the rest.
func TestChannelTalkAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	seedChannelAndThread(t, a)
	ctx := context.Background()
	if _, err := db.UpdateChannelSetting(ctx, a.pool, db.ChannelSettingUpdate{ChannelID: "dm1", Persona: ptr("DM")}); err != nil {
		t.Fatal(err)
	}
	var got channelJSON
	if code := c.call("PUT", "/api/channels/10", map[string]string{"talk": "off"}, &got); code != http.StatusOK ||
		got.Talk == nil || *got.Talk || got.TalkInForce || got.TalkFrom != db.FromChannel {
		t.Fatalf("PUT talk off = %d %+v", code, got)
	}
	var list []channelJSON
	c.call("GET", "/api/channels", nil, &list)
	for _, ch := range list {
		if ch.ChannelID == "12" && (ch.TalkInForce || ch.TalkFrom != db.FromChannel || ch.Talk != nil) {
			t.Errorf("the thread shows %+v, want its channel's off inherited", ch)
		}
	}
	for _, tc := range []struct {
		name, path, talk, has string
	}{
		{"unknown value", "/api/channels/10", "maybe", "on・off"},
		{"a DM", "/api/channels/dm1", "off", "DM では"},
	} {
		code, e := c.callErr("PUT", tc.path, map[string]string{"talk": tc.talk})
		if code != http.StatusBadRequest || e.Field != "talk" || !strings.Contains(e.Error, tc.has) {
			t.Errorf("%s: = %d %+v", tc.name, code, e)
		}
	}
	if code := c.call("DELETE", "/api/channels/10", nil, &got); code != http.StatusOK || got.Talk != nil || !got.TalkInForce {
		t.Errorf("DELETE = %d %+v", code, got)
	}
}
