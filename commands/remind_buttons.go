package commands

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// ReminderButtons answers the buttons on a delivered reminder: 「10分後」
// and 「1時間後」 (a one-shot copy), 「完了」, and on a repeating one
// 「次回をスキップ」 and 「停止」 (a pause). Only the reminder's owner, or
// someone with Manage Messages there, may press them. prefix is the
// scheduler's ButtonPrefix; r checks the signed ids.
func ReminderButtons(r Reminders, prefix string, log *slog.Logger) Buttons {
	return Buttons{Prefix: prefix, Press: func(ctx context.Context, p Press) PressReply {
		return pressReminder(ctx, r, p, log)
	}}
}

func pressReminder(ctx context.Context, r Reminders, p Press, log *slog.Logger) PressReply {
	action, id, err := r.ReadButton(p.CustomID)
	if err != nil {
		log.Warn("reminder button refused", "custom_id", p.CustomID, "user_id", p.UserID, "err", err)
		return PressReply{Text: "このボタンは使えません。"}
	}
	who := db.Owner{UserID: p.UserID}
	if p.GuildID != "" && p.Perms&ManageMessages != 0 {
		who.Guild = p.GuildID
	}
	// Only the owner, or a moderator there, may press.
	_, err = r.Get(ctx, who, id)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return PressReply{Text: "このリマインダーを操作できるのは、設定した人（またはメッセージの管理権限を持つ人）だけです。"}
	case err != nil:
		log.Error("reminder button", "reminder_id", id, "err", err)
		return PressReply{Text: "いまは操作できません。しばらくしてからもう一度お試しください。"}
	}
	by := fmt.Sprintf("<@%s>", p.UserID)
	switch action {
	case "s10", "s60":
		d := 10 * time.Minute
		if action == "s60" {
			d = time.Hour
		}
		snooze, err := r.Snooze(ctx, who, id, d)
		if err != nil {
			log.Error("reminder snooze", "reminder_id", id, "err", err)
			return PressReply{Text: "もう一度お知らせするリマインダーを作れませんでした（リマインダーの上限に達しているかもしれません）。"}
		}
		return PressReply{Text: fmt.Sprintf("<t:%d:R>（<t:%d:t>）にもう一度お知らせします（#%d）。", snooze.DueAt.Unix(), snooze.DueAt.Unix(), snooze.ID)}
	case "done":
		return PressReply{Update: fmt.Sprintf("%s\n✅ 完了（%s）", p.Content, by)}
	case "skip":
		rem, err := r.Skip(ctx, who, id)
		if text, refused := changeRefusal(rem, id, err); refused {
			return PressReply{Text: orRetry(text, log, id, err)}
		}
		if rem.NotifiedAt != nil {
			return PressReply{Text: "次の回をスキップしました。これで繰り返しは終わりです。"}
		}
		return PressReply{Text: fmt.Sprintf("次の回をスキップしました。次回は <t:%d:F> です。", rem.DueAt.Unix())}
	case "stop":
		rem, err := r.Pause(ctx, who, id)
		if text, refused := changeRefusal(rem, id, err); refused {
			return PressReply{Text: orRetry(text, log, id, err)}
		}
		return PressReply{
			Update: fmt.Sprintf("%s\n⏸ 一時停止しました（%s）", p.Content, by),
			Text:   fmt.Sprintf("#%d を一時停止しました。`/remind resume id:%d` で再開、`/remind cancel id:%d` で取り消せます。", id, id, id),
		}
	}
	return PressReply{Text: "このボタンは使えません。"}
}

func orRetry(text string, log *slog.Logger, id int64, err error) string {
	if text != "" {
		return text
	}
	log.Error("reminder button", "reminder_id", id, "err", err)
	return "いまは操作できません。しばらくしてからもう一度お試しください。"
}
