// Package reminder holds the reminder tools the model calls —
// create_reminder (once, or repeating), create_scheduled_post,
// list_reminders, cancel_reminder — and the deterministic reading of time
// expressions they check the model's due_at against; a repeating rule is
// checked against recur.Parse's reading of the user's words.
package reminder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/tools"
)

// Tool names.
const (
	CreateName = "create_reminder"
	ListName   = "list_reminders"
	CancelName = "cancel_reminder"
)

// Names are the reminder tools, for Registry.Subset.
var Names = []string{CreateName, PostName, ListName, CancelName}

// Service stores reminders; *scheduler.Reminders satisfies it.
type Service interface {
	Create(ctx context.Context, p db.ReminderParams) (db.Reminder, error)
	// Repeat stores a repeating reminder, or a scheduled post (p.Kind
	// db.KindPost), whose rule is read in loc.
	Repeat(ctx context.Context, p db.ReminderParams, rule recur.Rule, loc *time.Location) (db.Reminder, error)
	List(ctx context.Context, userID, channelID string) ([]db.Reminder, error)
	Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error)
	// LocationFor is the time zone userID reads times in: their own, else
	// TIMEZONE.
	LocationFor(ctx context.Context, userID string) *time.Location
	// Upcoming is a pending reminder's next n occurrences, its due time
	// first.
	Upcoming(rem db.Reminder, n int) []time.Time
	// RuleText is a repeating reminder's rule in words; "" for a one-shot
	// one.
	RuleText(rem db.Reminder) string
	Now() time.Time
	MaxAhead() time.Duration
	MaxPending() int
	// DigestNote says, in a sentence for the user, where a digest of
	// channelID will read from (the channel log or Discord's history, and
	// a permission yorozu lacks); "" when it cannot say.
	DigestNote(ctx context.Context, guildID, channelID string) string
}

// maxContent matches scheduler.MaxContentLength.
const maxContent = 1500

// pastTolerance is how far in the past due_at may be: the model's reading of
// the clock is a little old.
const pastTolerance = 60 * time.Second

// crossCheckTolerance is how far the model's due_at may be from the user's
// words before the tool asks for confirmation.
const crossCheckTolerance = time.Minute

// relativeSlack widens the check for "30分後": the model counted from when the
// conversation started, the tool from now, some LLM time later.
const relativeSlack = 5 * time.Minute

type createArgs struct {
	Content string `json:"content" jsonschema_description:"what to remind the user of, in the user's words, without the time (e.g. 燃えるゴミを出す)"`
	DueAt   string `json:"due_at,omitempty" jsonschema_description:"when, for a reminder that happens once: RFC 3339 with the UTC offset, e.g. 2026-12-02T09:00:00+09:00. Leave out when repeat is given"`
	// Repeat makes the reminder repeat; DueAt is then ignored.
	Repeat *repeatArgs `json:"repeat,omitempty" jsonschema_description:"for a repeating reminder (毎週, 毎朝, 平日, 毎月, 隔週…) instead of due_at: the rule, with only what the user said"`
}

type listArgs struct{}

type cancelArgs struct {
	ReminderID int64 `json:"reminder_id" jsonschema_description:"the id shown by list_reminders or create_reminder (the number after #)"`
}

// Tools returns the reminder tools over svc, named by Names.
func Tools(svc Service) []tools.Tool {
	return []tools.Tool{
		tools.MustNew(CreateName,
			"Create a reminder: at due_at the bot posts content in this channel, mentioning the user. "+
				"Compute due_at from the current date and time you were given; always include the offset. "+
				"For a reminder that repeats (毎週月曜, 毎朝7時, 平日9時, 毎月末), give repeat instead of due_at.",
			func(ctx context.Context, a createArgs) (string, error) { return create(ctx, svc, a) }),
		tools.MustNew(PostName,
			"Schedule a post in this channel: at each time of repeat the bot answers prompt and posts the answer here "+
				"(「毎週金曜17時にこのチャンネルで今週の話題をまとめて投稿して」). Needs the Manage Channels permission.",
			func(ctx context.Context, a postArgs) (string, error) { return createPost(ctx, svc, a) }),
		tools.MustNew(ListName,
			"List the user's pending reminders in this channel, with their ids and times.",
			func(ctx context.Context, _ listArgs) (string, error) { return list(ctx, svc) }),
		tools.MustNew(CancelName,
			"Cancel one of the user's own pending reminders by id.",
			func(ctx context.Context, a cancelArgs) (string, error) { return cancel(ctx, svc, a) }),
	}
}

