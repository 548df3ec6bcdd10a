package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func newSession(t testing.TB, pool *pgxpool.Pool, key string) db.Session {
	t.Helper()
	s, err := db.UpsertSession(context.Background(), pool, db.SessionParams{Space: "web", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInsertMessageRoundTrip(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s := newSession(t, pool, "discord:channel:1")
	jst := time.FixedZone("JST", 9*3600)
	at := time.Date(2026, 11, 30, 15, 4, 5, 123456000, jst)
	tokens := 42

	user, err := db.InsertMessage(ctx, pool, db.MessageParams{
		SessionID: s.ID, Role: db.RoleUser, AuthorID: "u1", AuthorName: "たろう",
		Content: "こんにちは", PlatformMessageID: "111", CreatedAt: at,
	})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("長", 20000)
	reply, err := db.InsertMessage(ctx, pool, db.MessageParams{
		SessionID: s.ID, Role: db.RoleAssistant, Content: long, ReplyToID: &user.ID,
		Model: "qwen3:4b", CreatedAt: at.Add(time.Second), Tokens: &tokens,
	})
	if err != nil {
		t.Fatal(err)
	}

	got := dbtest.RecentMessages(t, pool, s.Key, 10)
	if len(got) != 2 {
		t.Fatalf("got %d messages; want 2", len(got))
	}
	u, r := got[0], got[1]
	if u != user {
		t.Errorf("user message read back as %+v; inserted %+v", u, user)
	}
	if u.AuthorName != "たろう" || u.Content != "こんにちは" || u.PlatformMessageID != "111" || u.Role != db.RoleUser {
		t.Errorf("user message = %+v", u)
	}
	if !u.CreatedAt.Equal(at) || u.CreatedAt.Location() != time.UTC {
		t.Errorf("created_at = %v; want %v in UTC", u.CreatedAt, at.UTC())
	}
	if r.Content != long {
		t.Errorf("reply content has %d characters; want the 20000 stored whole", len([]rune(r.Content)))
	}
	if r.ReplyToID == nil || *r.ReplyToID != user.ID || r.Tokens == nil || *r.Tokens != 42 || r.Model != "qwen3:4b" {
		t.Errorf("reply = reply_to %v, tokens %v, model %q", r.ReplyToID, r.Tokens, r.Model)
	}
	if r.ArchivedAt != nil || r.MemoryID != nil || reply.ID != r.ID {
		t.Errorf("reply = %+v", r)
	}

	if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: "tool", Content: "x"}); err == nil {
		t.Error("a message with role \"tool\" was accepted")
	}
	if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID + 1000, Role: db.RoleUser, Content: "x"}); err == nil {
		t.Error("a message for a missing session was accepted")
	}
}

func TestRecentMessages(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s := newSession(t, pool, "discord:channel:1")
	other := newSession(t, pool, "discord:channel:2")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	// m0…m5 one minute apart; m5 is inserted first to show order follows time.
	for _, i := range []int{5, 0, 1, 2, 3, 4} {
		if _, err := db.InsertMessage(ctx, pool, db.MessageParams{
			SessionID: s.ID, Role: db.RoleUser, Content: fmt.Sprintf("m%d", i), CreatedAt: t0.Add(time.Duration(i) * time.Minute),
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: other.ID, Role: db.RoleUser, Content: "elsewhere", CreatedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE messages SET archived_at = now() WHERE content IN ('m0', 'm3')"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		limit int
		want  string
	}{
		{"all unarchived, oldest first", 10, "m1 m2 m4 m5"},
		{"limit keeps the newest", 2, "m4 m5"},
		{"limit one", 1, "m5"},
		{"limit zero", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dbtest.RecentMessages(t, pool, s.Key, tc.limit)
			if c := contents(got); c != tc.want {
				t.Errorf("recent messages (limit %d) = %q; want %q", tc.limit, c, tc.want)
			}
		})
	}

	if got := dbtest.RecentMessages(t, pool, "web:nobody", 10); len(got) != 0 {
		t.Errorf("recent messages of an unknown session = %v; want none", got)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM messages WHERE session_id = $1", s.ID).Scan(&n); err != nil || n != 6 {
		t.Errorf("messages of the session = %d, %v; want 6 (archived included)", n, err)
	}
}

func contents(ms []db.Message) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, " ")
}

// BenchmarkRecentMessages100k reads the latest 30 messages of a session
// holding 100,000.
func BenchmarkRecentMessages100k(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	s := newSession(b, pool, "discord:channel:1")
	if _, err := pool.Exec(ctx, `
INSERT INTO messages (session_id, role, author_name, content, created_at, archived_at)
SELECT $1, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END, 'user' || (g % 7),
       repeat('メッセージ ', 20), now() - (100000 - g) * interval '1 second',
       CASE WHEN g < 90000 THEN now() END
FROM generate_series(1, 100000) g`, s.ID); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE messages"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		ms := dbtest.RecentMessages(b, pool, s.Key, 30)
		if len(ms) != 30 {
			b.Fatalf("got %d messages", len(ms))
		}
	}
}

func TestSetReplyPlatformIDNeedsTheTurn(t *testing.T) {
	_, err := db.SetReplyPlatformID(context.Background(), dbtest.New(t), "", "discord:channel:1", "404", "405")
	if !errors.Is(err, db.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}
