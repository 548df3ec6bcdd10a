package bot

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
)

// The buttons on an answer: 停止 while it streams, 再生成 once it is done.
// Their custom ids name the action, the user's message and its author, and
// are signed with Options.ButtonKey, so a press after a restart is still
// understood by whichever process holds the gateway, and a forged one is
// refused:
//
//	yz:a:<action>:<user message id>:<asker id>:<signature>
const answerButtonPrefix = "yz:a:"

// Answer button actions.
const (
	actionStop  = "stop"  // 「停止」
	actionAgain = "again" // 「再生成」
)

// Texts of the answer buttons.
const (
	notAskerReply     = "このボタンを押せるのは、質問した人（またはメッセージの管理権限を持つ人）だけです。"
	forgedButtonReply = "このボタンは使えません。"
	notRunningReply   = "この回答はもう終わっています。"
	stillRunningReply = "まだ答えているところです。終わってから押してください。"
	againFailedReply  = "質問のメッセージが見つからないため、もう一度答えられませんでした。"
	againStaleReply   = "このあとに会話が進んでいるため、この回答は再生成できません。"
)

// answerButton is what an answer button's custom id says.
type answerButton struct {
	action    string
	messageID string // the user's message
	askerID   string
}

func (b *Bot) answerButtonID(a answerButton) string {
	return commands.ButtonSigner{Key: b.opts.ButtonKey}.ID(answerButtonPrefix, a.action, a.messageID, a.askerID)
}

// readAnswerButton checks a pressed answer button's custom id.
func (b *Bot) readAnswerButton(customID string) (answerButton, error) {
	parts, err := commands.ButtonSigner{Key: b.opts.ButtonKey}.Read(customID, answerButtonPrefix, 3)
	if err != nil {
		return answerButton{}, err
	}
	a := answerButton{action: parts[0], messageID: parts[1], askerID: parts[2]}
	if (a.action != actionStop && a.action != actionAgain) || a.messageID == "" {
		return answerButton{}, fmt.Errorf("button %q: unknown action %q", customID, a.action)
	}
	return a, nil
}

// answerComponents are the buttons of an answer in state want (actionStop
// while it streams, actionAgain when done, "" none): an empty, non-nil
// list removes them.
func (b *Bot) answerComponents(want string, messageID, askerID string) []discordgo.MessageComponent {
	if want == "" {
		return []discordgo.MessageComponent{}
	}
	label, style := "停止", discordgo.DangerButton
	if want == actionAgain {
		label, style = "再生成", discordgo.SecondaryButton
	}
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: label, Style: style,
			CustomID: b.answerButtonID(answerButton{action: want, messageID: messageID, askerID: askerID})},
	}}}
}

// runningTurn is an answer streaming now, which 停止 can cut.
type runningTurn struct {
	askerID string
	stop    context.CancelCauseFunc
	done    chan struct{} // closed when the turn has returned (stored)
}

// againWait is how long a press of 再生成 waits for the turn it is on to
// be stored: the button shows as soon as the answer is complete.
const againWait = 10 * time.Second

// track registers a streaming answer under its user's message; the
// returned func unregisters it.
func (b *Bot) track(messageID, askerID string, stop context.CancelCauseFunc) func() {
	t := &runningTurn{askerID: askerID, stop: stop, done: make(chan struct{})}
	b.mu.Lock()
	b.running[messageID] = t
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			if b.running[messageID] == t {
				delete(b.running, messageID)
			}
			b.mu.Unlock()
			close(t.done)
		})
	}
}

