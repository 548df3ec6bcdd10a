package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Repeating reminders and scheduled posts share the reminders table (see
// Reminder.RRule and Kind); this file holds what only they need, and the
// record of each occurrence handled.

// Why a change to a reminder is refused, beside ErrReminderNotPending.
var (
	// ErrReminderNotRepeating is an action (skip) only a repeating reminder has.
	ErrReminderNotRepeating = errors.New("the reminder does not repeat")
	// ErrReminderPaused and ErrReminderNotPaused refuse a pause of a paused
	// reminder and a resume of one that runs.
	ErrReminderPaused    = errors.New("the reminder is paused")
	ErrReminderNotPaused = errors.New("the reminder is not paused")
)

// Owner is who acts on a reminder: UserID may touch their own; with Guild
// set (they have Manage Messages there), anyone's in that server; Admin
// (the admin page) anyone's anywhere.
type Owner struct {
	UserID string
	Guild  string
	Admin  bool
}

// Delivery is a row of reminder_deliveries: one occurrence of a reminder
// handled.
type Delivery struct {
	ReminderID int64     `db:"reminder_id"`
	Occurrence time.Time `db:"occurrence"` // when it was due
	HandledAt  time.Time `db:"handled_at"`
	MessageID  string    `db:"message_id"` // "" when nothing was posted
	// Covers is how many occurrences the delivery stands for: more than
	// one for the catch-up after downtime.
	Covers int    `db:"covers"`
	Error  string `db:"error"` // why nothing was posted
}

// Late is how long after its occurrence the delivery was handled.
func (d Delivery) Late() time.Duration { return max(d.HandledAt.Sub(d.Occurrence), 0) }

// insertDelivery stores a delivery ($1–$6: reminder, occurrence, handled,
// message, covers, error) unless its occurrence already is.
const insertDelivery = `
INSERT INTO reminder_deliveries (reminder_id, occurrence, handled_at, message_id, covers, error)
VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`

// NoteDeliveredMessage records messageID as what delivered reminderID's
// occurrence, for a message that went out although the occurrence was
// handled otherwise meanwhile (skipped while its post was being written): an
// occurrence recorded without a message gets it, one not recorded yet is
// recorded with it.
func NoteDeliveredMessage(ctx context.Context, q Querier, d Delivery) error {
	_, err := q.Exec(ctx, `
INSERT INTO reminder_deliveries (reminder_id, occurrence, handled_at, message_id, covers, error)
VALUES ($1, $2, $3, $4, $5, '')
ON CONFLICT (reminder_id, occurrence) DO UPDATE SET message_id = EXCLUDED.message_id, error = ''
WHERE reminder_deliveries.message_id = ''`,
		d.ReminderID, d.Occurrence.UTC(), utcOrNow(d.HandledAt), d.MessageID, max(d.Covers, 1))
	if err != nil {
		return fmt.Errorf("note message of reminder %d: %w", d.ReminderID, err)
	}
	return nil
}

// PreviousOccurrence returns the latest occurrence of reminder id handled
// before at (delivered or not), and false when there is none.
func PreviousOccurrence(ctx context.Context, q Querier, id int64, at time.Time) (time.Time, bool, error) {
	var prev time.Time
	err := q.QueryRow(ctx, "SELECT occurrence FROM reminder_deliveries WHERE reminder_id = $1 AND occurrence < $2 ORDER BY occurrence DESC LIMIT 1",
		id, at).Scan(&prev)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("previous occurrence of reminder %d: %w", id, err)
	}
	return prev, true, nil
}

