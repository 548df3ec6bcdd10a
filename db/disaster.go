package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Kinds of disaster_events rows.
const (
	DisasterQuake   = "quake"
	DisasterTsunami = "tsunami"
	DisasterWarning = "warning"
)

// DisasterEvent is a row of disaster_events: one earthquake, tsunami or
// weather warning as JMA last reported it, and its Discord message.
type DisasterEvent struct {
	Kind       string     `db:"kind"`
	Key        string     `db:"event_key"`
	Report     string     `db:"report"`
	ReportedAt *time.Time `db:"reported_at"`
	OccurredAt *time.Time `db:"occurred_at"`
	Title      string     `db:"title"`
	Content    string     `db:"content"`
	Severity   int        `db:"severity"`
	Active     bool       `db:"active"`
	MessageID  string     `db:"message_id"`
	ChannelID  string     `db:"channel_id"`
	CreatedAt  time.Time  `db:"created_at"`
	UpdatedAt  time.Time  `db:"updated_at"`
	// PostStartedAt is the claim of a write of the event's message under
	// way, its post or an edit (ClaimDisasterPost): nil when none is. Left
	// without a message id after the post's time is up, it is a post whose
	// outcome is unknown.
	PostStartedAt *time.Time `db:"post_started_at"`
}

// Posted reports whether the event has its Discord message.
func (e DisasterEvent) Posted() bool { return e.MessageID != "" }

const disasterColumns = `kind, event_key, report, reported_at, occurred_at, title, content, severity, active,
message_id, channel_id, created_at, updated_at, post_started_at`

