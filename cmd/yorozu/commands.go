package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// The slash commands join the Discord adapter to memory and reminders, so
// they are wired here rather than in either.

// maxReplyRunes is Discord's limit on a message's content.
const maxReplyRunes = 2000

// notAllowedReply refuses /forget to someone without Manage Messages.
const notAllowedReply = "このチャンネルの記憶を消せるのは「メッセージの管理」権限を持つ人だけです。"

// forgetCommand, memoryCommand and remindCommand are the slash commands.
var (
	forgetCommand = &discordgo.ApplicationCommand{
		Name:        "forget",
		Description: "このチャンネルの最近の会話 (短期記憶) を忘れさせます。履歴には残ります",
		// Hidden from members without Manage Messages; checked again on use,
		// since a server can change who sees a command.
		DefaultMemberPermissions: &bot.ManageMessages,
		Options: []*discordgo.ApplicationCommandOption{{
			Type:        discordgo.ApplicationCommandOptionBoolean,
			Name:        "confirm",
			Description: "本当に忘れさせるなら True",
			Required:    true,
		}, {
			Type:        discordgo.ApplicationCommandOptionBoolean,
			Name:        "summaries",
			Description: "長期記憶 (要約) も消すなら True",
		}},
	}
	memoryCommand = &discordgo.ApplicationCommand{
		Name:        "memory",
		Description: "このチャンネルの長期記憶 (会話の要約) を表示します (あなたにだけ見えます)",
	}
)

// memoryCommands are what /forget and /memory need of memory.
type memoryCommands interface {
	Forget(ctx context.Context, key memory.SessionKey) (int64, error)
	ForgetSummaries(ctx context.Context, key memory.SessionKey) (int64, error)
	Summaries(ctx context.Context, key memory.SessionKey) ([]db.Memory, error)
}

var _ memoryCommands = (*memory.Memory)(nil)

// addMemoryCommands registers /forget and /memory on b; loc is the time zone
// of the dates /memory shows.
func addMemoryCommands(b *bot.Bot, store memoryCommands, loc *time.Location, log *slog.Logger) {
	respond := func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, text string) {
		if err := bot.RespondEphemeral(ctx, s, i, text); err != nil {
			log.Error("interaction response", "command", i.ApplicationCommandData().Name, "err", err)
		}
	}
	b.AddCommand(forgetCommand, func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		respond(ctx, s, i, forgetReply(ctx, store, i, log))
	})
	b.AddCommand(memoryCommand, func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		respond(ctx, s, i, memoryReply(ctx, store, i, loc, log))
	})
}

// interactionSession is the memory session of the channel the command came
// from, the same key messages there are stored under.
func interactionSession(i *discordgo.InteractionCreate) memory.SessionKey {
	if i.GuildID == "" {
		return memory.DiscordDM(i.ChannelID)
	}
	return memory.DiscordChannel(i.ChannelID)
}

func boolOption(i *discordgo.InteractionCreate, name string) bool {
	for _, o := range i.ApplicationCommandData().Options {
		if o.Name == name && o.Type == discordgo.ApplicationCommandOptionBoolean {
			return o.BoolValue()
		}
	}
	return false
}

func forgetReply(ctx context.Context, store memoryCommands, i *discordgo.InteractionCreate, log *slog.Logger) string {
	if !bot.CanManageMessages(i) {
		return notAllowedReply
	}
	if !boolOption(i, "confirm") {
		return "取り消しました。忘れさせるときは `/forget confirm: True` を送ってください。"
	}
	key := interactionSession(i)
	n, err := store.Forget(ctx, key)
	if err != nil {
		log.Error("forget command", "session", string(key), "err", err)
		return "ごめんなさい、忘れる処理に失敗しました。しばらくしてからもう一度お試しください。"
	}
	if boolOption(i, "summaries") {
		m, err := store.ForgetSummaries(ctx, key)
		if err != nil {
			log.Error("forget command: summaries", "session", string(key), "err", err)
			return "ごめんなさい、長期記憶を消せませんでした。しばらくしてからもう一度お試しください。"
		}
		return fmt.Sprintf("このチャンネルの最近の会話 %d 件と長期記憶 (要約) %d 件を忘れました (会話の履歴には残っています)。", n, m)
	}
	if n == 0 {
		return "このチャンネルの短期記憶はもう空です。"
	}
	return fmt.Sprintf("このチャンネルの最近の会話 %d 件を忘れました (履歴には残っています)。要約された長期記憶はそのままです。", n)
}

