package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestMessageRetention: with MESSAGE_RETENTION set, the daily job deletes
// the archived messages older than it (their tags go with them) and keeps
// everything else: newer archived messages, the unarchived ones however
// old, the summaries and knowledge. Off, the job does not exist.
func TestMessageRetention(t *testing.T) {
	ctx := context.Background()
	// 6,000 messages over 300 days in 3 conversations: 2,000 each, more
	// than one batch of old ones per conversation.
	pool := dbtest.NewHistory(t, dbtest.History{Messages: 6000, Sessions: 3, Spaces: 1, DMEvery: -1, Span: 300 * 24 * time.Hour})
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	// An old message that was never archived stays.
	if _, err := pool.Exec(ctx, `UPDATE messages SET archived_at = NULL WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	counts := func() (old, recent, unarchived, tags, memories, knowledge int) {
		t.Helper()
		err := pool.QueryRow(ctx, `SELECT
    count(*) FILTER (WHERE created_at < now() - interval '100 days' AND archived_at IS NOT NULL),
    count(*) FILTER (WHERE created_at >= now() - interval '100 days'),
    count(*) FILTER (WHERE archived_at IS NULL),
    (SELECT count(*) FROM message_tags), (SELECT count(*) FROM memories), (SELECT count(*) FROM knowledge_entries)
FROM messages`).Scan(&old, &recent, &unarchived, &tags, &memories, &knowledge)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	old, recent, unarchived, _, memories, knowledge := counts()
	if old < 3*retentionBatch {
		t.Fatalf("fixture has %d old archived messages, want more than %d", old, 3*retentionBatch)
	}

	off := newScheduler(t, pool, nil, Options{})
	if err := off.AddHousekeeping(HousekeepingOptions{SyncKnowledgeBase: func(context.Context) error { return nil }}); err != nil {
		t.Fatal(err)
	}
	if err := off.RunNow(ctx, MessageRetentionJob); err == nil {
		t.Error("the retention job runs although MESSAGE_RETENTION is off")
	}

	s := newScheduler(t, pool, nil, Options{})
	if err := s.AddHousekeeping(HousekeepingOptions{
		SyncKnowledgeBase: func(context.Context) error { return nil }, MessageRetention: 100 * 24 * time.Hour,
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.RunNow(ctx, MessageRetentionJob); err != nil {
		t.Fatal(err)
	}
	gotOld, gotRecent, gotUnarchived, gotTags, gotMemories, gotKnowledge := counts()
	if gotOld != 0 || gotRecent != recent || gotUnarchived != unarchived {
		t.Errorf("after retention: %d old archived (want 0), %d recent (want %d), %d unarchived (want %d)",
			gotOld, gotRecent, recent, gotUnarchived, unarchived)
	}
	var total int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM messages").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if gotTags != 3*total {
		t.Errorf("%d tags for %d messages: the deleted messages' tags stayed", gotTags, total)
	}
	if gotMemories != memories || gotKnowledge != knowledge {
		t.Errorf("summaries %d → %d, knowledge %d → %d: want them kept", memories, gotMemories, knowledge, gotKnowledge)
	}
}
