package commands

import (
	"context"
	"log/slog"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
)

// RemindThisName is the message command's name, as Discord shows it to
// English users.
const RemindThisName = "Remind me of this"

// RemindThis is the message command 「これをリマインド」: a form asks when
// (read as /remind add reads it) and, optionally, what; the reminder is
// kept with a link to the message and its time is read back.
func RemindThis(r Reminders, log *slog.Logger) Command {
	return Command{
		Name:    RemindThisName,
		NameJA:  "これをリマインド",
		Message: true,
		Modal: &Modal{Title: "これをリマインド", Inputs: []Input{
			{ID: "when", Label: "いつ知らせますか", Placeholder: "明日の9時、30分後、毎週月曜の8時", MaxLength: 200, Required: true},
			{ID: "what", Label: "用件（空ならメッセージへのリンクだけ）", MaxLength: 500, Long: true},
		}},
		Submit: func(ctx context.Context, req Request) Reply {
			if req.UserID == "" {
				return Text(unsupportedReply)
			}
			if req.String("when") == "" {
				return Text("いつ知らせるかが空です。" + whenExample)
			}
			guild := req.GuildID
			if guild == "" {
				guild = "@me"
			}
			link := "https://discord.com/channels/" + guild + "/" + req.ChannelID + "/" + req.TargetID
			what := strings.TrimSpace(req.String("what") + " " + link)
			add := req
			add.Options = map[string]any{"when": req.String("when"), "what": what}
			return Text(remindAdd(ctx, r, add, db.KindRemind, log))
		},
	}
}
