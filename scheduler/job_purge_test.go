package scheduler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// TestPurge: a deleted conversation's messages are removed a batch at a
// time; a purge cut short leaves the conversation deleted (still hidden)
// with the rest of its messages, and the next run finishes it: messages,
// tags, summaries, documents and the session row. Other conversations keep
// everything but the summaries they forgot.
func TestPurge(t *testing.T) {
	ctx := context.Background()
	pool := newPool(t)
	gone := seedConversation(t, pool, "web:gone", 25)
	kept := seedConversation(t, pool, "web:kept", 5)
	later := seedConversation(t, pool, "web:later", 3)
	if err := db.DeleteSession(ctx, pool, gone); err != nil {
		t.Fatal(err)
	}
	before := rowsOf(t, pool, kept)

	s := newScheduler(t, pool, nil, Options{})
	if err := s.AddHousekeeping(HousekeepingOptions{SyncKnowledgeBase: func(context.Context) error { return nil }}); err != nil {
		t.Fatal(err)
	}

	// Batches of 10 with a long pause: the run is cut in the pause after
	// its first batch.
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := s.purge(runCtx, 10, time.Hour)
		done <- err
	}()
	pollDB(t, 10*time.Second, "the first batch", func() bool { return rowsOf(t, pool, gone).messages < 25 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cut purge returned %v; want context.Canceled", err)
	}
	if c := rowsOf(t, pool, gone); c != (sessionRows{session: 1, messages: 15, tags: 15, memories: 1, files: 1}) {
		t.Errorf("after the cut purge the deleted conversation has %+v; want its row and 15 messages left", c)
	}
	if _, err := db.SessionItemByID(ctx, pool, gone); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("the deleted conversation shows again after a cut purge: %v", err)
	}

	p, err := s.purge(ctx, 10, 0)
	if err != nil || p != (purged{sessions: 1, messages: 15}) {
		t.Fatalf("resumed purge = %+v, %v; want 1 session, 15 messages", p, err)
	}
	if c := rowsOf(t, pool, gone); c != (sessionRows{}) {
		t.Errorf("after the purge the deleted conversation has %+v; want nothing", c)
	}
	if c := rowsOf(t, pool, kept); c != before {
		t.Errorf("the kept conversation went from %+v to %+v", before, c)
	}

	// The job as registered, every minute: a deleted conversation and the
	// forgotten summaries of a kept one.
	if err := db.DeleteSession(ctx, pool, later); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ForgetMemoriesByKey(ctx, pool, "web:kept", time.Now()); err != nil || n != 1 {
		t.Fatalf("ForgetMemoriesByKey = %d, %v", n, err)
	}
	before.memories = 0
	if err := s.RunNow(ctx, PurgeJob); err != nil {
		t.Fatal(err)
	}
	if c := rowsOf(t, pool, later); c != (sessionRows{}) {
		t.Errorf("after %s the deleted conversation has %+v; want nothing", PurgeJob, c)
	}
	if c := rowsOf(t, pool, kept); c != before {
		t.Errorf("the kept conversation went from %+v to %+v", before, c)
	}
}

// seedConversation makes a web conversation of n messages, each answering the
// one before and tagged, with a summary and a fetched document.
func seedConversation(t *testing.T, pool *pgxpool.Pool, key string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	sess, err := db.CreateSession(ctx, pool, db.NewSession{Key: key, Source: "web", Space: "web"})
	if err != nil {
		t.Fatal(err)
	}
	var prev *int64
	t0 := time.Now().Add(-time.Hour)
	for i := range n {
		role := db.RoleUser
		if i%2 == 1 {
			role = db.RoleAssistant
		}
		m, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: sess.ID, Role: role, Content: "ラーメン",
			ReplyToID: prev, CreatedAt: t0.Add(time.Duration(i) * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, "INSERT INTO message_tags (message_id, tag) VALUES ($1, 'ラーメン')", m.ID); err != nil {
			t.Fatal(err)
		}
		prev = &m.ID
	}
	if _, err := db.InsertMemory(ctx, pool, db.MemoryParams{SessionID: sess.ID, Content: "ラーメンの話", PeriodStart: t0, PeriodEnd: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpsertFetchedFile(ctx, pool, db.FetchedFileParams{SessionID: sess.ID, URL: "https://example.com/" + key, Content: "本文"}); err != nil {
		t.Fatal(err)
	}
	return sess.ID
}

// sessionRows are the rows a conversation has.
type sessionRows struct{ session, messages, tags, memories, files int }

func rowsOf(t *testing.T, pool *pgxpool.Pool, id int64) sessionRows {
	t.Helper()
	var c sessionRows
	err := pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM sessions WHERE id = $1),
       (SELECT count(*) FROM messages WHERE session_id = $1),
       (SELECT count(*) FROM message_tags t JOIN messages m ON m.id = t.message_id WHERE m.session_id = $1),
       (SELECT count(*) FROM memories WHERE session_id = $1), (SELECT count(*) FROM fetched_files WHERE session_id = $1)`,
		id).Scan(&c.session, &c.messages, &c.tags, &c.memories, &c.files)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
