package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/tools"
)

// PollOfferName is the tool with which the model proposes a Discord poll.
const PollOfferName = "offer_poll"

// PollOfferKind is the kind of the offers offer_poll makes.
const PollOfferKind = "poll"

// Discord's limits on a poll.
const (
	MinPollOptions   = 2
	MaxPollOptions   = 10
	MaxPollQuestion  = 300 // characters
	MaxPollOption    = 55  // characters
	MaxPollHours     = 768 // 32 days
	DefaultPollHours = 24
)

const pollOfferAccepted = "Offered: the user sees the poll's preview with 作成 / キャンセル buttons under your answer; the poll is posted only if they press 作成. Do not say it is already created."

// PollOffer is what an accepted offer_poll offer posts: a native poll in
// the offer's channel.
type PollOffer struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Hours    int      `json:"hours"`
	Multi    bool     `json:"multi,omitempty"`
}

type pollOfferArgs struct {
	Question string   `json:"question" jsonschema_description:"the poll's question, in the user's language, at most 300 characters"`
	Options  []string `json:"options" jsonschema_description:"the answers to choose from, 2 to 10, each at most 55 characters"`
	Hours    int      `json:"hours,omitempty" jsonschema_description:"how long the poll stays open, in hours, 1 to 768 (32 days); 24 when not said"`
	Multi    bool     `json:"multi,omitempty" jsonschema_description:"true when several answers may be chosen"`
}

// PollOfferTool is offer_poll, keeping its offers in q: the model
// proposes a poll, and it is posted only when the asker presses 作成.
func PollOfferTool(q db.Querier) tools.Tool {
	return tools.MustNew(PollOfferName,
		"Propose a native Discord poll when the user asks for a poll or a vote (投票, アンケート, 日程を決める). "+
			"The user sees a preview with 作成 / キャンセル buttons; nothing is posted unless they press 作成. Call it once with the final question and options.",
		func(ctx context.Context, a pollOfferArgs) (string, error) { return offerPoll(ctx, q, a) })
}

// CheckPoll tidies p and says, in Japanese for the member, why Discord
// would not take it.
func CheckPoll(p *PollOffer) error {
	p.Question = strings.Join(strings.Fields(p.Question), " ")
	var opts []string
	for _, o := range p.Options {
		if o = strings.Join(strings.Fields(o), " "); o != "" {
			opts = append(opts, o)
		}
	}
	p.Options = opts
	if p.Hours == 0 {
		p.Hours = DefaultPollHours
	}
	switch {
	case p.Question == "":
		return errors.New("投票の質問が空です。")
	case utf8.RuneCountInString(p.Question) > MaxPollQuestion:
		return fmt.Errorf("投票の質問は%d文字までです。", MaxPollQuestion)
	case len(p.Options) < MinPollOptions:
		return fmt.Errorf("投票には選択肢が%d個以上必要です（いまは%d個）。", MinPollOptions, len(p.Options))
	case len(p.Options) > MaxPollOptions:
		return fmt.Errorf("投票の選択肢は%d個までです（いまは%d個）。", MaxPollOptions, len(p.Options))
	case p.Hours < 1 || p.Hours > MaxPollHours:
		return fmt.Errorf("投票の期間は1時間から%d時間（32日）までです。", MaxPollHours)
	}
	for _, o := range p.Options {
		if utf8.RuneCountInString(o) > MaxPollOption {
			return fmt.Errorf("選択肢「%s」が長すぎます（%d文字まで）。", o, MaxPollOption)
		}
	}
	return nil
}

func offerPoll(ctx context.Context, q db.Querier, a pollOfferArgs) (string, error) {
	c, _ := tools.CallerFrom(ctx)
	if c.UserID == "" || c.ChannelID == "" || c.Source != "discord" || !tools.CanOffer(ctx) {
		return "", errors.New("polls can be proposed only in a Discord conversation: do not retry")
	}
	if c.GuildID == "" {
		// A DM with yorozu has one voter; 「よろずに聞く」 from a group DM
		// yorozu is not in is answered in that DM too.
		return "", errors.New("polls can be made only in a server's channel where yorozu is, not in a DM or a group DM: tell the user so in their language; do not retry")
	}
	p := PollOffer(a)
	if err := CheckPoll(&p); err != nil {
		return "", fmt.Errorf("the poll was not proposed: %w Tell the user this reason in their language; fix it and call again only if their words allow", err)
	}
	if err := offerOnce(ctx, q, c, PollOfferKind, p, p.Preview()); err != nil {
		return "", err
	}
	return pollOfferAccepted, nil
}

// offerOnce keeps an offer of kind with payload for caller c and shows
// it under the answer with 作成 / キャンセル.
func offerOnce(ctx context.Context, q db.Querier, c tools.Caller, kind string, payload any, preview string) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("offer %s: %w", kind, err)
	}
	o, err := db.CreateOffer(ctx, q, db.Offer{Kind: kind, Space: c.Space, UserID: c.UserID, GuildID: c.GuildID, ChannelID: c.ChannelID, Payload: body})
	if err != nil {
		return err
	}
	tools.Offer(ctx, tools.Offered{ID: o.ID, Kind: kind, Accept: "作成", Decline: "キャンセル", Preview: preview})
	return nil
}

// Preview is how the offer shows the poll before it is made.
func (p PollOffer) Preview() string {
	var b strings.Builder
	b.WriteString("この投票を作成しますか？（押せるのは頼んだ本人だけです）\n")
	fmt.Fprintf(&b, "📊 **%s**\n", p.Question)
	for i, o := range p.Options {
		fmt.Fprintf(&b, "%d. %s\n", i+1, o)
	}
	fmt.Fprintf(&b, "期間：%s", hoursText(p.Hours))
	if p.Multi {
		b.WriteString("（複数選択可）")
	}
	return b.String()
}

func hoursText(h int) string {
	if h%24 == 0 {
		return fmt.Sprintf("%d日", h/24)
	}
	return fmt.Sprintf("%d時間", h)
}
