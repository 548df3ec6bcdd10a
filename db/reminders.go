package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrReminderNotPending is returned by CancelReminder when the reminder was
// already delivered, cancelled or given up on.
var ErrReminderNotPending = errors.New("reminder is not pending")

// Kinds of reminder.
const (
	KindRemind = "remind" // a message to its user
	KindPost   = "post"   // a scheduled post: the chat pipeline's answer to Content
	// KindDigest is a scheduled post that summarises what members said in
	// its channel since the previous occurrence; Content names it.
	KindDigest = "digest"
)

// PostKind reports whether kind posts to a channel for its server (a
// scheduled post or a digest), not to its user.
func PostKind(kind string) bool { return kind == KindPost || kind == KindDigest }

// Reminder is a row of reminders: something a user asked to be told at DueAt,
// in ChannelID, mentioning UserID. It is pending while NotifiedAt,
// CancelledAt and FailedAt are all nil. One with an RRule repeats: DueAt is
// its next occurrence, and NotifiedAt is set when its rule ends.
type Reminder struct {
	ID              int64      `db:"id"`
	SessionKey      string     `db:"session_key"`
	GuildID         string     `db:"guild_id"` // empty in DMs
	ChannelID       string     `db:"channel_id"`
	UserID          string     `db:"user_id"`
	Content         string     `db:"content"`
	DueAt           time.Time  `db:"due_at"`
	CreatedAt       time.Time  `db:"created_at"`
	NotifiedAt      *time.Time `db:"notified_at"`  // delivered
	CancelledAt     *time.Time `db:"cancelled_at"` // cancelled by its user
	FailedAt        *time.Time `db:"failed_at"`    // given up on; LastError says why
	MessageID       string     `db:"message_id"`   // the delivered Discord message
	SourceMessageID string     `db:"source_message_id"`
	JobID           *int64     `db:"job_id"`   // the River job that delivers it
	Attempts        int        `db:"attempts"` // delivery attempts made
	LastError       string     `db:"last_error"`
	Kind            string     `db:"kind"`          // KindRemind, KindPost or KindDigest
	RRule           string     `db:"rrule"`         // DTSTART and RRULE lines; "" for one-shot
	TimeZone        string     `db:"time_zone"`     // IANA zone its times were read in
	SkipHolidays    bool       `db:"skip_holidays"` // the rule passes over national holidays
	PausedAt        *time.Time `db:"paused_at"`     // paused: pending, not delivered
	Occurrences     int        `db:"occurrences"`   // occurrences gone by, delivered or missed
	// ClaimToken names the delivery attempt that claimed DueAt's
	// occurrence and has not recorded its outcome yet ("" when none);
	// ClaimedUntil is its lease, after which another attempt takes over.
	ClaimToken   string     `db:"claim_token"`
	ClaimedUntil *time.Time `db:"claimed_until"`
}

// Repeats reports whether the reminder has a rule.
func (r Reminder) Repeats() bool { return r.RRule != "" }

// Pending reports whether the reminder is still to be delivered.
func (r Reminder) Pending() bool {
	return r.NotifiedAt == nil && r.CancelledAt == nil && r.FailedAt == nil
}

// ReminderParams describes a reminder to create.
type ReminderParams struct {
	SessionKey      string
	GuildID         string
	ChannelID       string // required
	UserID          string // required
	Content         string // required
	DueAt           time.Time
	SourceMessageID string
	CreatedAt       time.Time // zero means now
	Kind            string    // "" is KindRemind
	RRule           string    // a repeating reminder's rule; DueAt is its first occurrence
	TimeZone        string
	SkipHolidays    bool
}

const reminderColumns = "id, session_key, guild_id, channel_id, user_id, content, due_at, created_at, " +
	"notified_at, cancelled_at, failed_at, message_id, source_message_id, job_id, attempts, last_error, " +
	"kind, rrule, time_zone, skip_holidays, paused_at, occurrences, claim_token, claimed_until"

const reminderPending = "notified_at IS NULL AND cancelled_at IS NULL AND failed_at IS NULL"

