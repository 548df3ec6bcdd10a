package bot

import (
	"context"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
)

// Status reactions on the user's message (Options.Reactions): ⏳ while the
// turn waits in its channel's queue, removed when it is answered, ⚠️ when
// it failed.
const (
	hourglassEmoji = "⏳"
	failedEmoji    = "⚠️"
)

// reactTimeout bounds one reaction call.
const reactTimeout = 10 * time.Second

// hourglassDelay is how long a turn waits in its channel's queue before ⏳
// shows: a wait shorter than that is not worth two calls (Discord allows
// a channel few reactions a second), and none of it holds up a turn.
const hourglassDelay = time.Second

// react adds (or removes) emoji on req's message and reports whether it
// is there now. Discord refusing (no Add Reactions in the channel) is
// logged at debug only: the reaction is a nicety.
func (b *Bot) react(req chat.Request, emoji string, add bool) bool {
	if !b.opts.Reactions || req.MessageID == "" {
		return false
	}
	channelID := req.ChannelID
	if startedThread(req) {
		channelID = req.ParentID // the question is in the parent channel
	}
	ctx, cancel := context.WithTimeout(b.ctx, reactTimeout)
	defer cancel()
	var err error
	if add {
		err = b.session.MessageReactionAdd(channelID, req.MessageID, emoji, discordgo.WithContext(ctx))
	} else {
		err = b.session.MessageReactionRemove(channelID, req.MessageID, emoji, "@me", discordgo.WithContext(ctx))
	}
	if err != nil {
		b.log.Debug("discord reaction failed", "channel_id", channelID, "message_id", req.MessageID, "emoji", emoji,
			"add", add, "err", err)
		return false
	}
	return add
}

// hourglassWhileWaiting puts ⏳ on t's message once it has waited
// hourglassDelay, and says on t.hourglass whether it did.
func (b *Bot) hourglassWhileWaiting(t *queuedTurn) {
	defer b.wg.Done()
	timer := time.NewTimer(hourglassDelay)
	defer timer.Stop()
	select {
	case <-t.start:
		t.hourglass <- false
	case <-timer.C:
		t.hourglass <- b.react(t.req, hourglassEmoji, true)
	}
}

// goSettleReactions, off the channel's worker, takes ⏳ off req's message
// once it is known to be there, and adds ⚠️ when the turn failed.
func (b *Bot) goSettleReactions(req chat.Request, hourglass <-chan bool, failed bool) {
	if hourglass == nil && !failed {
		return
	}
	b.wg.Add(1) // called by a channel worker, which holds b.wg itself
	go func() {
		defer b.wg.Done()
		defer b.recoverEvent("reactions")
		if hourglass != nil && <-hourglass {
			b.react(req, hourglassEmoji, false)
		}
		if failed {
			b.react(req, failedEmoji, true)
		}
	}()
}
