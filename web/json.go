package web

import (
	"encoding/json"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// This file holds the API's JSON shapes of the rows it returns.

type noteJSON struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	Content   string    `json:"content"`
	Section   string    `json:"section"`
	Space     string    `json:"space"`
	Position  int       `json:"position"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func toNoteJSON(p db.NotePage) noteJSON {
	return noteJSON{ID: p.ID, Title: p.Title, Content: p.Content, Section: p.Section, Space: p.Space, Position: p.Position,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

func toNotesJSON(ps []db.NotePage) []noteJSON {
	out := make([]noteJSON, len(ps))
	for i, p := range ps {
		out[i] = toNoteJSON(p)
	}
	return out
}

type knowledgeJSON struct {
	ID         int64        `json:"id"`
	Title      string       `json:"title"`
	Body       string       `json:"body,omitempty"`
	Query      string       `json:"query"`
	Tool       string       `json:"tool"`
	SessionKey string       `json:"session_key"`
	Space      string       `json:"space"`
	FilePath   string       `json:"file_path"`
	CreatedAt  time.Time    `json:"created_at"`
	Sources    []sourceJSON `json:"sources,omitempty"`
}

func toKnowledgeJSON(e db.KnowledgeEntry, srcs []db.KnowledgeSource) knowledgeJSON {
	k := knowledgeJSON{ID: e.ID, Title: e.Title, Body: e.Body, Query: e.Query, Tool: e.Tool,
		SessionKey: e.SessionKey, Space: e.Space, FilePath: e.FilePath, CreatedAt: e.CreatedAt}
	if srcs != nil {
		k.Sources = make([]sourceJSON, len(srcs))
		for i, s := range srcs {
			k.Sources[i] = sourceJSON{Title: s.Title, URL: s.URL}
		}
	}
	return k
}

type reminderJSON struct {
	ID          int64      `json:"id"`
	Status      string     `json:"status"` // pending, paused, delivered, cancelled, failed
	Kind        string     `json:"kind"`   // remind, post
	SessionKey  string     `json:"session_key"`
	GuildID     string     `json:"guild_id"`
	ChannelID   string     `json:"channel_id"`
	UserID      string     `json:"user_id"`
	Content     string     `json:"content"`
	DueAt       time.Time  `json:"due_at"`
	CreatedAt   time.Time  `json:"created_at"`
	NotifiedAt  *time.Time `json:"notified_at"`
	CancelledAt *time.Time `json:"cancelled_at"`
	FailedAt    *time.Time `json:"failed_at"`
	PausedAt    *time.Time `json:"paused_at"`
	Attempts    int        `json:"attempts"`
	LastError   string     `json:"last_error"`

	Rule         string `json:"rule"`  // in words; "" for one-shot
	RRule        string `json:"rrule"` // RFC 5545; "" for one-shot
	TimeZone     string `json:"time_zone"`
	SkipHolidays bool   `json:"skip_holidays"`
	// Occurrences is how many occurrences have gone by, delivered or missed.
	Occurrences int `json:"occurrences"`
	// NextOccurrences are the next few, due time first, in TimeZone;
	// empty when it is not pending.
	NextOccurrences []time.Time    `json:"next_occurrences"`
	Deliveries      []deliveryJSON `json:"deliveries"` // newest first
}

type deliveryJSON struct {
	Occurrence time.Time `json:"occurrence"`
	HandledAt  time.Time `json:"handled_at"`
	LateMS     int64     `json:"late_ms"`
	MessageID  string    `json:"message_id"` // "" when nothing was posted
	Covers     int       `json:"covers"`     // above 1: the catch-up after downtime
	Error      string    `json:"error"`      // "skipped", or why nothing was posted
}

// toReminderJSON is r with its next occurrences, its rule in words and
// its recent deliveries ds, newest first.
func toReminderJSON(r db.Reminder, next []time.Time, rule string, ds []db.Delivery) reminderJSON {
	status := "pending"
	switch {
	case r.NotifiedAt != nil:
		status = "delivered"
	case r.CancelledAt != nil:
		status = "cancelled"
	case r.FailedAt != nil:
		status = "failed"
	case r.PausedAt != nil:
		status = "paused"
	}
	if len(ds) == 0 && !r.Repeats() && r.NotifiedAt != nil {
		// Delivered before deliveries were recorded: the row itself says when.
		ds = []db.Delivery{{ReminderID: r.ID, Occurrence: r.DueAt, HandledAt: *r.NotifiedAt, MessageID: r.MessageID, Covers: 1}}
	}
	out := reminderJSON{ID: r.ID, Status: status, Kind: r.Kind, SessionKey: r.SessionKey, GuildID: r.GuildID, ChannelID: r.ChannelID,
		UserID: r.UserID, Content: r.Content, DueAt: r.DueAt, CreatedAt: r.CreatedAt, NotifiedAt: r.NotifiedAt,
		CancelledAt: r.CancelledAt, FailedAt: r.FailedAt, PausedAt: r.PausedAt, Attempts: r.Attempts, LastError: r.LastError,
		Rule: rule, RRule: r.RRule, TimeZone: r.TimeZone, SkipHolidays: r.SkipHolidays, Occurrences: r.Occurrences,
		NextOccurrences: append([]time.Time{}, next...), Deliveries: make([]deliveryJSON, len(ds))}
	for i, d := range ds {
		out.Deliveries[i] = deliveryJSON{Occurrence: d.Occurrence, HandledAt: d.HandledAt, LateMS: d.Late().Milliseconds(),
			MessageID: d.MessageID, Covers: d.Covers, Error: d.Error}
	}
	return out
}

type apiLogJSON struct {
	db.APILogItem
	Request  json.RawMessage `json:"request"`
	Response string          `json:"response"`
}

func toAPILogJSON(l db.APILog) apiLogJSON {
	req := json.RawMessage(l.Request)
	if len(req) == 0 {
		req = json.RawMessage("null")
	}
	return apiLogJSON{
		APILogItem: db.APILogItem{ID: l.ID, Model: l.Model, Error: l.Error, LatencyMS: l.LatencyMS,
			PromptTokens: l.PromptTokens, CompletionTokens: l.CompletionTokens, SessionKey: l.SessionKey, CreatedAt: l.CreatedAt, TurnID: l.TurnID, Kind: l.Kind, Space: l.Space},
		Request: req, Response: l.Response,
	}
}
