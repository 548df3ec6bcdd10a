package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// This file holds the purge job's queries: a deleted conversation
// (DeleteSession) loses its messages a small batch at a time, then its
// session row, each statement its own transaction, so no statement holds
// its locks for long and a purge cut short resumes where it stopped.

// DeletedSessionIDs returns up to limit deleted sessions, first deleted
// first (sessions_deleted_idx).
func DeletedSessionIDs(ctx context.Context, q Querier, limit int) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM sessions WHERE deleted_at IS NOT NULL ORDER BY deleted_at, id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("deleted sessions: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("deleted sessions: %w", err)
	}
	return ids, nil
}

// PurgeSessionMessages deletes up to limit of the newest messages of a
// deleted session (through messages_session_idx; their tags, search terms,
// images and activity go with them) and returns how many it deleted; fewer
// than limit means none are left. Newest first, so the replies to a batch's
// messages are gone before them and nothing is left for reply_to_id's ON
// DELETE SET NULL to rewrite. A session not deleted keeps its messages.
func PurgeSessionMessages(ctx context.Context, q Querier, sessionID int64, limit int) (int64, error) {
	tag, err := q.Exec(ctx, `
DELETE FROM messages WHERE id IN (
    SELECT id FROM messages
    WHERE session_id = $1 AND EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND deleted_at IS NOT NULL)
    ORDER BY created_at DESC, id DESC LIMIT $2
)`, sessionID, limit)
	if err != nil {
		return 0, fmt.Errorf("purge messages of session %d: %w", sessionID, err)
	}
	return tag.RowsAffected(), nil
}

// PurgeSession deletes a deleted session's row, and with it what is left of
// it (summaries, documents, note links, versions, and any message written
// since its last batch). A session not deleted stays.
func PurgeSession(ctx context.Context, q Querier, id int64) error {
	if _, err := q.Exec(ctx, "DELETE FROM sessions WHERE id = $1 AND deleted_at IS NOT NULL", id); err != nil {
		return fmt.Errorf("purge session %d: %w", id, err)
	}
	return nil
}
