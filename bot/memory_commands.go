package bot

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// MemoryStore is what the /forget and /memory commands need;
// *memory.Memory satisfies it.
type MemoryStore interface {
	Forget(ctx context.Context, key memory.SessionKey) (int64, error)
	Summaries(ctx context.Context, key memory.SessionKey) ([]db.Memory, error)
}

var _ MemoryStore = (*memory.Memory)(nil)

// ForgetCommand and MemoryCommand are the slash commands AddMemoryCommands
// registers.
var (
	ForgetCommand = &discordgo.ApplicationCommand{
		Name:        "forget",
		Description: "このチャンネルの最近の会話 (短期記憶) を忘れさせます。履歴には残ります",
		Options: []*discordgo.ApplicationCommandOption{{
			Type:        discordgo.ApplicationCommandOptionBoolean,
			Name:        "confirm",
			Description: "本当に忘れさせるなら True",
			Required:    true,
		}},
	}
	MemoryCommand = &discordgo.ApplicationCommand{
		Name:        "memory",
		Description: "このチャンネルの長期記憶 (会話の要約) を表示します (あなたにだけ見えます)",
	}
)

// AddMemoryCommands registers /forget and /memory over store; loc is the
// time zone of the dates /memory shows. Call it before Start.
func (b *Bot) AddMemoryCommands(store MemoryStore, loc *time.Location) {
	if loc == nil {
		loc = time.Local
	}
	b.AddCommand(ForgetCommand, func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		b.respondEphemeral(s, i, forgetReply(ctx, b, store, i))
	})
	b.AddCommand(MemoryCommand, func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		b.respondEphemeral(s, i, memoryReply(ctx, b, store, i, loc))
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

func forgetReply(ctx context.Context, b *Bot, store MemoryStore, i *discordgo.InteractionCreate) string {
	confirmed := false
	for _, o := range i.ApplicationCommandData().Options {
		if o.Name == "confirm" && o.Type == discordgo.ApplicationCommandOptionBoolean {
			confirmed = o.BoolValue()
		}
	}
	if !confirmed {
		return "取り消しました。忘れさせるときは `/forget confirm: True` を送ってください。"
	}
	key := interactionSession(i)
	n, err := store.Forget(ctx, key)
	if err != nil {
		b.log.Error("forget command", "session", string(key), "err", err)
		return "ごめんなさい、忘れる処理に失敗しました。しばらくしてからもう一度お試しください。"
	}
	if n == 0 {
		return "このチャンネルの短期記憶はもう空です。"
	}
	return fmt.Sprintf("このチャンネルの最近の会話 %d 件を忘れました (履歴には残っています)。要約された長期記憶はそのままです。", n)
}

func memoryReply(ctx context.Context, b *Bot, store MemoryStore, i *discordgo.InteractionCreate, loc *time.Location) string {
	key := interactionSession(i)
	ms, err := store.Summaries(ctx, key)
	if err != nil {
		b.log.Error("memory command", "session", string(key), "err", err)
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
		if size+n > maxMessageRunes-40 {
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

// respondEphemeral answers an interaction with an ephemeral message; a failure is logged.
func (b *Bot) respondEphemeral(s *discordgo.Session, i *discordgo.InteractionCreate, text string) {
	err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: text, Flags: discordgo.MessageFlagsEphemeral},
	})
	if err != nil {
		b.log.Error("interaction response", "command", i.ApplicationCommandData().Name, "err", err)
	}
}
