package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

const (
	// typingRefresh renews the typing indicator, which Discord shows for ~10 s.
	typingRefresh = 8 * time.Second
	// restTimeout bounds one REST call, 429 waits included.
	restTimeout = 30 * time.Second
	// finalAttempts is how often the final content is tried before giving up.
	finalAttempts = 5
)

// noMentions lets no text the bot posts ping anyone: not @everyone, roles,
// users, nor the author of the message replied to.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// sentMessage is a message of the turn as Discord has it.
type sentMessage struct {
	id      string
	content string
	at      time.Time // last successful write
}

// reply renders one turn's events into Discord messages. emit may be called
// from the responder's goroutine while run writes to Discord.
type reply struct {
	b         *Bot
	channelID string
	ref       *discordgo.MessageReference // the user's message, replied to

	mu    sync.Mutex
	view  view
	fatal error // a Discord error that makes further writes pointless
	wake  chan struct{}

	sent     []sentMessage
	typingAt time.Time
	files    []llm.File // sent after the answer's text
}

func newReply(b *Bot, req chat.Request) *reply {
	no := false
	return &reply{
		b:         b,
		channelID: req.ChannelID,
		ref: &discordgo.MessageReference{
			MessageID: req.MessageID, ChannelID: req.ChannelID, GuildID: req.GuildID,
			FailIfNotExists: &no, // the user may have deleted it; answer anyway
		},
		wake: make(chan struct{}, 1),
	}
}

// emit is the callback handed to the Responder.
func (r *reply) emit(ev llm.Event) error {
	r.mu.Lock()
	if f, ok := ev.(llm.File); ok {
		// Files may come after Done (a chart drawn once the answer is in).
		r.files = append(r.files, f)
		err := r.fatal
		r.mu.Unlock()
		return err
	}
	r.view.apply(ev)
	err := r.fatal
	r.mu.Unlock()
	r.signal()
	return err
}

// finish closes the turn with the responder's result, unless an event did.
func (r *reply) finish(err error) {
	r.mu.Lock()
	if !r.view.finished() {
		if err != nil {
			r.view.apply(llm.Failed{Err: err})
		} else {
			r.view.apply(llm.Done{})
		}
	}
	r.mu.Unlock()
	r.signal()
}

func (r *reply) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// run writes the view to Discord until the turn is finished and its final
// content has arrived (or cannot). It returns when nothing is left to do.
func (r *reply) run(ctx context.Context) {
	r.typing(ctx)
	failures := 0
	for {
		r.mu.Lock()
		want, final, hasText := r.view.contents(), r.view.finished(), r.view.hasText()
		r.mu.Unlock()

		next, err := r.sync(ctx, want, final)
		switch {
		case r.isFatal() && final:
			return
		case r.isFatal():
			<-r.wake // nothing can be written; wait for the responder to finish
			continue
		case err != nil && final:
			if failures++; failures >= finalAttempts {
				r.b.log.Error("discord final reply lost", "channel_id", r.channelID, "message_id", r.ref.MessageID, "err", err)
				return
			}
		case final && next.IsZero():
			return
		}

		wait := time.Duration(-1) // no timer: wait for the next event
		switch {
		case err != nil:
			wait = time.Duration(failures+1) * 200 * time.Millisecond
		case !next.IsZero():
			wait = next.Sub(r.b.now())
		}
		typingDue := !hasText && !final
		if typingDue {
			if t := r.typingAt.Add(typingRefresh).Sub(r.b.now()); wait < 0 || t < wait {
				wait = t
			}
		}
		if wait < 0 {
			<-r.wake
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-r.wake:
		case <-t.C:
			if typingDue && !r.b.now().Before(r.typingAt.Add(typingRefresh)) {
				r.typing(ctx)
			}
		}
		t.Stop()
	}
}

func (r *reply) isFatal() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fatal != nil
}

