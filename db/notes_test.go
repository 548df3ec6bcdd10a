package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// sp is the space the tests write notes in.
const sp = "web"

// layout renders pages as "section:title" in order and checks the
// invariants: positions 0…n-1 and sections contiguous.
func layout(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	ps, err := db.NotePages(context.Background(), pool, sp)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	done := map[string]bool{}
	for i, p := range ps {
		if p.Position != i {
			t.Errorf("page %q at position %d; want %d", p.Title, p.Position, i)
		}
		if i > 0 && ps[i-1].Section != p.Section {
			if done[p.Section] {
				t.Errorf("section %q is split", p.Section)
			}
			done[ps[i-1].Section] = true
		}
		out = append(out, p.Section+":"+p.Title)
	}
	return strings.Join(out, " ")
}

func mustCreate(t *testing.T, pool *pgxpool.Pool, title, section string) db.NotePage {
	t.Helper()
	p, err := db.CreateNotePage(context.Background(), pool, sp, title, "本文", section)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNotePagesKeepSectionsContiguous(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	a := mustCreate(t, pool, "a", "S")
	b := mustCreate(t, pool, "b", "T")
	c := mustCreate(t, pool, "c", "S") // joins the end of S, before T
	d := mustCreate(t, pool, "d", "")
	if got, want := layout(t, pool), "S:a S:c T:b :d"; got != want {
		t.Fatalf("after creates: %s; want %s", got, want)
	}

	if _, err := db.CreateNotePage(ctx, pool, sp, "a", "", "T"); !errors.Is(err, db.ErrNoteTitleTaken) {
		t.Errorf("duplicate title: %v", err)
	}

	// Changing a page's section moves it to the end of that section.
	if err := db.SetNoteSection(ctx, pool, a.ID, "T"); err != nil {
		t.Fatal(err)
	}
	if got, want := layout(t, pool), "S:c T:b T:a :d"; got != want {
		t.Errorf("after moving a to T: %s; want %s", got, want)
	}
	if err := db.SetNoteSection(ctx, pool, c.ID, "U"); err != nil { // S is now empty, U new
		t.Fatal(err)
	}
	if got, want := layout(t, pool), "T:b T:a :d U:c"; got != want {
		t.Errorf("after moving c to a new section: %s; want %s", got, want)
	}
	if err := db.SetNoteSection(ctx, pool, 999, "T"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("moving a missing page: %v", err)
	}

	// Renaming a section relabels it in place.
	if err := db.RenameNoteSection(ctx, pool, sp, "T", "旅行"); err != nil {
		t.Fatal(err)
	}
	if got, want := layout(t, pool), "旅行:b 旅行:a :d U:c"; got != want {
		t.Errorf("after rename: %s; want %s", got, want)
	}
	if err := db.RenameNoteSection(ctx, pool, sp, "旅行", "U"); !errors.Is(err, db.ErrSectionExists) {
		t.Errorf("rename onto an existing section: %v", err)
	}
	if err := db.RenameNoteSection(ctx, pool, sp, "nope", "X"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("rename of a missing section: %v", err)
	}

	// Deleting closes the gap.
	if err := db.DeleteNotePage(ctx, pool, d.ID, db.NoteEditor{}); err != nil {
		t.Fatal(err)
	}
	if got, want := layout(t, pool), "旅行:b 旅行:a U:c"; got != want {
		t.Errorf("after delete: %s; want %s", got, want)
	}
	_ = b
}

func TestReorderNotePages(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	a := mustCreate(t, pool, "a", "S")
	b := mustCreate(t, pool, "b", "S")
	c := mustCreate(t, pool, "c", "T")
	o := func(p db.NotePage, s string) db.NoteOrder { return db.NoteOrder{ID: p.ID, Section: s} }

	bad := []struct {
		name  string
		order []db.NoteOrder
	}{
		{"a page missing", []db.NoteOrder{o(a, "S"), o(b, "S")}},
		{"a page twice", []db.NoteOrder{o(a, "S"), o(a, "S"), o(c, "T")}},
		{"an unknown page", []db.NoteOrder{o(a, "S"), o(b, "S"), {ID: 999, Section: "T"}}},
		{"a split section", []db.NoteOrder{o(a, "S"), o(c, "T"), o(b, "S")}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if err := db.ReorderNotePages(ctx, pool, sp, tc.order); !errors.Is(err, db.ErrInvalidOrder) {
				t.Errorf("err = %v; want ErrInvalidOrder", err)
			}
			if got := layout(t, pool); got != "S:a S:b T:c" {
				t.Errorf("a rejected reorder changed the pages: %s", got)
			}
		})
	}
	// Valid: sections reordered and c moved into S.
	if err := db.ReorderNotePages(ctx, pool, sp, []db.NoteOrder{o(c, "S"), o(b, "S"), o(a, "U")}); err != nil {
		t.Fatal(err)
	}
	if got, want := layout(t, pool), "S:c S:b U:a"; got != want {
		t.Errorf("after reorder: %s; want %s", got, want)
	}
}

