package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestForgetMemoriesByKey: forgetting a conversation's summaries hides its
// live ones, and the older ones folded into them, at once; the messages
// they covered stay archived as they were, and the summary's number in
// them brings nothing back. The purge then deletes the forgotten summary
// with everything folded into it, and nothing of another conversation.
func TestForgetMemoriesByKey(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	sess, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:a", Source: "web", Space: "web"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:b", Source: "web", Space: "web"})
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
	summary := func(session int64, content string) db.Memory {
		t.Helper()
		m, err := db.InsertMemory(ctx, pool, db.MemoryParams{SessionID: session, Content: content, MessageCount: 2,
			PeriodStart: time.Now(), PeriodEnd: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetMemoryTags(ctx, pool, m.ID, []string{"数"}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// oldest is folded into older, older into live: one live summary.
	oldest, older, live := summary(sess.ID, "一の話"), summary(sess.ID, "二の話"), summary(sess.ID, "数の話")
	for _, f := range [][2]int64{{oldest.ID, older.ID}, {older.ID, live.ID}} {
		if _, err := db.FoldMemories(ctx, pool, []int64{f[0]}, f[1]); err != nil {
			t.Fatal(err)
		}
	}
	kept := summary(other.ID, "別の話")
	if _, err := db.ArchiveMessages(ctx, pool, sess.ID, ids[:2], &live.ID, time.Now()); err != nil {
		t.Fatal(err)
	}

	if n, err := db.ForgetMemoriesByKey(ctx, pool, sess.Key, time.Now()); err != nil || n != 1 {
		t.Fatalf("ForgetMemoriesByKey = %d, %v; want the one live summary", n, err)
	}
	if ms, err := db.LiveMemories(ctx, pool, sess.ID); err != nil || len(ms) != 0 {
		t.Errorf("LiveMemories after forgetting = %+v, %v; want none", ms, err)
	}
	if ms, err := db.LiveMemoriesByKey(ctx, pool, sess.Key, 10); err != nil || len(ms) != 0 {
		t.Errorf("LiveMemoriesByKey after forgetting = %+v, %v; want none", ms, err)
	}
	if ms, err := db.ListMemories(ctx, pool, 0, 10); err != nil || len(ms) != 1 || ms[0].ID != kept.ID {
		t.Errorf("ListMemories after forgetting = %+v, %v; want the other conversation's only", ms, err)
	}
	if tags, err := db.RecentTags(ctx, pool, "web", 10, 10); err != nil || len(tags) != 1 {
		t.Errorf("RecentTags after forgetting = %+v, %v; want the other conversation's tag only", tags, err)
	}
	if _, err := db.DeleteMemory(ctx, pool, live.ID); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("DeleteMemory(forgotten) error = %v; want ErrNotFound", err)
	}
	if n, err := db.ForgetMemoriesByKey(ctx, pool, sess.Key, time.Now()); err != nil || n != 0 {
		t.Errorf("forgetting again = %d, %v; want 0", n, err)
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

	forgotten, err := db.ForgottenMemoryIDs(ctx, pool, 10)
	if err != nil || len(forgotten) != 1 || forgotten[0] != live.ID {
		t.Fatalf("ForgottenMemoryIDs = %v, %v; want [%d]", forgotten, err, live.ID)
	}
	if n, err := db.PurgeForgottenMemory(ctx, pool, kept.ID); err != nil || n != 0 {
		t.Errorf("purging a summary not forgotten = %d, %v; want 0", n, err)
	}
	if n, err := db.PurgeForgottenMemory(ctx, pool, live.ID); err != nil || n != 3 {
		t.Errorf("PurgeForgottenMemory = %d, %v; want the summary and the two folded into it", n, err)
	}
	var memories, tags int
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memory_tags)").Scan(&memories, &tags); err != nil {
		t.Fatal(err)
	}
	if memories != 1 || tags != 1 {
		t.Errorf("after the purge %d summaries and %d tags are left; want the other conversation's 1 and 1", memories, tags)
	}
	if ids, err := db.ForgottenMemoryIDs(ctx, pool, 10); err != nil || len(ids) != 0 {
		t.Errorf("ForgottenMemoryIDs after the purge = %v, %v; want none", ids, err)
	}
}
