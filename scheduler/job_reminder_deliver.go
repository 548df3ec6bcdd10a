package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/holiday"
)

// MaxDeliveryAttempts is how many times a reminder is tried before it is
// given up on, counted in reminders.attempts.
const MaxDeliveryAttempts = 5

// retryDelays are the waits after failed attempts 1, 2, 3, …
var retryDelays = []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second, 2 * time.Minute}

// reminderArgs is the job that delivers one reminder, or one occurrence of
// a repeating reminder or scheduled post.
type reminderArgs struct {
	ReminderID int64 `json:"reminder_id"`
	// Occurrence is the due time (Unix seconds) of the occurrence a
	// repeating reminder's job handles; 0 for a one-shot reminder.
	Occurrence int64 `json:"occurrence,omitempty"`
	// Post marks a scheduled post or a digest, which runs the chat
	// pipeline or the summary first.
	Post bool `json:"post,omitempty"`
}

func (reminderArgs) Kind() string { return "reminder" }

func (reminderArgs) InsertOpts() river.InsertOpts {
	// River's own count is a backstop above ours: an attempt cut short by
	// a crash counts for River but was never recorded in the row.
	return river.InsertOpts{Queue: QueueReminders, MaxAttempts: MaxDeliveryAttempts + 3}
}

// maxCatchUp bounds the count of occurrences missed while no process ran.
const maxCatchUp = 10000

type reminderWorker struct {
	river.WorkerDefaults[reminderArgs]
	s *Scheduler

	mu   sync.Mutex
	self string // the bot's user id, once known
}

func (w *reminderWorker) Timeout(job *river.Job[reminderArgs]) time.Duration {
	if job.Args.Post {
		// The model writes the post first.
		return w.s.opts.JobTimeout + w.s.reminderTimeout()
	}
	return w.s.reminderTimeout()
}

func (w *reminderWorker) NextRetry(job *river.Job[reminderArgs]) time.Time {
	i := min(max(job.Attempt-1, 0), len(retryDelays)-1)
	return time.Now().Add(retryDelays[i])
}

// delivery is one occurrence being handled.
type delivery struct {
	r   db.Reminder
	now time.Time
	// For a repeating reminder: the occurrences after DueAt that went by
	// unsent (downtime), and the next one after now (zero when the rule
	// ends).
	missed int
	next   time.Time
	post   string // a scheduled post's text
	// token names this attempt's claim on the occurrence.
	token string
	// search: an earlier attempt may have reached Discord (it failed, or
	// was cut short before recording its outcome), so look for its
	// message before posting.
	search bool
}

// claimMargin is how long a claim's lease outlasts the attempt's own
// deadline: time to record the outcome once the work is over.
const claimMargin = 30 * time.Second

