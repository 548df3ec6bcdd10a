package web

import (
	"net/http"

	"github.com/yorozu-bot/yorozu/db"
)

// handleSpaces lists every space (whose memory is whose) with how much each
// holds, and which one a new web chat or page joins unless told otherwise:
// GET /api/spaces.
func (s *Server) handleSpaces(w http.ResponseWriter, r *http.Request) {
	spaces, err := db.ListSpaces(r.Context(), s.opts.Pool)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	def, ok := s.space(w, r, "")
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Default string            `json:"default"`
		Spaces  []db.SpaceSummary `json:"spaces"`
	}{string(def), spaces})
}
