package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/yorozu-bot/yorozu/db"
)

// maxList bounds the rows one list answer carries.
const maxList = 500

// queryInt reads an optional positive integer parameter; on a malformed one
// it answers 400 naming it and returns false.
func queryInt(w http.ResponseWriter, r *http.Request, name string, def int64) (int64, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		writeFieldError(w, name, "正の整数を指定してください")
		return 0, false
	}
	return n, true
}

// handleMemory lists live summaries with their tags, newest first, of one
// conversation or all: GET /api/memory?session_id=.
func (s *Server) handleMemory(w http.ResponseWriter, r *http.Request) {
	sessionID, ok := queryInt(w, r, "session_id", 0)
	if !ok {
		return
	}
	if sessionID > 0 {
		if _, err := db.SessionItemByID(r.Context(), s.opts.Pool, sessionID); errors.Is(err, db.ErrNotFound) {
			writeError(w, http.StatusNotFound, "その会話はありません。")
			return
		}
	}
	ms, err := db.ListMemories(r.Context(), s.opts.Pool, sessionID, maxList)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ms)
}

// handleDeleteMemory removes a summary; the turns it had archived return
// to the context: DELETE /api/memory/{id}.
func (s *Server) handleDeleteMemory(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	restored, err := s.opts.Deps.Memory.DeleteSummary(r.Context(), id)
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "その要約はありません。")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int64{"restored_messages": restored})
}

// handleKnowledge lists knowledge entries, newest first, a page at a time:
// GET /api/knowledge?before=&limit=.
func (s *Server) handleKnowledge(w http.ResponseWriter, r *http.Request) {
	before, limit, ok := page(w, r)
	if !ok {
		return
	}
	es, err := db.ListKnowledge(r.Context(), s.opts.Pool, before, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := make([]knowledgeJSON, len(es))
	for i, e := range es {
		out[i] = toKnowledgeJSON(e, nil)
	}
	writeJSON(w, http.StatusOK, out)
}

// handleKnowledgeEntry returns one entry with its sources:
// GET /api/knowledge/{id}.
func (s *Server) handleKnowledgeEntry(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	e, srcs, err := db.KnowledgeByID(r.Context(), s.opts.Pool, id)
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "その知識はありません。")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if srcs == nil {
		srcs = []db.KnowledgeSource{}
	}
	writeJSON(w, http.StatusOK, toKnowledgeJSON(e, srcs))
}

// handleDeleteKnowledge removes an entry, its sources and its file:
// DELETE /api/knowledge/{id}.
func (s *Server) handleDeleteKnowledge(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	s.noContent(w, r, s.opts.Deps.Memory.DeleteKnowledge(r.Context(), id))
}