// Work delivers one reminder, or one occurrence of a repeating one, in
// three steps so that no transaction stays open across a model or Discord
// call: claim the occurrence (one statement that checks the row and leases
// it to this attempt), write and post the message, then record the
// outcome (a short transaction, which respects a pause, skip or
// cancel that came meanwhile). The claim keeps a second worker off the
// occurrence; the nonce and the look for an earlier post keep a retry
// after an unknown outcome from posting twice.
func (w *reminderWorker) Work(ctx context.Context, job *river.Job[reminderArgs]) error {
	id := job.Args.ReminderID
	d, err := w.claim(ctx, job)
	if err != nil || d == nil {
		return err
	}
	r := d.r

	attempts := r.Attempts + 1
	var msg *discordgo.Message
	var sendErr error
	// An earlier attempt (failed, or cut short before recording its
	// outcome) may have reached Discord, and Discord forgets a nonce after
	// a few minutes: look for that message before posting again.
	if d.search {
		msg, sendErr = w.findPosted(ctx, r)
		switch {
		case sendErr != nil && isPermanent(sendErr):
			// No Read Message History here: post, relying on the nonce.
			w.s.log.Warn("cannot look for an earlier delivery; posting again with the same nonce",
				"reminder_id", id, "channel_id", r.ChannelID, "err", describeSendError(sendErr))
			msg, sendErr = nil, nil
		case msg != nil:
			w.s.log.Info("reminder already posted by an earlier attempt; not posting again",
				"reminder_id", id, "message_id", msg.ID)
		}
	}
	var modelErr error
	var quiet string
	if msg == nil && sendErr == nil {
		switch r.Kind {
		case db.KindPost:
			d.post, modelErr = w.writePost(ctx, r)
		case db.KindDigest:
			d.post, quiet, modelErr = w.writeDigest(ctx, *d)
		}
	}
	if msg == nil && sendErr == nil && modelErr == nil && quiet == "" {
		msg, sendErr = w.send(ctx, *d)
	}

	// Record the outcome even if ctx ends now: the message may be out.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if (modelErr != nil || sendErr != nil) && ctx.Err() != nil {
		// Shutting down, out of time, or the job cancelled by a pause,
		// skip or cancel: not the reminder's fault. River hands the job
		// back (or drops it); the claim ends now so a retry need not wait
		// out its lease, and the retry looks for what this one may have
		// posted.
		if err := db.ReleaseReminderClaim(rctx, w.s.pool, id, d.token); err != nil {
			w.s.log.Warn("claim not released; it lapses with its lease", "reminder_id", id, "err", err)
		}
		return fmt.Errorf("deliver reminder %d: %w", id, errors.Join(modelErr, sendErr))
	}
	log := w.s.log.With("reminder_id", id, "channel_id", r.ChannelID, "attempt", attempts)
	if modelErr != nil {
		// The model failed: nothing is posted, the schedule goes on.
		log.Error("scheduled post not written; nothing posted", "err", modelErr)
		return w.finish(rctx, d, fmt.Errorf("model: %w", modelErr), false)
	}
	if quiet != "" {
		// A digest of a quiet period: handled, with nothing to post.
		if err := w.settle(rctx, d, nil, func(tx pgx.Tx, cur db.Reminder) error {
			return w.record(rctx, tx, *d, cur, db.Delivery{Error: quiet}, attempts, false)
		}); err != nil {
			return fmt.Errorf("deliver reminder %d: record result: %w", id, err)
		}
		log.Info("digest not posted", "reason", quiet)
		w.done("quiet", *d)
		return nil
	}
	switch {
	case sendErr == nil:
		if err := w.settle(rctx, d, msg, func(tx pgx.Tx, cur db.Reminder) error {
			return w.record(rctx, tx, *d, cur, db.Delivery{MessageID: msg.ID}, attempts, false)
		}); err != nil {
			return fmt.Errorf("deliver reminder %d: record result: %w", id, err)
		}
		log.Info("reminder delivered", "message_id", msg.ID, "late_ms", d.now.Sub(r.DueAt).Milliseconds(), "covers", d.missed+1)
		w.done("delivered", *d)
		return nil
	case isPermanent(sendErr) || attempts >= MaxDeliveryAttempts:
		reason := describeSendError(sendErr)
		if !isPermanent(sendErr) {
			reason = fmt.Sprintf("gave up after %d attempts: %s", attempts, reason)
		}
		log.Warn("reminder given up", "err", reason)
		// A repeating reminder goes on after a transient failure; a
		// channel it may not post in ends it.
		if err := w.finish(rctx, d, errors.New(reason), isPermanent(sendErr) || !r.Repeats()); err != nil {
			return err
		}
		return river.JobCancel(fmt.Errorf("deliver reminder %d: %s", id, reason))
	default:
		if err := w.settle(rctx, d, nil, func(tx pgx.Tx, _ db.Reminder) error {
			return db.RecordReminderAttempt(rctx, tx, id, attempts, describeSendError(sendErr))
		}); err != nil {
			return fmt.Errorf("deliver reminder %d: record result: %w", id, err)
		}
		log.Warn("reminder delivery failed, will retry", "err", sendErr)
		w.done("retry", *d)
		return fmt.Errorf("deliver reminder %d (attempt %d): %w", id, attempts, sendErr)
	}
}

