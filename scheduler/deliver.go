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

	"github.com/bwmarrin/discordgo"
	"github.com/riverqueue/river"

	"github.com/yorozu-bot/yorozu/db"
)

// MaxDeliveryAttempts is how many times a reminder is tried before it is
// given up on, counted in reminders.attempts.
const MaxDeliveryAttempts = 5

// retryDelays are the waits after failed attempts 1, 2, 3, …
var retryDelays = []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second, 2 * time.Minute}

// reminderArgs is the delivery job of one reminder.
type reminderArgs struct {
	ReminderID int64 `json:"reminder_id"`
}

func (reminderArgs) Kind() string { return "reminder" }

func (reminderArgs) InsertOpts() river.InsertOpts {
	// River's own count is a backstop above ours: an attempt cut short by
	// a crash counts for River but was never recorded in the row.
	return river.InsertOpts{Queue: QueueReminders, MaxAttempts: MaxDeliveryAttempts + 3}
}

type reminderWorker struct {
	river.WorkerDefaults[reminderArgs]
	s *Scheduler

	mu   sync.Mutex
	self string // the bot's user id, once known
}

func (w *reminderWorker) Timeout(*river.Job[reminderArgs]) time.Duration {
	return w.s.reminderTimeout()
}

func (w *reminderWorker) NextRetry(job *river.Job[reminderArgs]) time.Time {
	i := min(max(job.Attempt-1, 0), len(retryDelays)-1)
	return time.Now().Add(retryDelays[i])
}

// Work delivers one reminder. The row stays locked from the check to the
// record of the result, so two workers (or a cancel) never both act on it.
func (w *reminderWorker) Work(ctx context.Context, job *river.Job[reminderArgs]) error {
	id := job.Args.ReminderID
	tx, err := w.s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))

	r, err := db.LockReminderForDelivery(ctx, tx, id)
	if errors.Is(err, db.ErrNotFound) {
		w.s.log.Warn("reminder gone before delivery", "reminder_id", id)
		return nil
	}
	if err != nil {
		return fmt.Errorf("deliver reminder %d: %w", id, err)
	}
	if !r.Pending() {
		return nil
	}

	attempts := r.Attempts + 1
	now := w.s.now()
	var msg *discordgo.Message
	var sendErr error
	// An earlier attempt (failed, or cut short by a crash before its
	// commit) may have reached Discord, and Discord forgets a nonce after
	// a few minutes: look for that message before posting again.
	if job.Attempt > 1 || r.Attempts > 0 {
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
	if msg == nil && sendErr == nil {
		msg, sendErr = w.send(ctx, r, now)
	}
	if sendErr != nil && ctx.Err() != nil {
		// Shutting down or out of time: not the reminder's fault. River
		// hands the job back; the row is unchanged.
		return fmt.Errorf("deliver reminder %d: %w", id, sendErr)
	}

	// Record the outcome even if ctx ends now: the message may be out.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var result error
	gaveUp := false
	switch {
	case sendErr == nil:
		err = db.MarkReminderDelivered(rctx, tx, id, msg.ID, now, attempts)
	case isPermanent(sendErr) || attempts >= MaxDeliveryAttempts:
		reason := describeSendError(sendErr)
		if !isPermanent(sendErr) {
			reason = fmt.Sprintf("gave up after %d attempts: %s", attempts, reason)
		}
		err = db.MarkReminderFailed(rctx, tx, id, now, attempts, reason)
		gaveUp = true
		result = river.JobCancel(fmt.Errorf("deliver reminder %d: %s", id, reason))
	default:
		err = db.RecordReminderAttempt(rctx, tx, id, attempts, describeSendError(sendErr))
		result = fmt.Errorf("deliver reminder %d (attempt %d): %w", id, attempts, sendErr)
	}
	if err == nil {
		err = tx.Commit(rctx)
	}
	if err != nil {
		return fmt.Errorf("deliver reminder %d: record result: %w", id, err)
	}

	log := w.s.log.With("reminder_id", id, "channel_id", r.ChannelID, "attempt", attempts)
	outcome := "delivered"
	switch {
	case sendErr == nil:
		log.Info("reminder delivered", "message_id", msg.ID, "late_ms", now.Sub(r.DueAt).Milliseconds())
	case gaveUp:
		outcome = "failed"
		log.Warn("reminder given up", "err", describeSendError(sendErr))
	default:
		outcome = "retry"
		log.Warn("reminder delivery failed, will retry", "err", sendErr)
	}
	if w.s.opts.ReminderDone != nil {
		w.s.opts.ReminderDone(outcome, max(now.Sub(r.DueAt), 0))
	}
	return result
}

// outgoingMessage is the create-message body: discordgo's MessageSend has
// no nonce fields.
type outgoingMessage struct {
	Content         string                            `json:"content"`
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
	Nonce           string                            `json:"nonce"`
	EnforceNonce    bool                              `json:"enforce_nonce"`
}

func (w *reminderWorker) send(ctx context.Context, r db.Reminder, now time.Time) (*discordgo.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, w.s.opts.SendTimeout)
	defer cancel()
	body := outgoingMessage{
		Content: ReminderText(r, now, w.s.opts.Location, w.s.opts.LateAfter),
		// Only the requester is pinged; @everyone, roles or other users in
		// the text stay plain text.
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{r.UserID}},
		// A retry after a lost response is not posted twice.
		Nonce:        reminderNonce(r),
		EnforceNonce: true,
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
	marker := reminderHead(r)
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
			if m.Author == nil || m.Author.ID != botID {
				continue
			}
			if strings.Trim(string(m.Nonce), `"`) == nonce || strings.HasPrefix(m.Content, marker) {
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

// reminderNonce is the nonce every attempt to deliver r carries.
func reminderNonce(r db.Reminder) string { return strconv.FormatInt(r.ID, 10) }

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
