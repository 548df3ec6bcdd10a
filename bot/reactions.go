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
