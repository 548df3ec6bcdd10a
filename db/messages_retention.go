package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file holds MESSAGE_RETENTION's queries: archived messages past the
// retention are deleted a small batch at a time, a session at a time, so
// no statement holds its locks for long. Summaries, notes and knowledge
// stay.

// SessionIDsAfter returns up to limit session ids above after, in order
// (keyset pages over every session).
func SessionIDsAfter(ctx context.Context, q Querier, after int64, limit int) ([]int64, error) {
	rows, err := q.Query(ctx, "SELECT id FROM sessions WHERE id > $1 ORDER BY id LIMIT $2", after, limit)
	if err != nil {
		return nil, fmt.Errorf("sessions after %d: %w", after, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("sessions after %d: %w", after, err)
	}
	return ids, nil
}

// DeleteArchivedMessages deletes up to limit of the oldest archived
// messages of a session written before cutoff (through
// messages_session_idx) and returns how many it deleted; fewer than limit
// means none are left.
func DeleteArchivedMessages(ctx context.Context, q Querier, sessionID int64, cutoff time.Time, limit int) (int64, error) {
	tag, err := q.Exec(ctx, `
DELETE FROM messages WHERE id IN (
    SELECT id FROM messages
    WHERE session_id = $1 AND created_at < $2 AND archived_at IS NOT NULL
    ORDER BY created_at, id LIMIT $3
)`, sessionID, cutoff.UTC(), limit)
	if err != nil {
		return 0, fmt.Errorf("delete archived messages of session %d: %w", sessionID, err)
	}
	return tag.RowsAffected(), nil
}
