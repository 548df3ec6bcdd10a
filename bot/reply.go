package bot

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
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
	// buttons is the answer button the message shows (actionStop,
	// actionAgain, "" none), as far as the reply knows.
	buttons string
}

// reply renders one turn's events into Discord messages. emit may be called
// from the responder's goroutine while run writes to Discord.
type reply struct {
	b         *Bot
	channelID string
	ref       *discordgo.MessageReference // the user's message, replied to

	liveView
	fatal error // a Discord error that makes further writes pointless (guarded by mu)
	// eventAt is when the last event came (guarded by mu); textOut is set
	// once the answer's text has been written (run's own).
	eventAt time.Time
	textOut bool

	sent     []sentMessage
	typingAt time.Time
	files    []llm.File  // sent with the answer's last message, or after it
	filesOut int         // how many of files went out with the answer
	offers   []llm.Offer // sent after the files, each with its buttons
	// nonces are the nonces of messages being created, by slot: the part
	// index, or -1-k for the k-th message of the tail. A retry of a slot
	// reuses its nonce, so Discord makes each message once.
	nonces map[int]string
	// appendOnly is set once Discord refused an edit for good: what the
	// messages sent so far do not show goes out as new messages (the tail)
	// when the answer is complete.
	appendOnly bool
	tail       []string
	tailSent   int

	// buttons is what the answer's last part should carry while it
	// streams (actionStop, "" none; guarded by mu); only when withButtons.
	// The buttons ride the last part, as that is where a reader is: the
	// parts above carry none.
	withButtons   bool
	buttons       string
	userMessageID string
	askerID       string
}

func newReply(b *Bot, req chat.Request) *reply {
	no := false
	r := &reply{
		b:         b,
		channelID: req.ChannelID,
		ref: &discordgo.MessageReference{
			MessageID: cmp.Or(req.AnswerTo, req.MessageID), ChannelID: req.ChannelID, GuildID: req.GuildID,
			FailIfNotExists: &no, // the user may have deleted it; answer anyway
		},
		liveView:      newLiveView(),
		nonces:        map[int]string{},
		userMessageID: req.MessageID,
		askerID:       req.AuthorID,
	}
	if startedThread(req) {
		// The question opened this thread: it is the thread's first
		// message already, in the parent channel, and cannot be replied to.
		r.ref = &discordgo.MessageReference{}
	}
	return r
}

// startedThread reports whether req's message started the thread req is
// answered in (a thread started from a message has the message's id).
func startedThread(req chat.Request) bool {
	return req.ParentID != "" && req.MessageID == req.ChannelID
}

// buttonsFor is the answer button part i of n should carry: none above
// the last part; on the last, 停止 while the turn streams and 再生成 once
// it is final.
func (r *reply) buttonsFor(i, n int, final bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case i != n-1:
		return ""
	case r.buttons != "" && final:
		return actionAgain
	}
	return r.buttons
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
	if o, ok := ev.(llm.Offer); ok {
		r.offers = append(r.offers, o)
		err := r.fatal
		r.mu.Unlock()
		return err
	}
	r.view.apply(ev)
	r.eventAt = time.Now()
	err := r.fatal
	r.mu.Unlock()
	r.signal()
	return err
}

// liveView is an answer's view as the responder's events build it, and
// the wake-up of the goroutine that writes it to Discord.
type liveView struct {
	mu   sync.Mutex
	view view
	wake chan struct{}
}

func newLiveView() liveView { return liveView{wake: make(chan struct{}, 1)} }

// finish closes the turn with the responder's result, unless an event did.
func (l *liveView) finish(err error) {
	l.mu.Lock()
	if !l.view.finished() {
		if err != nil {
			l.view.apply(llm.Failed{Err: err})
		} else {
			l.view.apply(llm.Done{})
		}
	}
	l.mu.Unlock()
	l.signal()
}

