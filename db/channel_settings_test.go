package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func ptr(s string) *string { return &s }

func TestChannelSettingsInheritance(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	set := func(u db.ChannelSettingUpdate) {
		t.Helper()
		if _, err := db.UpdateChannelSetting(ctx, pool, u); err != nil {
			t.Fatal(err)
		}
	}
	const guild, channel, thread, other = "9", "10", "11", "12"
	set(db.ChannelSettingUpdate{GuildID: guild, Persona: ptr("サーバーの人格"), Model: ptr("server-model")})
	set(db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Persona: ptr("チャンネルの人格")})
	set(db.ChannelSettingUpdate{GuildID: guild, ChannelID: thread, ParentID: channel, Model: ptr("thread-model")})
	set(db.ChannelSettingUpdate{GuildID: "", ChannelID: "dm1", Persona: ptr("DM の人格")})

	tests := []struct {
		name                   string
		guild, channel, parent string
		persona, personaFrom   string
		model, modelFrom       string
	}{
		{"thread: own model, channel's persona", guild, thread, channel, "チャンネルの人格", db.FromChannel, "thread-model", db.FromThread},
		{"channel: own persona, server's model", guild, channel, "", "チャンネルの人格", db.FromChannel, "server-model", db.FromServer},
		{"a thread without settings takes its channel's", guild, "13", channel, "チャンネルの人格", db.FromChannel, "server-model", db.FromServer},
		{"another channel: the server's", guild, other, "", "サーバーの人格", db.FromServer, "server-model", db.FromServer},
		{"another server: the defaults", "99", other, "", "", db.FromDefault, "", db.FromDefault},
		{"a DM: its own, no server", "", "dm1", "", "DM の人格", db.FromChannel, "", db.FromDefault},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.ChannelSettingsInForce(ctx, pool, tc.guild, tc.channel, tc.parent)
			if err != nil {
				t.Fatal(err)
			}
			want := db.EffectiveSettings{Persona: tc.persona, PersonaFrom: tc.personaFrom, Model: tc.model, ModelFrom: tc.modelFrom,
				Mode: db.ModeMention, ModeFrom: db.FromDefault, Talk: true, TalkFrom: db.FromDefault}
			if got != want {
				t.Errorf("= %+v, want %+v", got, want)
			}
		})
	}

	// Clearing one field keeps the other; the thread's parent stays known.
	got, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: thread, Persona: ptr("スレッドの人格"), By: "400"})
	if err != nil || got.ParentID != channel || got.Model == nil || *got.Model != "thread-model" || *got.Persona != "スレッドの人格" || got.UpdatedBy != "400" {
		t.Fatalf("update thread = %+v, %v", got, err)
	}
	got, err = db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: thread, Model: ptr("")})
	if err != nil || got.Model != nil || got.Persona == nil {
		t.Fatalf("reset the thread's model = %+v, %v", got, err)
	}
	if e, _ := db.ChannelSettingsInForce(ctx, pool, guild, thread, channel); e.Model != "server-model" || e.PersonaFrom != db.FromThread {
		t.Errorf("after resetting the thread's model: %+v", e)
	}

	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Persona: ptr(strings.Repeat("長", db.MaxPersonaChars+1))}); err == nil {
		t.Error("a persona over 2,000 characters was stored")
	}
	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{Persona: ptr("x")}); err == nil {
		t.Error("a setting for no place was stored")
	}
}

