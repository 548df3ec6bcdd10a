package notes_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/notes"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestNotesTools(t *testing.T) {
	pool := dbtest.New(t)
	m := memory.New(pool, memory.Options{Location: time.UTC})
	t.Cleanup(m.Close)
	reg := tools.NewRegistry()
	reg.MustRegister(notes.Tools(m)...)
	ctx := tools.WithCaller(context.Background(), tools.Caller{Session: "discord:channel:c1"})
	call := func(name, args string) (string, error) { return reg.Call(ctx, name, json.RawMessage(args)) }

	tests := []struct {
		name, tool, args string
		want, wantErr    string
	}{
		{"append to a missing page", "write_note", `{"title":"買い物","content":"牛乳"}`, "", `no note page "買い物" to append. Call write_note with mode "create"`},
		{"replace a missing page", "write_note", `{"title":"買い物","content":"牛乳","mode":"replace"}`, "", `mode "create"`},
		{"read before any page", "read_note", `{"title_or_id":"買い物"}`, "", "There are no note pages yet."},
		{"create", "write_note", `{"title":"買い物","content":"牛乳","mode":"create","section":"生活"}`, `OK: created note page [1] "買い物"`, ""},
		{"create again", "write_note", `{"title":"買い物","content":"卵","mode":"create"}`, "", `already exists. Call write_note with mode "append"`},
		{"append", "write_note", `{"title":"買い物","content":"卵"}`, `OK: appended to note page [1] "買い物" (4 characters now)`, ""},
		{"read by title", "read_note", `{"title_or_id":"買い物"}`, "# 買い物\n(id 1, section 生活", ""},
		{"read by id", "read_note", `{"title_or_id":"1"}`, "牛乳\n卵", ""},
		{"replace", "write_note", `{"title":"買い物","content":"パン","mode":"replace"}`, `OK: replaced note page [1]`, ""},
		{"read a missing page lists the others", "read_note", `{"title_or_id":"旅行"}`, "", `no note page "旅行". Existing pages: "買い物".`},
		{"empty title", "write_note", `{"title":" ","content":"x"}`, "", "title is empty"},
		{"empty content", "write_note", `{"title":"買い物","content":""}`, "", "content is empty"},
		{"bad mode", "write_note", `{"title":"買い物","content":"x","mode":"erase"}`, "", `invalid argument "mode"`},
		{"delete", "write_note", `{"title":"買い物","mode":"delete"}`, `OK: deleted note page [1] "買い物"`, ""},
		{"read a deleted page", "read_note", `{"title_or_id":"買い物"}`, "", "There are no note pages yet."},
		{"delete a missing page", "write_note", `{"title":"買い物","mode":"delete"}`, "", `no note page "買い物" to delete.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(tc.tool, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v; want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	// Both the replaced and the deleted text are kept, with when and the
	// turn's session.
	revs, err := m.NoteRevisions(context.Background(), 1)
	if err != nil || len(revs) != 2 || revs[0].Action != "delete" || revs[0].Content != "パン" ||
		revs[1].Action != "replace" || revs[1].Content != "牛乳\n卵" || revs[0].CreatedAt.IsZero() {
		t.Fatalf("revisions = %+v, %v; want the deleted パン then the replaced 牛乳/卵", revs, err)
	}
	for _, r := range revs {
		if r.SessionKey != "discord:channel:c1" {
			t.Errorf("%s revision by session %q; want the turn's", r.Action, r.SessionKey)
		}
	}
	back, err := m.RestoreNote(context.Background(), revs[0].ID, db.NoteEditor{Name: "admin"})
	if err != nil || back.Title != "買い物" || back.Content != "パン" {
		t.Errorf("restore the deleted page = %+v, %v", back, err)
	}
}
