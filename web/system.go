package web

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/ollama/ollama/types/model"

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
	// The answer comes after the sync, which may take longer than
	// WriteTimeout allows.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(kbSyncTimeout + s.opts.WriteTimeout))
	ctx, cancel := context.WithTimeout(r.Context(), kbSyncTimeout)
	defer cancel()
	if err := s.opts.Deps.Memory.SyncKnowledgeBase(ctx); err != nil {
		s.opts.Logger.Warn("knowledge base sync from the admin page", "err", err)
	}
	s.handleKnowledgeBase(w, r)
}

// upcomingShown is how many next occurrences a reminder is listed with, and
// deliveriesShown how many of its past deliveries.
const (
	upcomingShown   = 5
	deliveriesShown = 10
)

// handleReminders lists every user's reminders and scheduled posts, pending
// first, each with its rule in words, its next occurrences and its recent
// deliveries (read for the whole list at once): GET /api/reminders.
func (s *Server) handleReminders(w http.ResponseWriter, r *http.Request) {
	rs, err := db.ListReminders(r.Context(), s.opts.Pool, maxList)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	ids := make([]int64, len(rs))
	for i, rem := range rs {
		ids[i] = rem.ID
	}
	ds, err := db.RecentDeliveries(r.Context(), s.opts.Pool, ids, deliveriesShown)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := make([]reminderJSON, len(rs))
	for i, rem := range rs {
		out[i] = s.reminderJSON(rem, ds[rem.ID])
	}
	writeJSON(w, http.StatusOK, out)
}

// reminderJSON is rem as the API shows it, with deliveries ds. Without
// Deps.Reminders (the list still works) it has no rule or next occurrences.
func (s *Server) reminderJSON(rem db.Reminder, ds []db.Delivery) reminderJSON {
	rems := s.opts.Deps.Reminders
	if rems == nil {
		return toReminderJSON(rem, nil, "", ds)
	}
	return toReminderJSON(rem, rems.Upcoming(rem, upcomingShown), rems.RuleText(rem), ds)
}

// writeReminder answers with rem as the list shows it.
func (s *Server) writeReminder(w http.ResponseWriter, r *http.Request, rem db.Reminder) {
	ds, err := db.RecentDeliveries(r.Context(), s.opts.Pool, []int64{rem.ID}, deliveriesShown)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.reminderJSON(rem, ds[rem.ID]))
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
		s.writeReminder(w, r, rem)
	}
}

// handlePauseReminder stops anyone's reminder or scheduled post until it is
// resumed: POST /api/reminders/{id}/pause. One already paused, or no longer
// pending, is 409.
func (s *Server) handlePauseReminder(w http.ResponseWriter, r *http.Request) {
	s.pauseOrResume(w, r, false)
}

// handleResumeReminder restarts a paused one from its next occurrence:
// POST /api/reminders/{id}/resume. One not paused, or no longer pending, is
// 409.
func (s *Server) handleResumeReminder(w http.ResponseWriter, r *http.Request) {
	s.pauseOrResume(w, r, true)
}

func (s *Server) pauseOrResume(w http.ResponseWriter, r *http.Request, resume bool) {
	id, ok := pathID(w, r, "id")
	if !ok {
		return
	}
	rem, err := db.ReminderByID(r.Context(), s.opts.Pool, id)
	if err == nil {
		if msg := pauseConflict(rem, resume); msg != "" {
			writeError(w, http.StatusConflict, msg)
			return
		}
		if resume {
			rem, err = s.opts.Deps.Reminders.AdminResume(r.Context(), id)
		} else {
			rem, err = s.opts.Deps.Reminders.AdminPause(r.Context(), id)
		}
	}
	switch {
	case errors.Is(err, db.ErrNotFound):
		writeError(w, http.StatusNotFound, "その予定はありません。")
	case errors.Is(err, db.ErrReminderNotPending):
		writeError(w, http.StatusConflict, scheduleOver)
	case err != nil:
		// Changed by someone else since it was read: the scheduler's
		// ErrPaused or ErrNotPaused, which this package cannot name (it
		// does not import scheduler). The row says which.
		if now, rerr := db.ReminderByID(r.Context(), s.opts.Pool, id); rerr == nil && pauseConflict(now, resume) != "" {
			writeError(w, http.StatusConflict, pauseConflict(now, resume))
			return
		}
		s.internalError(w, r, err)
	default:
		s.writeReminder(w, r, rem)
	}
}

// scheduleOver is the answer to a pause or resume of a reminder that is
// delivered, cancelled or given up on.
const scheduleOver = "その予定はもう終わっています（完了・取り消し・失敗）。"

// pauseConflict says why rem cannot be paused (resume false) or resumed;
// "" when it can.
func pauseConflict(rem db.Reminder, resume bool) string {
	switch {
	case !rem.Pending():
		return scheduleOver
	case resume && rem.PausedAt == nil:
		return "その予定は一時停止していません。"
	case !resume && rem.PausedAt != nil:
		return "その予定はもう一時停止中です。"
	}
	return ""
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
			res.Installed = s.chatModels(ctx, res.Installed)
			sort.Strings(res.Installed)
		}
	}
	writeJSON(w, http.StatusOK, res)
}

// chatModels keeps of models those that can chat: an embedding-only model
// (no "completion" among its capabilities) is left out. A model whose
// capabilities cannot be read is kept: the turn will say what is wrong.
func (s *Server) chatModels(ctx context.Context, models []string) []string {
	caps := s.opts.Deps.Capabilities
	if caps == nil {
		return models
	}
	out := models[:0:0]
	for _, m := range models {
		c, err := caps(ctx, m)
		if err == nil && !slices.Contains(c.All, string(model.CapabilityCompletion)) {
			continue
		}
		out = append(out, m)
	}
	return out
}
