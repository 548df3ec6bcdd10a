package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Tip is a row of tips: one posted useless tip.
type Tip struct {
	ID         int64     `db:"id"`
	Space      string    `db:"space"` // the space of the channel it went to
	Topic      string    `db:"topic"`
	Content    string    `db:"content"`
	Normalized string    `db:"normalized"` // the content as compared for repeats
	PostedAt   time.Time `db:"posted_at"`
}

// TipParams describes a posted tip.
type TipParams struct {
	Space      string
	Topic      string
	Content    string    // required
	Normalized string    // required
	PostedAt   time.Time // zero means now
}

// InsertTip records a posted tip.
func InsertTip(ctx context.Context, q Querier, p TipParams) (Tip, error) {
	rows, err := q.Query(ctx, `
INSERT INTO tips (space, topic, content, normalized, posted_at) VALUES ($5, $1, $2, $3, $4)
RETURNING id, space, topic, content, normalized, posted_at`,
		p.Topic, p.Content, p.Normalized, utcOrNow(p.PostedAt), p.Space)
	if err != nil {
		return Tip{}, fmt.Errorf("insert tip on %q: %w", p.Topic, err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Tip])
	if err != nil {
		return Tip{}, fmt.Errorf("insert tip on %q: %w", p.Topic, interpretError(err))
	}
	return t, nil
}

// RecentTips returns up to limit of the latest tips posted in space, newest
// first.
func RecentTips(ctx context.Context, q Querier, space string, limit int) ([]Tip, error) {
	rows, err := q.Query(ctx, `
SELECT id, space, topic, content, normalized, posted_at FROM tips
WHERE space = $2 ORDER BY posted_at DESC, id DESC LIMIT $1`, limit, space)
	if err != nil {
		return nil, fmt.Errorf("recent tips: %w", err)
	}
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Tip])
	if err != nil {
		return nil, fmt.Errorf("recent tips: %w", err)
	}
	return ts, nil
}

// RecentUserTexts returns the content of about the latest limit user
// messages of space (every session of it, archived messages included),
// oldest first: what the space's word pool is seeded from.
func RecentUserTexts(ctx context.Context, q Querier, space string, limit int) ([]string, error) {
	// The limit most recently active sessions are read, the session ranked
	// r (from 1) giving at most limit/r of its latest user messages, and
	// the latest limit of those are kept. That is exact when the sessions
	// were talked in by turns (r sessions taking turns hold limit/r each)
	// and close otherwise (fewer, when a short conversation ranks above a
	// long one); what a word pool needs is the words of the recent
	// conversations, not an exact count. It reads about
	// limit·ln(limit) index entries (messages_session_idx, without the
	// table), however long the history (1.8–2.7 ms at a million messages,
	// where the exact bound of limit-r+1 per session read ~15,000 entries
	// in 6–12 ms), and only the chosen messages' rows.
	rows, err := q.Query(ctx, `
WITH s AS MATERIALIZED (
    SELECT id, row_number() OVER (ORDER BY updated_at DESC, id DESC) AS rank
    FROM sessions WHERE space = $2 AND deleted_at IS NULL ORDER BY updated_at DESC, id DESC LIMIT $1
),
latest AS MATERIALIZED (
    SELECT m.id, m.created_at FROM s CROSS JOIN LATERAL (
        SELECT id, created_at FROM messages
        WHERE session_id = s.id AND role = 'user'
        ORDER BY created_at DESC, id DESC LIMIT ceil($1::float8 / s.rank)::int
    ) m
    ORDER BY m.created_at DESC, m.id DESC LIMIT $1
)
SELECT m.content FROM latest l JOIN messages m ON m.id = l.id
ORDER BY l.created_at, l.id`, limit, space)
	if err != nil {
		return nil, fmt.Errorf("recent user texts of space %s: %w", space, err)
	}
	texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("recent user texts of space %s: %w", space, err)
	}
	return texts, nil
}

// ClaimJobSlot claims one slot of a scheduled post for the caller. It is
// false when the slot was already posted, or is claimed by another run
// whose claim is younger than lease (a crashed run's claim expires).
func ClaimJobSlot(ctx context.Context, q Querier, job string, slot time.Time, lease time.Duration) (bool, error) {
	var claimed bool
	err := q.QueryRow(ctx, `
INSERT INTO job_slots (job, slot) VALUES ($1, $2)
ON CONFLICT (job, slot) DO UPDATE SET claimed_at = now()
    WHERE job_slots.posted_at IS NULL AND job_slots.claimed_at < now() - $3::interval
RETURNING true`, job, slot.UTC(), lease).Scan(&claimed)
	if err != nil {
		if err = interpretError(err); err == ErrNotFound {
			return false, nil
		}
		return false, fmt.Errorf("claim %s slot %s: %w", job, slot.UTC().Format(time.RFC3339), err)
	}
	return claimed, nil
}

// MarkJobSlotPosted records that the slot's post went out.
func MarkJobSlotPosted(ctx context.Context, q Querier, job string, slot time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE job_slots SET posted_at = now() WHERE job = $1 AND slot = $2`, job, slot.UTC()); err != nil {
		return fmt.Errorf("mark %s slot %s posted: %w", job, slot.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// ReleaseJobSlot gives up an unposted claim, so a retry can claim it at once.
func ReleaseJobSlot(ctx context.Context, q Querier, job string, slot time.Time) error {
	if _, err := q.Exec(ctx, `DELETE FROM job_slots WHERE job = $1 AND slot = $2 AND posted_at IS NULL`, job, slot.UTC()); err != nil {
		return fmt.Errorf("release %s slot %s: %w", job, slot.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// JobSlotPosted reports whether the slot's post went out.
func JobSlotPosted(ctx context.Context, q Querier, job string, slot time.Time) (bool, error) {
	var posted bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM job_slots WHERE job = $1 AND slot = $2 AND posted_at IS NOT NULL)`,
		job, slot.UTC()).Scan(&posted)
	if err != nil {
		return false, fmt.Errorf("look up %s slot %s: %w", job, slot.UTC().Format(time.RFC3339), err)
	}
	return posted, nil
}

// JobSlotBefore reports whether any slot of job before slot was claimed or
// posted: the job has run on this database before.
func JobSlotBefore(ctx context.Context, q Querier, job string, slot time.Time) (bool, error) {
	var ran bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM job_slots WHERE job = $1 AND slot < $2)`,
		job, slot.UTC()).Scan(&ran)
	if err != nil {
		return false, fmt.Errorf("look up %s slots before %s: %w", job, slot.UTC().Format(time.RFC3339), err)
	}
	return ran, nil
}
