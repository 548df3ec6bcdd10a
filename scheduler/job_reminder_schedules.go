package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
)

// Repeating reminders and scheduled posts: a reminder with a recur.Rule,
// stored as RRULE text. Each occurrence is one River job, unique by the
// reminder and the occurrence; handling it plans the next.

// More reasons a schedule is refused, beside Create's.
var (
	// ErrBadRule wraps recur's reason (in Japanese) a rule cannot be kept.
	ErrBadRule = errors.New("the rule cannot be kept")
	// ErrTooManyPosts is a server at SCHEDULE_MAX_PER_SPACE scheduled posts.
	ErrTooManyPosts = errors.New("too many scheduled posts in this server")
	// ErrNotRepeating, ErrPaused and ErrNotPaused are db's, here too for
	// callers of the scheduler.
	ErrNotRepeating = db.ErrReminderNotRepeating
	ErrPaused       = db.ErrReminderPaused
	ErrNotPaused    = db.ErrReminderNotPaused
)

// lock returns reminder id locked FOR UPDATE if who may touch it, else
// db.ErrNotFound.
func lock(ctx context.Context, tx pgx.Tx, who db.Owner, id int64) (db.Reminder, error) {
	if who.Admin {
		return db.LockReminderForDelivery(ctx, tx, id)
	}
	return db.LockOwnedReminder(ctx, tx, id, who.UserID, who.Guild)
}

// Repeat validates rule (read in loc, the owner's zone) and p as Create
// does, and stores the repeating reminder (p.Kind KindPost: the scheduled
// post) with the job of its first occurrence. A post needs a server and
// counts toward its limit. Refusals wrap Create's, ErrBadRule or
// ErrTooManyPosts.
func (r *Reminders) Repeat(ctx context.Context, p db.ReminderParams, rule recur.Rule, loc *time.Location) (db.Reminder, error) {
	if loc == nil {
		loc = r.s.opts.Location
	}
	now := r.s.now()
	content, err := checkContent(p)
	if err != nil {
		return db.Reminder{}, fmt.Errorf("create schedule: %w", err)
	}
	if db.PostKind(p.Kind) && p.GuildID == "" {
		return db.Reminder{}, fmt.Errorf("create schedule: %w (a scheduled post belongs to a server)", ErrMissingAudience)
	}
	if _, err := recur.LoadLocation(loc.String()); err != nil {
		// The stored rule names its zone; TIMEZONE unset is "Local".
		return db.Reminder{}, fmt.Errorf("create schedule: time zone %q has no name to store", loc)
	}
	rule = rule.Anchor(now, loc)
	if err := rule.Validate(now, loc); err != nil {
		return db.Reminder{}, fmt.Errorf("create schedule: %w: %w", ErrBadRule, err)
	}
	first := rule.Next(now, loc, 1)
	if len(first) == 0 {
		return db.Reminder{}, fmt.Errorf("create schedule: %w: この先に通知する回がありません", ErrBadRule)
	}
	p.Content, p.DueAt = content, first[0]
	p.RRule, p.TimeZone, p.SkipHolidays = rule.RRULE(loc), loc.String(), rule.SkipHolidays
	var check func(pgx.Tx) error
	if db.PostKind(p.Kind) {
		check = func(tx pgx.Tx) error {
			// Posts of one server are created under its lock too.
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "yorozu.posts:"+p.GuildID); err != nil {
				return err
			}
			n, err := db.CountLivePosts(ctx, tx, p.GuildID)
			if err != nil {
				return err
			}
			if n >= r.s.opts.MaxPostsPerSpace {
				return fmt.Errorf("%w (%d, at most %d)", ErrTooManyPosts, n, r.s.opts.MaxPostsPerSpace)
			}
			return nil
		}
	}
	return r.insert(ctx, p, check)
}

// Rule reads a stored reminder's rule and zone back; a one-shot reminder is
// ErrNotRepeating.
func Rule(rem db.Reminder) (recur.Rule, *time.Location, error) {
	if !rem.Repeats() {
		return recur.Rule{}, nil, ErrNotRepeating
	}
	return recur.FromRRULE(rem.RRule, rem.SkipHolidays)
}