// signal wakes the writer.
func (l *liveView) signal() {
	select {
	case l.wake <- struct{}{}:
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
		// The first text waits for a pause in the stream: a fast model's
		// whole answer then goes out in one message with the buttons it
		// ends with, instead of a part and an edit; a slow one shows its
		// first words this much later.
		lull := r.b.opts.FirstTextLull - time.Since(r.eventAt)
		r.mu.Unlock()

		if hasText && !final && !r.textOut && lull > 0 {
			t := time.NewTimer(lull)
			select {
			case <-r.wake:
			case <-t.C:
			}
			t.Stop()
			continue
		}
		next, err := r.sync(ctx, want, final)
		if err == nil && hasText {
			r.textOut = true
		}
		switch {
		case r.isFatal() && final:
			return
		case r.isFatal():
			<-r.wake // nothing can be written; wait for the responder to finish
			continue
		case err != nil && final:
			if failures++; failures >= finalAttempts {
				if !r.appendOnly {
					// Edits keep failing: post what is missing as new
					// messages instead.
					r.b.log.WarnContext(ctx, "discord edits keep failing; posting the rest as new messages",
						"channel_id", r.channelID, "message_id", r.ref.MessageID, "err", err)
					r.appendOnly, failures = true, 0
					continue
				}
				r.b.log.ErrorContext(ctx, "discord final reply lost", "channel_id", r.channelID, "message_id", r.ref.MessageID, "err", err)
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
// earlier part, or any part once the turn is final) is written at once. A
// failed edit does not hold up later parts. It returns when the next
// throttled edit is due (zero if none is pending).
func (r *reply) sync(ctx context.Context, want []string, final bool) (next time.Time, err error) {
	if r.appendOnly {
		if !final {
			return time.Time{}, nil // the rest goes out once it is complete
		}
		return time.Time{}, r.flushTail(ctx, want)
	}
	interval := r.b.opts.EditInterval
	var editErr error
	for i, content := range want {
		now := r.b.now()
		if i >= len(r.sent) {
			if r.isFatal() {
				return time.Time{}, r.fatal
			}
			buttons := r.buttonsFor(i, len(want), final)
			var files []llm.File
			if final && i == len(want)-1 {
				// The turn's files (a chart) that came with the answer go
				// out in its last message: one write less.
				files = r.takeFiles()
			}
			id, err := r.send(ctx, i, content, i == 0, buttons, files...)
			if err != nil {
				return time.Time{}, err // later parts wait: messages stay in order
			}
			r.sent = append(r.sent, sentMessage{id: id, content: content, at: now, buttons: buttons})
			continue
		}
		m := &r.sent[i]
		buttons := r.buttonsFor(i, len(want), final)
		moveButtons := r.withButtons && m.buttons != buttons
		if m.content == content && !moveButtons {
			continue
		}
		complete := final || i < len(want)-1 || m.content == content
		if due := m.at.Add(interval); !complete && now.Before(due) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		var comps []discordgo.MessageComponent
		if r.withButtons {
			comps = r.b.answerComponents(buttons, r.userMessageID, r.askerID)
		}
		if err := r.editWith(ctx, m.id, content, comps); err != nil {
			// Keep the old content recorded so the text is written again later.
			m.at = now
			if refused(err) {
				r.b.log.Warn("discord refused an edit; the rest of the answer goes out as new messages",
					"channel_id", r.channelID, "message_id", m.id, "err", err)
				r.appendOnly = true
				return r.sync(ctx, want, final)
			}
			if editErr == nil {
				editErr = err
			}
			continue
		}
		m.content, m.at = content, now
		if r.withButtons {
			m.buttons = buttons
			if buttons != "" {
				r.b.noteLastAnswer(r.channelID, m.id)
			}
		}
	}
	return next, editErr
}

// flushTail posts, as new messages, what the messages sent so far do not
// show of the complete answer want: the rest of a part whose edits were
// refused, and every later part.
func (r *reply) flushTail(ctx context.Context, want []string) error {
	if r.tail == nil {
		var rest strings.Builder
		for i, content := range want {
			if i < len(r.sent) {
				shown := r.sent[i].content
				if shown == content {
					continue
				}
				// A part that streamed into its message shows a prefix of
				// itself; a status line shows none of it.
				content = strings.TrimPrefix(content, shown)
			}
			rest.WriteString(content)
		}
		r.tail = []string{}
		for _, p := range splitMessage(rest.String(), maxMessageRunes) {
			if strings.TrimSpace(p) != "" {
				r.tail = append(r.tail, p)
			}
		}
	}
	for r.tailSent < len(r.tail) {
		if r.isFatal() {
			return r.fatal
		}
		content := r.tail[r.tailSent]
		// The last new message is the answer's last part: 再生成 goes
		// there, as the messages above cannot be edited to carry it.
		buttons := r.buttonsFor(r.tailSent, len(r.tail), true)
		id, err := r.send(ctx, -1-r.tailSent, content, len(r.sent) == 0, buttons)
		if err != nil {
			return err
		}
		r.sent = append(r.sent, sentMessage{id: id, content: content, at: r.b.now(), buttons: buttons})
		r.tailSent++
	}
	return nil
}

// send creates the message of one slot, with the answer button buttons
// when the reply has them. Its nonce is kept until the slot is out, so
// even a retry from the reply loop cannot post it twice.
func (r *reply) send(ctx context.Context, slot int, content string, asReply bool, buttons string, files ...llm.File) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	nonce, ok := r.nonces[slot]
	if !ok {
		nonce = newNonce()
		r.nonces[slot] = nonce
	}
	data := outgoing{Content: content, AllowedMentions: noMentions(), Nonce: nonce}
	if asReply && r.ref.MessageID != "" {
		data.Reference = r.ref
	}
	if r.withButtons && buttons != "" {
		data.Components = r.b.answerComponents(buttons, r.userMessageID, r.askerID)
	}
	id, err := createMessage(ctx, r.b.session, r.channelID, data, uploads(files)...)
	if err != nil {
		r.untakeFiles(len(files))
		err = fmt.Errorf("send reply in channel %s: %w", r.channelID, err)
		if refused(err) {
			r.mu.Lock()
			r.fatal = err
			r.mu.Unlock()
			r.b.log.ErrorContext(ctx, "discord send failed", "channel_id", r.channelID, "err", err)
		}
		return "", err
	}
	delete(r.nonces, slot)
	if r.withButtons && buttons != "" {
		r.b.noteLastAnswer(r.channelID, id)
	}
	return id, nil
}

// edit sets the content of message id. An edit Discord answered 2xx is
// done even when its answer cannot be decoded: counting it as failed would
// post again text the message already shows.
func (r *reply) edit(ctx context.Context, id, content string) error {
	return r.editWith(ctx, id, content, nil)
}

// editWith is edit that also sets the message's buttons when comps is not
// nil (empty removes them).
func (r *reply) editWith(ctx context.Context, id, content string, comps []discordgo.MessageComponent) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	e := discordgo.NewMessageEdit(r.channelID, id).SetContent(content)
	e.AllowedMentions = noMentions()
	if comps != nil {
		e.Components = &comps
	}
	_, err := r.b.session.ChannelMessageEditComplex(e, discordgo.WithContext(ctx))
	switch {
	case err == nil:
	case applied(err):
		r.b.log.DebugContext(ctx, "discord edit applied, answer undecodable", "channel_id", r.channelID, "message_id", id, "err", err)
	default:
		r.b.log.DebugContext(ctx, "discord edit failed", "channel_id", r.channelID, "message_id", id, "err", err)
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
// notice, when set, is a message of the bot's that the answer takes over.
// claim, when set, is the claim of req's message under way: the model is
// asked meanwhile, the responder waits for it before a tool runs and
// before the turn is kept (chat.Request.Admit), and nothing is shown
// before it succeeded; errUnclaimed when it did not.
// It returns the turn's failure (nil when answered, or stopped with 停止).
func (b *Bot) answer(ctx context.Context, req chat.Request, notice *sentMessage, claim *claimAttempt) error {
	// One id follows the turn through every log line and LLM record.
	ctx = chat.WithTurnID(ctx, chat.NewTurnID())
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r := newReply(b, req)
	if r.withButtons = len(b.opts.ButtonKey) > 0 && req.MessageID != ""; r.withButtons {
		r.buttons = actionStop
	}
	untrack := b.track(req.MessageID, req.AuthorID, stop)
	defer untrack()
	if notice != nil {
		r.sent = append(r.sent, *notice)
	}
	rendered := make(chan struct{})
	var renderOnce sync.Once
	render := func() {
		renderOnce.Do(func() {
			go func() {
				defer close(rendered)
				r.run(ctx)
			}()
		})
	}
	if claim == nil {
		render()
	} else {
		// The model is asked while the claim is on its way; the answer
		// shows once it is made, and a claim lost to another process
		// stops the turn before anything of it was shown or kept.
		go func() {
			if claim.wait(ctx) {
				render()
				return
			}
			stop(errUnclaimed)
		}()
		req.Admit = func(ctx context.Context) error {
			if !claim.wait(ctx) {
				return errUnclaimed
			}
			return nil
		}
	}
	req = b.prepare(ctx, req)
	emit := func(ev llm.Event) error {
		if _, ok := ev.(llm.Done); ok {
			b.finishing(req.ChannelID)
		}
		if f, ok := ev.(llm.Failed); ok && chat.Stopped(ctx) {
			// The pipeline reports the cancelled call; the user stopped it.
			ev = llm.Failed{Err: fmt.Errorf("%w: %w", chat.ErrStopped, f.Err)}
		}
		return r.emit(ev)
	}
	err := b.respond(ctx, req, emit)
	untrack()
	if claim != nil {
		if !claim.wait(context.WithoutCancel(ctx)) {
			return errUnclaimed // nothing was shown
		}
		render() // a responder that did not wait (no Admit) is shown now
	}
	switch {
	case err != nil && chat.Stopped(ctx):
		err = fmt.Errorf("%w: %w", chat.ErrStopped, err)
	case err != nil && ctx.Err() != nil:
		err = fmt.Errorf("%w: %w", errStopped, err)
	}
	r.finish(err)
	r.mu.Lock()
	failed, fatal := r.view.err, r.fatal
	r.mu.Unlock()
	if errors.Is(failed, chat.ErrStopped) {
		failed = nil // what was written stays, as asked
	}
	if failed == nil {
		b.answered(req)
	}
	if failed != nil && fatal == nil {
		b.log.ErrorContext(ctx, "answer failed", "channel_id", req.ChannelID, "message_id", req.MessageID,
			"author_id", req.AuthorID, "err", failed)
	}
	<-rendered
	if r.withButtons && len(r.sent) > 0 {
		last := len(r.sent) - 1
		for _, m := range r.sent[:last] {
			if m.buttons != "" {
				// An edit left it there (edits refused or failing): one
				// more try; a press of it is refused with a reason anyway.
				b.goDropButtons(ctx, req.ChannelID, m.id)
			}
		}
		b.noteLastAnswer(req.ChannelID, r.sent[last].id)
	}
	if failed == nil && r.filesLeft() {
		r.sendFiles(ctx, req.MessageID)
	}
	if failed == nil {
		r.sendOffers(ctx)
	}
	// The turn is stored by now (the responder returned); add the ids, off
	// the channel's worker: the channel's next turn needs the turn, not
	// its ids.
	if b.opts.Replies != nil && failed == nil && len(r.sent) > 0 {
		ids := make([]string, len(r.sent))
		for i, m := range r.sent {
			ids[i] = m.id
		}
		b.wg.Add(1) // called by a channel worker, which holds b.wg itself: Stop waits for it
		go func() {
			defer b.wg.Done()
			defer b.recoverEvent("record reply ids")
			b.recordReplyIDs(context.WithoutCancel(ctx), req, ids)
		}()
	}
	if failed == nil && fatal != nil {
		failed = fatal
	}
	return failed
}

// replyIDsPatience is how long the ids of a sent answer are retried: an
// answer sent as the database went away keeps its place in reply chains
// once it is back.
const replyIDsPatience = time.Minute

// recordReplyIDs keeps the ids of req's answer with its turn, retrying with
// backoff for replyIDsPatience, or until the bot stops.
func (b *Bot) recordReplyIDs(ctx context.Context, req chat.Request, ids []string) {
	giveUp := time.Now().Add(replyIDsPatience)
	wait := 500 * time.Millisecond
	for {
		rctx, cancel := context.WithTimeout(ctx, storeTimeout)
		err := b.opts.Replies.RecordReplyIDs(rctx, memory.SessionKey(req.Session), req.MessageID, ids)
		cancel()
		if err == nil {
			return
		}
		if time.Now().Add(wait).After(giveUp) {
			b.log.WarnContext(ctx, "record reply ids", "channel_id", req.ChannelID, "message_id", req.MessageID, "err", err)
			return
		}
		select {
		case <-time.After(wait):
			wait = min(2*wait, 8*time.Second)
		case <-b.ctx.Done():
			b.log.WarnContext(ctx, "record reply ids: stopping before the database answered", "channel_id", req.ChannelID, "message_id", req.MessageID, "err", err)
			return
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

// notice replies to a message with a fixed text (rate limit, empty
// mention), in the message prev when there is one.
func (b *Bot) notice(ctx context.Context, req chat.Request, prev *sentMessage, text string) {
	r := newReply(b, req)
	if prev != nil {
		r.sent = append(r.sent, *prev)
	}
	for attempt := 0; attempt < 2; attempt++ {
		_, err := r.sync(ctx, []string{text}, true)
		if err == nil {
			return
		}
		if attempt == 1 || r.isFatal() {
			b.log.Error("discord notice failed", slog.String("channel_id", req.ChannelID), slog.Any("err", err))
			return
		}
		r.appendOnly = true // the edit failed: post it anew
	}
}
