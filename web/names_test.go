package web

import (
	"context"
	"net/http"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

// TestNamesInPlaceOfIDs: a Discord conversation is titled with its
// channel's name once the gateway has named it, and GET /api/names gives the
// page the names of servers, channels, threads and users (a user's nickname
// in a server beside their own name).
func TestNamesInPlaceOfIDs(t *testing.T) {
	a := newAPI(t)
	ctx := context.Background()
	a.recordDiscordTurn(t, "555", "こんにちは", "こんにちは！")
	if err := db.SaveDiscordNames(ctx, a.pool, []db.DiscordName{
		{Kind: db.NameGuild, ID: "77", Name: "ボドゲ部"},
		{Kind: db.NameChannel, ID: "555", GuildID: "77", Name: "雑談"},
		{Kind: db.NameChannel, ID: "556", GuildID: "77", ParentID: "555", Name: "土曜の卓"},
		{Kind: db.NameUser, ID: "41", GuildID: "77", Name: "アリス（GM）"},
		{Kind: db.NameUser, ID: "41", Name: "Alice"},
	}); err != nil {
		t.Fatal(err)
	}
	var list []sessionJSON
	if code := a.c.call("GET", "/chat/sessions", nil, &list); code != http.StatusOK || len(list) != 1 || list[0].Title != "Discord #雑談" {
		t.Fatalf("sessions = %d %+v, want the conversation titled Discord #雑談", code, list)
	}
	var names namesJSON
	if code := a.c.call("GET", "/api/names", nil, &names); code != http.StatusOK {
		t.Fatalf("names = %d", code)
	}
	if names.Guilds["77"] != "ボドゲ部" || names.Channels["555"].Name != "雑談" || names.Channels["556"].ParentID != "555" ||
		names.Users["41"]["77"] != "アリス（GM）" || names.Users["41"][""] != "Alice" {
		t.Errorf("names = %+v", names)
	}
}
