package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// 「よろずに聞く」 where yorozu is not a member (a group DM, a server only
// the user installed it in): yorozu can neither read the message nor post
// there. Discord sends the message along with the command (resolved
// data), so it is kept until the modal comes back, and the answer is the
// interaction's own response, streamed into it by edits and seen only by
// the user who asked; the turn is kept in that user's DM with yorozu.

// askTargetLife is how long the message of an opened modal is kept: an
// interaction token lives 15 minutes.
const askTargetLife = 15 * time.Minute

// askTarget is the message a 「よろずに聞く」 modal was opened on.
type askTarget struct {
	m  *discordgo.Message
	at time.Time
}

// Texts of 「よろずに聞く」 where yorozu is not.
const (
	askAbsentLost = "質問したメッセージを覚えていられませんでした（時間が経ったか、よろずが再起動しました）。もう一度「よろずに聞く」からお試しください。"
	askAbsentNoDM = "よろずとの DM を開けなかったため、答えられませんでした。しばらくしてからもう一度お試しください。"
	// askAbsentNotServed answers a user who shares no server in
	// DISCORD_GUILDS: they could not DM yorozu either.
	askAbsentNotServed = "よろずを使えるのは、よろずが参加しているサーバーのメンバーだけです（管理者の設定によるものです）。"
)

// keepAskTarget keeps the message a modal is being opened on from where
// yorozu is not, as Discord resolved it for interaction i; false when
// Discord sent none.
func (b *Bot) keepAskTarget(i *discordgo.InteractionCreate, target string) bool {
	data := i.ApplicationCommandData()
	if data.Resolved == nil || data.Resolved.Messages[target] == nil {
		return false
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.askedAt == nil {
		b.askedAt = map[string]askTarget{}
	}
	for k, t := range b.askedAt {
		if now.Sub(t.at) > askTargetLife {
			delete(b.askedAt, k)
		}
	}
	b.askedAt[interactionUser(i)+":"+target] = askTarget{m: data.Resolved.Messages[target], at: now}
	return true
}

// takeAskTarget is the message user opened a modal on; nil when it is
// not kept (too long ago, another process, a restart).
func (b *Bot) takeAskTarget(user, target string) *discordgo.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := user + ":" + target
	t, ok := b.askedAt[key]
	delete(b.askedAt, key)
	if !ok || b.now().Sub(t.at) > askTargetLife {
		return nil
	}
	return t.m
}

// askAbsent answers the question of modal submission i about target from
// where yorozu is not: through the interaction alone, ephemeral.
func (b *Bot) askAbsent(s *discordgo.Session, i *discordgo.InteractionCreate, target, question string) {
	// The token lives 15 minutes; the answer must be in by then.
	ctx, cancel := context.WithTimeout(b.ctx, askTargetLife-time.Minute)
	defer cancel()
	user := interactionUser(i)
	m := b.takeAskTarget(user, target)
	if m == nil {
		b.sayEphemeral(ctx, s, i, askAbsentLost, false)
		return
	}
	deferred := b.deferResponse(ctx, s, i, discordgo.InteractionResponseDeferredChannelMessageWithSource, "ask", AskCommandName)
	if !deferred {
		return // Discord did not take it: nothing can be answered
	}
	// The same limits as a DM: the user must share a served server, and
	// may start only so many turns.
	if len(b.opts.Guilds) > 0 {
		ok, err := b.sharesAllowedGuild(ctx, user)
		switch {
		case err != nil:
			b.log.Error("ask: check the asker's servers", "user_id", user, "err", err)
			b.sayEphemeral(ctx, s, i, genericErrorReply, true)
			return
		case !ok:
			b.sayEphemeral(ctx, s, i, askAbsentNotServed, true)
			return
		}
	}
	if allowed, _ := b.limiter.Allow(user, b.now()); !allowed {
		b.sayEphemeral(ctx, s, i, rateLimitedReply, true)
		return
	}
	dm, err := b.openDM(s, user)(ctx)
	if err != nil {
		b.log.Warn("ask: open the asker's DM", "user_id", user, "err", err)
		b.sayEphemeral(ctx, s, i, askAbsentNoDM, true)
		return
	}
	botID := b.UserID()
	chain := []memory.ChainMessage{chainMessage(m, botID)}
	if m.ReferencedMessage != nil {
		chain = append(chain, chainMessage(m.ReferencedMessage, botID))
	}
	req := chat.Request{
		Session: string(memory.DiscordDM(dm)), Source: "discord", ChannelID: dm,
		MessageID: i.ID, AnswerTo: m.ID, AuthorID: user, AuthorName: askerName(i),
		Text: question, At: b.now(), ReplyTo: m.ID, ReplyChain: chain,
	}
	ctx = chat.WithTurnID(ctx, chat.NewTurnID())
	r := &interactionStream{b: b, s: s, i: i, liveView: newLiveView()}
	rendered := make(chan struct{})
	go func() {
		defer close(rendered)
		r.run(ctx)
	}()
	err = b.respond(ctx, req, r.emit)
	r.finish(err)
	<-rendered
	if err != nil {
		b.log.ErrorContext(ctx, "ask answer failed", "channel_id", i.ChannelID, "interaction_id", i.ID, "user_id", user, "err", err)
		return
	}
	r.sendExtras(ctx)
}

// askerName is the name of the user of interaction i, as others see it.
func askerName(i *discordgo.InteractionCreate) string {
	name := ""
	if i.Member != nil {
		name = i.Member.Nick
	}
	user := i.User
	if i.Member != nil && i.Member.User != nil {
		user = i.Member.User
	}
	if user != nil && name == "" {
		name = user.GlobalName
		if name == "" {
			name = user.Username
		}
	}
	return name
}

