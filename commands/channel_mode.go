package commands

import (
	"context"
	"fmt"

	"github.com/yorozu-bot/yorozu/db"
)

// /channel mode: how yorozu listens in a channel (mention, free, thread).

const notModeManagerReply = "チャンネルのモードや会話の設定を変えられるのは「チャンネルの管理」権限を持つ人だけです。"

// modeNames say what each mode does.
var modeNames = map[string]string{
	db.ModeMention: "mention（メンションと、よろずへの返信にだけ答えます）",
	db.ModeFree:    "free（すべての発言に答えます。ほかの人だけへのメンションと // で始まる発言は除きます）",
	db.ModeThread:  "thread（メンションごとにスレッドを作って答え、スレッドではメンションなしで答えます）",
}

// ChannelMode is /channel mode [value:mention|free|thread], /channel
// context [value:on|off] and /channel log [value:on|off]: without a value
// each shows what is in force. Changing any needs Manage Channels.
func (c *Channels) ChannelMode() Command {
	return Command{
		Name: "channel", Description: "How yorozu listens in this channel", DescriptionJA: "このチャンネルでのよろずの聞き方",
		Options: []Option{{
			Type: Subcommand, Name: "mode", Require: ManageChannels,
			Description:   "Answer mentions only, every message, or in a thread per question",
			DescriptionJA: "メンションだけ・すべての発言・質問ごとのスレッドのどれで答えるか",
			Options: []Option{{
				Type: String, Name: "value",
				Description:   "mention (default), free or thread; leave out to see the mode in force",
				DescriptionJA: "mention（既定）・free・thread。省くといまのモードを表示",
				Choices: []Choice{
					{Name: "mention", NameJA: "mention: メンションにだけ答える", Value: db.ModeMention},
					{Name: "free", NameJA: "free: すべての発言に答える", Value: db.ModeFree},
					{Name: "thread", NameJA: "thread: 質問ごとにスレッドで答える", Value: db.ModeThread},
				},
			}},
		}, contextOption, logOption()},
		Visible: ManageChannels,
		Refusal: notModeManagerReply,
		Run: func(ctx context.Context, req Request) Reply {
			if req.Subcommand == "log" {
				return c.logReply(ctx, req)
			}
			return Text(c.modeReply(ctx, req))
		},
	}
}

func (c *Channels) modeReply(ctx context.Context, req Request) string {
	if req.Subcommand == "context" {
		return c.contextReply(ctx, req)
	}
	if req.Subcommand != "mode" {
		return unsupportedReply
	}
	if req.DM() {
		return "DM ではいつもメンションなしで答えます。モードはサーバーのチャンネルで設定してください。"
	}
	p, _ := c.placeOf(ctx, req)
	mode := req.String("value")
	if mode == "" {
		e, ok := c.settingsOf(ctx, "/channel mode", p)
		if !ok {
			return settingsFailedReply
		}
		return fmt.Sprintf("いまのモード: %s\n設定元: %s", modeNames[e.Mode], sourceName(e.ModeFrom, p))
	}
	if !db.ValidMode(mode) {
		return fmt.Sprintf("モードは mention・free・thread のどれかです（送られたのは %q）。", mode)
	}
	u := p.update(req.UserID)
	u.Mode = &mode
	if !c.save(ctx, "/channel mode", p, u) {
		return settingsFailedReply
	}
	return fmt.Sprintf("%sのモードを %s にしました。", p.name(), modeNames[mode])
}
