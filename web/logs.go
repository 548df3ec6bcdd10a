package web

import (
	"errors"
	"math"
	"net/http"

	"github.com/yorozu-bot/yorozu/db"
)

// Page sizes of keyset-paged lists.
const (
	defaultPage = 50
	maxPage     = 200
)

// page reads ?before= (an id; the first page when absent) and ?limit=; on
// a malformed value it answers 400 naming it and returns false.
func page(w http.ResponseWriter, r *http.Request) (before int64, limit int, ok bool) {
	before, ok = queryInt(w, r, "before", math.MaxInt64)
	if !ok {
		return 0, 0, false
	}
	l, ok := queryInt(w, r, "limit", defaultPage)
	if !ok {
		return 0, 0, false
	}
	return before, int(min(l, maxPage)), true
}

type logsResponse struct {
	Logs []db.APILogItem `json:"logs"`
	// NextBefore is the before= of the next page; 0 when this is the last.
	NextBefore int64 `json:"next_before"`
}

// handleLogs lists model calls, newest first, a page at a time:
// GET /api/logs?before=&limit=.
func (s *Server) handleLogs(w http.ResponseWriter, r *http.Request) {
	before, limit, ok := page(w, r)
	if !ok {
		return
	}
	logs, err := db.APILogsBefore(r.Context(), s.opts.Pool, before, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	res := logsResponse{Logs: logs}
	if len(logs) == limit {
		res.NextBefore = logs[len(logs)-1].ID
	}
	if res.Logs == nil {
		res.Logs = []db.APILogItem{}
	}
	writeJSON(w, http.StatusOK, res)
}

// handleLog returns one call with its request and response:
// GET /api/logs/{id}.
func (s *Server) handleLog(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	l, err := db.APILogByID(r.Context(), s.opts.Pool, id)
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "そのログはありません。")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAPILogJSON(l))
}

// handleDeleteLog removes one call's log: DELETE /api/logs/{id}.
func (s *Server) handleDeleteLog(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	s.noContent(w, r, db.DeleteAPILog(r.Context(), s.opts.Pool, id))
}