// claim leases job's occurrence to this attempt in one statement, if it is
// still to be delivered. Nil (and no error) when there is nothing to do:
// the reminder is gone, over, paused or moved to another occurrence, or its
// rule no longer reads (recorded here). A snooze when it is not due yet on
// the scheduler's clock, or another attempt holds it.
func (w *reminderWorker) claim(ctx context.Context, job *river.Job[reminderArgs]) (*delivery, error) {
	id := job.Args.ReminderID
	now := w.s.now()
	token := claimToken(job)
	r, prior, err := db.ClaimReminder(ctx, w.s.pool, db.Claim{
		ID: id, Token: token, Lease: w.Timeout(job) + claimMargin,
		Occurrence: job.Args.Occurrence, DueBy: now.Add(time.Second),
	})
	if errors.Is(err, db.ErrNotClaimed) {
		return nil, w.unclaimed(ctx, job, now)
	}
	if err != nil {
		return nil, fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	d := &delivery{r: r, now: now, token: token, search: job.Attempt > 1 || r.Attempts > 0 || prior != ""}
	if r.Repeats() {
		if err := d.plan(); err != nil {
			// A rule that no longer reads cannot go on.
			return nil, w.finish(ctx, d, err, true)
		}
	}
	return d, nil
}

// unclaimed says what to do with job whose occurrence was not claimed,
// from the reminder's row.
func (w *reminderWorker) unclaimed(ctx context.Context, job *river.Job[reminderArgs], now time.Time) error {
	id := job.Args.ReminderID
	r, err := db.ReminderByID(ctx, w.s.pool, id)
	if errors.Is(err, db.ErrNotFound) {
		w.s.log.Warn("reminder gone before delivery", "reminder_id", id)
		return nil
	}
	if err != nil {
		return fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	switch early := r.DueAt.Sub(now); {
	case !r.Pending() || r.PausedAt != nil:
		return nil
	case job.Args.Occurrence != 0 && r.DueAt.Unix() != job.Args.Occurrence:
		// Skipped, resumed or already handled: another job has its next.
		return nil
	case early > time.Second:
		// River keeps the database's clock, which is ahead of ours: wait
		// for the due time on the scheduler's clock.
		return river.JobSnooze(early)
	case r.ClaimToken != "" && r.ClaimedUntil != nil:
		// Another attempt holds it (River took a slow one for stuck and
		// started it again): its outcome, or its lease running out,
		// decides.
		return river.JobSnooze(max(time.Until(*r.ClaimedUntil), 0) + time.Second)
	default:
		// Changed between the claim and this read: try again shortly.
		return river.JobSnooze(time.Second)
	}
}

// claimToken names one attempt of job: River numbers a job's attempts, a
// rescued job's too.
func claimToken(job *river.Job[reminderArgs]) string {
	return fmt.Sprintf("%d.%d", job.ID, job.Attempt)
}

// settle runs fn, which records d's outcome, in a short transaction on the
// reminder locked as it is now, if d's claim still holds. If it does not
// (the occurrence was skipped meanwhile, or this attempt outlived its lease
// and another took over), nothing of the reminder is changed; a message
// msg that went out anyway is noted on the occurrence's delivery.
func (w *reminderWorker) settle(ctx context.Context, d *delivery, msg *discordgo.Message, fn func(tx pgx.Tx, cur db.Reminder) error) error {
	return pgx.BeginFunc(ctx, w.s.pool, func(tx pgx.Tx) error {
		cur, err := db.LockReminderForDelivery(ctx, tx, d.r.ID)
		if errors.Is(err, db.ErrNotFound) {
			return nil // deleted meanwhile: nothing to record on
		}
		if err != nil {
			return err
		}
		if cur.ClaimToken != d.token {
			w.s.log.Warn("occurrence handled elsewhere while it was being delivered; its state is left as it is",
				"reminder_id", d.r.ID, "occurrence", d.r.DueAt, "posted", msg != nil)
			if msg == nil {
				return nil
			}
			return db.NoteDeliveredMessage(ctx, tx, db.Delivery{ReminderID: d.r.ID, Occurrence: d.r.DueAt,
				HandledAt: d.now, MessageID: msg.ID, Covers: d.missed + 1})
		}
		return fn(tx, cur)
	})
}

// plan reads d's rule and counts what downtime cost: the occurrences after
// DueAt up to now, and the next one after now.
func (d *delivery) plan() error {
	rule, loc, err := Rule(d.r)
	if err != nil {
		return err
	}
	sched, err := rule.Compile(loc)
	if err != nil {
		return err
	}
	at := d.r.DueAt
	for d.missed < maxCatchUp {
		next := sched.Next(at, 1)
		if len(next) == 0 {
			return nil // the rule ends: d.next stays zero
		}
		if next[0].After(d.now) {
			d.next = next[0]
			return nil
		}
		at = next[0]
		d.missed++
	}
	if next := sched.Next(d.now, 1); len(next) > 0 {
		d.next = next[0]
	}
	return nil
}

// finish records an occurrence handled without a message (cause says why)
// and either ends the reminder (end) or, when it repeats, plans its next
// occurrence.
func (w *reminderWorker) finish(ctx context.Context, d *delivery, cause error, end bool) error {
	err := w.settle(ctx, d, nil, func(tx pgx.Tx, cur db.Reminder) error {
		return w.record(ctx, tx, *d, cur, db.Delivery{Error: cause.Error()}, d.r.Attempts+1, end || !d.r.Repeats())
	})
	if err != nil {
		return fmt.Errorf("reminder %d: record result: %w", d.r.ID, err)
	}
	w.done("failed", *d)
	return nil
}

// record stores how d's occurrence went (del, completed with what the
// delivery knows) and what follows — the next occurrence with its job, or
// the end (failed, or done) — in one statement. cur is the reminder as it
// is now: one cancelled or moved to another occurrence while d was handled
// only gets the delivery recorded; one paused meanwhile moves on to its
// next occurrence without a job, for Resume to plan.
func (w *reminderWorker) record(ctx context.Context, tx pgx.Tx, d delivery, cur db.Reminder, del db.Delivery, attempts int, failed bool) error {
	r := d.r
	del.ReminderID, del.Occurrence, del.HandledAt, del.Covers = r.ID, r.DueAt, d.now, d.missed+1
	o := db.Outcome{Delivery: del, Failed: failed, Occurrences: r.Occurrences + d.missed + 1, Attempts: attempts}
	switch {
	case !cur.DueAt.Equal(r.DueAt):
		// Moved on meanwhile (a resume): its count already stands.
		o.RecordOnly, o.Occurrences = true, cur.Occurrences
	case !cur.Pending():
		o.RecordOnly = true
	case r.Repeats() && !failed && !d.next.IsZero():
		o.Next = d.next
		if cur.PausedAt == nil {
			next := r
			next.DueAt = d.next
			id, err := w.s.insertJob(ctx, tx, next)
			if err != nil {
				return err
			}
			o.JobID = id
		}
	}
	return db.RecordOutcome(ctx, tx, o)
}

func (w *reminderWorker) done(outcome string, d delivery) {
	if w.s.opts.ReminderDone != nil {
		w.s.opts.ReminderDone(outcome, max(d.now.Sub(d.r.DueAt), 0))
	}
}

// writePost asks the chat pipeline for a scheduled post's text.
func (w *reminderWorker) writePost(ctx context.Context, r db.Reminder) (string, error) {
	if w.s.opts.Post == nil {
		return "", errors.New("no chat pipeline to write scheduled posts")
	}
	ctx, cancel := context.WithTimeout(ctx, w.s.opts.JobTimeout)
	defer cancel()
	text, err := w.s.opts.Post(ctx, r)
	if err != nil {
		return "", err
	}
	if text = strings.TrimSpace(text); text == "" {
		return "", errors.New("the model wrote nothing")
	}
	return truncateRunes(text, maxMessageRunes), nil
}

// writeDigest asks for a digest's text: a summary of what was said in its
// channel since the previous occurrence. quiet, when not "", says why
// nothing is posted (too little was said).
func (w *reminderWorker) writeDigest(ctx context.Context, d delivery) (text, quiet string, err error) {
	if w.s.opts.Digests == nil {
		return "", "", errors.New("no summarizer to write digests")
	}
	since := w.digestSince(ctx, d)
	ctx, cancel := context.WithTimeout(ctx, w.s.opts.JobTimeout)
	defer cancel()
	text, quiet, err = w.s.opts.Digests.Digest(ctx, d.r.GuildID, d.r.ChannelID, since, d.now, w.s.opts.DigestMinMessages)
	if err != nil || quiet != "" {
		return "", quiet, err
	}
	if text = strings.TrimSpace(text); text == "" {
		return "", "", errors.New("the summary is empty")
	}
	return truncateRunes(text, maxMessageRunes), "", nil
}

// digestSince is where d's digest starts: the previous occurrence handled
// (a catch-up after downtime covers every occurrence missed); for the
// first, as far back as the rule's next occurrence is ahead (a day for a
// daily digest, a week for a weekly one).
func (w *reminderWorker) digestSince(ctx context.Context, d delivery) time.Time {
	if prev, ok, err := db.PreviousOccurrence(ctx, w.s.pool, d.r.ID, d.r.DueAt); err == nil && ok {
		return prev
	}
	if rule, loc, err := Rule(d.r); err == nil {
		if next := rule.Next(d.r.DueAt, loc, 1); len(next) > 0 {
			return d.r.DueAt.Add(-next[0].Sub(d.r.DueAt))
		}
	}
	return d.r.DueAt.Add(-24 * time.Hour)
}

// maxMessageRunes is Discord's limit on a message's content.
const maxMessageRunes = 2000

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// outgoingMessage is the create-message body: discordgo's MessageSend has
// no nonce fields.
type outgoingMessage struct {
	Content         string                            `json:"content"`
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	Nonce           string                            `json:"nonce"`
	EnforceNonce    bool                              `json:"enforce_nonce"`
	Components      []discordgo.MessageComponent      `json:"components,omitempty"`
}

func (w *reminderWorker) send(ctx context.Context, d delivery) (*discordgo.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, w.s.opts.SendTimeout)
	defer cancel()
	r := d.r
	body := outgoingMessage{
		// Only the requester is pinged; @everyone, roles or other users in
		// the text stay plain text. A scheduled post pings nobody.
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{r.UserID}},
		// A retry after a lost response is not posted twice.
		Nonce:        reminderNonce(r),
		EnforceNonce: true,
		Components:   buttons(w.s.opts.ButtonKey, r),
	}
	if db.PostKind(r.Kind) {
		body.Content = d.post
		body.AllowedMentions.Users = []string{}
	} else {
		loc := w.s.location(r)
		body.Content = ReminderText(r, d.now, loc, w.s.opts.LateAfter)
		if d.missed > 0 {
			body.Content = reminderHead(r) + CatchUpNote(d.missed+1, d.next)
		}
		if name := holiday.Name(d.now.In(loc)); name != "" && r.Repeats() {
			// A routine may differ on a holiday: say it is one.
			body.Content += "\n（今日は" + name + "です）"
		}
	}
	endpoint := discordgo.EndpointChannelMessages(r.ChannelID)
	raw, err := w.s.opts.Discord.RequestWithBucketID(http.MethodPost, endpoint, body, endpoint, discordgo.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode sent message: %w", err)
	}
	return &m, nil
}

