package commands

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/yorozu-bot/yorozu/db"
)

// Reminders is what /remind needs; *scheduler.Reminders satisfies it.
type Reminders interface {
	List(ctx context.Context, userID, channelID string) ([]db.Reminder, error)
	Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error)
	CancelInGuild(ctx context.Context, guildID string, id int64) (db.Reminder, error)
}

// Remind is /remind list|cancel: the caller's reminders in the channel;
// with Manage Messages, cancel anyone's in the server.
func Remind(r Reminders, log *slog.Logger) Command {
	minID := 1.0
	return Command{
		Name:          "remind",
		Description:   "Your reminders in this channel",
		DescriptionJA: "このチャンネルのリマインダー",
		Options: []Option{
			{
				Type: Subcommand, Name: "list",
				Description:   "List your pending reminders",
				DescriptionJA: "予定中のリマインダーを表示",
			},
			{
				Type: Subcommand, Name: "cancel",
				Description:   "Cancel one of your reminders (anyone's here with Manage Messages)",
				DescriptionJA: "リマインダーを取り消す (メッセージの管理権限があれば他の人のものも)",
				Options: []Option{{
					Type: Integer, Name: "id", Required: true, MinValue: &minID,
					Description:   "Reminder number (from /remind list)",
					DescriptionJA: "リマインダー番号（/remind list の #）",
				}},
			},
		},
		Run: func(ctx context.Context, req Request) Reply {
			return Text(remindReply(ctx, r, req, log))
		},
	}
}

func remindReply(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	if req.UserID == "" {
		return unsupportedReply
	}
	switch req.Subcommand {
	case "list":
		return remindList(ctx, r, req, log)
	case "cancel":
		return remindCancel(ctx, r, req, log)
	}
	return unsupportedReply
}

func remindList(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	rs, err := r.List(ctx, req.UserID, req.ChannelID)
	if err != nil {
		log.Error("/remind list", "user_id", req.UserID, "err", err)
		return "リマインダーを読み込めませんでした。しばらくしてからもう一度お試しください。"
	}
	if len(rs) == 0 {
		return "このチャンネルで予定中のリマインダーはありません。"
	}
	var b strings.Builder
	b.WriteString("予定中のリマインダー:\n")
	for _, rem := range rs {
		line := fmt.Sprintf("#%d <t:%d:F>（<t:%d:R>）%s\n", rem.ID, rem.DueAt.Unix(), rem.DueAt.Unix(), rem.Content)
		if b.Len()+len(line) > 1900 {
			b.WriteString("…")
			break
		}
		b.WriteString(line)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func remindCancel(ctx context.Context, r Reminders, req Request, log *slog.Logger) string {
	user, id := req.UserID, req.Int("id")
	rem, err := r.Cancel(ctx, user, id)
	if errors.Is(err, db.ErrNotFound) && !req.DM() && req.Can(ManageMessages) {
		rem, err = r.CancelInGuild(ctx, req.GuildID, id)
	}
	switch {
	case errors.Is(err, db.ErrNotFound):
		return fmt.Sprintf("#%d のリマインダーは見つかりません。`/remind list` で番号を確認してください。", id)
	case errors.Is(err, db.ErrReminderNotPending):
		if rem.NotifiedAt != nil {
			return fmt.Sprintf("#%d はもうお届け済みです。", id)
		}
		return fmt.Sprintf("#%d はすでに取り消されているか、お届けできなかったものです。", id)
	case err != nil:
		log.Error("/remind cancel", "user_id", user, "reminder_id", id, "err", err)
		return "取り消せませんでした。しばらくしてからもう一度お試しください。"
	}
	if rem.UserID != user {
		return fmt.Sprintf("<@%s> さんの #%d（<t:%d:F>）%s を取り消しました。", rem.UserID, rem.ID, rem.DueAt.Unix(), rem.Content)
	}
	return fmt.Sprintf("#%d（<t:%d:F>）%s を取り消しました。", rem.ID, rem.DueAt.Unix(), rem.Content)
}
