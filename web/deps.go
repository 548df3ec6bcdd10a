package web

import (
	"context"
	"net/http"

	"github.com/yorozu-bot/yorozu/db"
)

// Deps are the parts of yorozu the API works on. cmd/yorozu wires them; a
// nil part makes the routes that need it answer 503.
type Deps struct {
	// Jobs is River's UI, mounted under /jobs/ (riverui.Handler with prefix
	// "/jobs").
	Jobs http.Handler
	// Revisions lists and restores earlier versions of note pages;
	// *memory.Memory satisfies it.
	Revisions NoteRevisions
}

// NoteRevisions is what the note revision routes need.
type NoteRevisions interface {
	NoteRevisions(ctx context.Context, pageID int64) ([]db.NoteRevision, error)
	RestoreNote(ctx context.Context, revID int64, by db.NoteEditor) (db.NotePage, error)
}

// unavailable answers 503 naming the missing part.
func unavailable(what string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusServiceUnavailable, what+" は動いていません。")
	})
}

func (s *Server) jobsHandler() http.Handler {
	if s.opts.Deps.Jobs == nil {
		return unavailable("ジョブ画面")
	}
	return s.opts.Deps.Jobs
}