// CatchUpNote is what a repeating reminder that missed n occurrences while
// no process ran adds to its one delivery, with its next occurrence (zero:
// none).
func CatchUpNote(n int, next time.Time) string {
	note := fmt.Sprintf("\n（ボットが止まっていた間に%d回分を逃しました", n)
	if !next.IsZero() {
		note += fmt.Sprintf("。次回は <t:%d:F>", next.Unix())
	}
	return note + "）"
}

// maxSearchPages bounds the look for an earlier delivery: 100 messages a
// page, newest first.
const maxSearchPages = 10

// listedMessage is a message as GET /channels/{id}/messages lists it;
// discordgo's Message has no nonce.
type listedMessage struct {
	ID        string          `json:"id"`
	Content   string          `json:"content"`
	Timestamp time.Time       `json:"timestamp"`
	Nonce     json.RawMessage `json:"nonce"`
	Author    *struct {
		ID  string `json:"id"`
		Bot bool   `json:"bot"`
	} `json:"author"`
}

// findPosted looks in r's channel for the reminder's message, posted by an
// earlier attempt whose outcome was never recorded: a message by the bot,
// made since the reminder could first go out, carrying r's nonce or
// starting with its text. Nil when there is none.
func (w *reminderWorker) findPosted(ctx context.Context, r db.Reminder) (*discordgo.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, w.s.opts.SendTimeout)
	defer cancel()
	botID, err := w.botID(ctx)
	if err != nil {
		return nil, err
	}
	since := r.DueAt
	if r.CreatedAt.Before(since) {
		since = r.CreatedAt
	}
	since = since.Add(-time.Minute) // clocks differ; a job may start just early
	nonce := reminderNonce(r)
	marker := "" // a scheduled post is found by its nonce only
	if !db.PostKind(r.Kind) {
		marker = reminderHead(r)
	}
	endpoint := discordgo.EndpointChannelMessages(r.ChannelID)
	before := ""
	for range maxSearchPages {
		url := endpoint + "?limit=100"
		if before != "" {
			url += "&before=" + before
		}
		raw, err := w.s.opts.Discord.RequestWithBucketID(http.MethodGet, url, nil, endpoint, discordgo.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("look for reminder %d in channel %s: %w", r.ID, r.ChannelID, err)
		}
		var page []listedMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("look for reminder %d in channel %s: decode: %w", r.ID, r.ChannelID, err)
		}
		for _, m := range page {
			if m.Timestamp.Before(since) {
				return nil, nil // newest first: the rest is older still
			}
			// A repeating reminder's last delivery (r.MessageID) is an
			// earlier occurrence's, not this one's.
			if m.Author == nil || m.Author.ID != botID || m.ID == r.MessageID {
				continue
			}
			if strings.Trim(string(m.Nonce), `"`) == nonce || marker != "" && strings.HasPrefix(m.Content, marker) {
				return &discordgo.Message{ID: m.ID, ChannelID: r.ChannelID, Content: m.Content, Timestamp: m.Timestamp}, nil
			}
		}
		if len(page) < 100 {
			return nil, nil
		}
		before = page[len(page)-1].ID
	}
	return nil, nil
}

