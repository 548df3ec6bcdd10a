package web

import (
	"context"
	"errors"
	"strings"

	"github.com/yorozu-bot/yorozu/chat"
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
	Logs []logItemJSON `json:"logs"`
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
	items, err := s.logItems(r, logs)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	res := logsResponse{Logs: items}
	if len(logs) == limit {
		res.NextBefore = logs[len(logs)-1].ID
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

// logItemJSON is a call in the list: with the title of its conversation
// and whether it was stopped rather than failed.
type logItemJSON struct {
	db.APILogItem
	SessionID    int64  `json:"session_id,omitempty"`
	SessionTitle string `json:"session_title,omitempty"`
	// Stopped calls were cut by 停止 (or a page of an older version that
	// went away): not failures. Their error is left out.
	Stopped bool `json:"stopped,omitempty"`
}

func (s *Server) logItems(r *http.Request, logs []db.APILogItem) ([]logItemJSON, error) {
	var keys []string
	for _, l := range logs {
		if l.SessionKey != "" {
			keys = append(keys, l.SessionKey)
		}
	}
	titles, err := db.SessionTitlesByKeys(r.Context(), s.opts.Pool, keys)
	if err != nil {
		return nil, err
	}
	items := make([]db.SessionItem, len(logs))
	for i, l := range logs {
		if t, ok := titles[l.SessionKey]; ok {
			items[i] = db.SessionItem{ID: t.ID, Key: t.Key, Title: t.Title, Source: t.Source, Space: l.Space}
		}
	}
	nb := s.namesOf(r.Context(), sessionIDs(items...))
	out := make([]logItemJSON, len(logs))
	for i, l := range logs {
		out[i] = logItemJSON{APILogItem: l}
		if items[i].Key != "" {
			out[i].SessionID = items[i].ID
			out[i].SessionTitle = nb.sessionTitle(items[i])
		}
		if stoppedCall(l.Error) {
			out[i].Stopped, out[i].Error = true, ""
		}
	}
	return out, nil
}

// stoppedCall reports whether a call's error is its context being
// cancelled: a stopped turn, not a failure.
func stoppedCall(err string) bool {
	return strings.HasSuffix(err, context.Canceled.Error()) || strings.HasSuffix(err, chat.ErrStopped.Error())
}