// NextOccurrences are rem's next n occurrences from its due time on (its
// due time first): one for a one-shot reminder, none for one that is not
// pending.
func NextOccurrences(rem db.Reminder, n int) []time.Time {
	if !rem.Pending() || n <= 0 {
		return nil
	}
	if !rem.Repeats() {
		return []time.Time{rem.DueAt}
	}
	rule, loc, err := Rule(rem)
	if err != nil {
		return []time.Time{rem.DueAt}
	}
	return append([]time.Time{rem.DueAt.In(loc)}, rule.Next(rem.DueAt, loc, n-1)...)
}

// Pause stops the deliveries of reminder id until Resume.
func (r *Reminders) Pause(ctx context.Context, who db.Owner, id int64) (db.Reminder, error) {
	return r.change(ctx, who, id, func(tx pgx.Tx, rem *db.Reminder) error {
		if rem.PausedAt != nil {
			return ErrPaused
		}
		if err := r.s.cancelJobTx(ctx, tx, rem); err != nil {
			return err
		}
		now := r.s.now()
		rem.PausedAt = &now
		return db.PauseReminder(ctx, tx, rem.ID, now)
	})
}

// Resume restarts a paused reminder from its next occurrence after now; a
// one-shot one whose time went by while paused is delivered at once. A rule
// that ended while paused ends the reminder: it comes back with NotifiedAt
// set and nothing planned.
func (r *Reminders) Resume(ctx context.Context, who db.Owner, id int64) (db.Reminder, error) {
	return r.change(ctx, who, id, func(tx pgx.Tx, rem *db.Reminder) error {
		if rem.PausedAt == nil {
			return ErrNotPaused
		}
		next := rem.DueAt
		if rem.Repeats() {
			rule, loc, err := Rule(*rem)
			if err != nil {
				return err
			}
			after := r.s.now().Add(-time.Second)
			if after.Before(rem.DueAt) {
				after = rem.DueAt.Add(-time.Second)
			}
			times := rule.Next(after, loc, 1)
			if len(times) == 0 {
				now := r.s.now()
				rem.NotifiedAt, rem.PausedAt = &now, nil
				return db.EndReminder(ctx, tx, rem.ID, now)
			}
			next = times[0]
		}
		if err := db.MoveReminder(ctx, tx, rem.ID, next); err != nil {
			return err
		}
		rem.DueAt, rem.PausedAt = next, nil
		return r.s.planTx(ctx, tx, rem)
	})
}

// Skip passes over the next occurrence of repeating reminder id: it moves
// to the one after. When none follows, the reminder ends.
func (r *Reminders) Skip(ctx context.Context, who db.Owner, id int64) (db.Reminder, error) {
	return r.change(ctx, who, id, func(tx pgx.Tx, rem *db.Reminder) error {
		if !rem.Repeats() {
			return ErrNotRepeating
		}
		rule, loc, err := Rule(*rem)
		if err != nil {
			return err
		}
		if err := r.s.cancelJobTx(ctx, tx, rem); err != nil {
			return err
		}
		o := db.Outcome{
			Delivery:    db.Delivery{ReminderID: rem.ID, Occurrence: rem.DueAt, HandledAt: r.s.now(), Error: "skipped"},
			Occurrences: rem.Occurrences + 1, Attempts: rem.Attempts,
		}
		if times := rule.Next(rem.DueAt, loc, 1); len(times) > 0 {
			o.Next = times[0]
			if rem.PausedAt == nil { // skipping while paused moves where it resumes
				next := *rem
				next.DueAt = o.Next
				id, err := r.s.insertJob(ctx, tx, next)
				if err != nil {
					return err
				}
				o.JobID = id
			}
		}
		if err := db.RecordOutcome(ctx, tx, o); err != nil {
			return err
		}
		rem.Occurrences, rem.JobID = o.Occurrences, o.JobID
		if o.Next.IsZero() {
			at := o.Delivery.HandledAt
			rem.NotifiedAt = &at
		} else {
			rem.DueAt = o.Next
		}
		return nil
	})
}

// Snooze makes a one-shot copy of reminder id, due d from now: the 「10分後」
// button. The copy counts toward its owner's limit.
func (r *Reminders) Snooze(ctx context.Context, who db.Owner, id int64, d time.Duration) (db.Reminder, error) {
	rem, err := r.Get(ctx, who, id)
	if err != nil {
		return db.Reminder{}, err
	}
	return r.Create(ctx, db.ReminderParams{
		SessionKey: rem.SessionKey, GuildID: rem.GuildID, ChannelID: rem.ChannelID, UserID: rem.UserID,
		Content: rem.Content, DueAt: r.s.now().Add(d), SourceMessageID: rem.SourceMessageID,
		Kind: rem.Kind, TimeZone: rem.TimeZone,
	})
}

