package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// A mention is claimed by one owner: again by it, never by another; old
// claims are pruned. A gateway heartbeat is read back.
func TestMentionClaimsAndHeartbeat(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	for _, c := range []struct {
		owner string
		want  bool
	}{{"a", true}, {"a", true}, {"b", false}} {
		got, err := db.ClaimMention(ctx, pool, "m1", c.owner)
		if err != nil || got != c.want {
			t.Errorf("ClaimMention(m1, %s) = %v, %v; want %v", c.owner, got, err, c.want)
		}
	}
	if n, err := db.PruneMentionClaims(ctx, pool, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("prune = %d, %v; want 1", n, err)
	}
	if got, err := db.ClaimMention(ctx, pool, "m1", "b"); err != nil || !got {
		t.Errorf("a pruned claim is free again: %v, %v", got, err)
	}

	if _, ok, err := db.GatewaySeenAt(ctx, pool, 7); err != nil || ok {
		t.Errorf("never held: ok = %v, %v", ok, err)
	}
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for _, ts := range []time.Time{at.Add(-time.Minute), at} {
		if err := db.TouchGateway(ctx, pool, 7, ts); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := db.GatewaySeenAt(ctx, pool, 7); err != nil || !ok || !got.Equal(at) {
		t.Errorf("GatewaySeenAt = %v, %v, %v; want %v", got, ok, err, at)
	}
}

// LatestQuestion is the newest user message of a conversation, the one
// 再生成 may still answer again.
func TestLatestQuestion(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	if got, err := db.LatestQuestion(ctx, pool, "discord:channel:1"); err != nil || got != "" {
		t.Errorf("no conversation: %q, %v", got, err)
	}
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Key: "discord:channel:1", Source: "discord", Space: "guild:9"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for i, m := range []db.MessageParams{
		{Role: db.RoleUser, PlatformMessageID: "q1"},
		{Role: db.RoleAssistant, PlatformMessageID: "a1"},
		{Role: db.RoleUser, PlatformMessageID: "q2"},
		{Role: db.RoleAssistant, PlatformMessageID: "a2"},
	} {
		m.SessionID, m.CreatedAt = s.ID, at.Add(time.Duration(i)*time.Second)
		if _, err := db.InsertMessage(ctx, pool, m); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := db.LatestQuestion(ctx, pool, "discord:channel:1"); err != nil || got != "q2" {
		t.Errorf("LatestQuestion = %q, %v; want q2", got, err)
	}
}
