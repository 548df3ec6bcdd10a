package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// deletedFixture is two web conversations of one space, each with a
// question and its answer that say ラーメン, a summary, a fetched document
// and a linked note page; "gone" is then deleted.
type deletedFixture struct {
	gone, kept   db.SessionItem
	goneQuestion db.Message // platform id "p-gone"
	goneFile     db.FetchedFile
}

func newDeletedFixture(t *testing.T, pool *pgxpool.Pool) deletedFixture {
	t.Helper()
	ctx := context.Background()
	var f deletedFixture
	page, err := db.CreateNotePage(ctx, pool, "web", "献立", "ラーメン", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []*db.SessionItem{&f.gone, &f.kept} {
		name := []string{"gone", "kept"}[i]
		sess, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:" + name, Source: "web", Space: "web", Title: name})
		if err != nil {
			t.Fatal(err)
		}
		*s = sess
		q, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: sess.ID, Role: db.RoleUser,
			Content: "ラーメンの店 " + name, PlatformMessageID: "p-" + name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: sess.ID, Role: db.RoleAssistant,
			Content: "ラーメンなら駅前です", ReplyToID: &q.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.InsertMemory(ctx, pool, db.MemoryParams{SessionID: sess.ID, Content: "ラーメンの話 " + name,
			PeriodStart: time.Now(), PeriodEnd: time.Now()}); err != nil {
			t.Fatal(err)
		}
		file, err := db.UpsertFetchedFile(ctx, pool, db.FetchedFileParams{SessionID: sess.ID, URL: "https://example.com/" + name, Content: "本文"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetSessionNotePages(ctx, pool, sess.ID, []int64{page.ID}); err != nil {
			t.Fatal(err)
		}
		if name == "gone" {
			f.goneQuestion, f.goneFile = q, file
		}
	}
	if err := db.DeleteSession(ctx, pool, f.gone.ID); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDeletedSessionIsGoneAtOnce: a deleted conversation leaves every list,
// page, search and context the moment it is deleted, while its rows wait
// for the purge; the other conversation of its space shows as before.
func TestDeletedSessionIsGoneAtOnce(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	f := newDeletedFixture(t, pool)
	gone, kept := f.gone, f.kept

	t.Run("lists", func(t *testing.T) {
		for _, filter := range []db.SessionFilter{{}, {Source: "web"}, {Space: "web"}} {
			ss, err := db.ListSessions(ctx, pool, filter)
			if err != nil {
				t.Fatal(err)
			}
			if len(ss) != 1 || ss[0].ID != kept.ID {
				t.Errorf("ListSessions(%+v) = %+v; want only the kept conversation", filter, ss)
			}
		}
		spaces, err := db.ListSpaces(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range spaces {
			if sp.Key == "web" && sp.Sessions != 1 {
				t.Errorf("the web space counts %d conversations; want 1", sp.Sessions)
			}
		}
		titles, err := db.SessionTitlesByKeys(ctx, pool, []string{gone.Key, kept.Key})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := titles[gone.Key]; ok || len(titles) != 1 {
			t.Errorf("SessionTitlesByKeys = %v; want only %s (the logs link no deleted conversation)", titles, kept.Key)
		}
	})

	t.Run("by id", func(t *testing.T) {
		if _, err := db.SessionItemByID(ctx, pool, gone.ID); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("SessionItemByID(deleted) error = %v; want ErrNotFound", err)
		}
		if _, err := db.SessionItemByID(ctx, pool, kept.ID); err != nil {
			t.Errorf("SessionItemByID(kept) error = %v", err)
		}
		if _, err := db.FetchedFilesBySession(ctx, pool, gone.ID, 10); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("FetchedFilesBySession(deleted) error = %v; want ErrNotFound", err)
		}
		if _, err := db.FetchedFileInSession(ctx, pool, gone.ID, f.goneFile.ID); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("FetchedFileInSession(deleted) error = %v; want ErrNotFound", err)
		}
		if err := db.ForkBranch(ctx, pool, gone.ID, 0, db.BranchRegenerate); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("ForkBranch(deleted) error = %v; want ErrNotFound", err)
		}
		if err := db.SwitchBranch(ctx, pool, gone.ID, 0, 1); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("SwitchBranch(deleted) error = %v; want ErrNotFound", err)
		}
	})

	t.Run("search", func(t *testing.T) {
		hits, err := db.SearchMessages(ctx, pool, "ラーメン", 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 {
			t.Errorf("search found %d messages; want the kept conversation's 2", len(hits))
		}
		for _, h := range hits {
			if h.SessionID != kept.ID {
				t.Errorf("search found %q of the deleted conversation", h.Content)
			}
		}
	})

	t.Run("reply chain", func(t *testing.T) {
		if _, err := db.MessageByPlatformID(ctx, pool, gone.Key, "p-gone"); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("MessageByPlatformID in the deleted conversation error = %v; want ErrNotFound", err)
		}
		if _, err := db.MessageByPlatformID(ctx, pool, kept.Key, "p-kept"); err != nil {
			t.Errorf("MessageByPlatformID in the kept conversation: %v", err)
		}
	})

	t.Run("notes", func(t *testing.T) {
		linked, err := db.LinkedNotePagesByKey(ctx, pool, "web", gone.Key)
		if err != nil || len(linked) != 0 {
			t.Errorf("LinkedNotePagesByKey(deleted) = %d pages, %v; want none", len(linked), err)
		}
		index := dbtest.NotesIndex(t, pool, "web", gone.Key, 10)
		if len(index) != 1 || index[0].Linked {
			t.Errorf("notes index for the deleted conversation = %+v; want the page, not linked", index)
		}
		if linked, err := db.LinkedNotePagesByKey(ctx, pool, "web", kept.Key); err != nil || len(linked) != 1 {
			t.Errorf("LinkedNotePagesByKey(kept) = %d pages, %v; want 1", len(linked), err)
		}
	})

	t.Run("summaries", func(t *testing.T) {
		all, err := db.ListMemories(ctx, pool, 0, 50)
		if err != nil || len(all) != 1 || all[0].SessionID != kept.ID {
			t.Errorf("ListMemories(all) = %+v, %v; want the kept conversation's only", all, err)
		}
		if ms, err := db.ListMemories(ctx, pool, gone.ID, 50); err != nil || len(ms) != 0 {
			t.Errorf("ListMemories(deleted) = %+v, %v; want none", ms, err)
		}
	})

	t.Run("topics and word pool", func(t *testing.T) {
		for session, tag := range map[int64]string{gone.ID: "消えた話", kept.ID: "残る話"} {
			var question int64
			if err := pool.QueryRow(ctx, "SELECT id FROM messages WHERE session_id = $1 AND role = 'user'", session).Scan(&question); err != nil {
				t.Fatal(err)
			}
			if err := db.SetMessageTags(ctx, pool, question, []string{tag}); err != nil {
				t.Fatal(err)
			}
		}
		tags, err := db.RecentTags(ctx, pool, "web", 50, 10)
		if err != nil || len(tags) != 1 || tags[0].Tag != "残る話" {
			t.Errorf("RecentTags = %+v, %v; want the kept conversation's tag alone", tags, err)
		}
		texts, err := db.RecentUserTexts(ctx, pool, "web", 10)
		if err != nil || len(texts) != 1 || texts[0] != "ラーメンの店 kept" {
			t.Errorf("RecentUserTexts = %q, %v; want the kept conversation's question alone", texts, err)
		}
	})

	t.Run("rows wait for the purge", func(t *testing.T) {
		var sessions, messages, memories, files, links int
		err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sessions WHERE id = $1),
       (SELECT count(*) FROM messages WHERE session_id = $1), (SELECT count(*) FROM memories WHERE session_id = $1),
       (SELECT count(*) FROM fetched_files WHERE session_id = $1), (SELECT count(*) FROM session_note_pages WHERE session_id = $1)`,
			gone.ID).Scan(&sessions, &messages, &memories, &files, &links)
		if err != nil {
			t.Fatal(err)
		}
		if sessions != 1 || messages != 2 || memories != 1 || files != 1 || links != 1 {
			t.Errorf("deleted conversation keeps %d session, %d messages, %d summaries, %d files, %d links; want 1, 2, 1, 1, 1 until purged",
				sessions, messages, memories, files, links)
		}
	})
}

// TestDeleteSessionNotFound: deleting a conversation twice, or one that
// never was, is ErrNotFound; the first delete is not.
func TestDeleteSessionNotFound(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	sess, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:a", Source: "web", Space: "web"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		id   int64
		want error
	}{
		{"first time", sess.ID, nil},
		{"again", sess.ID, db.ErrNotFound},
		{"no such conversation", sess.ID + 100, db.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := db.DeleteSession(ctx, pool, tc.id); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("DeleteSession(%d) error = %v; want %v", tc.id, err, tc.want)
			}
		})
	}
}