// botID is the bot's own user id, asked of Discord once.
func (w *reminderWorker) botID(ctx context.Context) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.self != "" {
		return w.self, nil
	}
	raw, err := w.s.opts.Discord.RequestWithBucketID(http.MethodGet, discordgo.EndpointUser("@me"), nil, discordgo.EndpointUser("@me"), discordgo.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("get the bot's user: %w", err)
	}
	var u discordgo.User
	if err := json.Unmarshal(raw, &u); err != nil || u.ID == "" {
		return "", fmt.Errorf("get the bot's user: unexpected answer %.100q", raw)
	}
	w.self = u.ID
	return u.ID, nil
}

// reminderNonce is the nonce every attempt to deliver r (the occurrence
// at r.DueAt, when it repeats) carries: digits, at most 25.
func reminderNonce(r db.Reminder) string {
	if r.Repeats() {
		return fmt.Sprintf("%d%010d", r.ID, r.DueAt.Unix())
	}
	return strconv.FormatInt(r.ID, 10)
}

// reminderHead is how every delivery of r begins, whatever its lateness note.
func reminderHead(r db.Reminder) string {
	return "<@" + r.UserID + "> ⏰ リマインド: " + r.Content
}

// ReminderText is the message that delivers r at now: the mention, the
// content and, when it is late by LateAfter or more, by how much.
func ReminderText(r db.Reminder, now time.Time, loc *time.Location, lateAfter time.Duration) string {
	text := reminderHead(r)
	late := now.Sub(r.DueAt)
	if late < lateAfter {
		return text
	}
	due, n := r.DueAt.In(loc), now.In(loc)
	when := due.Format("15:04")
	if due.YearDay() != n.YearDay() || due.Year() != n.Year() {
		when = fmt.Sprintf("%d月%d日 %s", due.Month(), due.Day(), when)
	}
	return text + fmt.Sprintf("\n（予定 %s、%s遅れでお届けしました）", when, japaneseDuration(late))
}

