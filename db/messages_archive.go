package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file holds the messages queries of long-term memory: picking the turns
// to summarise and archiving them. Archived messages are kept (history,
// exports); they only leave the model's context.

// CountUnarchived counts the unarchived messages of a session, stopping at
// limit so the cost stays bounded however long the session is.
func CountUnarchived(ctx context.Context, q Querier, sessionID int64, limit int) (int, error) {
	var n int
	err := q.QueryRow(ctx, `
SELECT count(*) FROM (
    SELECT 1 FROM messages WHERE session_id = $1 AND archived_at IS NULL
    ORDER BY created_at DESC, id DESC LIMIT $2
) m`, sessionID, limit).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count unarchived messages of session %d: %w", sessionID, err)
	}
	return n, nil
}

// OldestUnarchived returns up to limit of the oldest unarchived messages of a
// session, oldest first.
func OldestUnarchived(ctx context.Context, q Querier, sessionID int64, limit int) ([]Message, error) {
	rows, err := q.Query(ctx, "SELECT "+messageColumns+` FROM messages
WHERE session_id = $1 AND archived_at IS NULL
ORDER BY created_at, id LIMIT $2`, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("oldest unarchived messages of session %d: %w", sessionID, err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Message])
	if err != nil {
		return nil, fmt.Errorf("oldest unarchived messages of session %d: %w", sessionID, err)
	}
	return ms, nil
}

// ArchiveMessages archives the still unarchived messages ids of a session at
// at, recording the summary memoryID (nil when forgotten without a summary).
// It returns how many it archived.
func ArchiveMessages(ctx context.Context, q Querier, sessionID int64, ids []int64, memoryID *int64, at time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `
UPDATE messages SET archived_at = $4, memory_id = $3
WHERE session_id = $1 AND id = ANY($2) AND archived_at IS NULL`, sessionID, ids, memoryID, utcOrNow(at))
	if err != nil {
		return 0, fmt.Errorf("archive messages of session %d: %w", sessionID, err)
	}
	return tag.RowsAffected(), nil
}

// ArchiveSession archives every unarchived message of the session with key
// (the /forget command) and returns how many it archived.
func ArchiveSession(ctx context.Context, q Querier, key string, at time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `
UPDATE messages SET archived_at = $2
WHERE session_id = (SELECT id FROM sessions WHERE key = $1) AND archived_at IS NULL`, key, utcOrNow(at))
	if err != nil {
		return 0, fmt.Errorf("archive session %q: %w", key, err)
	}
	return tag.RowsAffected(), nil
}
