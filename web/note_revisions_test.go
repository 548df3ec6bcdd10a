package web

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestNoteRevisionsListAndRestore(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	mem := memory.New(pool, memory.Options{})
	t.Cleanup(mem.Close)
	space := memory.GuildSpace("111")
	p, err := mem.WriteNote(ctx, space, db.NoteEditor{Name: "たろう"}, "買い物", "牛乳", memory.NoteCreate, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.WriteNote(ctx, space, db.NoteEditor{Name: "じろう"}, "買い物", "消した", memory.NoteReplace, ""); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Options{Pool: pool, Deps: Deps{Revisions: mem}})
	c := ts.quickSession(t)

	var revs []db.NoteRevision
	path := fmt.Sprintf("/api/notes/%d/revisions", p.ID)
	if code := c.call("GET", path, nil, &revs); code != http.StatusOK || len(revs) != 1 {
		t.Fatalf("list = %d %+v", code, revs)
	}
	if r := revs[0]; r.Content != "牛乳" || r.ChangedBy != "じろう" || r.Space != "guild:111" || r.Action != db.RevisionReplace {
		t.Errorf("revision = %+v; want the text じろう replaced, in guild:111", r)
	}
	if code := c.call("GET", "/api/notes/999999/revisions", nil, nil); code != http.StatusNotFound {
		t.Errorf("revisions of a page never seen = %d, want 404", code)
	}
	if code := c.call("POST", fmt.Sprintf("/api/notes/%d/revisions/%d/restore", p.ID+1, revs[0].ID), nil, nil); code != http.StatusNotFound {
		t.Errorf("restore through another page = %d, want 404", code)
	}
	var back db.NotePage
	if code := c.call("POST", fmt.Sprintf("%s/%d/restore", path, revs[0].ID), nil, &back); code != http.StatusOK || back.Content != "牛乳" {
		t.Fatalf("restore = %d %+v", code, back)
	}
	if got, _ := mem.ReadNote(ctx, space, "買い物"); got.Content != "牛乳" {
		t.Errorf("page after restore reads %q", got.Content)
	}
	if code := c.call("GET", path, nil, &revs); code != http.StatusOK || len(revs) != 2 || revs[0].Content != "消した" || revs[0].ChangedBy != "admin" {
		t.Errorf("after restore = %d %+v; want the replaced text kept, by admin", code, revs)
	}
	anon := ts.anonymous(t)
	if code := anon.call("GET", path, nil, nil); code != http.StatusUnauthorized {
		t.Errorf("without login = %d, want 401", code)
	}
	if code := newTestServer(t, Options{}).quickSession(t).call("GET", path, nil, nil); code != http.StatusServiceUnavailable {
		t.Errorf("without the notes part = %d, want 503", code)
	}
}