// RecentDeliveries returns the last perReminder deliveries of each of ids,
// newest first.
func RecentDeliveries(ctx context.Context, q Querier, ids []int64, perReminder int) (map[int64][]Delivery, error) {
	rows, err := q.Query(ctx, `
SELECT d.reminder_id, d.occurrence, d.handled_at, d.message_id, d.covers, d.error
FROM unnest($1::bigint[]) AS r(id)
CROSS JOIN LATERAL (
    SELECT * FROM reminder_deliveries WHERE reminder_id = r.id ORDER BY occurrence DESC LIMIT $2
) d`, ids, perReminder)
	if err != nil {
		return nil, fmt.Errorf("recent deliveries: %w", err)
	}
	ds, err := pgx.CollectRows(rows, pgx.RowToStructByName[Delivery])
	if err != nil {
		return nil, fmt.Errorf("recent deliveries: %w", err)
	}
	out := make(map[int64][]Delivery, len(ids))
	for _, d := range ds {
		out[d.ReminderID] = append(out[d.ReminderID], d)
	}
	return out, nil
}

// Outcome is what handling one occurrence of a reminder did: the delivery
// to record and what becomes of the reminder.
type Outcome struct {
	// Delivery is recorded (unless its occurrence already was); a
	// MessageID of "" keeps the reminder's last one.
	Delivery Delivery
	// Next is the next occurrence, handled by job JobID (nil: none yet,
	// as while paused or when it is too far off for a job). Zero: the reminder is over — done, or failed for
	// good when Failed (Delivery.Error says why).
	Next   time.Time
	JobID  *int64
	Failed bool
	// RecordOnly records the delivery and leaves the reminder's state as
	// it is: it was cancelled or moved to another occurrence while this
	// one was being handled, and whoever did that decided what follows.
	RecordOnly  bool
	Occurrences int // gone by, this one included
	Attempts    int // delivery attempts made, when the reminder ends
}

// RecordOutcome stores o in one statement: the delivery, and the reminder
// moved on to its next occurrence or ended. The occurrence's claim, if any,
// is over.
func RecordOutcome(ctx context.Context, q Querier, o Outcome) error {
	d := o.Delivery
	args := []any{d.ReminderID, d.Occurrence.UTC(), utcOrNow(d.HandledAt), d.MessageID, max(d.Covers, 1), d.Error,
		o.Occurrences, o.Attempts}
	var set string
	switch {
	case o.RecordOnly:
		set = "attempts = $8"
	case !o.Next.IsZero():
		// A new occurrence starts its attempts afresh.
		set = "due_at = $9, job_id = $10, attempts = $8, last_error = ''"
		args[7] = 0
		args = append(args, o.Next.UTC(), o.JobID)
	case o.Failed:
		set = "failed_at = $3, attempts = $8, last_error = $6"
	default:
		set = "notified_at = $3, attempts = $8, last_error = ''"
	}
	return execReminder(ctx, q, fmt.Sprintf("record occurrence %s of reminder %d", d.Occurrence.UTC().Format(time.RFC3339), d.ReminderID), `
WITH d AS (`+insertDelivery+`)
UPDATE reminders SET `+set+`, claim_token = '', claimed_until = NULL,
    occurrences = $7, message_id = CASE WHEN $4 = '' THEN message_id ELSE $4 END
WHERE id = $1`, args...)
}

// MoveReminder sets the next occurrence of reminder id (a resume), clearing
// its pause; its job is set afterwards (SetReminderJob).
func MoveReminder(ctx context.Context, q Querier, id int64, next time.Time) error {
	return execReminder(ctx, q, fmt.Sprintf("move reminder %d", id), `
UPDATE reminders SET due_at = $2, paused_at = NULL, attempts = 0, last_error = '', job_id = NULL
WHERE id = $1`, id, next.UTC())
}

// EditReminder gives reminder id what p says: where it goes, whom it pings,
// what it says and when (DueAt, and RRule with its zone; "" for one time).
// Its job is unlinked, for the caller to plan the new due time; its
// deliveries so far and whether it is paused stay.
func EditReminder(ctx context.Context, q Querier, id int64, p ReminderParams) error {
	kind := p.Kind
	if kind == "" {
		kind = KindRemind
	}
	return execReminder(ctx, q, fmt.Sprintf("edit reminder %d", id), `
UPDATE reminders SET session_key = $2, guild_id = $3, channel_id = $4, user_id = $5, content = $6, kind = $7,
	due_at = $8, rrule = $9, time_zone = $10, skip_holidays = $11, attempts = 0, last_error = '', job_id = NULL
WHERE id = $1`, id, p.SessionKey, p.GuildID, p.ChannelID, p.UserID, p.Content, kind, p.DueAt.UTC(), p.RRule, p.TimeZone, p.SkipHolidays)
}

