package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is a row of sessions: one conversation (a Discord channel, thread
// or DM, or a web chat).
type Session struct {
	ID        int64     `db:"id"`
	Key       string    `db:"key"` // e.g. "discord:channel:123", "web:admin"
	Source    string    `db:"source"`
	GuildID   string    `db:"guild_id"`
	ChannelID string    `db:"channel_id"`
	Title     string    `db:"title"`
	Space     string    `db:"space"` // whose memory it is: "guild:<id>", "dm:<user id>", "web"
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// SessionParams describes a session to get or create.
type SessionParams struct {
	Key       string // required, unique
	Source    string // e.g. "discord", "web"
	GuildID   string
	ChannelID string
	Title     string
	// Space is the space a new session belongs to (required); an existing
	// session keeps its own.
	Space string
	At    time.Time // activity time; zero means now
}

const sessionColumns = "id, key, source, guild_id, channel_id, title, space, created_at, updated_at"

// UpsertSession returns the session with p.Key, creating it if needed, in one
// statement. An existing session keeps its non-empty fields, gains the ones it
// lacked, and its updated_at moves forward to p.At.
func UpsertSession(ctx context.Context, q Querier, p SessionParams) (Session, error) {
	if p.Key == "" {
		return Session{}, fmt.Errorf("upsert session: empty key")
	}
	if p.Space == "" {
		return Session{}, fmt.Errorf("upsert session %q: empty space", p.Key)
	}
	rows, err := q.Query(ctx, `
WITH space AS (INSERT INTO spaces (key) VALUES ($7) ON CONFLICT DO NOTHING)
INSERT INTO sessions (key, source, guild_id, channel_id, title, space, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $7, $6, $6)
ON CONFLICT (key) DO UPDATE SET
    source     = COALESCE(NULLIF(sessions.source, ''), EXCLUDED.source),
    guild_id   = COALESCE(NULLIF(sessions.guild_id, ''), EXCLUDED.guild_id),
    channel_id = COALESCE(NULLIF(sessions.channel_id, ''), EXCLUDED.channel_id),
    title      = COALESCE(NULLIF(sessions.title, ''), EXCLUDED.title),
    updated_at = GREATEST(sessions.updated_at, EXCLUDED.updated_at)
RETURNING `+sessionColumns,
		p.Key, p.Source, p.GuildID, p.ChannelID, p.Title, utcOrNow(p.At), p.Space)
	if err != nil {
		return Session{}, fmt.Errorf("upsert session %q: %w", p.Key, err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Session])
	if err != nil {
		return Session{}, fmt.Errorf("upsert session %q: %w", p.Key, interpretError(err))
	}
	return s, nil
}

// SessionByKey returns the session with key, or ErrNotFound.
//
// Lookups by key (this one, UpsertSession, the "WHERE key = $1" subqueries
// of the other files) see deleted sessions too: only web conversations can
// be deleted, and their keys are random and never reused, so no new turn
// names a deleted one. An answer in flight when its conversation is
// deleted lands in it (the admin page stops it and waits for that before
// deleting) and is purged with it.
func SessionByKey(ctx context.Context, q Querier, key string) (Session, error) {
	rows, err := q.Query(ctx, "SELECT "+sessionColumns+" FROM sessions WHERE key = $1", key)
	if err != nil {
		return Session{}, fmt.Errorf("get session %q: %w", key, err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Session])
	if err != nil {
		return Session{}, fmt.Errorf("get session %q: %w", key, interpretError(err))
	}
	return s, nil
}

// SessionItem is one conversation in the admin page's list.
type SessionItem struct {
	ID        int64     `db:"id"`
	Key       string    `db:"key"`
	Source    string    `db:"source"`
	GuildID   string    `db:"guild_id"`
	ChannelID string    `db:"channel_id"`
	Title     string    `db:"title"`
	Model     string    `db:"model"`
	Space     string    `db:"space"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

const sessionItemColumns = "id, key, source, guild_id, channel_id, title, model, space, created_at, updated_at"

// SessionFilter narrows ListSessions; the zero value lists everything.
type SessionFilter struct {
	Source string // "web", "discord"; empty for all
	Space  string // one space's; empty for all
	Limit  int    // default 500
}

// ListSessions returns conversations, the most recently active first.
func ListSessions(ctx context.Context, q Querier, f SessionFilter) ([]SessionItem, error) {
	if f.Limit <= 0 {
		f.Limit = 500
	}
	rows, err := q.Query(ctx, "SELECT "+sessionItemColumns+` FROM sessions
WHERE deleted_at IS NULL AND ($1 = '' OR source = $1) AND ($3 = '' OR space = $3)
ORDER BY updated_at DESC, id DESC LIMIT $2`, f.Source, f.Limit, f.Space)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	ss, err := pgx.CollectRows(rows, pgx.RowToStructByName[SessionItem])
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return ss, nil
}

// SessionItemByID returns one conversation, or ErrNotFound (also when it
// was deleted).
func SessionItemByID(ctx context.Context, q Querier, id int64) (SessionItem, error) {
	rows, err := q.Query(ctx, "SELECT "+sessionItemColumns+" FROM sessions WHERE id = $1 AND deleted_at IS NULL", id)
	if err != nil {
		return SessionItem{}, fmt.Errorf("get session %d: %w", id, err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[SessionItem])
	if err != nil {
		return SessionItem{}, fmt.Errorf("get session %d: %w", id, interpretError(err))
	}
	return s, nil
}

// NewSession describes a conversation to create.
type NewSession struct {
	Key    string // required, new
	Source string
	Space  string // required
	Title  string
	Model  string
	At     time.Time // zero means now
}

// CreateSession adds a new conversation (and its space if new) and returns
// it.
func CreateSession(ctx context.Context, q Querier, p NewSession) (SessionItem, error) {
	key := p.Key
	if p.Space == "" {
		return SessionItem{}, fmt.Errorf("create session %q: empty space", key)
	}
	rows, err := q.Query(ctx, `WITH space AS (INSERT INTO spaces (key) VALUES ($6) ON CONFLICT DO NOTHING)
INSERT INTO sessions (key, source, title, model, created_at, updated_at, space)
VALUES ($1, $2, $3, $4, $5, $5, $6) RETURNING `+sessionItemColumns, key, p.Source, p.Title, p.Model, utcOrNow(p.At), p.Space)
	if err != nil {
		return SessionItem{}, fmt.Errorf("create session %q: %w", key, err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[SessionItem])
	if err != nil {
		return SessionItem{}, fmt.Errorf("create session %q: %w", key, interpretError(err))
	}
	return s, nil
}

// SetSessionTitle gives a conversation that has no title one: the title
// made from its first message. It never replaces a title the conversation
// already has, so a name a person gave it (RenameSession) stays.
func SetSessionTitle(ctx context.Context, q Querier, id int64, title string) error {
	if _, err := q.Exec(ctx, "UPDATE sessions SET title = $2 WHERE id = $1 AND title = ''", id, title); err != nil {
		return fmt.Errorf("set title of session %d: %w", id, err)
	}
	return nil
}

// RenameSession gives a conversation the title a person chose, whatever
// title it had, or reports ErrNotFound when there is no such conversation
// (or it was deleted).
func RenameSession(ctx context.Context, q Querier, id int64, title string) error {
	tag, err := q.Exec(ctx, "UPDATE sessions SET title = $2 WHERE id = $1 AND deleted_at IS NULL", id, title)
	if err != nil {
		return fmt.Errorf("rename session %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("rename session %d: %w", id, ErrNotFound)
	}
	return nil
}

// SetSessionModel remembers the model a conversation last used.
func SetSessionModel(ctx context.Context, q Querier, id int64, model string) error {
	if _, err := q.Exec(ctx, "UPDATE sessions SET model = $2 WHERE id = $1", id, model); err != nil {
		return fmt.Errorf("set model of session %d: %w", id, err)
	}
	return nil
}

// DeleteSession deletes a conversation with its messages, summaries and
// note links, or reports ErrNotFound when there is no such conversation (or
// it was deleted already). The conversation is only marked: it is gone at
// once from every list, page, search and context, and its rows are removed
// afterwards a batch at a time (PurgeSessionMessages, PurgeSession), so
// deleting takes one row's write however long it was.
func DeleteSession(ctx context.Context, q Querier, id int64) error {
	tag, err := q.Exec(ctx, "UPDATE sessions SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL", id)
	if err != nil {
		return fmt.Errorf("delete session %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete session %d: %w", id, ErrNotFound)
	}
	return nil
}