// japaneseDuration says d the way the lateness note does: 45秒, 12分,
// 2時間5分, 3日4時間.
func japaneseDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d秒", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d分", int(d.Minutes()))
	case d < 24*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%d時間", h)
		}
		return fmt.Sprintf("%d時間%d分", h, m)
	default:
		days, h := int(d.Hours())/24, int(d.Hours())%24
		if h == 0 {
			return fmt.Sprintf("%d日", days)
		}
		return fmt.Sprintf("%d日%d時間", days, h)
	}
}

// isPermanent reports whether Discord refused the message for a reason a
// retry cannot fix: unknown channel, missing access, cannot DM the user, a
// bad request. Rate limits, timeouts, 5xx and network errors are transient.
func isPermanent(err error) bool {
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Response == nil {
		return false
	}
	switch st := re.Response.StatusCode; {
	case st == http.StatusTooManyRequests, st == http.StatusRequestTimeout, st == http.StatusUnauthorized:
		// 401 is a bad token: the admin's to fix, not the reminder's.
		return false
	case st >= 400 && st < 500:
		return true
	}
	return false
}

// describeSendError is the reason stored in last_error.
func describeSendError(err error) string {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil {
		if re.Message != nil && re.Message.Message != "" {
			return fmt.Sprintf("discord %d (%d): %s", re.Response.StatusCode, re.Message.Code, re.Message.Message)
		}
		return fmt.Sprintf("discord %d", re.Response.StatusCode)
	}
	return err.Error()
}