// EndReminder ends repeating reminder id whose rule ran out while it was
// paused: done, nothing more to deliver.
func EndReminder(ctx context.Context, q Querier, id int64, at time.Time) error {
	return execReminder(ctx, q, fmt.Sprintf("end reminder %d", id),
		"UPDATE reminders SET notified_at = $2, paused_at = NULL, job_id = NULL WHERE id = $1", id, utcOrNow(at))
}

// PauseReminder pauses reminder id at at: it stays pending, undelivered.
func PauseReminder(ctx context.Context, q Querier, id int64, at time.Time) error {
	return execReminder(ctx, q, fmt.Sprintf("pause reminder %d", id),
		"UPDATE reminders SET paused_at = $2, job_id = NULL WHERE id = $1", id, utcOrNow(at))
}

// LockOwnedReminder returns pending or not reminder id of userID — with
// anyInGuild set, of anyone in that server — locked FOR UPDATE until the
// end of q's transaction. Another user's (or none) is ErrNotFound.
func LockOwnedReminder(ctx context.Context, q Querier, id int64, userID, anyInGuild string) (Reminder, error) {
	return oneReminder(ctx, q, fmt.Sprintf("lock reminder %d", id), "SELECT "+reminderColumns+
		" FROM reminders WHERE id = $1 AND (user_id = $2 OR ($3 <> '' AND guild_id = $3)) FOR UPDATE",
		id, userID, anyInGuild)
}

// CountLivePosts counts the pending scheduled posts (digests too) of
// server guildID.
func CountLivePosts(ctx context.Context, q Querier, guildID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, "SELECT count(*) FROM reminders WHERE kind IN ('post', 'digest') AND guild_id = $1 AND "+reminderPending, guildID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count scheduled posts of %s: %w", guildID, err)
	}
	return n, nil
}

// LivePosts lists the pending scheduled posts (digests too) of server
// guildID, soonest first.
func LivePosts(ctx context.Context, q Querier, guildID string) ([]Reminder, error) {
	rows, err := q.Query(ctx, "SELECT "+reminderColumns+" FROM reminders WHERE kind IN ('post', 'digest') AND guild_id = $1 AND "+
		reminderPending+" ORDER BY due_at, id", guildID)
	if err != nil {
		return nil, fmt.Errorf("list scheduled posts of %s: %w", guildID, err)
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("list scheduled posts of %s: %w", guildID, err)
	}
	return rs, nil
}

// LockUnplanned returns up to limit live repeating reminders due before
// horizon that have no delivery job, locked FOR UPDATE until the end of q's
// transaction, soonest first; rows another transaction holds are skipped.
func LockUnplanned(ctx context.Context, q Querier, horizon time.Time, limit int) ([]Reminder, error) {
	rows, err := q.Query(ctx, "SELECT "+reminderColumns+" FROM reminders WHERE due_at < $1 AND job_id IS NULL AND rrule <> '' AND paused_at IS NULL AND "+
		reminderPending+" ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED", horizon.UTC(), limit)
	if err != nil {
		return nil, fmt.Errorf("lock unplanned reminders: %w", err)
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("lock unplanned reminders: %w", err)
	}
	return rs, nil
}

// SetReminderJobs records that River job jobIDs[i] delivers reminder ids[i].
func SetReminderJobs(ctx context.Context, q Querier, ids, jobIDs []int64) error {
	_, err := q.Exec(ctx, `UPDATE reminders r SET job_id = u.job_id
FROM unnest($1::bigint[], $2::bigint[]) AS u(id, job_id) WHERE r.id = u.id`, ids, jobIDs)
	if err != nil {
		return fmt.Errorf("set jobs of %d reminders: %w", len(ids), err)
	}
	return nil
}
