package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestSessionKeys(t *testing.T) {
	tests := []struct {
		got  memory.SessionKey
		want string
	}{
		{memory.DiscordChannel("123"), "discord:channel:123"},
		{memory.DiscordDM("456"), "discord:dm:456"},
		{memory.Web("admin"), "web:admin"},
	}
	for _, tc := range tests {
		if string(tc.got) != tc.want {
			t.Errorf("key = %q; want %q", tc.got, tc.want)
		}
	}
}

func TestContextSystemPromptShowsLocalDateAndTime(t *testing.T) {
	pool := dbtest.New(t)
	// 2026-11-30 06:04 UTC is a Monday 15:04 in Tokyo and still Sunday 22:04 in Los Angeles.
	now := time.Date(2026, 11, 30, 6, 4, 0, 0, time.UTC)
	tests := []struct {
		name string
		loc  *time.Location
		want string
	}{
		{"Tokyo", mustLoad(t, "Asia/Tokyo"), "現在: 2026年11月30日(月) 15:04 (Asia/Tokyo)"},
		{"Los Angeles", mustLoad(t, "America/Los_Angeles"), "現在: 2026年11月29日(日) 22:04 (America/Los_Angeles)"},
		{"UTC", time.UTC, "現在: 2026年11月30日(月) 06:04 (UTC)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := memory.New(pool, memory.Options{Location: tc.loc, Now: func() time.Time { return now }})
			msgs, err := m.Context(context.Background(), memory.Web("admin"), "", "今日は何曜日?")
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" || msgs[1].Content != "今日は何曜日?" {
				t.Fatalf("messages = %+v; want system prompt and the user message", msgs)
			}
			if !strings.Contains(msgs[0].Content, tc.want) {
				t.Errorf("system prompt %q does not contain %q", msgs[0].Content, tc.want)
			}
			if !strings.HasPrefix(msgs[0].Content, memory.DefaultPersona) {
				t.Errorf("system prompt does not start with the default persona")
			}
		})
	}
}

