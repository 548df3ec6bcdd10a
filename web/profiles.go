package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// handleProfiles lists the facts members asked yorozu to keep about
// themselves in one space, by member: GET /api/profiles?space=.
func (s *Server) handleProfiles(w http.ResponseWriter, r *http.Request) {
	space, ok := s.space(w, r, r.URL.Query().Get("space"))
	if !ok {
		return
	}
	facts, err := db.SpaceMemberFacts(r.Context(), s.opts.Pool, string(space))
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := make([]factJSON, len(facts))
	for i, f := range facts {
		out[i] = factJSON{ID: f.ID, UserID: f.UserID, UserName: f.UserName, Content: f.Content, CreatedAt: f.CreatedAt}
	}
	writeJSON(w, http.StatusOK, map[string]any{"space": space, "facts": out})
}

// factJSON is one member fact as the API shows it.
type factJSON struct {
	ID        int64     `json:"id"`
	UserID    string    `json:"user_id"`
	UserName  string    `json:"user_name"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// handleDeleteProfileFact deletes one member fact of a space:
// DELETE /api/profiles/{id}?space=.
func (s *Server) handleDeleteProfileFact(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	space, ok := s.space(w, r, r.URL.Query().Get("space"))
	if !ok {
		return
	}
	err := db.DeleteSpaceMemberFact(r.Context(), s.opts.Pool, string(space), id)
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "その項目はありません。")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
