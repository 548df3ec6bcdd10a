package web

import (
	"errors"
	"net/http"

	"github.com/yorozu-bot/yorozu/db"
)

// handleNoteRevisions lists the kept earlier versions of a page, newest
// first, each with its space: GET /api/notes/{id}/revisions. A deleted
// page's revisions are listed too; a page never seen is 404.
func (s *Server) handleNoteRevisions(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	revs, err := s.opts.Deps.Revisions.NoteRevisions(r.Context(), id)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if len(revs) == 0 {
		if _, err := db.NotePageByID(r.Context(), s.opts.Pool, id); errors.Is(err, db.ErrNotFound) {
			writeError(w, http.StatusNotFound, "そのノートは見つかりません。")
			return
		}
		revs = []db.NoteRevision{}
	}
	writeJSON(w, http.StatusOK, revs)
}

// handleRestoreNoteRevision puts a revision's text back on its page (a
// deleted page comes back) and answers the page: POST
// /api/notes/{id}/revisions/{rev}/restore. The text it replaces is kept as a
// revision in turn.
func (s *Server) handleRestoreNoteRevision(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	rev, ok := pathID(w, r, "rev")
	if !ok {
		return
	}
	revs, err := s.opts.Deps.Revisions.NoteRevisions(r.Context(), id)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	found := false
	for _, x := range revs {
		found = found || x.ID == rev
	}
	if !found {
		writeError(w, http.StatusNotFound, "そのノートにその版はありません。")
		return
	}
	p, err := s.opts.Deps.Revisions.RestoreNote(r.Context(), rev, db.NoteEditor{Name: "admin"})
	switch {
	case errors.Is(err, db.ErrNoteTitleTaken):
		writeJSON(w, http.StatusConflict, apiError{Error: "同じタイトルのページが今はあるため、削除されたページを戻せません。先にそちらの名前を変えてください。"})
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}