// sync brings Discord closer to want. A message's text is edited at most once
// per EditInterval while the answer streams; a message that is complete (an
// earlier part, or any part once the turn is final) is written at once. It
// returns when the next throttled edit is due (zero if none is pending).
func (r *reply) sync(ctx context.Context, want []string, final bool) (next time.Time, err error) {
	interval := r.b.opts.EditInterval
	for i, content := range want {
		now := r.b.now()
		if i >= len(r.sent) {
			if r.isFatal() {
				return time.Time{}, r.fatal
			}
			id, err := r.send(ctx, content, i == 0)
			if err != nil {
				return time.Time{}, err
			}
			r.sent = append(r.sent, sentMessage{id: id, content: content, at: now})
			continue
		}
		m := &r.sent[i]
		if m.content == content {
			continue
		}
		complete := final || i < len(want)-1
		if due := m.at.Add(interval); !complete && now.Before(due) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		if err := r.edit(ctx, m.id, content); err != nil {
			// Keep the old content recorded so the text is written again later.
			m.at = now
			return time.Time{}, err
		}
		m.content, m.at = content, now
	}
	return next, nil
}

func (r *reply) send(ctx context.Context, content string, asReply bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	data := &discordgo.MessageSend{Content: content, AllowedMentions: noMentions()}
	if asReply && r.ref.MessageID != "" {
		data.Reference = r.ref
	}
	m, err := r.b.session.ChannelMessageSendComplex(r.channelID, data, discordgo.WithContext(ctx))
	if err != nil {
		err = fmt.Errorf("send reply in channel %s: %w", r.channelID, err)
		var rest *discordgo.RESTError
		if errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode >= 400 && rest.Response.StatusCode < 500 {
			r.mu.Lock()
			r.fatal = err
			r.mu.Unlock()
			r.b.log.Error("discord send failed", "channel_id", r.channelID, "err", err)
		}
		return "", err
	}
	return m.ID, nil
}

func (r *reply) edit(ctx context.Context, id, content string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	e := discordgo.NewMessageEdit(r.channelID, id).SetContent(content)
	e.AllowedMentions = noMentions()
	if _, err := r.b.session.ChannelMessageEditComplex(e, discordgo.WithContext(ctx)); err != nil {
		r.b.log.Warn("discord edit failed", "channel_id", r.channelID, "message_id", id, "err", err)
		return fmt.Errorf("edit reply %s: %w", id, err)
	}
	return nil
}

func (r *reply) typing(ctx context.Context) {
	r.typingAt = r.b.now()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := r.b.session.ChannelTyping(r.channelID, discordgo.WithContext(ctx)); err != nil {
		r.b.log.Debug("discord typing failed", "channel_id", r.channelID, "err", err)
	}
}

// answer runs one turn: the responder streams events while run renders them.
func (b *Bot) answer(ctx context.Context, req chat.Request) {
	r := newReply(b, req)
	rendered := make(chan struct{})
	go func() {
		defer close(rendered)
		r.run(ctx)
	}()
	err := b.respond(ctx, req, r.emit)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w: %w", errStopped, err)
	}
	r.finish(err)
	r.mu.Lock()
	failed, fatal := r.view.err, r.fatal
	r.mu.Unlock()
	if failed != nil && fatal == nil {
		b.log.Error("answer failed", "channel_id", req.ChannelID, "message_id", req.MessageID,
			"author_id", req.AuthorID, "err", failed)
	}
	<-rendered
	if failed == nil && len(r.files) > 0 {
		r.sendFiles(ctx, req.MessageID)
	}
	// The turn is stored by now (the responder returned); add the ids.
	if b.opts.Replies != nil && failed == nil && len(r.sent) > 0 {
		ids := make([]string, len(r.sent))
		for i, m := range r.sent {
			ids[i] = m.id
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
		defer cancel()
		if err := b.opts.Replies.RecordReplyIDs(rctx, memory.SessionKey(req.Session), req.MessageID, ids); err != nil {
			b.log.Warn("record reply ids", "channel_id", req.ChannelID, "message_id", req.MessageID, "err", err)
		}
	}
}

// respond calls the Responder, turning a panic into an error.
func (b *Bot) respond(ctx context.Context, req chat.Request, emit func(llm.Event) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("responder panic: %v", p)
		}
	}()
	return b.opts.Responder.Respond(ctx, req, emit)
}

// notice replies to a message with a fixed text (rate limit, empty mention).
func (b *Bot) notice(ctx context.Context, req chat.Request, text string) {
	r := newReply(b, req)
	if _, err := r.send(ctx, text, true); err != nil {
		b.log.Error("discord notice failed", slog.String("channel_id", req.ChannelID), slog.Any("err", err))
	}
}