// CreateReminder stores a reminder. Run it in the transaction that also
// inserts its delivery job, then link the two with SetReminderJob.
func CreateReminder(ctx context.Context, q Querier, p ReminderParams) (Reminder, error) {
	if p.ChannelID == "" || p.UserID == "" || p.Content == "" || p.DueAt.IsZero() {
		return Reminder{}, errors.New("create reminder: channel, user, content and due time are required")
	}
	if p.Kind == "" {
		p.Kind = KindRemind
	}
	rows, err := q.Query(ctx, `
INSERT INTO reminders (session_key, guild_id, channel_id, user_id, content, due_at, source_message_id, created_at,
                       kind, rrule, time_zone, skip_holidays)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
RETURNING `+reminderColumns,
		p.SessionKey, p.GuildID, p.ChannelID, p.UserID, p.Content, p.DueAt.UTC(), p.SourceMessageID, utcOrNow(p.CreatedAt),
		p.Kind, p.RRule, p.TimeZone, p.SkipHolidays)
	if err != nil {
		return Reminder{}, fmt.Errorf("create reminder: %w", err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return Reminder{}, fmt.Errorf("create reminder: %w", interpretError(err))
	}
	return r, nil
}

// SetReminderJob records the River job that delivers reminder id.
func SetReminderJob(ctx context.Context, q Querier, id, jobID int64) error {
	return execReminder(ctx, q, fmt.Sprintf("set job of reminder %d", id),
		"UPDATE reminders SET job_id = $2 WHERE id = $1", id, jobID)
}

// ReminderByID returns reminder id, or ErrNotFound.
func ReminderByID(ctx context.Context, q Querier, id int64) (Reminder, error) {
	return oneReminder(ctx, q, fmt.Sprintf("get reminder %d", id),
		"SELECT "+reminderColumns+" FROM reminders WHERE id = $1", id)
}

// LockReminderForDelivery returns reminder id locked FOR UPDATE until the
// end of q's transaction, so one deliverer at a time decides its fate.
func LockReminderForDelivery(ctx context.Context, q Querier, id int64) (Reminder, error) {
	return oneReminder(ctx, q, fmt.Sprintf("lock reminder %d", id),
		"SELECT "+reminderColumns+" FROM reminders WHERE id = $1 FOR UPDATE", id)
}

// ErrNotClaimed is ClaimReminder's answer when the occurrence is not to be
// claimed now; the reminder's row says why.
var ErrNotClaimed = errors.New("reminder occurrence not claimed")

// Claim asks for the current occurrence of a reminder for one delivery
// attempt.
type Claim struct {
	ID    int64
	Token string // names the attempt
	// Lease is how long the claim holds, from now on the database's
	// clock, which every process shares.
	Lease time.Duration
	// Occurrence, when not 0, is the due time (Unix seconds) the claim is
	// for: a reminder moved to another occurrence is not claimed.
	Occurrence int64
	// DueBy: a reminder due after it is not claimed yet.
	DueBy time.Time
}

// claimedReminder is a claimed row with the token of the claim it replaced.
type claimedReminder struct {
	Reminder
	Prior string `db:"prior"`
}

// ClaimReminder claims, in one statement, the current occurrence of reminder
// c.ID if it is pending, not paused, due by c.DueBy (at c.Occurrence when
// set), and not held by another attempt whose lease still runs. It returns
// the reminder as claimed and the token of the claim it replaced: not ""
// when an attempt whose outcome is unknown (cut short, or its process dead)
// came before. Otherwise it returns ErrNotClaimed.
func ClaimReminder(ctx context.Context, q Querier, c Claim) (Reminder, string, error) {
	rows, err := q.Query(ctx, `
WITH cur AS (SELECT id AS cur_id, claim_token AS prior FROM reminders WHERE id = $1 FOR UPDATE)
UPDATE reminders SET claim_token = $2, claimed_until = now() + make_interval(secs => $3)
FROM cur
WHERE id = cur_id AND `+reminderPending+` AND paused_at IS NULL
  AND ($4 = 0 OR floor(extract(epoch FROM due_at))::bigint = $4) AND due_at <= $5
  AND (claim_token = '' OR claimed_until IS NULL OR claimed_until <= now())
RETURNING `+reminderColumns+`, prior`, c.ID, c.Token, c.Lease.Seconds(), c.Occurrence, c.DueBy.UTC())
	if err != nil {
		return Reminder{}, "", fmt.Errorf("claim reminder %d: %w", c.ID, err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[claimedReminder])
	if errors.Is(err, pgx.ErrNoRows) {
		return Reminder{}, "", fmt.Errorf("claim reminder %d: %w", c.ID, ErrNotClaimed)
	}
	if err != nil {
		return Reminder{}, "", fmt.Errorf("claim reminder %d: %w", c.ID, err)
	}
	return r.Reminder, r.Prior, nil
}

// RecordReminderAttempt records a failed delivery attempt that will be
// retried, and lets its claim go at once (token stays, so the retry knows an
// attempt ran before it).
func RecordReminderAttempt(ctx context.Context, q Querier, id int64, attempts int, lastErr string) error {
	return execReminder(ctx, q, fmt.Sprintf("record attempt of reminder %d", id),
		"UPDATE reminders SET attempts = $2, last_error = $3, claimed_until = now() WHERE id = $1", id, attempts, lastErr)
}

// ReleaseReminderClaim ends the lease of token's claim on reminder id now,
// for an attempt cut short (shutdown, timeout, a cancelled job) whose
// outcome is unknown: the next attempt takes over without waiting and,
// seeing the token, looks for a message the cut attempt may have posted.
// A claim that is no longer token's is left alone.
func ReleaseReminderClaim(ctx context.Context, q Querier, id int64, token string) error {
	_, err := q.Exec(ctx, "UPDATE reminders SET claimed_until = now() WHERE id = $1 AND claim_token = $2", id, token)
	if err != nil {
		return fmt.Errorf("release claim on reminder %d: %w", id, err)
	}
	return nil
}

// CancelReminder cancels reminder id of userID and returns it; with
// anyInGuild set, any user's reminder in that server (a moderator's cancel).
// A reminder of another user (or none) is ErrNotFound; one that is no longer
// pending is ErrReminderNotPending.
func CancelReminder(ctx context.Context, q Querier, id int64, userID, anyInGuild string, at time.Time) (Reminder, error) {
	r, err := oneReminder(ctx, q, fmt.Sprintf("cancel reminder %d", id), `
UPDATE reminders SET cancelled_at = $3
WHERE id = $1 AND (user_id = $2 OR ($4 <> '' AND guild_id = $4)) AND `+reminderPending+`
RETURNING `+reminderColumns, id, userID, utcOrNow(at), anyInGuild)
	if !errors.Is(err, ErrNotFound) {
		return r, err
	}
	// Say why: not theirs (or none) stays ErrNotFound, theirs but done is
	// not pending.
	cur, gerr := ReminderByID(ctx, q, id)
	if gerr != nil || cur.UserID != userID && (anyInGuild == "" || cur.GuildID != anyInGuild) {
		return Reminder{}, err
	}
	return cur, fmt.Errorf("cancel reminder %d: %w", id, ErrReminderNotPending)
}

// PendingReminders lists the pending reminders (not scheduled posts) of
// userID in channelID (all channels when channelID is empty), paused ones
// included, soonest first.
func PendingReminders(ctx context.Context, q Querier, userID, channelID string) ([]Reminder, error) {
	rows, err := q.Query(ctx, "SELECT "+reminderColumns+" FROM reminders WHERE user_id = $1 AND ($2 = '' OR channel_id = $2) AND kind = 'remind' AND "+
		reminderPending+" ORDER BY due_at, id", userID, channelID)
	if err != nil {
		return nil, fmt.Errorf("list reminders of %s: %w", userID, err)
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("list reminders of %s: %w", userID, err)
	}
	return rs, nil
}

// CountPendingReminders counts the pending reminders and scheduled posts of
// userID in all channels.
func CountPendingReminders(ctx context.Context, q Querier, userID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, "SELECT count(*) FROM reminders WHERE user_id = $1 AND "+reminderPending, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count reminders of %s: %w", userID, err)
	}
	return n, nil
}

func oneReminder(ctx context.Context, q Querier, op, sql string, args ...any) (Reminder, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return Reminder{}, fmt.Errorf("%s: %w", op, err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return Reminder{}, fmt.Errorf("%s: %w", op, interpretError(err))
	}
	return r, nil
}

func execReminder(ctx context.Context, q Querier, op, sql string, args ...any) error {
	tag, err := q.Exec(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s: %w", op, ErrNotFound)
	}
	return nil
}

// ListReminders returns every user's reminders, pending ones first by due
// time, then the past ones newest first, up to limit.
func ListReminders(ctx context.Context, q Querier, limit int) ([]Reminder, error) {
	rows, err := q.Query(ctx, "SELECT "+reminderColumns+" FROM reminders ORDER BY ("+reminderPending+
		") DESC, CASE WHEN "+reminderPending+" THEN due_at END, due_at DESC, id DESC LIMIT $1", limit)
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Reminder])
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	return rs, nil
}

// ReminderCounts sum up the reminders of a period.
type ReminderCounts struct {
	Delivered int // posted in the period
	Late      int // of them, posted more than the lateness allowed after their time
	Failed    int // given up on in the period
}

// CountRemindersSince counts the reminders delivered (and how many of them
// late, by more than lateAfter) and given up on since.
func CountRemindersSince(ctx context.Context, q Querier, since time.Time, lateAfter time.Duration) (ReminderCounts, error) {
	var c ReminderCounts
	err := q.QueryRow(ctx, `
SELECT count(*) FILTER (WHERE notified_at >= $1),
       count(*) FILTER (WHERE notified_at >= $1 AND notified_at > due_at + make_interval(secs => $2)),
       count(*) FILTER (WHERE failed_at >= $1)
FROM reminders WHERE notified_at >= $1 OR failed_at >= $1`, since.UTC(), lateAfter.Seconds()).
		Scan(&c.Delivered, &c.Late, &c.Failed)
	if err != nil {
		return ReminderCounts{}, fmt.Errorf("count reminders since %s: %w", since.UTC().Format(time.RFC3339), err)
	}
	return c, nil
}
