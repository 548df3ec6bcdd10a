package web

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"sort"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// kbSyncTimeout bounds a sync started from the page.
const kbSyncTimeout = 10 * time.Minute

// backfillLimit is how many untagged messages one backfill queues.
const backfillLimit = 1000

// handleKnowledgeBase describes the knowledge-base folder: its files with
// sizes, the last sync and the embedding model: GET /api/knowledge-base.
func (s *Server) handleKnowledgeBase(w http.ResponseWriter, r *http.Request) {
	st, err := s.opts.Deps.Memory.KnowledgeBase(r.Context())
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// handleKnowledgeBaseFile shows one file, read-only:
// GET /api/knowledge-base/file?path=. Paths leaving the folder are 400.
func (s *Server) handleKnowledgeBaseFile(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Query().Get("path")
	text, err := s.opts.Deps.Memory.KnowledgeBaseFile(path)
	switch {
	case errors.Is(err, memory.ErrBadPath):
		writeFieldError(w, "path", "ナレッジベースのフォルダ内の相対パスを指定してください")
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, "そのファイルはありません。")
	case err != nil:
		s.internalError(w, r, err)
	default:
		writeJSON(w, http.StatusOK, map[string]string{"path": path, "content": text})
	}
}

// handleKnowledgeBaseSync indexes the folder now and answers with the new
// state: POST /api/knowledge-base/sync. A sync that fails for some files
// still answers 200, with the failure in sync_error.
func (s *Server) handleKnowledgeBaseSync(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), kbSyncTimeout)
	defer cancel()
	if err := s.opts.Deps.Memory.SyncKnowledgeBase(ctx); err != nil {
		s.opts.Logger.Warn("knowledge base sync from the admin page", "err", err)
	}
	s.handleKnowledgeBase(w, r)
}

// handleReminders lists every user's reminders, pending first:
// GET /api/reminders.
func (s *Server) handleReminders(w http.ResponseWriter, r *http.Request) {
	rs, err := db.ListReminders(r.Context(), s.opts.Pool, maxList)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := make([]reminderJSON, len(rs))
	for i, rem := range rs {
		out[i] = toReminderJSON(rem)
	}
	writeJSON(w, http.StatusOK, out)
}

// handleCancelReminder cancels a pending reminder, whoever set it:
// POST /api/reminders/{id}/cancel. One no longer pending is 409.
func (s *Server) handleCancelReminder(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	rem, err := db.ReminderByID(r.Context(), s.opts.Pool, id)
	if err == nil {
		rem, err = s.opts.Deps.Reminders.Cancel(r.Context(), rem.UserID, id)
	}
	switch {
	case errors.Is(err, db.ErrReminderNotPending):
		writeError(w, http.StatusConflict, "そのリマインダーは送信済みか、取り消し済みです。")
	case errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "そのリマインダーはありません。")
	case err != nil:
		s.internalError(w, r, err)
	default:
		writeJSON(w, http.StatusOK, toReminderJSON(rem))
	}
}

// handleWordPool shows the current topic words of a space:
// GET /api/system/word-pool?space= (default: the default space).
func (s *Server) handleWordPool(w http.ResponseWriter, r *http.Request) {
	space, ok := s.space(w, r, r.URL.Query().Get("space"))
	if !ok {
		return
	}
	words := []string{}
	if s.opts.Deps.Words != nil {
		words = append(words, s.opts.Deps.Words.Words(r.Context(), string(space))...)
	}
	writeJSON(w, http.StatusOK, map[string]any{"space": space, "words": words, "count": len(words)})
}

// handleBackfillTags queues tags for messages that have none:
// POST /api/system/backfill-tags.
func (s *Server) handleBackfillTags(w http.ResponseWriter, r *http.Request) {
	n, err := s.opts.Deps.Memory.BackfillTags(r.Context(), backfillLimit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]int{"queued": n})
}

type modelsResponse struct {
	Default   string           `json:"default"`   // the chat model in force
	Installed []string         `json:"installed"` // models Ollama has, sorted
	Presets   []db.ModelPreset `json:"presets"`
	// OllamaError says why the installed list is missing, if it is.
	OllamaError string `json:"ollama_error,omitempty"`
}

// handleModels gives the model selector its choices: GET /api/models.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	res := modelsResponse{Installed: []string{}}
	if st := s.opts.Deps.Settings; st != nil {
		res.Default = st.Get("default_model")
	}
	presets, err := db.ModelPresets(r.Context(), s.opts.Pool)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	res.Presets = append([]db.ModelPreset{}, presets...)
	if m := s.opts.Deps.Models; m != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		list, err := m.List(ctx)
		if err != nil {
			res.OllamaError = unavailableText
		} else {
			for _, mod := range list.Models {
				res.Installed = append(res.Installed, mod.Name)
			}
			sort.Strings(res.Installed)
		}
	}
	writeJSON(w, http.StatusOK, res)
}
