package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

// Texts users see. Japanese by default, short.
const (
	emptyMentionReply = "はい、何でしょう？"
	emptyAnswerReply  = "うまく答えが出せませんでした。言い方を変えてもう一度お試しください。"
	rateLimitedReply  = "ちょっと話しかけるペースが速いようです。少し時間をおいてからもう一度お試しください。"
	busyReply         = "ただいま混み合っていて、このチャンネルではこれ以上お受けできません。少し時間をおいてからもう一度話しかけてください。"
	unavailableReply  = "モデルサーバーに接続できません。しばらくしてからもう一度お試しください。"
	genericErrorReply = "ごめんなさい、エラーで答えられませんでした。しばらくしてからもう一度お試しください。"
	stoppedReply      = "（ボットが止まるため、回答を中断しました）"
	turnTimeoutReply  = "（時間がかかりすぎたため、回答をここで打ち切りました。質問を短くするか、もう一度お試しください）"
	// stoppedQueuedReply replaces a waiting notice when the bot stops first.
	stoppedQueuedReply = "（ボットが止まるため、回答できませんでした。もう一度話しかけてください）"
)

// errStopped cuts a turn that was still running when the bot stopped.
var errStopped = errors.New("bot stopping")

// view is what one turn should look like in Discord, built from the
// pipeline's events. It does no I/O: the reply loop diffs its contents
// against what was sent.
type view struct {
	text   strings.Builder // the visible answer so far
	status string          // queue or tool status, shown while there is no text
	done   bool
	err    error
}

// apply folds one event into the view. Thinking is dropped: users never see it.
func (v *view) apply(ev llm.Event) {
	if v.finished() {
		return
	}
	switch e := ev.(type) {
	case llm.Queued:
		// Position 1 is next for an LLM slot; places count the turn being
		// answered as 1, as in a channel's own queue, so one wait reads the
		// same wherever it comes from.
		v.status = queuedText(e.Position + 1)
	case llm.ToolStarted:
		v.status = toolStatus(e.Name, e.Arguments)
	case llm.Text:
		v.text.WriteString(e.Text)
	case llm.Done:
		v.done = true
	case llm.Failed:
		v.err = e.Err
		if v.err == nil {
			v.err = errors.New("unknown failure")
		}
	}
}

// finished reports whether the turn has ended (answer complete or failed):
// its contents will not change any more.
func (v *view) finished() bool { return v.done || v.err != nil }

// hasText reports whether any visible answer text arrived.
func (v *view) hasText() bool { return strings.TrimSpace(v.text.String()) != "" }

// contents returns the messages the turn should consist of right now, each at
// most maxMessageRunes long. Nil means there is nothing to show yet.
func (v *view) contents() []string {
	body := v.text.String()
	if v.err != nil {
		notice := failureNotice(v.err)
		if strings.TrimSpace(body) != "" {
			body = strings.TrimRight(body, " \n") + "\n\n" + notice
		} else {
			body = notice
		}
	}
	if strings.TrimSpace(body) == "" {
		switch {
		case v.done:
			return []string{emptyAnswerReply}
		case v.status != "":
			return []string{v.status}
		}
		return nil
	}
	var out []string
	for _, p := range splitMessage(body, maxMessageRunes) {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// toolStatus renders a running tool as one short line, e.g.
// "🔍 web_search: 東京 天気". The line is Discord markdown, where a backtick
// in the arguments would open a code span.
func toolStatus(name, args string) string {
	icon := "🔧"
	if strings.Contains(name, "search") {
		icon = "🔍"
	}
	preview := strings.ReplaceAll(chat.ToolPreview(args, 80), "`", "'")
	if preview == "" {
		return fmt.Sprintf("%s %s", icon, name)
	}
	return fmt.Sprintf("%s %s: %s", icon, name, preview)
}

// failureTexts word a failed turn for Discord users: what to do, no
// setting names; the detail goes to the log.
var failureTexts = chat.FailureTexts{
	Timeout:     turnTimeoutReply,
	Unavailable: unavailableReply,
	Other:       func(error) string { return genericErrorReply },
}

// failureNotice is the short message a user sees when a turn failed. A
// turn the bot's stop cut may carry any error of the call it cut, so the
// stop is told before anything but a timeout.
func failureNotice(err error) string {
	if errors.Is(err, chat.ErrStopped) {
		return chat.StoppedMark // shown in the message; the conversation keeps the answer without it
	}
	stopped := errors.Is(err, errStopped) || errors.Is(err, context.Canceled)
	if stopped && !errors.Is(err, chat.ErrTurnTimeout) {
		return stoppedReply
	}
	return failureTexts.Text(err)
}
