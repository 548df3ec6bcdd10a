package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Memory is a row of memories: a summary of archived turns of a session.
type Memory struct {
	ID           int64     `db:"id"`
	SessionID    int64     `db:"session_id"`
	Content      string    `db:"content"`
	Tokens       int       `db:"tokens"`        // estimated prompt tokens of Content
	MessageCount int       `db:"message_count"` // messages it covers, folded summaries' included
	PeriodStart  time.Time `db:"period_start"`  // first covered message
	PeriodEnd    time.Time `db:"period_end"`    // last covered message
	FoldedInto   *int64    `db:"folded_into"`   // set once folded into a newer summary
	CreatedAt    time.Time `db:"created_at"`
}

// MemoryParams describes a summary to insert.
type MemoryParams struct {
	SessionID    int64  // required
	Content      string // required
	Tokens       int
	MessageCount int
	PeriodStart  time.Time
	PeriodEnd    time.Time
	CreatedAt    time.Time // zero means now
}

const memoryColumns = "id, session_id, content, tokens, message_count, period_start, period_end, folded_into, created_at"

// InsertMemory stores a summary and returns the stored row.
func InsertMemory(ctx context.Context, q Querier, p MemoryParams) (Memory, error) {
	rows, err := q.Query(ctx, `
INSERT INTO memories (session_id, content, tokens, message_count, period_start, period_end, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING `+memoryColumns,
		p.SessionID, p.Content, p.Tokens, p.MessageCount, p.PeriodStart.UTC(), p.PeriodEnd.UTC(), utcOrNow(p.CreatedAt))
	if err != nil {
		return Memory{}, fmt.Errorf("insert memory in session %d: %w", p.SessionID, err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return Memory{}, fmt.Errorf("insert memory in session %d: %w", p.SessionID, interpretError(err))
	}
	return m, nil
}

// LiveMemories returns the summaries of a session that were not folded,
// oldest first.
func LiveMemories(ctx context.Context, q Querier, sessionID int64) ([]Memory, error) {
	rows, err := q.Query(ctx, "SELECT "+memoryColumns+` FROM memories
WHERE session_id = $1 AND folded_into IS NULL AND forgotten_at IS NULL ORDER BY period_end, id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("live memories of session %d: %w", sessionID, err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return nil, fmt.Errorf("live memories of session %d: %w", sessionID, err)
	}
	return ms, nil
}

// LiveMemoriesByKey is LiveMemories for the session with key, limited to the
// newest limit summaries (still returned oldest first); a session that does
// not exist has none.
func LiveMemoriesByKey(ctx context.Context, q Querier, key string, limit int) ([]Memory, error) {
	rows, err := q.Query(ctx, liveMemoriesByKey, key, limit)
	if err != nil {
		return nil, fmt.Errorf("live memories of session %q: %w", key, err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return nil, fmt.Errorf("live memories of session %q: %w", key, err)
	}
	return ms, nil
}

const liveMemoriesByKey = `
SELECT * FROM (
    SELECT ` + memoryColumns + ` FROM memories
    WHERE session_id = (SELECT id FROM sessions WHERE key = $1) AND folded_into IS NULL AND forgotten_at IS NULL
    ORDER BY period_end DESC, id DESC
    LIMIT $2
) live ORDER BY period_end, id`

// QueueLiveMemoriesByKey queues LiveMemoriesByKey on b, into dst.
func QueueLiveMemoriesByKey(b *Batch, key string, limit int, dst *[]Memory) {
	queueRows(b, "live memories of session "+key, dst, liveMemoriesByKey, key, limit)
}

// FoldMemories marks the summaries ids as folded into the summary into. Only
// live summaries of into's session are folded; it returns how many were.
func FoldMemories(ctx context.Context, q Querier, ids []int64, into int64) (int64, error) {
	tag, err := q.Exec(ctx, `
UPDATE memories SET folded_into = $2
WHERE id = ANY($1) AND folded_into IS NULL AND forgotten_at IS NULL AND id <> $2
  AND session_id = (SELECT session_id FROM memories WHERE id = $2)`, ids, into)
	if err != nil {
		return 0, fmt.Errorf("fold memories into %d: %w", into, err)
	}
	return tag.RowsAffected(), nil
}

// ForgetMemoriesByKey forgets the live summaries of the session with key
// at at (their messages stay archived) and returns how many: they and the
// older summaries folded into them are read no more, and the purge job
// deletes them (ForgottenMemoryIDs, PurgeForgottenMemory). A handful of
// rows (memories_session_live_idx), however long the conversation.
func ForgetMemoriesByKey(ctx context.Context, q Querier, key string, at time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `
UPDATE memories SET forgotten_at = $2
WHERE session_id = (SELECT id FROM sessions WHERE key = $1) AND folded_into IS NULL AND forgotten_at IS NULL`, key, utcOrNow(at))
	if err != nil {
		return 0, fmt.Errorf("forget summaries of %q: %w", key, err)
	}
	return tag.RowsAffected(), nil
}

// ForgottenMemoryIDs returns up to limit forgotten summaries, first
// forgotten first (memories_forgotten_idx).
func ForgottenMemoryIDs(ctx context.Context, q Querier, limit int) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM memories WHERE forgotten_at IS NOT NULL ORDER BY forgotten_at, id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("forgotten summaries: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("forgotten summaries: %w", err)
	}
	return ids, nil
}

// PurgeForgottenMemory deletes a forgotten summary with the summaries
// folded into it, at any depth (memories_folded_into_idx), and their tags,
// in one statement, so none of them is unfolded (made live) on the way;
// it returns how many it deleted. A summary not forgotten stays.
func PurgeForgottenMemory(ctx context.Context, q Querier, id int64) (int64, error) {
	tag, err := q.Exec(ctx, `
WITH RECURSIVE tree AS (
    SELECT id FROM memories WHERE id = $1 AND forgotten_at IS NOT NULL
    UNION ALL
    SELECT m.id FROM memories m JOIN tree ON m.folded_into = tree.id
)
DELETE FROM memories WHERE id IN (SELECT id FROM tree)`, id)
	if err != nil {
		return 0, fmt.Errorf("purge forgotten summary %d: %w", id, err)
	}
	return tag.RowsAffected(), nil
}

// MemoryItem is a live summary as the admin page lists it.
type MemoryItem struct {
	ID           int64     `db:"id" json:"id"`
	SessionID    int64     `db:"session_id" json:"session_id"`
	SessionKey   string    `db:"session_key" json:"session_key"`
	Space        string    `db:"space" json:"space"`
	Content      string    `db:"content" json:"content"`
	MessageCount int       `db:"message_count" json:"message_count"`
	PeriodStart  time.Time `db:"period_start" json:"period_start"`
	PeriodEnd    time.Time `db:"period_end" json:"period_end"`
	CreatedAt    time.Time `db:"created_at" json:"created_at"`
	Tags         []string  `db:"tags" json:"tags"`
}

// ListMemories returns up to limit live summaries with their tags, newest
// first: of one session, or of all when sessionID is 0; a deleted
// session's are left out.
func ListMemories(ctx context.Context, q Querier, sessionID int64, limit int) ([]MemoryItem, error) {
	// Two statements, not one with "$1 = 0 OR": each has an index that
	// gives its order (memories_session_live_idx, memories_live_recent_idx),
	// which a plan for both could not use.
	where := "m.session_id = $1"
	if sessionID == 0 {
		where = "$1 = 0"
	}
	rows, err := q.Query(ctx, `
SELECT m.id, m.session_id, s.key AS session_key, s.space, m.content, m.message_count, m.period_start, m.period_end, m.created_at,
       COALESCE((SELECT array_agg(t.tag ORDER BY t.tag) FROM memory_tags t WHERE t.memory_id = m.id), '{}') AS tags
FROM memories m JOIN sessions s ON s.id = m.session_id AND s.deleted_at IS NULL
WHERE m.folded_into IS NULL AND m.forgotten_at IS NULL AND `+where+`
ORDER BY m.period_end DESC, m.id DESC LIMIT $2`, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("list memories of session %d: %w", sessionID, err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[MemoryItem])
	if err != nil {
		return nil, fmt.Errorf("list memories of session %d: %w", sessionID, err)
	}
	return ms, nil
}

// DeleteMemory removes a summary and returns the turns it archived to the
// context (summaries it had folded become live again); it reports how many
// messages came back, or ErrNotFound.
func DeleteMemory(ctx context.Context, b TxBeginner, id int64) (int64, error) {
	var restored int64
	err := pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE messages SET archived_at = NULL, memory_id = NULL WHERE memory_id = $1", id)
		if err != nil {
			return err
		}
		restored = tag.RowsAffected()
		tag, err = tx.Exec(ctx, "DELETE FROM memories WHERE id = $1 AND forgotten_at IS NULL", id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("delete memory %d: %w", id, err)
	}
	return restored, nil
}
