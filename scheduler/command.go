package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
)

// RemindCommand is the /remind slash command: list and cancel the caller's
// reminders in the channel. Register it with bot.AddCommand and
// Reminders.HandleCommand.
func RemindCommand() *discordgo.ApplicationCommand {
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
				Description:              "Cancel one of your reminders",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "リマインダーを取り消す"},
				Options: []*discordgo.ApplicationCommandOption{{
					Type: discordgo.ApplicationCommandOptionInteger, Name: "id", Required: true, MinValue: &minID,
					Description:              "Reminder number (from /remind list)",
					DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "リマインダー番号（/remind list の #）"},
				}},
			},
		},
	}
}

// HandleCommand answers a /remind interaction, visible to the caller only.
// Its signature is bot.CommandFunc.
func (r *Reminders) HandleCommand(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
	text := r.commandReply(ctx, i)
	err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content:         text,
			Flags:           discordgo.MessageFlagsEphemeral,
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
		},
	}, discordgo.WithContext(ctx))
	if err != nil {
		r.s.log.Error("answer /remind", "interaction_id", i.ID, "err", err)
	}
}

func (r *Reminders) commandReply(ctx context.Context, i *discordgo.InteractionCreate) string {
	if i.Type != discordgo.InteractionApplicationCommand {
		return "このコマンドには対応していません。"
	}
	user := ""
	switch {
	case i.Member != nil && i.Member.User != nil:
		user = i.Member.User.ID
	case i.User != nil:
		user = i.User.ID
	}
	data := i.ApplicationCommandData()
	if user == "" || len(data.Options) == 0 {
		return "このコマンドには対応していません。"
	}
	sub := data.Options[0]
	switch sub.Name {
	case "list":
		rs, err := r.List(ctx, user, i.ChannelID)
		if err != nil {
			r.s.log.Error("/remind list", "user_id", user, "err", err)
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
		switch {
		case errors.Is(err, db.ErrNotFound):
			return fmt.Sprintf("#%d のリマインダーは見つかりません。`/remind list` で番号を確認してください。", id)
		case errors.Is(err, db.ErrReminderNotPending):
			if rem.NotifiedAt != nil {
				return fmt.Sprintf("#%d はもうお届け済みです。", id)
			}
			return fmt.Sprintf("#%d はすでに取り消されているか、お届けできなかったものです。", id)
		case err != nil:
			r.s.log.Error("/remind cancel", "user_id", user, "reminder_id", id, "err", err)
			return "取り消せませんでした。しばらくしてからもう一度お試しください。"
		}
		return fmt.Sprintf("#%d（<t:%d:F>）%s を取り消しました。", rem.ID, rem.DueAt.Unix(), rem.Content)
	}
	return "このコマンドには対応していません。"
}
