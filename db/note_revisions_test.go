package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestNotePagesArePerSpace(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	a, err := db.CreateNotePage(ctx, pool, "guild:1", "買い物", "A の本文", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.CreateNotePage(ctx, pool, "guild:2", "買い物", "B の本文", "")
	if err != nil {
		t.Fatalf("the same title in another space: %v", err)
	}
	if a.Position != 0 || b.Position != 0 {
		t.Errorf("positions %d, %d; want 0 in each space", a.Position, b.Position)
	}
	got, err := db.NotePageByTitle(ctx, pool, "guild:2", "買い物")
	if err != nil || got.ID != b.ID {
		t.Errorf("title in guild:2 = %+v, %v; want page %d", got, err, b.ID)
	}
	if _, err := db.NotePageByTitle(ctx, pool, "guild:3", "買い物"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("title in a third space: %v; want ErrNotFound", err)
	}
	if _, err := db.CreateNotePage(ctx, pool, "", "x", "", ""); err == nil {
		t.Error("a page without a space was created")
	}
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Key: "discord:channel:9", Space: "guild:1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSessionNotePages(ctx, pool, s.ID, []int64{b.ID}); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("linking another space's page: %v; want ErrNotFound", err)
	}
	if err := db.RenameNoteSection(ctx, pool, "guild:2", "", "B"); err != nil {
		t.Fatal(err)
	}
	if a, _ = db.NotePageByID(ctx, pool, a.ID); a.Section != "" {
		t.Errorf("renaming a section in guild:2 moved guild:1's page to %q", a.Section)
	}
}

func TestNoteRevisionsKeepTheLastTwentyAndRestore(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	p, err := db.CreateNotePage(ctx, pool, "web", "予定", "v0", "旅行")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 25; i++ {
		ed := db.NoteEditor{Name: fmt.Sprintf("user%d", i), SessionKey: "discord:channel:1"}
		if _, err := db.UpdateNoteContent(ctx, pool, p.ID, fmt.Sprintf("v%d", i), ed); err != nil {
			t.Fatal(err)
		}
	}
	revs, err := db.NoteRevisions(ctx, pool, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != db.MaxNoteRevisions {
		t.Fatalf("%d revisions; want %d", len(revs), db.MaxNoteRevisions)
	}
	// Newest first: the text v24 was replaced by user25.
	if r := revs[0]; r.Content != "v24" || r.ChangedBy != "user25" || r.Action != db.RevisionReplace || r.Title != "予定" {
		t.Errorf("newest revision = %+v", r)
	}
	if r := revs[len(revs)-1]; r.Content != "v5" {
		t.Errorf("oldest kept revision has %q; want v5", r.Content)
	}

	restored, err := db.RestoreNoteRevision(ctx, pool, revs[len(revs)-1].ID, db.NoteEditor{Name: "admin"})
	if err != nil || restored.Content != "v5" || restored.ID != p.ID {
		t.Fatalf("restore = %+v, %v; want page %d with v5", restored, err, p.ID)
	}
	revs, _ = db.NoteRevisions(ctx, pool, p.ID)
	if revs[0].Content != "v25" || revs[0].Action != db.RevisionRestore || len(revs) != db.MaxNoteRevisions {
		t.Errorf("after restore: newest = %+v, %d kept", revs[0], len(revs))
	}

	// A deleted page comes back, in its section, with its history.
	if err := db.DeleteNotePage(ctx, pool, p.ID, db.NoteEditor{Name: "user26"}); err != nil {
		t.Fatal(err)
	}
	revs, _ = db.NoteRevisions(ctx, pool, p.ID)
	if revs[0].Action != db.RevisionDelete || revs[0].Content != "v5" {
		t.Fatalf("after delete: newest = %+v", revs[0])
	}
	back, err := db.RestoreNoteRevision(ctx, pool, revs[0].ID, db.NoteEditor{Name: "admin"})
	if err != nil || back.Title != "予定" || back.Content != "v5" || back.Section != "旅行" || back.Space != "web" {
		t.Fatalf("restore a deleted page = %+v, %v", back, err)
	}
	if again, _ := db.NoteRevisions(ctx, pool, back.ID); len(again) != len(revs) {
		t.Errorf("restored page has %d revisions; want its %d", len(again), len(revs))
	}
	if _, err := db.RestoreNoteRevision(ctx, pool, 999999, db.NoteEditor{}); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("restore a missing revision: %v; want ErrNotFound", err)
	}
}