// pressAnswer answers a press of 停止 or 再生成.
func (b *Bot) pressAnswer(ctx context.Context, p commands.Press) commands.PressReply {
	a, err := b.readAnswerButton(p.CustomID)
	if err != nil {
		b.log.Warn("answer button refused", "custom_id", p.CustomID, "user_id", p.UserID, "err", err)
		return commands.PressReply{Text: forgedButtonReply}
	}
	if p.UserID != a.askerID && p.Perms&commands.ManageMessages == 0 {
		return commands.PressReply{Text: notAskerReply}
	}
	b.mu.Lock()
	t := b.running[a.messageID]
	b.mu.Unlock()
	switch {
	case a.action == actionStop && t != nil:
		b.log.Info("answer stopped by a press", "channel_id", p.ChannelID, "message_id", a.messageID, "user_id", p.UserID)
		t.stop(chat.ErrStopped)
		return commands.PressReply{} // the turn writes the rest itself
	case a.action == actionStop:
		// The answer ended (or its process did) and an edit could not take
		// this button off, as when the server refuses edits. The reason goes
		// out as an ephemeral message rather than an update of the pressed
		// message: that is an edit too, which such a server refuses, and the
		// presser would be told nothing.
		b.goRetireStop(ctx, p.ChannelID, p.MessageID, a)
		return commands.PressReply{Text: notRunningReply}
	case t != nil:
		wait := time.NewTimer(againWait)
		defer wait.Stop()
		select {
		case <-t.done:
		case <-wait.C:
			return commands.PressReply{Text: stillRunningReply}
		case <-ctx.Done():
			return commands.PressReply{Text: stillRunningReply}
		}
	}
	return b.again(ctx, p, a)
}

// goDropButtons is dropButtons off the interaction's handler.
func (b *Bot) goDropButtons(ctx context.Context, channelID, messageID string) {
	b.goEvent("drop buttons", func() { b.dropButtons(ctx, channelID, messageID) })
}

// goRetireStop takes a stale 停止 off messageID, off the interaction's
// handler: the channel's last answer gets 再生成 in its place, as its
// finished turn would have shown; another message loses its buttons, the
// conversation having moved on. A failure is logged at debug: the button
// is refused when pressed.
func (b *Bot) goRetireStop(ctx context.Context, channelID, messageID string, a answerButton) {
	b.mu.Lock()
	last := b.lastAnswer[channelID] == messageID
	b.mu.Unlock()
	if !last {
		b.goDropButtons(ctx, channelID, messageID)
		return
	}
	b.goEvent("retire 停止", func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
		defer cancel()
		comps := b.answerComponents(actionAgain, a.messageID, a.askerID)
		e := discordgo.NewMessageEdit(channelID, messageID)
		e.Components = &comps
		if _, err := b.session.ChannelMessageEditComplex(e, discordgo.WithContext(ctx)); err != nil {
			b.log.Debug("replace a stale 停止 with 再生成", "channel_id", channelID, "message_id", messageID, "err", err)
		}
	})
}

// maxLastAnswers bounds the channels whose last answer is remembered.
const maxLastAnswers = 10000

// noteLastAnswer makes messageID the last answer with buttons in
// channelID, as soon as a button is on it. The answer before keeps its 再生成: taking it off would cost
// an edit on every turn, in the channel's few writes a second, and a press
// of it is refused with a reason (staleAgain) instead.
func (b *Bot) noteLastAnswer(channelID, messageID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lastAnswer == nil || len(b.lastAnswer) >= maxLastAnswers {
		b.lastAnswer = map[string]string{}
	}
	// A channel's turns overlap at their ends (the next starts while the
	// last is being stored), so a later answer may be noted first.
	if last, ok := b.lastAnswer[channelID]; ok && newerID(last, messageID) {
		return
	}
	b.lastAnswer[channelID] = messageID
}

// newerID reports whether Discord id a is newer than b: ids are
// snowflakes, which grow with time.
func newerID(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

// staleAgain reports whether messageID is an answer this process knows a
// later answer in channelID came after.
func (b *Bot) staleAgain(channelID, messageID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	last, ok := b.lastAnswer[channelID]
	return ok && last != messageID
}

// dropButtons takes the buttons off an answer. A failure is logged at
// debug: the old button still works, and is refused when pressed.
func (b *Bot) dropButtons(ctx context.Context, channelID, messageID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer cancel()
	e := discordgo.NewMessageEdit(channelID, messageID)
	e.Components = &[]discordgo.MessageComponent{}
	if _, err := b.session.ChannelMessageEditComplex(e, discordgo.WithContext(ctx)); err != nil {
		b.log.Debug("remove the buttons of an older answer or part", "channel_id", channelID, "message_id", messageID, "err", err)
	}
}