func TestConcurrentReordersOneWinsNoneCorrupts(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	var pages []db.NotePage
	for i := range 8 {
		pages = append(pages, mustCreate(t, pool, fmt.Sprint("p", i), []string{"A", "B"}[i/4]))
	}
	// Each goroutine wants its own valid order: a rotation within sections,
	// sections swapped on odd ones.
	orders := make([][]db.NoteOrder, 8)
	want := make([]string, 8)
	for g := range orders {
		var secs [2][]db.NoteOrder
		for s := range 2 {
			for i := range 4 {
				p := pages[s*4+(i+g)%4]
				secs[s] = append(secs[s], db.NoteOrder{ID: p.ID, Section: p.Section})
			}
		}
		if g%2 == 1 {
			secs[0], secs[1] = secs[1], secs[0]
		}
		orders[g] = append(secs[0], secs[1]...)
		var names []string
		for _, o := range orders[g] {
			names = append(names, fmt.Sprintf("%s:p%d", o.Section, o.ID-pages[0].ID))
		}
		want[g] = strings.Join(names, " ")
	}
	// A concurrent writer adds pages meanwhile: reorders validated against
	// an older set must fail cleanly, never corrupt.
	var wg sync.WaitGroup
	errs := make([]error, len(orders))
	for g := range orders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[g] = db.ReorderNotePages(ctx, pool, sp, orders[g])
		}()
	}
	wg.Wait()
	got := layout(t, pool)
	won := false
	for g := range orders {
		if errs[g] != nil {
			t.Errorf("reorder %d: %v", g, errs[g])
		}
		won = won || got == want[g]
	}
	if !won {
		t.Errorf("final order %s is none of the requested ones", got)
	}

	// Reorders racing with a create: each either applies in full or fails
	// with ErrInvalidOrder; the result is always valid.
	for g := range orders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[g] = db.ReorderNotePages(ctx, pool, sp, orders[g])
		}()
	}
	mustCreate(t, pool, "late", "A")
	wg.Wait()
	for g, err := range errs {
		if err != nil && !errors.Is(err, db.ErrInvalidOrder) {
			t.Errorf("reorder %d: %v", g, err)
		}
	}
	layout(t, pool)
}

func TestNoteLinksAndIndex(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "web", Key: "web:admin"})
	if err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, pool, "a", "")
	long, err := db.CreateNotePage(ctx, pool, sp, "long", strings.Repeat("あ", 50), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSessionNotePages(ctx, pool, s.ID, []int64{long.ID}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSessionNotePages(ctx, pool, s.ID, []int64{long.ID}); err != nil {
		t.Errorf("linking twice: %v", err)
	}
	if err := db.SetSessionNotePages(ctx, pool, s.ID, []int64{long.ID, 999}); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("linking a missing page: %v", err)
	}
	idx := dbtest.NotesIndex(t, pool, sp, "web:admin", 10)
	if len(idx) != 2 || idx[0].Linked || !idx[1].Linked || len([]rune(idx[1].Head)) != 40 {
		t.Errorf("index = %+v", idx)
	}
	linked, err := db.LinkedNotePagesByKey(ctx, pool, sp, "web:admin")
	if err != nil || len(linked) != 1 || linked[0].ID != long.ID {
		t.Errorf("linked = %+v, %v", linked, err)
	}
	if err := db.SetSessionNotePages(ctx, pool, s.ID, []int64{}); err != nil {
		t.Fatal(err)
	}
	if linked, err := db.LinkedNotePagesByKey(ctx, pool, sp, "web:admin"); err != nil || len(linked) != 0 {
		t.Errorf("linked after unlinking = %+v, %v", linked, err)
	}
	p, err := db.AppendNoteContent(ctx, pool, a.ID, "追記", time.Time{})
	if err != nil || p.Content != "本文\n追記" {
		t.Errorf("append = %q, %v", p.Content, err)
	}
}
