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