// LockDisasterEvent returns the row of (kind, key), creating an empty one
// first, locked until tx ends: a second poller waits here until the first
// has posted and committed, then sees its message.
func LockDisasterEvent(ctx context.Context, tx pgx.Tx, kind, key string) (DisasterEvent, error) {
	if _, err := tx.Exec(ctx, `INSERT INTO disaster_events (kind, event_key) VALUES ($1, $2) ON CONFLICT DO NOTHING`, kind, key); err != nil {
		return DisasterEvent{}, fmt.Errorf("claim %s event %s: %w", kind, key, err)
	}
	rows, err := tx.Query(ctx, `SELECT `+disasterColumns+` FROM disaster_events WHERE kind = $1 AND event_key = $2 FOR UPDATE`, kind, key)
	if err != nil {
		return DisasterEvent{}, fmt.Errorf("lock %s event %s: %w", kind, key, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[DisasterEvent])
	if err != nil {
		return DisasterEvent{}, fmt.Errorf("lock %s event %s: %w", kind, key, interpretError(err))
	}
	return e, nil
}

// SaveDisasterEvent writes e's report, text and message into its row.
func SaveDisasterEvent(ctx context.Context, q Querier, e DisasterEvent) error {
	tag, err := q.Exec(ctx, `
UPDATE disaster_events SET report = $3, reported_at = $4, occurred_at = $5, title = $6, content = $7,
    severity = $8, active = $9, message_id = $10, channel_id = $11, updated_at = now()
WHERE kind = $1 AND event_key = $2`,
		e.Kind, e.Key, e.Report, utcPtr(e.ReportedAt), utcPtr(e.OccurredAt), e.Title, e.Content,
		e.Severity, e.Active, e.MessageID, e.ChannelID)
	if err != nil {
		return fmt.Errorf("save %s event %s: %w", e.Kind, e.Key, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("save %s event %s: %w", e.Kind, e.Key, ErrNotFound)
	}
	return nil
}

// ClaimDisasterPost sets the claim of a write of (kind, key)'s message
// (its post, or an edit) to at, if the claim is still prev (nil: none): a
// claim is taken by one poller only. It reports whether this call took it.
func ClaimDisasterPost(ctx context.Context, q Querier, kind, key string, at time.Time, prev *time.Time) (bool, error) {
	tag, err := q.Exec(ctx, `UPDATE disaster_events SET post_started_at = $3
WHERE kind = $1 AND event_key = $2 AND post_started_at IS NOT DISTINCT FROM $4`,
		kind, key, at.UTC(), utcPtr(prev))
	if err != nil {
		return false, fmt.Errorf("claim the post of %s event %s: %w", kind, key, err)
	}
	return tag.RowsAffected() == 1, nil
}

// ReleaseDisasterPost drops the claim at of a write of (kind, key)'s
// message that surely changed nothing: the next poll may try again.
func ReleaseDisasterPost(ctx context.Context, q Querier, kind, key string, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE disaster_events SET post_started_at = NULL
WHERE kind = $1 AND event_key = $2 AND post_started_at = $3`, kind, key, at.UTC())
	if err != nil {
		return fmt.Errorf("release the post of %s event %s: %w", kind, key, err)
	}
	return nil
}

// RecordDisasterPost writes e, its message included, into its row and
// drops the claim at of the write (a post, or an edit of e's message), if
// the claim is still at: ErrNotFound when another poller took the claim
// over or recorded another message meanwhile.
func RecordDisasterPost(ctx context.Context, q Querier, e DisasterEvent, at time.Time) error {
	tag, err := q.Exec(ctx, `
UPDATE disaster_events SET report = $3, reported_at = $4, occurred_at = $5, title = $6, content = $7,
    severity = $8, active = $9, message_id = $10, channel_id = $11, updated_at = now(), post_started_at = NULL
WHERE kind = $1 AND event_key = $2 AND message_id IN ('', $10) AND post_started_at = $12`,
		e.Kind, e.Key, e.Report, utcPtr(e.ReportedAt), utcPtr(e.OccurredAt), e.Title, e.Content,
		e.Severity, e.Active, e.MessageID, e.ChannelID, at.UTC())
	if err != nil {
		return fmt.Errorf("record the post of %s event %s: %w", e.Kind, e.Key, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("record the post of %s event %s: %w", e.Kind, e.Key, ErrNotFound)
	}
	return nil
}

// RecentDisasterEvents returns up to limit events of kind ("" for every
// kind) reported since since, newest first.
func RecentDisasterEvents(ctx context.Context, q Querier, kind string, since time.Time, limit int) ([]DisasterEvent, error) {
	rows, err := q.Query(ctx, `SELECT `+disasterColumns+` FROM disaster_events
WHERE ($1 = '' OR kind = $1) AND report <> '' AND updated_at >= $2
ORDER BY COALESCE(reported_at, updated_at) DESC, event_key DESC LIMIT $3`, kind, since.UTC(), limit)
	if err != nil {
		return nil, fmt.Errorf("recent %s events: %w", kind, err)
	}
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[DisasterEvent])
	if err != nil {
		return nil, fmt.Errorf("recent %s events: %w", kind, err)
	}
	return es, nil
}

// ActiveDisasterEvents returns the events of kind not yet cancelled whose
// key starts with prefix (a warning office's "130000/"), oldest first.
func ActiveDisasterEvents(ctx context.Context, q Querier, kind, prefix string) ([]DisasterEvent, error) {
	rows, err := q.Query(ctx, `SELECT `+disasterColumns+` FROM disaster_events
WHERE kind = $1 AND active AND report <> '' AND starts_with(event_key, $2) ORDER BY created_at, event_key`, kind, prefix)
	if err != nil {
		return nil, fmt.Errorf("active %s events: %w", kind, err)
	}
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[DisasterEvent])
	if err != nil {
		return nil, fmt.Errorf("active %s events: %w", kind, err)
	}
	return es, nil
}

// PruneDisasterEvents deletes the events not updated since before, and
// returns how many went.
func PruneDisasterEvents(ctx context.Context, q Querier, before time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM disaster_events WHERE updated_at < $1 AND NOT (kind = 'warning' AND active)`, before.UTC())
	if err != nil {
		return 0, fmt.Errorf("prune disaster events: %w", err)
	}
	return tag.RowsAffected(), nil
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// GetDisasterEvent returns the row of (kind, key), or ErrNotFound.
func GetDisasterEvent(ctx context.Context, q Querier, kind, key string) (DisasterEvent, error) {
	rows, err := q.Query(ctx, `SELECT `+disasterColumns+` FROM disaster_events WHERE kind = $1 AND event_key = $2`, kind, key)
	if err != nil {
		return DisasterEvent{}, fmt.Errorf("get %s event %s: %w", kind, key, err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[DisasterEvent])
	if err != nil {
		return DisasterEvent{}, fmt.Errorf("get %s event %s: %w", kind, key, interpretError(err))
	}
	return e, nil
}

// DisasterPoll is a row of disaster_polls: how reading one JMA list went.
type DisasterPoll struct {
	Source   string     `db:"source"`
	OKAt     *time.Time `db:"ok_at"`
	FailedAt *time.Time `db:"failed_at"`
	Error    string     `db:"error"`
}

// Failing reports whether the last read failed.
func (p DisasterPoll) Failing() bool {
	return p.FailedAt != nil && (p.OKAt == nil || p.FailedAt.After(*p.OKAt))
}

// RecordDisasterPoll records a read of source at at: a success when
// failure is "", else the failure.
func RecordDisasterPoll(ctx context.Context, q Querier, source string, at time.Time, failure string) error {
	var err error
	if failure == "" {
		_, err = q.Exec(ctx, `INSERT INTO disaster_polls (source, ok_at) VALUES ($1, $2)
ON CONFLICT (source) DO UPDATE SET ok_at = excluded.ok_at`, source, at.UTC())
	} else {
		_, err = q.Exec(ctx, `INSERT INTO disaster_polls (source, failed_at, error) VALUES ($1, $2, $3)
ON CONFLICT (source) DO UPDATE SET failed_at = excluded.failed_at, error = excluded.error`, source, at.UTC(), failure)
	}
	if err != nil {
		return fmt.Errorf("record poll of %s: %w", source, err)
	}
	return nil
}

// DisasterPolls returns how the last reads of each list went, by source.
func DisasterPolls(ctx context.Context, q Querier) ([]DisasterPoll, error) {
	rows, err := q.Query(ctx, `SELECT source, ok_at, failed_at, error FROM disaster_polls ORDER BY source`)
	if err != nil {
		return nil, fmt.Errorf("disaster polls: %w", err)
	}
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[DisasterPoll])
	if err != nil {
		return nil, fmt.Errorf("disaster polls: %w", err)
	}
	return ps, nil
}
