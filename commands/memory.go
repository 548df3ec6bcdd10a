package commands

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// MemoryStore is what /forget and /memory need of memory;
// *memory.Memory satisfies it.
type MemoryStore interface {
	Forget(ctx context.Context, key memory.SessionKey) (int64, error)
	ForgetSummaries(ctx context.Context, key memory.SessionKey) (int64, error)
	Summaries(ctx context.Context, key memory.SessionKey) ([]db.Memory, error)
}

// session is the memory session of the channel a command came from, the
// key messages there are stored under.
func session(req Request) memory.SessionKey {
	if req.DM() {
		return memory.DiscordDM(req.ChannelID)
	}
	return memory.DiscordChannel(req.ChannelID)
}

// forgetRefusal refuses /forget of the channel's memory to someone without
// Manage Messages.
const forgetRefusal = "このチャンネルの記憶を消せるのは「メッセージの管理」権限を持つ人だけです。"

// Forget is /forget: the channel forgets its recent conversation (and, with
// summaries, its summaries); the messages stay in the history. With logs
// (the channel log), /forget me removes the member's own logged messages
// in the server: anyone may use that, so the command is visible to all and
// Manage Messages is checked for the rest.
func Forget(store MemoryStore, logs ChannelLogs, log *slog.Logger) Command {
	cmd := Command{
		Name:        "forget",
		Description: "このチャンネルの最近の会話（短期記憶）を忘れさせます。履歴には残ります",
		Options: []Option{
			{Type: Boolean, Name: "confirm", Description: "本当に忘れさせるなら True", Required: true},
			{Type: Boolean, Name: "summaries", Description: "長期記憶（要約）も消すなら True"},
		},
		Visible: ManageMessages,
		Require: ManageMessages,
		Refusal: forgetRefusal,
		Run: func(ctx context.Context, req Request) Reply {
			return Text(forgetReply(ctx, store, req, log))
		},
	}
	if logs == nil {
		return cmd
	}
	cmd.Description = "このチャンネルの最近の会話を忘れさせます（me: True ならチャンネルの記録からあなたの発言を消します）"
	cmd.Options = append(cmd.Options, Option{Type: Boolean, Name: "me",
		Description: "True なら、このサーバーのチャンネルの記録からあなたの発言をすべて消します（誰でも使えます）"})
	cmd.Visible, cmd.Require = 0, 0
	cmd.Run = func(ctx context.Context, req Request) Reply {
		switch {
		case !req.Bool("me"):
			if !req.Can(ManageMessages) {
				return Text(forgetRefusal)
			}
			return Text(forgetReply(ctx, store, req, log))
		case !req.Bool("confirm"):
			return Text("取り消しました。あなたの発言を記録から消すときは `/forget confirm: True me: True` を送ってください。")
		}
		text, err := forgetMeReply(ctx, logs, req)
		if err != nil {
			log.Error("/forget me", "guild_id", req.GuildID, "user_id", req.UserID, "err", err)
		}
		return Text(text)
	}
	return cmd
}

func forgetReply(ctx context.Context, store MemoryStore, req Request, log *slog.Logger) string {
	if !req.Bool("confirm") {
		return "取り消しました。忘れさせるときは `/forget confirm: True` を送ってください。"
	}
	key := session(req)
	n, err := store.Forget(ctx, key)
	if err != nil {
		log.Error("forget command", "session", string(key), "err", err)
		return "ごめんなさい、忘れる処理に失敗しました。しばらくしてからもう一度お試しください。"
	}
	if req.Bool("summaries") {
		m, err := store.ForgetSummaries(ctx, key)
		if err != nil {
			log.Error("forget command: summaries", "session", string(key), "err", err)
			return "ごめんなさい、長期記憶を消せませんでした。しばらくしてからもう一度お試しください。"
		}
		return fmt.Sprintf("このチャンネルの最近の会話 %d 件と長期記憶（要約）%d 件を忘れました（会話の履歴には残っています）。", n, m)
	}
	if n == 0 {
		return "このチャンネルの短期記憶はもう空です。"
	}
	return fmt.Sprintf("このチャンネルの最近の会話 %d 件を忘れました（履歴には残っています）。要約された長期記憶はそのままです。", n)
}

// Memory is /memory: the channel's summaries, newest that fit, shown oldest
// first; loc is the time zone of their dates.
func Memory(store MemoryStore, loc *time.Location, log *slog.Logger) Command {
	return Command{
		Name:        "memory",
		Description: "このチャンネルの長期記憶（会話の要約）を表示します（あなたにだけ見えます）",
		Run: func(ctx context.Context, req Request) Reply {
			return Text(memoryReply(ctx, store, req, loc, log))
		},
	}
}

func memoryReply(ctx context.Context, store MemoryStore, req Request, loc *time.Location, log *slog.Logger) string {
	key := session(req)
	ms, err := store.Summaries(ctx, key)
	if err != nil {
		log.Error("memory command", "session", string(key), "err", err)
		return "ごめんなさい、記憶を読み出せませんでした。しばらくしてからもう一度お試しください。"
	}
	if len(ms) == 0 {
		return "このチャンネルの長期記憶（要約）はまだありません。"
	}
	const head = "**このチャンネルの長期記憶**（古い順）\n"
	// Newest first while there is room, shown oldest first.
	var parts []string
	size := utf8.RuneCountInString(head)
	for j := len(ms) - 1; j >= 0; j-- {
		s := ms[j]
		line := fmt.Sprintf("- %s〜%s（%d 件）: %s", s.PeriodStart.In(loc).Format("2006-01-02 15:04"),
			s.PeriodEnd.In(loc).Format("01-02 15:04"), s.MessageCount, strings.Join(strings.Fields(s.Content), " "))
		if r := []rune(line); len(r) > 600 {
			line = string(r[:600]) + "…"
		}
		n := utf8.RuneCountInString(line) + 1
		if size+n > maxReplyRunes-40 {
			parts = append(parts, fmt.Sprintf("…ほか古い要約 %d 件", j+1))
			break
		}
		size += n
		parts = append(parts, line)
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	return head + strings.Join(parts, "\n")
}
