package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestDeleteMemoriesByKeyLeavesMessages: forgetting a conversation's
// summaries leaves the messages they covered archived as they were, and
// the summary's number in them brings nothing back later.
func TestDeleteMemoriesByKeyLeavesMessages(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	sess, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:a", Source: "web", Space: "web"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, c := range []string{"一", "二", "三"} {
		m, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: sess.ID, Role: db.RoleUser, Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	mem, err := db.InsertMemory(ctx, pool, db.MemoryParams{SessionID: sess.ID, Content: "数の話", MessageCount: 2,
		PeriodStart: time.Now(), PeriodEnd: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ArchiveMessages(ctx, pool, sess.ID, ids[:2], &mem.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n, err := db.DeleteMemoriesByKey(ctx, pool, sess.Key); err != nil || n != 1 {
		t.Fatalf("DeleteMemoriesByKey = %d, %v; want 1", n, err)
	}
	if _, err := db.DeleteMemory(ctx, pool, mem.ID); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("DeleteMemory(forgotten) error = %v; want ErrNotFound", err)
	}
	ms, err := db.SessionMessages(ctx, pool, sess.ID, 10)
	if err != nil || len(ms) != 3 {
		t.Fatalf("messages = %d, %v; want all 3 kept", len(ms), err)
	}
	for i, m := range ms {
		if archived := m.ArchivedAt != nil; archived != (i < 2) {
			t.Errorf("message %q archived = %v; want %v", m.Content, archived, i < 2)
		}
	}
	if n, err := db.CountUnarchived(ctx, pool, sess.ID, 10); err != nil || n != 1 {
		t.Errorf("CountUnarchived = %d, %v; want 1 (the forgotten summary's turns stay out of the context)", n, err)
	}
}