func caller(ctx context.Context) (tools.Caller, error) {
	c, ok := tools.CallerFrom(ctx)
	if !ok || c.UserID == "" || c.ChannelID == "" {
		return c, errors.New("reminders are delivered on Discord: this conversation has no Discord user and channel, so no reminder can be set here; tell the user")
	}
	return c, nil
}

func create(ctx context.Context, svc Service, a createArgs) (string, error) {
	c, err := caller(ctx)
	if err != nil {
		return "", err
	}
	if a.Repeat != nil {
		return createSchedule(ctx, svc, c, schedule{
			tool: CreateName, kind: db.KindRemind, what: "repeating reminder", content: a.Content, repeat: *a.Repeat,
		})
	}
	loc, now := svc.LocationFor(ctx, c.UserID), svc.Now()
	content := strings.TrimSpace(a.Content)
	if content == "" {
		return "", errors.New(`content is empty: say what to remind the user of (e.g. "燃えるゴミを出す") and call create_reminder again`)
	}
	if n := utf8.RuneCountInString(content); n > maxContent {
		return "", fmt.Errorf("content is %d characters, at most %d: shorten it and call create_reminder again", n, maxContent)
	}
	due, err := parseDue(a.DueAt, now.In(loc))
	if err != nil {
		return "", err
	}
	if due.Before(now.Add(-pastTolerance)) {
		return "", fmt.Errorf("due_at %s is in the past (now is %s); compute the time again from the current date and time, or ask the user when they mean",
			show(due, loc), show(now, loc))
	}
	if maxAhead := svc.MaxAhead(); due.After(now.Add(maxAhead)) {
		return "", fmt.Errorf("due_at %s is too far ahead: reminders can be at most %d days ahead (until %s); tell the user",
			show(due, loc), int(maxAhead.Hours()/24), show(now.Add(maxAhead), loc))
	}
	if err := checkOnce(c.Text, due, now, loc); err != nil {
		return "", err
	}
	if err := crossCheck(c.Text, due, now, loc); err != nil {
		return "", err
	}
	if pending, err := svc.List(ctx, c.UserID, ""); err != nil {
		return "", fmt.Errorf("could not check the user's reminders: %w", err)
	} else if len(pending) >= svc.MaxPending() {
		return "", fmt.Errorf("the user already has %d pending reminders, the most allowed; tell them to cancel some first (list_reminders shows them)", len(pending))
	}

	r, err := svc.Create(ctx, db.ReminderParams{
		SessionKey: c.Session, GuildID: c.GuildID, ChannelID: c.ChannelID, UserID: c.UserID,
		Content: content, DueAt: due, SourceMessageID: c.MessageID,
	})
	if err != nil {
		return "", fmt.Errorf("the reminder was not saved: %w", err)
	}
	return fmt.Sprintf("Reminder #%d created for %s: %s\n"+
		"In your reply, confirm it in the user's language and write the time exactly as %s (%s) — Discord shows these in each reader's time zone.",
		r.ID, show(r.DueAt, loc), r.Content, stamp(r.DueAt, "F"), stamp(r.DueAt, "R")), nil
}

// parseDue reads an RFC 3339 time that carries its offset.
func parseDue(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	example := now.Add(time.Hour).Truncate(time.Minute).Format(time.RFC3339)
	if s == "" {
		return time.Time{}, fmt.Errorf("due_at is empty: give the time as RFC 3339 with the offset, e.g. %s", example)
	}
	t, err := time.Parse(time.RFC3339, s)
	if err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if _, perr := time.Parse(layout, s); perr == nil {
			return time.Time{}, fmt.Errorf("due_at %q has no UTC offset: add it (the user's offset is %s), e.g. %s", s, now.Format("-07:00"), example)
		}
	}
	return time.Time{}, fmt.Errorf("due_at %q is not an RFC 3339 time: use the form %s", s, example)
}