// interactionStream renders one turn's events into an interaction's
// deferred, ephemeral response: its first part edits the response, at
// most once per EditInterval while text streams, and each further part is
// an ephemeral follow-up, edited the same way.
type interactionStream struct {
	b *Bot
	s *discordgo.Session
	i *discordgo.InteractionCreate

	liveView

	sent []streamedPart // run's own

	// The turn's files (a chart) and offers (a fact to keep, a poll), held
	// by liveView's mu: they follow the answer as ephemeral follow-ups.
	files  []llm.File
	offers []llm.Offer
}

// streamedPart is one message of the answer as Discord has it.
type streamedPart struct {
	id      string // "" for the response itself
	content string
	at      time.Time
}

func (r *interactionStream) emit(ev llm.Event) error {
	r.mu.Lock()
	switch ev := ev.(type) {
	case llm.File:
		r.files = append(r.files, ev)
	case llm.Offer:
		r.offers = append(r.offers, ev)
	default:
		r.view.apply(ev)
	}
	r.mu.Unlock()
	r.signal()
	return nil
}

// sendExtras follows the answer with the turn's files, then each offer with
// its buttons, as ephemeral follow-ups: seen, and pressed, by the asker
// alone, as the answer is. A failure is logged; the answer is out.
func (r *interactionStream) sendExtras(ctx context.Context) {
	r.mu.Lock()
	files, offers := r.files, r.offers
	r.mu.Unlock()
	for len(files) > 0 {
		n := min(len(files), maxFilesPerMessage)
		if _, err := r.followup(ctx, &discordgo.WebhookParams{Files: uploads(files[:n])}); err != nil {
			r.b.log.Warn("ask: files not sent", "interaction_id", r.i.ID, "files", n, "err", err)
		}
		files = files[n:]
	}
	for _, o := range offers {
		if _, err := r.followup(ctx, &discordgo.WebhookParams{Content: o.Preview, Components: offerComponents(o)}); err != nil {
			r.b.log.Warn("ask: offer not sent", "interaction_id", r.i.ID, "offer_id", o.ID, "kind", o.Kind, "err", err)
		}
	}
}

// followup sends p as a new ephemeral follow-up of the interaction.
func (r *interactionStream) followup(ctx context.Context, p *discordgo.WebhookParams) (*discordgo.Message, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	p.Flags, p.AllowedMentions = discordgo.MessageFlagsEphemeral, noMentions()
	m, err := r.s.FollowupMessageCreate(r.i.Interaction, true, p, discordgo.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("follow-up of interaction %s: %w", r.i.ID, err)
	}
	return m, nil
}

// run writes the view into the interaction until the turn is finished and
// its final content is out (or cannot be: a few tries, then the log).
func (r *interactionStream) run(ctx context.Context) {
	failures := 0
	for {
		r.mu.Lock()
		want, final := r.view.contents(), r.view.finished()
		r.mu.Unlock()
		next, err := r.sync(ctx, want, final)
		switch {
		case err != nil && final:
			if failures++; failures >= finalAttempts || ctx.Err() != nil {
				r.b.log.Error("ask: final answer lost", "interaction_id", r.i.ID, "err", err)
				return
			}
		case final && next.IsZero():
			return
		}
		wait := time.Duration(-1)
		switch {
		case err != nil:
			wait = time.Duration(failures+1) * 200 * time.Millisecond
		case !next.IsZero():
			wait = next.Sub(r.b.now())
		}
		if wait < 0 {
			select {
			case <-r.wake:
			case <-ctx.Done():
				return
			}
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-r.wake:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// sync brings the interaction's messages closer to want; it returns when
// the next throttled edit is due (zero if none).
func (r *interactionStream) sync(ctx context.Context, want []string, final bool) (next time.Time, err error) {
	interval := r.b.opts.EditInterval
	for n, content := range want {
		now := r.b.now()
		if n >= len(r.sent) {
			id, err := r.write(ctx, "", content, n == 0)
			if err != nil {
				return time.Time{}, err // later parts wait: parts stay in order
			}
			r.sent = append(r.sent, streamedPart{id: id, content: content, at: now})
			continue
		}
		p := &r.sent[n]
		if p.content == content {
			continue
		}
		if due := p.at.Add(interval); !final && n == len(want)-1 && now.Before(due) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		if _, err := r.write(ctx, p.id, content, n == 0); err != nil {
			return time.Time{}, err
		}
		p.content, p.at = content, now
	}
	return next, nil
}

// write sets the content of a part: the response itself (first), an
// existing follow-up (id), or a new ephemeral follow-up; it returns the
// follow-up's id.
func (r *interactionStream) write(ctx context.Context, id, content string, first bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	edit := &discordgo.WebhookEdit{Content: &content, AllowedMentions: noMentions()}
	switch {
	case first:
		if _, err := r.s.InteractionResponseEdit(r.i.Interaction, edit, discordgo.WithContext(ctx)); err != nil {
			return "", fmt.Errorf("edit the response of interaction %s: %w", r.i.ID, err)
		}
		return "", nil
	case id != "":
		if _, err := r.s.FollowupMessageEdit(r.i.Interaction, id, edit, discordgo.WithContext(ctx)); err != nil {
			return "", fmt.Errorf("edit follow-up %s of interaction %s: %w", id, r.i.ID, err)
		}
		return id, nil
	}
	m, err := r.followup(ctx, &discordgo.WebhookParams{Content: content})
	if err != nil {
		return "", err
	}
	return m.ID, nil
}
