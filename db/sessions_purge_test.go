package db_test

import (
	"context"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestPurgeSession: the purge removes a deleted conversation's messages a
// batch at a time, newest first, then its row and what hangs from it, and
// touches nothing of a conversation not deleted.
func TestPurgeSession(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	f := newDeletedFixture(t, pool)

	ids, err := db.DeletedSessionIDs(ctx, pool, 10)
	if err != nil || len(ids) != 1 || ids[0] != f.gone.ID {
		t.Fatalf("DeletedSessionIDs = %v, %v; want [%d]", ids, err, f.gone.ID)
	}
	if n, err := db.PurgeSessionMessages(ctx, pool, f.kept.ID, 10); err != nil || n != 0 {
		t.Errorf("PurgeSessionMessages(not deleted) = %d, %v; want 0 deleted", n, err)
	}
	// The answer goes first: the question it replies to is still there.
	if n, err := db.PurgeSessionMessages(ctx, pool, f.gone.ID, 1); err != nil || n != 1 {
		t.Fatalf("first batch deleted %d, %v; want 1", n, err)
	}
	rest, err := db.SessionMessages(ctx, pool, f.gone.ID, 10)
	if err != nil || len(rest) != 1 || rest[0].ID != f.goneQuestion.ID {
		t.Fatalf("after one batch: %+v, %v; want the question left", rest, err)
	}
	for _, want := range []int64{1, 0} {
		if n, err := db.PurgeSessionMessages(ctx, pool, f.gone.ID, 1); err != nil || n != want {
			t.Fatalf("batch deleted %d, %v; want %d", n, err, want)
		}
	}
	if err := db.PurgeSession(ctx, pool, f.kept.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.PurgeSession(ctx, pool, f.gone.ID); err != nil {
		t.Fatal(err)
	}
	if ids, err := db.DeletedSessionIDs(ctx, pool, 10); err != nil || len(ids) != 0 {
		t.Errorf("DeletedSessionIDs after the purge = %v, %v; want none", ids, err)
	}
	var sessions, messages, memories, files, links int
	err = pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages),
       (SELECT count(*) FROM memories), (SELECT count(*) FROM fetched_files), (SELECT count(*) FROM session_note_pages)`).
		Scan(&sessions, &messages, &memories, &files, &links)
	if err != nil {
		t.Fatal(err)
	}
	if sessions != 1 || messages != 2 || memories != 1 || files != 1 || links != 1 {
		t.Errorf("after the purge: %d sessions, %d messages, %d summaries, %d files, %d links; want the kept conversation's 1, 2, 1, 1, 1",
			sessions, messages, memories, files, links)
	}
}