func TestKnownChannels(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	for _, p := range []db.SessionParams{
		{Key: "discord:channel:10", Source: "discord", GuildID: "9", ChannelID: "10", Space: "guild:9"},
		{Key: "discord:channel:11", Source: "discord", GuildID: "9", ChannelID: "11", Space: "guild:9"},
		{Key: "discord:dm:50", Source: "discord", ChannelID: "50", Space: "dm:7"},
		{Key: "web:abc", Source: "web", Space: "web"},
	} {
		if _, err := db.UpsertSession(ctx, pool, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: "9", ChannelID: "12", ParentID: "10", Persona: ptr("スレッド")}); err != nil {
		t.Fatal(err)
	}
	cs, err := db.KnownChannels(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		s := c.GuildID + "/" + c.ChannelID
		if c.ParentID != "" {
			s += "<" + c.ParentID
		}
		if c.Persona != nil {
			s += "=" + *c.Persona
		}
		got = append(got, s)
	}
	want := "9/,9/10,9/12<10=スレッド,9/11,/50"
	if strings.Join(got, ",") != want {
		t.Errorf("KnownChannels = %v, want %s", got, want)
	}
	if c, err := db.KnownChannelByID(ctx, pool, "12"); err != nil || c.ParentID != "10" || c.UpdatedAt == nil || c.LastActive != nil {
		t.Errorf("KnownChannelByID(thread) = %+v, %v", c, err)
	}
	if c, err := db.KnownChannelByID(ctx, pool, "11"); err != nil || c.GuildID != "9" || c.UpdatedAt != nil || c.LastActive == nil {
		t.Errorf("KnownChannelByID(talked) = %+v, %v", c, err)
	}
	if _, err := db.KnownChannelByID(ctx, pool, "404"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("KnownChannelByID(unknown) err = %v", err)
	}
	if _, err := db.KnownServerByID(ctx, pool, "9"); err != nil {
		t.Errorf("KnownServerByID(9) err = %v", err)
	}
	if _, err := db.KnownServerByID(ctx, pool, "8"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("KnownServerByID(unknown) err = %v", err)
	}
}

func TestMessageByPlatformID(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Key: "discord:channel:1", Source: "discord", ChannelID: "1", Space: "guild:9"})
	if err != nil {
		t.Fatal(err)
	}
	ins := func(p db.MessageParams) db.Message {
		t.Helper()
		p.SessionID = s.ID
		m, err := db.InsertMessage(ctx, pool, p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	u := ins(db.MessageParams{Role: db.RoleUser, AuthorName: "alice", Content: "質問", PlatformMessageID: "100", ReplyToPlatformID: "90"})
	ins(db.MessageParams{Role: db.RoleAssistant, Content: "答え", PlatformMessageID: "101 102", ReplyToID: &u.ID})

	for _, tc := range []struct{ id, content, parent string }{
		{"100", "質問", "90"},
		{"101", "答え", "100"},
		{"102", "答え", "100"}, // the second part of a long answer
	} {
		m, err := db.MessageByPlatformID(ctx, pool, "discord:channel:1", tc.id)
		if err != nil || m.Content != tc.content || m.Parent != tc.parent {
			t.Errorf("MessageByPlatformID(%s) = %+v, %v; want %s with parent %s", tc.id, m, err, tc.content, tc.parent)
		}
	}
	for _, id := range []string{"10", "", "90"} {
		if _, err := db.MessageByPlatformID(ctx, pool, "discord:channel:1", id); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("MessageByPlatformID(%q) err = %v; want not found", id, err)
		}
	}
	if _, err := db.MessageByPlatformID(ctx, pool, "discord:channel:2", "100"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("another channel's message was found: %v", err)
	}
}