// Get returns reminder id, pending or not, if who may touch it; else
// db.ErrNotFound.
func (r *Reminders) Get(ctx context.Context, who db.Owner, id int64) (db.Reminder, error) {
	rem, err := db.ReminderByID(ctx, r.s.pool, id)
	if err != nil {
		return db.Reminder{}, err
	}
	if !who.Admin && rem.UserID != who.UserID && (who.Guild == "" || rem.GuildID != who.Guild) {
		return db.Reminder{}, fmt.Errorf("get reminder %d: %w", id, db.ErrNotFound)
	}
	return rem, nil
}

// MaxPostsPerSpace is how many scheduled posts one server may have.
func (r *Reminders) MaxPostsPerSpace() int { return r.s.opts.MaxPostsPerSpace }

// Posts lists the pending scheduled posts of server guildID.
func (r *Reminders) Posts(ctx context.Context, guildID string) ([]db.Reminder, error) {
	return db.LivePosts(ctx, r.s.pool, guildID)
}

// change runs fn on pending reminder id, locked, if who may touch it:
// another's is db.ErrNotFound, one no longer pending
// db.ErrReminderNotPending.
func (r *Reminders) change(ctx context.Context, who db.Owner, id int64, fn func(tx pgx.Tx, rem *db.Reminder) error) (db.Reminder, error) {
	var rem db.Reminder
	err := pgx.BeginFunc(ctx, r.s.pool, func(tx pgx.Tx) error {
		var err error
		rem, err = lock(ctx, tx, who, id)
		if err != nil {
			return err
		}
		if !rem.Pending() {
			return fmt.Errorf("reminder %d: %w", id, db.ErrReminderNotPending)
		}
		return fn(tx, &rem)
	})
	return rem, err
}

// planTx plans rem's DueAt (insertJob) and links the job to the row.
func (s *Scheduler) planTx(ctx context.Context, tx pgx.Tx, rem *db.Reminder) error {
	id, err := s.insertJob(ctx, tx, *rem)
	if err != nil || id == nil {
		return err
	}
	if err := db.SetReminderJob(ctx, tx, rem.ID, *id); err != nil {
		return err
	}
	rem.JobID = id
	return nil
}

// insertJob inserts the job that handles rem's DueAt and returns its id; nil
// when rem repeats and DueAt is beyond planAhead, for the planner to plan
// later. A repeating reminder's job is unique by the reminder and the
// occurrence, so planning the same occurrence twice (two processes, the
// planner and a resume) makes one job.
func (s *Scheduler) insertJob(ctx context.Context, tx pgx.Tx, rem db.Reminder) (*int64, error) {
	if rem.Repeats() && !rem.DueAt.Before(s.now().Add(planAhead)) {
		return nil, nil
	}
	p := deliveryJob(rem)
	res, err := s.client.InsertTx(ctx, tx, p.Args, p.InsertOpts)
	if err != nil {
		return nil, fmt.Errorf("insert delivery job: %w", err)
	}
	return &res.Job.ID, nil
}

// deliveryJob is the job that handles rem's DueAt.
func deliveryJob(rem db.Reminder) river.InsertManyParams {
	args := reminderArgs{ReminderID: rem.ID, Post: db.PostKind(rem.Kind)}
	opts := &river.InsertOpts{ScheduledAt: rem.DueAt}
	if rem.Repeats() {
		args.Occurrence = rem.DueAt.Unix()
		opts.UniqueOpts = river.UniqueOpts{ByArgs: true}
	}
	return river.InsertManyParams{Args: args, InsertOpts: opts}
}

// cancelJobTx cancels rem's delivery job. The worker would find the row
// changed and do nothing anyway; cancelling keeps River's tables honest.
func (s *Scheduler) cancelJobTx(ctx context.Context, tx pgx.Tx, rem *db.Reminder) error {
	if rem.JobID == nil {
		return nil
	}
	if _, err := s.client.JobCancelTx(ctx, tx, *rem.JobID); err != nil && !errors.Is(err, river.ErrNotFound) {
		return fmt.Errorf("cancel job %d: %w", *rem.JobID, err)
	}
	rem.JobID = nil
	return nil
}

