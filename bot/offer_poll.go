package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
)

// PollOffer posts the poll of an accepted offer_poll offer in the offer's
// channel. The nonce is the offer's, so a retry after an unknown outcome
// posts one poll; a refusal for a missing permission names it.
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
		if _, err := createMessage(pctx, b.session, o.ChannelID, msg); err != nil {
			if forbidden(err) {
				return "", commands.Refusal("投票を作成できませんでした。このチャンネルでよろずに「投票の作成」（Send Polls）権限がありません。サーバーの管理者に付与を頼んでください。")
			}
			return "", fmt.Errorf("post poll of offer %d in channel %s: %w", o.ID, o.ChannelID, err)
		}
		return "✅ 投票を作成しました。", nil
	}
}