// BenchmarkMessageByPlatformID finds one link of a reply chain among 100,000
// messages of one channel (the platform-id index), as every reply does up
// to 10 times.
func BenchmarkMessageByPlatformID(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Key: "discord:channel:1", Source: "discord", ChannelID: "1", Space: "guild:9"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
INSERT INTO messages (session_id, role, content, platform_message_id, created_at)
SELECT $1, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END, 'メッセージ ' || g,
       CASE WHEN g % 2 = 0 THEN (1000000 + g)::text ELSE (1000000 + g)::text || ' ' || (2000000 + g)::text END,
       now() - (100000 - g) * interval '1 minute'
FROM generate_series(1, 100000) g`, s.ID); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE messages"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := db.MessageByPlatformID(ctx, pool, "discord:channel:1", "2000123"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChannelSettingsInForce is the lookup every Discord turn makes,
// among 10,000 places' settings.
func BenchmarkChannelSettingsInForce(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	if _, err := pool.Exec(ctx, `
INSERT INTO channel_settings (guild_id, channel_id, persona, model)
SELECT (g % 100)::text, CASE WHEN g % 100 = g THEN '' ELSE g::text END, 'ペルソナ ' || g, 'model-' || g
FROM generate_series(1, 10000) g`); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE channel_settings"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := db.ChannelSettingsInForce(ctx, pool, "42", "5042", "4942"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestChannelModes(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	const guild, channel, thread = "9", "10", "11"
	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Mode: ptr(db.ModeThread), Persona: ptr("人格")}); err != nil {
		t.Fatal(err)
	}
	if e, _ := db.ChannelSettingsInForce(ctx, pool, guild, thread, channel); e.Mode != db.ModeThread || e.ModeFrom != db.FromChannel {
		t.Errorf("a thread of a thread channel: %+v", e)
	}
	_, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Mode: ptr("loud")})
	if !errors.Is(err, db.ErrBadMode) {
		t.Errorf("mode loud: err = %v, want ErrBadMode", err)
	}
	ms, err := db.ChannelModes(ctx, pool)
	if err != nil || len(ms) != 1 || ms[0] != (db.ChannelMode{GuildID: guild, ChannelID: channel, Mode: db.ModeThread}) {
		t.Fatalf("modes = %+v, %v", ms, err)
	}
	// Clearing the mode keeps the persona; the channel is back to mention.
	got, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Mode: ptr("")})
	if err != nil || got.Mode != nil || got.Persona == nil {
		t.Fatalf("clear mode = %+v, %v", got, err)
	}
	if e, _ := db.ChannelSettingsInForce(ctx, pool, guild, channel, ""); e.Mode != db.ModeMention || e.ModeFrom != db.FromDefault {
		t.Errorf("after clearing: %+v", e)
	}
}

func TestChannelTalkSetting(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	const guild, channel, thread, other = "9", "10", "11", "12"
	if e, _ := db.ChannelSettingsInForce(ctx, pool, guild, channel, ""); !e.Talk || e.TalkFrom != db.FromDefault {
		t.Errorf("nothing set: talk %v from %s, want on by default", e.Talk, e.TalkFrom)
	}
	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Persona: ptr("人格"), Talk: ptr(db.TalkOff)}); err != nil {
		t.Fatal(err)
	}
	// Another change leaves it as it is.
	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Mode: ptr(db.ModeFree)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, channel, parent string
		want                  bool
		from                  string
	}{
		{"the channel", channel, "", false, db.FromChannel},
		{"its thread inherits", thread, channel, false, db.FromChannel},
		{"another channel", other, "", true, db.FromDefault},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := db.ChannelSettingsInForce(ctx, pool, guild, tc.channel, tc.parent)
			if err != nil || e.Talk != tc.want || e.TalkFrom != tc.from {
				t.Errorf("talk %v from %s (%v), want %v from %s", e.Talk, e.TalkFrom, err, tc.want, tc.from)
			}
		})
	}
	got, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Talk: ptr(db.TalkOn)})
	if err != nil || got.Talk == nil || !*got.Talk || got.Persona == nil {
		t.Fatalf("talk on = %+v, %v", got, err)
	}
	got, err = db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Talk: ptr("")})
	if err != nil || got.Talk != nil {
		t.Fatalf("talk cleared = %+v, %v", got, err)
	}
	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: guild, ChannelID: channel, Talk: ptr("maybe")}); !errors.Is(err, db.ErrBadTalk) {
		t.Errorf("talk maybe: err = %v, want ErrBadTalk", err)
	}
}
