package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file holds message_tags and memory_tags: a few topic words per
// message and per summary.

// SetMessageTags replaces the tags of a message.
func SetMessageTags(ctx context.Context, q Querier, messageID int64, tags []string) error {
	if _, err := q.Exec(ctx, `
WITH gone AS (DELETE FROM message_tags WHERE message_id = $1)
INSERT INTO message_tags (message_id, tag) SELECT $1, t FROM unnest($2::text[]) t
ON CONFLICT DO NOTHING`, messageID, tags); err != nil {
		return fmt.Errorf("set tags of message %d: %w", messageID, err)
	}
	return nil
}

// SetMemoryTags replaces the tags of a summary.
func SetMemoryTags(ctx context.Context, q Querier, memoryID int64, tags []string) error {
	if _, err := q.Exec(ctx, `
WITH gone AS (DELETE FROM memory_tags WHERE memory_id = $1)
INSERT INTO memory_tags (memory_id, tag) SELECT $1, t FROM unnest($2::text[]) t
ON CONFLICT DO NOTHING`, memoryID, tags); err != nil {
		return fmt.Errorf("set tags of memory %d: %w", memoryID, err)
	}
	return nil
}

// UntaggedMessages returns up to limit of the newest messages that have no
// tags yet (for a backfill).
func UntaggedMessages(ctx context.Context, q Querier, limit int) ([]Message, error) {
	rows, err := q.Query(ctx, "SELECT "+messageColumns+` FROM messages m
WHERE content <> '' AND NOT EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id)
ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("untagged messages: %w", err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Message])
	if err != nil {
		return nil, fmt.Errorf("untagged messages: %w", err)
	}
	return ms, nil
}

// RecentTag is a tag of a recent message or summary, with when that was
// said.
type RecentTag struct {
	Tag string    `db:"tag"`
	At  time.Time `db:"at"`
}

// RecentTags returns the tags of the latest unsummarised messages (up to
// messages of them) and of the latest live summaries, which stand for the
// messages they archived (up to summaries), in the conversations of space,
// newest first: what people talked about lately, for picking a related
// topic. The messages are read from the space's most recently active
// conversations (up to messages of them; a conversation moves when it gets
// a message), so a space of many conversations costs no more than one of a
// few.
func RecentTags(ctx context.Context, q Querier, space string, messages, summaries int) ([]RecentTag, error) {
	rows, err := q.Query(ctx, `
WITH s AS MATERIALIZED (
    SELECT id FROM sessions WHERE space = $1 AND deleted_at IS NULL ORDER BY updated_at DESC, id DESC LIMIT $2
),
msg AS MATERIALIZED (
    SELECT m.id, m.created_at FROM s CROSS JOIN LATERAL (
        SELECT id, created_at FROM messages
        WHERE session_id = s.id AND archived_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT $2
    ) m
    ORDER BY m.created_at DESC, m.id DESC LIMIT $2
),
mem AS (
    SELECT id, period_end FROM memories
    WHERE folded_into IS NULL AND forgotten_at IS NULL AND session_id IN (SELECT id FROM sessions WHERE space = $1 AND deleted_at IS NULL)
    ORDER BY period_end DESC, id DESC LIMIT $3
)
SELECT t.tag, msg.created_at AS at FROM message_tags t JOIN msg ON msg.id = t.message_id
UNION ALL
SELECT t.tag, mem.period_end AS at FROM memory_tags t JOIN mem ON mem.id = t.memory_id
ORDER BY at DESC, tag`, space, messages, summaries)
	if err != nil {
		return nil, fmt.Errorf("recent tags of space %q: %w", space, err)
	}
	tags, err := pgx.CollectRows(rows, pgx.RowToStructByName[RecentTag])
	if err != nil {
		return nil, fmt.Errorf("recent tags of space %q: %w", space, err)
	}
	return tags, nil
}
