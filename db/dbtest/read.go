package dbtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// RecentMessages returns up to limit of the newest unarchived messages of the
// session with key, oldest first: what a turn's context reads of the history,
// through the same query (db.QueueRecentMessagesByKey). A session that does
// not exist has none.
func RecentMessages(t testing.TB, pool *pgxpool.Pool, key string, limit int) []db.Message {
	t.Helper()
	var ms []db.Message
	var b db.Batch
	db.QueueRecentMessagesByKey(&b, key, limit, &ms)
	if err := b.Send(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	return ms
}

// NotesIndex returns up to limit pages of space as a turn's context lists
// them for the session with key, through the same query
// (db.QueueNotesIndexByKey).
func NotesIndex(t testing.TB, pool *pgxpool.Pool, space, key string, limit int) []db.NoteIndexItem {
	t.Helper()
	var items []db.NoteIndexItem
	var b db.Batch
	db.QueueNotesIndexByKey(&b, space, key, limit, &items)
	if err := b.Send(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	return items
}