func memoryReply(ctx context.Context, store memoryCommands, i *discordgo.InteractionCreate, loc *time.Location, log *slog.Logger) string {
	key := interactionSession(i)
	ms, err := store.Summaries(ctx, key)
	if err != nil {
		log.Error("memory command", "session", string(key), "err", err)
		return "ごめんなさい、記憶を読み出せませんでした。しばらくしてからもう一度お試しください。"
	}
	if len(ms) == 0 {
		return "このチャンネルの長期記憶 (要約) はまだありません。"
	}
	const head = "**このチャンネルの長期記憶** (古い順)\n"
	// Newest first while there is room, shown oldest first.
	var parts []string
	size := utf8.RuneCountInString(head)
	for j := len(ms) - 1; j >= 0; j-- {
		s := ms[j]
		line := fmt.Sprintf("- %s〜%s (%d 件): %s", s.PeriodStart.In(loc).Format("2006-01-02 15:04"),
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

// reminderCommands are what /remind needs; *scheduler.Reminders satisfies it.
type reminderCommands interface {
	List(ctx context.Context, userID, channelID string) ([]db.Reminder, error)
	Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error)
	CancelInGuild(ctx context.Context, guildID string, id int64) (db.Reminder, error)
}

// remindCommand is /remind: list and cancel the caller's reminders in the
// channel; with Manage Messages, cancel anyone's in the server.
func remindCommand() *discordgo.ApplicationCommand {
	minID := 1.0
	return &discordgo.ApplicationCommand{
		Name:                     "remind",
		Description:              "Your reminders in this channel",
		DescriptionLocalizations: &map[discordgo.Locale]string{discordgo.Japanese: "このチャンネルのリマインダー"},
		Options: []*discordgo.ApplicationCommandOption{
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "list",
				Description:              "List your pending reminders",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "予定中のリマインダーを表示"},
			},
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "cancel",
				Description:              "Cancel one of your reminders (anyone's here with Manage Messages)",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "リマインダーを取り消す (メッセージの管理権限があれば他の人のものも)"},
				Options: []*discordgo.ApplicationCommandOption{{
					Type: discordgo.ApplicationCommandOptionInteger, Name: "id", Required: true, MinValue: &minID,
					Description:              "Reminder number (from /remind list)",
					DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "リマインダー番号（/remind list の #）"},
				}},
			},
		},
	}
}

// addRemindCommand registers /remind on b.
func addRemindCommand(b *bot.Bot, r reminderCommands, log *slog.Logger) {
	b.AddCommand(remindCommand(), func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		if err := bot.RespondEphemeral(ctx, s, i, remindReply(ctx, r, i, log)); err != nil {
			log.Error("answer /remind", "interaction_id", i.ID, "err", err)
		}
	})
}

func remindReply(ctx context.Context, r reminderCommands, i *discordgo.InteractionCreate, log *slog.Logger) string {
	user := bot.InteractionUser(i)
	data := i.ApplicationCommandData()
	if user == "" || len(data.Options) == 0 {
		return "このコマンドには対応していません。"
	}
	sub := data.Options[0]
	switch sub.Name {
	case "list":
		rs, err := r.List(ctx, user, i.ChannelID)
		if err != nil {
			log.Error("/remind list", "user_id", user, "err", err)
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
	case "cancel":
		var id int64
		for _, o := range sub.Options {
			if o.Name == "id" {
				id = o.IntValue()
			}
		}
		rem, err := r.Cancel(ctx, user, id)
		if errors.Is(err, db.ErrNotFound) && i.GuildID != "" && bot.CanManageMessages(i) {
			rem, err = r.CancelInGuild(ctx, i.GuildID, id)
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
	return "このコマンドには対応していません。"
}
