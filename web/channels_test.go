package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

func TestChannelsAPI(t *testing.T) {
	a := newAPI(t)
	c := a.c
	ctx := context.Background()
	a.ollama.AddModel("gemma3:4b", "completion")
	for _, p := range []db.SessionParams{
		{Key: "discord:channel:10", Source: "discord", GuildID: "9", ChannelID: "10", Space: "guild:9"},
		{Key: "discord:channel:11", Source: "discord", GuildID: "9", ChannelID: "11", Space: "guild:9"},
		{Key: "discord:dm:50", Source: "discord", ChannelID: "50", Space: "dm:7"},
	} {
		if _, err := db.UpsertSession(ctx, a.pool, p); err != nil {
			t.Fatal(err)
		}
	}
	// A thread set from Discord, so its parent is known.
	if _, err := db.UpdateChannelSetting(ctx, a.pool, db.ChannelSettingUpdate{GuildID: "9", ChannelID: "12", ParentID: "10", Persona: ptr("忍者")}); err != nil {
		t.Fatal(err)
	}

	var list []channelJSON
	if code := c.call("GET", "/api/channels", nil, &list); code != http.StatusOK {
		t.Fatalf("GET /api/channels = %d", code)
	}
	var kinds []string
	for _, ch := range list {
		kinds = append(kinds, ch.Kind+":"+ch.ChannelID)
	}
	if strings.Join(kinds, " ") != "server: channel:10 thread:12 channel:11 dm:50" {
		t.Errorf("channels = %v", kinds)
	}

	var got channelJSON
	if code := c.call("PUT", "/api/channels/10", map[string]string{"persona": " あなたは海賊です。 ", "model": "gemma3:4b"}, &got); code != http.StatusOK {
		t.Fatalf("PUT channel = %d", code)
	}
	if got.Persona == nil || *got.Persona != "あなたは海賊です。" || got.Model == nil || *got.Model != "gemma3:4b" ||
		got.PersonaFrom != db.FromChannel || got.UpdatedBy != "admin" {
		t.Errorf("PUT channel = %+v", got)
	}
	if code := c.call("PUT", "/api/servers/9", map[string]string{"persona": "あなたは執事です。"}, &got); code != http.StatusOK ||
		got.Kind != "server" || got.PersonaInForce != "あなたは執事です。" || got.PersonaFrom != db.FromServer || got.ModelInForce != testModel || got.ModelFrom != db.FromDefault {
		t.Errorf("PUT server = %d %+v", code, got)
	}

	c.call("GET", "/api/channels", nil, &list)
	inForce := map[string]string{}
	for _, ch := range list {
		inForce[ch.ChannelID] = ch.PersonaInForce + "(" + ch.PersonaFrom + ")/" + ch.ModelInForce + "(" + ch.ModelFrom + ")"
	}
	for id, want := range map[string]string{
		"12": "忍者(thread)/gemma3:4b(channel)",
		"11": "あなたは執事です。(server)/" + testModel + "(default)",
		"50": "(default)/" + testModel + "(default)",
	} {
		if inForce[id] != want {
			t.Errorf("in force in %s = %q, want %q", id, inForce[id], want)
		}
	}

	// Only the field sent changes; "" inherits again.
	if code := c.call("PUT", "/api/channels/12", map[string]string{"model": "qwen3:4b"}, &got); code != http.StatusOK ||
		got.Persona == nil || *got.Persona != "忍者" || got.ParentID != "10" || got.ModelFrom != db.FromThread {
		t.Errorf("PUT thread model = %d %+v", code, got)
	}
	if code := c.call("PUT", "/api/channels/12", map[string]string{"persona": ""}, &got); code != http.StatusOK ||
		got.Persona != nil || got.PersonaInForce != "あなたは海賊です。" || got.PersonaFrom != db.FromChannel {
		t.Errorf("PUT thread persona \"\" = %d %+v", code, got)
	}
	if code := c.call("DELETE", "/api/channels/10", nil, &got); code != http.StatusOK ||
		got.Persona != nil || got.Model != nil || got.PersonaFrom != db.FromServer {
		t.Errorf("DELETE channel = %d %+v", code, got)
	}

	tests := []struct {
		name, method, path string
		body               any
		status             int
		field, has         string
	}{
		{"unknown channel", "PUT", "/api/channels/404", map[string]string{"persona": "x"}, http.StatusNotFound, "", "見つかりません"},
		{"unknown server", "PUT", "/api/servers/8", map[string]string{"persona": "x"}, http.StatusNotFound, "", "見つかりません"},
		{"reset unknown channel", "DELETE", "/api/channels/404", nil, http.StatusNotFound, "", "見つかりません"},
		{"persona too long", "PUT", "/api/channels/10", map[string]string{"persona": strings.Repeat("長", 2001)}, http.StatusBadRequest, "persona", "2000 文字まで"},
		{"model not installed", "PUT", "/api/channels/10", map[string]string{"model": "llama3:70b"}, http.StatusBadRequest, "model", "`ollama pull llama3:70b`"},
		{"persona not a string", "PUT", "/api/channels/10", map[string]any{"persona": 5}, http.StatusBadRequest, "persona", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, e := c.callErr(tc.method, tc.path, tc.body)
			if code != tc.status || e.Field != tc.field || !strings.Contains(e.Error, tc.has) {
				t.Errorf("= %d %+v; want %d, field %q, error with %q", code, e, tc.status, tc.field, tc.has)
			}
		})
	}
	if e, _ := db.ChannelSettingsInForce(ctx, a.pool, "9", "10", ""); e.Model != "" || e.Persona != "あなたは執事です。" {
		t.Errorf("refused changes were stored: %+v", e)
	}

	a.ollama.Down()
	if code, e := c.callErr("PUT", "/api/channels/10", map[string]string{"model": "gemma3:4b"}); code != http.StatusServiceUnavailable || !strings.Contains(e.Error, "モデルサーバーに接続できない") {
		t.Errorf("Ollama down = %d %+v", code, e)
	}
}
