package commands

import (
	"context"
	"fmt"

	"github.com/yorozu-bot/yorozu/db"
)

// /channel context: whether a turn is given the channel's recent talk.

// contextOption is /channel context's subcommand.
var contextOption = Option{
	Type: Subcommand, Name: "context", Require: ManageChannels,
	Description:   "Give yorozu what members said here since its last answer (kept in memory only)",
	DescriptionJA: "前回の返答のあとにこのチャンネルで話されたことをよろずに渡すか（メモリ上だけに保持）",
	Options: []Option{{
		Type: String, Name: "value",
		Description:   "on (default) or off; leave out to see the setting in force",
		DescriptionJA: "on（既定）・off。省くといまの設定を表示",
		Choices: []Choice{
			{Name: "on", NameJA: "on: チャンネルの最近の会話も渡す", Value: "on"},
			{Name: "off", NameJA: "off: メンションされた発言だけ渡す", Value: "off"},
		},
	}},
}

// contextNames say what each value does.
var contextNames = map[bool]string{
	true:  "on（前回の返答のあとにチャンネルで話されたことも読んで答えます）",
	false: "off（メンションされた発言だけを読んで答えます）",
}

func (c *Channels) contextReply(ctx context.Context, req Request) string {
	if req.DM() {
		return "DM ではこれまでの会話をいつも読んで答えます。この設定はサーバーのチャンネルで使ってください。"
	}
	p, _ := c.placeOf(ctx, req)
	value := req.String("value")
	if value == "" {
		e, ok := c.settingsOf(ctx, "/channel context", p)
		if !ok {
			return settingsFailedReply
		}
		return fmt.Sprintf("会話の読み込み: %s\n設定元: %s", contextNames[e.Talk], sourceName(e.TalkFrom, p))
	}
	if value != db.TalkOn && value != db.TalkOff {
		return fmt.Sprintf("値は on か off です（送られたのは %q）。", value)
	}
	on := value == db.TalkOn
	u := p.update(req.UserID)
	u.Talk = &value
	if !c.save(ctx, "/channel context", p, u) {
		return settingsFailedReply
	}
	return fmt.Sprintf("%sの会話の読み込みを %s にしました。", p.name(), contextNames[on])
}