// seed records n turns in key: user "u<i>" by たろう/はなこ, reply "a<i>", one minute apart.
func seed(t testing.TB, m *memory.Memory, key memory.SessionKey, n int, t0 time.Time) {
	t.Helper()
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Minute)
		name := []string{"たろう", "はなこ"}[i%2]
		err := m.Record(context.Background(), key, memory.Turn{
			Source: "discord", GuildID: "g1", ChannelID: "c1",
			User: memory.MessageRecord{AuthorID: name, AuthorName: name, Content: fmt.Sprintf("u%d", i), At: at,
				PlatformMessageID: fmt.Sprintf("seed-u%d", i)},
			Reply: memory.MessageRecord{Content: fmt.Sprintf("a%d", i), Model: "qwen3:4b", At: at.Add(time.Second),
				PlatformMessageID: fmt.Sprintf("seed-a%d", i)},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func render(msgs []api.Message) string {
	var parts []string
	for _, m := range msgs[1:] { // without the system prompt
		parts = append(parts, m.Role[:1]+"|"+m.Content)
	}
	return strings.Join(parts, " ")
}

func TestContextHistory(t *testing.T) {
	pool := dbtest.New(t)
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	key := memory.DiscordChannel("c1")
	seed(t, memory.New(pool, memory.Options{}), key, 3, t0)
	// Another channel's conversation never leaks in.
	seed(t, memory.New(pool, memory.Options{}), memory.DiscordChannel("c2"), 1, t0)

	tests := []struct {
		name string
		opts memory.Options
		want string
	}{
		{"whole history, names on user messages, new message last", memory.Options{},
			"u|たろう: u0 a|a0 u|はなこ: u1 a|a1 u|たろう: u2 a|a2 u|次は?"},
		{"count bound keeps the newest", memory.Options{MaxMessages: 3},
			"a|a1 u|たろう: u2 a|a2 u|次は?"},
		// "たろう: u2" is 8 runes, "a2" 2, "a1" 2: 12 fits, 20 does not.
		{"char bound keeps the newest", memory.Options{MaxChars: 12},
			"a|a1 u|たろう: u2 a|a2 u|次は?"},
		{"the newest stays even when over the char bound", memory.Options{MaxChars: 1},
			"a|a2 u|次は?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := memory.New(pool, tc.opts)
			msgs, err := m.Context(context.Background(), key, "", "次は?")
			if err != nil {
				t.Fatal(err)
			}
			if got := render(msgs); got != tc.want {
				t.Errorf("history =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}

	t.Run("archived messages leave the context", func(t *testing.T) {
		if _, err := pool.Exec(context.Background(), "UPDATE messages SET archived_at = now() WHERE content IN ('u0', 'a0')"); err != nil {
			t.Fatal(err)
		}
		msgs, err := memory.New(pool, memory.Options{}).Context(context.Background(), key, "", "次は?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := render(msgs), "u|はなこ: u1 a|a1 u|たろう: u2 a|a2 u|次は?"; got != want {
			t.Errorf("history =\n %s\nwant\n %s", got, want)
		}
	})
}

func TestRecordStoresBothMessages(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	jst := mustLoad(t, "Asia/Tokyo")
	now := time.Date(2026, 11, 30, 15, 4, 0, 0, jst)
	m := memory.New(pool, memory.Options{Location: jst, Now: func() time.Time { return now }})
	long := strings.Repeat("あ", 19999) + "!"
	key := memory.DiscordChannel("c1")

	err := m.Record(ctx, key, memory.Turn{
		Source: "discord", GuildID: "g1", ChannelID: "c1",
		User:  memory.MessageRecord{AuthorID: "u1", AuthorName: "たろう", Content: long, PlatformMessageID: "m1"},
		Reply: memory.MessageRecord{Content: "はい", PlatformMessageID: "m2", Model: "qwen3:4b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.SessionByKey(ctx, pool, string(key))
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != "discord" || s.GuildID != "g1" || s.ChannelID != "c1" {
		t.Errorf("session = %+v", s)
	}
	got := dbtest.RecentMessages(t, pool, s.Key, 10)
	if len(got) != 2 {
		t.Fatalf("stored %d messages; want 2", len(got))
	}
	u, r := got[0], got[1]
	if u.Role != db.RoleUser || u.Content != long || u.AuthorName != "たろう" || u.PlatformMessageID != "m1" {
		t.Errorf("user message = role %s, %d runes, author %q, id %q; want the 20,000-character message whole",
			u.Role, len([]rune(u.Content)), u.AuthorName, u.PlatformMessageID)
	}
	if r.Role != db.RoleAssistant || r.Content != "はい" || r.Model != "qwen3:4b" || r.ReplyToID == nil || *r.ReplyToID != u.ID {
		t.Errorf("reply = %+v", r)
	}
	if !u.CreatedAt.Equal(now) || u.CreatedAt.Location() != time.UTC {
		t.Errorf("user message at %v; want %v stored as UTC", u.CreatedAt, now.UTC())
	}

	// The next Context sees the whole message when the char bound allows it.
	wide := memory.New(pool, memory.Options{MaxChars: 25000})
	msgs, err := wide.Context(ctx, key, "", "続き")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 || msgs[1].Content != "たろう: "+long {
		t.Errorf("context has %d messages; want the long message whole", len(msgs))
	}
}

// TestRecordWithoutReplyKeepsTheQuestion: a turn whose model failed keeps
// the user's message, and the next turn's context carries it.
func TestRecordWithoutReplyKeepsTheQuestion(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	m := memory.New(pool, memory.Options{})
	key := memory.DiscordChannel("c1")
	if err := m.Record(ctx, key, memory.Turn{
		Source: "discord", ChannelID: "c1",
		User: memory.MessageRecord{AuthorID: "u1", AuthorName: "たろう", Content: "私の誕生日は5月5日です", PlatformMessageID: "m1"},
	}); err != nil {
		t.Fatal(err)
	}
	msgs, err := m.Context(ctx, key, "", "覚えてる？")
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, msg := range msgs {
		roles = append(roles, msg.Role)
	}
	if len(msgs) != 3 || msgs[1].Content != "たろう: 私の誕生日は5月5日です" {
		t.Errorf("context = %v %+v, want system, the failed turn's question, the new message", roles, msgs)
	}
}

func TestRecordIsAtomic(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	called := false
	m := memory.New(pool, memory.Options{AfterRecord: func(memory.SessionKey, memory.Turn) { called = true }})
	key := memory.Web("admin")
	// A NUL byte is rejected by Postgres text, so the reply insert fails
	// after the session and the user message were written.
	err := m.Record(ctx, key, memory.Turn{
		Source: "web",
		User:   memory.MessageRecord{AuthorName: "admin", Content: "hello"},
		Reply:  memory.MessageRecord{Content: "bad\x00reply"},
	})
	if err == nil {
		t.Fatal("Record with an unstorable reply succeeded")
	}
	if !strings.Contains(err.Error(), string(key)) {
		t.Errorf("error %q does not name the session", err)
	}
	var sessions, messages int
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages)").Scan(&sessions, &messages); err != nil {
		t.Fatal(err)
	}
	if sessions != 0 || messages != 0 {
		t.Errorf("after a failed Record: %d sessions, %d messages; want nothing stored", sessions, messages)
	}
	if called {
		t.Error("AfterRecord ran for a turn that was not stored")
	}
}

func TestAfterRecordSeesTheStoredTurn(t *testing.T) {
	pool := dbtest.New(t)
	var got []string
	m := memory.New(pool, memory.Options{AfterRecord: func(key memory.SessionKey, turn memory.Turn) {
		got = append(got, string(key)+"|"+turn.User.Content+"|"+turn.Reply.Content)
	}})
	if err := m.Record(context.Background(), memory.Web("admin"), memory.Turn{
		User: memory.MessageRecord{Content: "猫の話"}, Reply: memory.MessageRecord{Content: "にゃー"},
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "web:admin|猫の話|にゃー" {
		t.Errorf("AfterRecord calls = %q", got)
	}
}

// BenchmarkContext10k assembles the context of a session holding 10,000 messages.
func BenchmarkContext10k(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	key := memory.DiscordChannel("bench")
	seedBulk(b, pool, string(key), 10000)
	m := memory.New(pool, memory.Options{Location: time.UTC})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		msgs, err := m.Context(ctx, key, "", "こんにちは")
		if err != nil || len(msgs) != memory.DefaultMaxMessages+2 {
			b.Fatalf("got %d messages, %v", len(msgs), err)
		}
	}
}

func seedBulk(b testing.TB, pool *pgxpool.Pool, key string, n int) {
	b.Helper()
	ctx := context.Background()
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "web", Key: key, Source: "discord"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
INSERT INTO messages (session_id, role, author_id, author_name, content, created_at)
SELECT $1, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END, 'u' || (g % 5), 'ユーザー' || (g % 5),
       repeat('これはベンチマーク用のメッセージです。', 5), now() - ($2 - g) * interval '1 minute'
FROM generate_series(1, $2) g`, s.ID, n); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE messages"); err != nil {
		b.Fatal(err)
	}
}
