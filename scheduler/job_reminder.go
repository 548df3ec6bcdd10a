package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/yorozu-bot/yorozu/db"
)

// MaxContentLength is the longest reminder text, in characters; the rest of
// Discord's 2,000 is left for the mention and the lateness note.
const MaxContentLength = 1500

// Reasons Create refuses a reminder. The errors wrap them with the details.
var (
	ErrEmptyContent    = errors.New("reminder content is empty")
	ErrContentTooLong  = errors.New("reminder content is too long")
	ErrDueInPast       = errors.New("reminder time is in the past")
	ErrTooFarAhead     = errors.New("reminder time is too far ahead")
	ErrTooManyPending  = errors.New("too many pending reminders")
	ErrMissingAudience = errors.New("reminder needs a channel and a user")
)

// pastTolerance is how far in the past a due time may be and still be
// accepted (and delivered at once): the model's clock reading is a little old.
const pastTolerance = 60 * time.Second

// Reminders creates, lists and cancels reminders. Get it from
// Scheduler.Reminders.
type Reminders struct {
	s *Scheduler
}

// Location is the time zone users read times in (TIMEZONE).
func (r *Reminders) Location() *time.Location { return r.s.opts.Location }

// Now is the scheduler's clock.
func (r *Reminders) Now() time.Time { return r.s.now() }

// MaxAhead is the furthest a reminder may be set (REMINDER_MAX_AHEAD_DAYS).
func (r *Reminders) MaxAhead() time.Duration { return r.s.opts.MaxAhead }

// MaxPending is how many pending reminders one user may have.
func (r *Reminders) MaxPending() int { return r.s.opts.MaxPending }

// Create validates p (ChannelID, UserID, Content and DueAt required;
// CreatedAt is the scheduler's now) and stores the reminder with its delivery job, in one
// transaction. Refusals wrap ErrEmptyContent, ErrContentTooLong,
// ErrDueInPast, ErrTooFarAhead, ErrTooManyPending or ErrMissingAudience.
func (r *Reminders) Create(ctx context.Context, p db.ReminderParams) (db.Reminder, error) {
	if p.RRule != "" {
		return db.Reminder{}, errors.New("create reminder: a repeating reminder is made with Repeat, which checks its rule")
	}
	content, err := checkContent(p)
	if err != nil {
		return db.Reminder{}, fmt.Errorf("create reminder: %w", err)
	}
	now := r.s.now()
	switch {
	case p.DueAt.Before(now.Add(-pastTolerance)):
		return db.Reminder{}, fmt.Errorf("create reminder: %w (%s is %s before now)",
			ErrDueInPast, p.DueAt.In(r.s.opts.Location).Format(time.RFC3339), now.Sub(p.DueAt).Round(time.Second))
	case p.DueAt.After(now.Add(r.s.opts.MaxAhead)):
		return db.Reminder{}, fmt.Errorf("create reminder: %w (at most %d days ahead)",
			ErrTooFarAhead, int(r.s.opts.MaxAhead.Hours()/24))
	}

	p.Content = content
	return r.insert(ctx, p, nil)
}

// checkContent checks what Create and Repeat both need, an audience and a
// content of the allowed length, and returns the content trimmed.
func checkContent(p db.ReminderParams) (string, error) {
	content := strings.TrimSpace(p.Content)
	switch n := utf8.RuneCountInString(content); {
	case p.ChannelID == "" || p.UserID == "":
		return "", ErrMissingAudience
	case n == 0:
		return "", ErrEmptyContent
	case n > MaxContentLength:
		return "", fmt.Errorf("%w (%d characters, at most %d)", ErrContentTooLong, n, MaxContentLength)
	}
	return content, nil
}

// insert stores p, checking the owner's limit (and check, when set) under
// a lock on the owner's reminders, with the delivery job of its DueAt, in
// one transaction.
func (r *Reminders) insert(ctx context.Context, p db.ReminderParams, check func(tx pgx.Tx) error) (db.Reminder, error) {
	var rem db.Reminder
	err := pgx.BeginFunc(ctx, r.s.pool, func(tx pgx.Tx) error {
		// Serialise one user's creations so the cap holds under concurrency.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
			"yorozu.reminders:"+p.UserID); err != nil {
			return err
		}
		n, err := db.CountPendingReminders(ctx, tx, p.UserID)
		if err != nil {
			return err
		}
		if n >= r.s.opts.MaxPending {
			return fmt.Errorf("%w (%d pending, at most %d)", ErrTooManyPending, n, r.s.opts.MaxPending)
		}
		if check != nil {
			if err := check(tx); err != nil {
				return err
			}
		}
		p.CreatedAt = r.s.now()
		rem, err = db.CreateReminder(ctx, tx, p)
		if err != nil {
			return err
		}
		return r.s.planTx(ctx, tx, &rem)
	})
	if err != nil {
		return db.Reminder{}, fmt.Errorf("create reminder for %s: %w", p.UserID, err)
	}
	return rem, nil
}

// List returns userID's pending reminders in channelID (every channel when
// it is empty), soonest first.
func (r *Reminders) List(ctx context.Context, userID, channelID string) ([]db.Reminder, error) {
	return db.PendingReminders(ctx, r.s.pool, userID, channelID)
}

// Cancel cancels userID's pending reminder id, and its delivery job. Another
// user's reminder is db.ErrNotFound; one already delivered, cancelled or
// failed is db.ErrReminderNotPending.
func (r *Reminders) Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error) {
	return r.cancel(ctx, id, userID, "")
}

// CancelInGuild cancels any user's pending reminder id in server guildID
// (someone with Manage Messages there), as Cancel does its user's own.
func (r *Reminders) CancelInGuild(ctx context.Context, guildID string, id int64) (db.Reminder, error) {
	if guildID == "" {
		return db.Reminder{}, fmt.Errorf("cancel reminder %d: %w", id, db.ErrNotFound)
	}
	return r.cancel(ctx, id, "", guildID)
}

func (r *Reminders) cancel(ctx context.Context, id int64, userID, anyInGuild string) (db.Reminder, error) {
	var rem db.Reminder
	err := pgx.BeginFunc(ctx, r.s.pool, func(tx pgx.Tx) error {
		var err error
		// A delivery in progress holds no lock, so this does not wait for
		// it: cancelling its job below stops its model call, and its
		// outcome, if it posted anyway, only records the message.
		rem, err = db.CancelReminder(ctx, tx, id, userID, anyInGuild, r.s.now())
		if err != nil {
			return err
		}
		if rem.JobID == nil {
			return nil
		}
		// The worker would skip the cancelled row anyway; cancelling the
		// job keeps River's tables honest.
		if _, err := r.s.client.JobCancelTx(ctx, tx, *rem.JobID); err != nil && !errors.Is(err, river.ErrNotFound) {
			return fmt.Errorf("cancel job %d: %w", *rem.JobID, err)
		}
		return nil
	})
	if err != nil {
		return rem, err
	}
	return rem, nil
}
