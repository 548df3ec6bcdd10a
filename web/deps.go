package web

import (
	"context"
	"net/http"
	"time"

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

// ReminderCanceller cancels a user's reminder and its delivery job.
type ReminderCanceller interface {
	Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error)
}

// Reminders is what the 予定 screen asks of the reminders and scheduled
// posts; *scheduler.Reminders satisfies it.
type Reminders interface {
	ReminderCanceller
	// AdminPause and AdminResume pause and resume anyone's reminder.
	AdminPause(ctx context.Context, id int64) (db.Reminder, error)
	AdminResume(ctx context.Context, id int64) (db.Reminder, error)
	// Upcoming is rem's next n occurrences, its due time first; none when
	// it is not pending.
	Upcoming(rem db.Reminder, n int) []time.Time
	// RuleText is rem's rule in words; "" for a one-shot reminder.
	RuleText(rem db.Reminder) string
}

// WordSource is the topic word pools, one per space; *wordpool.Spaces
// satisfies it.
type WordSource interface {
	Words(ctx context.Context, space string) []string
}

// ModelLister lists the models of the model servers; *llm.Pool satisfies
// it. List has every model (for checking a name), ChatModels those offered
// for chat, with the servers that have each; Status is each server now.
type ModelLister interface {
	List(ctx context.Context) (*api.ListResponse, error)
	ChatModels(ctx context.Context) ([]llm.ModelChoice, error)
	Status() []llm.ServerStatus
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
	Memory Memory
	// Limiter is the per-user rate limit, shared with the Discord bot.
	Limiter *chat.RateLimiter
	// Reminders pauses, resumes and cancels reminders and tells their
	// rules and next occurrences.
	Reminders Reminders
	// Schedules makes reminders and scheduled posts from the 予定 form and
	// sends them as a test.
	Schedules Schedules
	// Words is the topic word pools of the spaces.
	Words WordSource
	// Models lists the models of the model servers.
	Models ModelLister
	// Settings holds the values the page can change.
	Settings *Settings

	// Revisions lists and restores earlier versions of note pages;
	// *memory.Memory satisfies it.
	Revisions NoteRevisions

	// ChannelSaved learns a place's settings as just stored, so they are
	// in force at once (the turns' persona and model, the bot's mode);
	// optional: without it they apply once read again.
	ChannelSaved func(ctx context.Context, s db.ChannelSetting)

	// ChannelLogSet turns a channel's log on or off and applies it at once
	// (*chanlog.Log's Set); optional: without it the setting is stored and
	// applies once read again.
	ChannelLogSet func(ctx context.Context, guildID, channelID, parentID string, on bool, by string) error
}

// NoteRevisions is what the note revision routes need.
type NoteRevisions interface {
	NoteRevisions(ctx context.Context, pageID int64) ([]db.NoteRevision, error)
	RestoreNote(ctx context.Context, revID int64, by db.NoteEditor) (db.NotePage, error)
}

// Memory is what the page asks of the conversation store, screen by
// screen; *memory.Memory satisfies it.
type Memory interface {
	// The notes screen.
	Notes(ctx context.Context, space memory.Space) ([]db.NotePage, error)
	WriteNote(ctx context.Context, space memory.Space, by db.NoteEditor, title, content string, mode memory.NoteMode, section string) (db.NotePage, error)
	MoveNote(ctx context.Context, id int64, section string) error
	DeleteNote(ctx context.Context, id int64, by db.NoteEditor) error
	RenameSection(ctx context.Context, space memory.Space, from, to string) error
	ReorderNotes(ctx context.Context, space memory.Space, order []db.NoteOrder) error

	// The pages linked to a conversation of the chat screen.
	LinkedNotes(ctx context.Context, key memory.SessionKey) ([]db.NotePage, error)
	SetLinkedNotes(ctx context.Context, key memory.SessionKey, pageIDs []int64) error

	// The memory screen's summaries and knowledge.
	DeleteSummary(ctx context.Context, id int64) (restored int64, err error)
	DeleteKnowledge(ctx context.Context, id int64) error

	// The system screen: the knowledge base folder and tag backfill.
	KnowledgeBase(ctx context.Context) (memory.KBStatus, error)
	KnowledgeBaseFile(rel string) (string, error)
	SyncKnowledgeBase(ctx context.Context) error
	BackfillTags(ctx context.Context, limit int) (queued int, err error)

	// DefaultSpace is the space of a request that names none.
	DefaultSpace(ctx context.Context) (memory.Space, error)
}

var (
	_ Memory        = (*memory.Memory)(nil)
	_ NoteRevisions = (*memory.Memory)(nil)
)

// part is one of Deps as the routes that need it see it: whether cmd/yorozu
// gave it, and the name a person is told when it did not.
type part struct {
	name string
	ok   bool
}

// parts are the Deps some routes cannot work without.
type parts struct {
	chat, memory, settings, reminders, schedules, revisions, jobs part
}

func (d Deps) parts() parts {
	return parts{
		chat:      part{"チャット", d.Chat != nil},
		memory:    part{"メモリ", d.Memory != nil},
		settings:  part{"設定", d.Settings != nil},
		reminders: part{"リマインダー", d.Reminders != nil},
		schedules: part{"予定の作成", d.Schedules != nil},
		revisions: part{"ノートの履歴", d.Revisions != nil},
		jobs:      part{"ジョブ画面", d.Jobs != nil},
	}
}

// need wraps h, a route that works on ps: when one of them is missing the
// route answers 503 naming it, and the rest of the page works on. Deps do
// not change once the server is built, so this is decided once, here.
func need(h http.HandlerFunc, ps ...part) http.Handler {
	for _, p := range ps {
		if !p.ok {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeError(w, http.StatusServiceUnavailable, p.name+" は動いていません。")
			})
		}
	}
	return h
}