// location is the zone r's times were read in: its own, else TIMEZONE.
func (s *Scheduler) location(r db.Reminder) *time.Location {
	if r.TimeZone != "" {
		if loc, err := recur.LoadLocation(r.TimeZone); err == nil {
			return loc
		}
	}
	return s.opts.Location
}

// Upcoming is NextOccurrences as a method, for callers that reach the
// reminders through an interface.
func (r *Reminders) Upcoming(rem db.Reminder, n int) []time.Time { return NextOccurrences(rem, n) }

// RuleText is rem's rule in words (毎週 月・木 7:00、祝日は除く); "" for a
// one-shot reminder.
func (r *Reminders) RuleText(rem db.Reminder) string {
	rule, _, err := Rule(rem)
	if err != nil {
		return ""
	}
	return rule.Describe()
}

// Edit changes anyone's pending reminder id (the admin page's form) to p's
// channel, user, content and kind, repeating by rule read in loc (nil: once,
// at p.DueAt), checked as Create and Repeat check them. With rule nil and
// p.RRule set, the timing is kept as p gives it (the row's own DueAt,
// RRule, TimeZone and SkipHolidays). Its delivery job is
// replaced by the one of its new due time (none while it is paused); its
// deliveries so far stay.
func (r *Reminders) Edit(ctx context.Context, id int64, p db.ReminderParams, rule *recur.Rule, loc *time.Location) (db.Reminder, error) {
	if loc == nil {
		loc = r.s.opts.Location
	}
	now := r.s.now()
	content, err := checkContent(p)
	if err != nil {
		return db.Reminder{}, fmt.Errorf("edit reminder %d: %w", id, err)
	}
	p.Content = content
	switch {
	case rule == nil && p.RRule != "":
		// The timing as it is.
	case rule != nil:
		anchored := rule.Anchor(now, loc)
		if err := anchored.Validate(now, loc); err != nil {
			return db.Reminder{}, fmt.Errorf("edit reminder %d: %w: %w", id, ErrBadRule, err)
		}
		first := anchored.Next(now, loc, 1)
		if len(first) == 0 {
			return db.Reminder{}, fmt.Errorf("edit reminder %d: %w: この先に通知する回がありません", id, ErrBadRule)
		}
		p.DueAt, p.RRule, p.TimeZone, p.SkipHolidays = first[0], anchored.RRULE(loc), loc.String(), anchored.SkipHolidays
	case p.DueAt.Before(now.Add(-pastTolerance)):
		return db.Reminder{}, fmt.Errorf("edit reminder %d: %w", id, ErrDueInPast)
	case p.DueAt.After(now.Add(r.s.opts.MaxAhead)):
		return db.Reminder{}, fmt.Errorf("edit reminder %d: %w", id, ErrTooFarAhead)
	}
	return r.change(ctx, db.Owner{Admin: true}, id, func(tx pgx.Tx, rem *db.Reminder) error {
		if err := r.s.cancelJobTx(ctx, tx, rem); err != nil {
			return err
		}
		if err := db.EditReminder(ctx, tx, id, p); err != nil {
			return err
		}
		edited, err := db.ReminderByID(ctx, tx, id)
		if err != nil {
			return err
		}
		*rem = edited
		if rem.PausedAt != nil {
			return nil // planned when resumed
		}
		return r.s.planTx(ctx, tx, rem)
	})
}

// AdminPause pauses anyone's reminder id: the admin page's button.
func (r *Reminders) AdminPause(ctx context.Context, id int64) (db.Reminder, error) {
	return r.Pause(ctx, db.Owner{Admin: true}, id)
}

// AdminResume resumes anyone's paused reminder id.
func (r *Reminders) AdminResume(ctx context.Context, id int64) (db.Reminder, error) {
	return r.Resume(ctx, db.Owner{Admin: true}, id)
}

// DigestNote says, in a sentence for the user, where a digest of
// channelID of guildID will read from (the channel log, or Discord's
// history and whether yorozu may read it); "" when digests are not
// written here.
func (r *Reminders) DigestNote(ctx context.Context, guildID, channelID string) string {
	if r.s.opts.Digests == nil {
		return ""
	}
	return r.s.opts.Digests.DigestNote(ctx, guildID, channelID)
}
