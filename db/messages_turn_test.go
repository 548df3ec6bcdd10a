package db_test

import (
	"context"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestDeleteTurn(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s := newSession(t, pool, "discord:channel:1")
	other := newSession(t, pool, "discord:channel:2")
	insert := func(sessionID int64, role, platformID string, replyTo *int64) db.Message {
		t.Helper()
		m, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: sessionID, Role: role, Content: role + platformID,
			PlatformMessageID: platformID, ReplyToID: replyTo})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	q1 := insert(s.ID, db.RoleUser, "111", nil)
	insert(s.ID, db.RoleAssistant, "211 212", &q1.ID)
	q2 := insert(s.ID, db.RoleUser, "112", nil)
	insert(s.ID, db.RoleAssistant, "213", &q2.ID)
	insert(other.ID, db.RoleUser, "111", nil) // the same id in another conversation stays

	n, err := db.DeleteTurn(ctx, pool, s.Key, "111")
	if err != nil || n != 2 {
		t.Fatalf("DeleteTurn = %d, %v; want the question and its answer", n, err)
	}
	left := dbtest.RecentMessages(t, pool, s.Key, 10)
	if len(left) != 2 || left[0].PlatformMessageID != "112" {
		t.Errorf("left %+v, want the second turn", left)
	}
	if o := dbtest.RecentMessages(t, pool, other.Key, 10); len(o) != 1 {
		t.Errorf("the other conversation lost its message")
	}
	if n, err := db.DeleteTurn(ctx, pool, s.Key, "999"); err != nil || n != 0 {
		t.Errorf("unknown turn = %d, %v", n, err)
	}
}
