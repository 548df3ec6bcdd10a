package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
)

// PollOffer posts the poll of an accepted offer_poll offer in the offer's
// channel. The nonce is the offer's, so a retry after an unknown outcome
// posts one poll, and a press after such a retry, later than Discord keeps
// nonces, looks for the poll first; a refusal for a missing permission
// names it.
func (b *Bot) PollOffer() commands.OfferAction {
	return func(ctx context.Context, o db.Offer, _ commands.Press) (string, error) {
		var p chat.PollOffer
		if err := json.Unmarshal(o.Payload, &p); err != nil {
			return "", fmt.Errorf("poll offer %d: %w", o.ID, err)
		}
		if err := chat.CheckPoll(&p); err != nil {
			return "", commands.Refusal(err.Error())
		}
		poll := &discordgo.Poll{Question: discordgo.PollMedia{Text: p.Question}, Duration: p.Hours,
			AllowMultiselect: p.Multi, LayoutType: discordgo.PollLayoutTypeDefault}
		for _, opt := range p.Options {
			poll.Answers = append(poll.Answers, discordgo.PollAnswer{Media: &discordgo.PollMedia{Text: opt}})
		}
		msg := outgoing{AllowedMentions: noMentions(), Nonce: "poll" + strconv.FormatInt(o.ID, 10), Poll: poll}
		pctx, cancel := context.WithTimeout(ctx, restTimeout)
		defer cancel()
		if o.Attempts > 1 && b.madePoll(pctx, o, p.Question) {
			// An earlier press posted it and lost the answer, longer ago
			// than Discord keeps the nonce.
			return pollDone, nil
		}
		if _, err := createMessage(pctx, b.session, o.ChannelID, msg); err != nil {
			if forbidden(err) {
				return "", commands.Refusal("投票を作成できませんでした。このチャンネルでよろずに「投票の作成」（Send Polls）権限がありません。サーバーの管理者に付与を頼んでください。")
			}
			return "", fmt.Errorf("post poll of offer %d in channel %s: %w", o.ID, o.ChannelID, err)
		}
		return pollDone, nil
	}
}

// pollDone is what an offer's message says under the preview once its
// poll is posted.
const pollDone = "✅ 投票を作成しました。"

// pollLookBack is how many of a channel's latest messages are searched for
// the poll of an earlier press.
const pollLookBack = 100

// madePoll reports whether an earlier press of offer o posted its poll:
// a message of yorozu's in the offer's channel, since the offer, with the
// poll's question. False when the channel cannot be read (logged; the
// nonce still guards a retry within Discord's few minutes).
func (b *Bot) madePoll(ctx context.Context, o db.Offer, question string) bool {
	botID := b.UserID()
	msgs, err := b.session.ChannelMessages(o.ChannelID, pollLookBack, "", "", "", discordgo.WithContext(ctx))
	if err != nil {
		b.log.WarnContext(ctx, "cannot look for the poll of an earlier press; posting it with the offer's nonce", "offer_id", o.ID, "channel_id", o.ChannelID, "err", err)
		return false
	}
	for _, m := range msgs {
		if m.Author != nil && m.Author.ID == botID && m.Poll != nil && m.Poll.Question.Text == question && !m.Timestamp.Before(o.CreatedAt.Add(-time.Minute)) {
			return true
		}
	}
	return false
}