// crossCheck refuses a due time that disagrees with the user's own words.
func crossCheck(text string, due, now time.Time, loc *time.Location) error {
	r, ok := ParseWhen(text, now.In(loc))
	if !ok {
		return nil
	}
	if r.HasClock && !r.Relative && r.At.Before(now.Add(-time.Minute)) {
		return fmt.Errorf("the user's words %q name %s, which has already passed. Do not create the reminder: tell the user that time is gone and ask when they want it",
			text, showReading(r, loc))
	}
	confirm := func() error {
		return fmt.Errorf("the user's words %q read as %s, but due_at is %s. Do not create the reminder yet: ask the user which time they mean (give both), then call create_reminder with the confirmed time",
			text, showReading(r, loc), show(due, loc))
	}
	switch {
	case r.HasClock:
		diff := due.Sub(r.At)
		lo := -crossCheckTolerance
		if r.Relative {
			lo -= relativeSlack
		}
		if diff < lo || diff > crossCheckTolerance {
			return confirm()
		}
	case r.HasDate && r.Period != periodNight && r.Period != periodLateNight:
		d := due.In(loc)
		if d.Year() != r.At.Year() || d.YearDay() != r.At.YearDay() {
			return confirm()
		}
	}
	return nil
}

func list(ctx context.Context, svc Service) (string, error) {
	c, err := caller(ctx)
	if err != nil {
		return "", err
	}
	rs, err := svc.List(ctx, c.UserID, c.ChannelID)
	if err != nil {
		return "", fmt.Errorf("could not list reminders: %w", err)
	}
	if len(rs) == 0 {
		return "The user has no pending reminders in this channel.", nil
	}
	loc := svc.LocationFor(ctx, c.UserID)
	var b strings.Builder
	fmt.Fprintf(&b, "The user's pending reminders in this channel (%d):\n", len(rs))
	for _, r := range rs {
		fmt.Fprintf(&b, "#%d %s — %s\n", r.ID, when(svc, r, loc), r.Content)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// when is a listed reminder's time: its due time, or its rule and next
// occurrence; a paused one says 一時停止中 instead of when it comes.
func when(svc Service, r db.Reminder, loc *time.Location) string {
	paused := fmt.Sprintf("一時停止中 (paused: nothing is sent until /remind resume id:%d)", r.ID)
	if !r.Repeats() {
		if r.PausedAt != nil {
			return show(r.DueAt, loc) + " " + paused
		}
		return show(r.DueAt, loc) + " " + stamp(r.DueAt, "R")
	}
	rule := "repeats 「" + svc.RuleText(r) + "」"
	if r.PausedAt != nil {
		return rule + " " + paused
	}
	next := r.DueAt
	if up := svc.Upcoming(r, 1); len(up) > 0 {
		next = up[0]
	}
	return rule + ", next " + show(next, loc) + " " + stamp(next, "R")
}

func cancel(ctx context.Context, svc Service, a cancelArgs) (string, error) {
	c, err := caller(ctx)
	if err != nil {
		return "", err
	}
	r, err := svc.Cancel(ctx, c.UserID, a.ReminderID)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return "", fmt.Errorf("the user has no reminder #%d; call list_reminders to see their ids", a.ReminderID)
	case errors.Is(err, db.ErrReminderNotPending):
		state := "already cancelled"
		if r.NotifiedAt != nil {
			state = "already delivered"
		} else if r.FailedAt != nil {
			state = "not deliverable (" + r.LastError + ")"
		}
		return "", fmt.Errorf("reminder #%d is %s; nothing to cancel", a.ReminderID, state)
	case err != nil:
		return "", fmt.Errorf("could not cancel reminder #%d: %w", a.ReminderID, err)
	}
	at := show(r.DueAt, svc.LocationFor(ctx, c.UserID))
	if r.Repeats() {
		at = "repeating 「" + svc.RuleText(r) + "」"
	}
	return fmt.Sprintf("Cancelled reminder #%d (%s — %s).", r.ID, at, r.Content), nil
}

var weekdaysShort = [...]string{"日", "月", "火", "水", "木", "金", "土"}

// show formats t for the model and the user: 2026-12-02 (水) 09:00 JST.
func show(t time.Time, loc *time.Location) string {
	t = t.In(loc)
	return fmt.Sprintf("%s (%s) %s", t.Format("2006-01-02"), weekdaysShort[t.Weekday()], t.Format("15:04 MST"))
}

func showReading(r Reading, loc *time.Location) string {
	if r.HasClock {
		return show(r.At, loc)
	}
	t := r.At.In(loc)
	return fmt.Sprintf("%s (%s), no time of day", t.Format("2006-01-02"), weekdaysShort[t.Weekday()])
}

// stamp is a Discord timestamp: <t:UNIX:F> (full date) or <t:UNIX:R> (relative).
func stamp(t time.Time, style string) string {
	return fmt.Sprintf("<t:%d:%s>", t.Unix(), style)
}
