package web

import (
	"context"
	"net/http"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// Responder answers one turn, streaming its progress: the chat router, the
// same one the Discord bot hands its turns to.
type Responder interface {
	Respond(ctx context.Context, req chat.Request, emit func(llm.Event) error) error
}

// ReminderCanceller cancels a user's reminder and its delivery job;
// *scheduler.Reminders satisfies it.
type ReminderCanceller interface {
	Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error)
}

// WordSource is the topic word pools, one per space; *wordpool.Spaces
// satisfies it.
type WordSource interface {
	Words(ctx context.Context, space string) []string
}

// ModelLister lists the models installed in Ollama; *api.Client satisfies it.
type ModelLister interface {
	List(ctx context.Context) (*api.ListResponse, error)
}

// Deps are the parts of yorozu the API works on. cmd/yorozu wires them; a
// nil part makes the routes that need it answer 503.
type Deps struct {
	// Jobs is River's UI, mounted under /jobs/ (riverui.Handler with prefix
	// "/jobs").
	Jobs http.Handler
	// Chat answers turns typed on the page.
	Chat Responder
	// Memory keeps conversations, notes, summaries and knowledge.
	Memory *memory.Memory
	// Limiter is the per-user rate limit, shared with the Discord bot.
	Limiter *chat.RateLimiter
	// Reminders cancels reminders.
	Reminders ReminderCanceller
	// Words is the topic word pools of the spaces.
	Words WordSource
	// Models lists the installed Ollama models.
	Models ModelLister
	// Settings holds the values the page can change.
	Settings *Settings

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
	return withCSRFScript(s.opts.Deps.Jobs)
}

// needMemory wraps a handler that works on memory.
func (s *Server) needMemory(h http.HandlerFunc) http.Handler {
	if s.opts.Deps.Memory == nil {
		return unavailable("メモリ")
	}
	return h
}

// needSettings wraps a handler that works on the settings.
func (s *Server) needSettings(h http.HandlerFunc) http.Handler {
	if s.opts.Deps.Settings == nil {
		return unavailable("設定")
	}
	return h
}

// needChat wraps a handler that runs turns.
func (s *Server) needChat(h http.HandlerFunc) http.Handler {
	if s.opts.Deps.Chat == nil || s.opts.Deps.Memory == nil {
		return unavailable("チャット")
	}
	return h
}

// needReminders wraps a handler that cancels reminders.
func (s *Server) needReminders(h http.HandlerFunc) http.Handler {
	if s.opts.Deps.Reminders == nil {
		return unavailable("リマインダー")
	}
	return h
}
