package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/metrics"
)

// /stats joins the Discord adapter to the metrics and the database, so it
// is wired here.

// statsWindow is the period /stats sums up; reminderLateAfter is how late
// a delivered reminder may be before /stats calls it late, the lateness at
// which the reminder itself says it is late (scheduler.Options.LateAfter).
const (
	statsWindow       = time.Hour
	reminderLateAfter = time.Minute
)

// statsCommand is /stats: the last hour at a glance, only for the caller.
var statsCommand = &discordgo.ApplicationCommand{
	Name:        "stats",
	Description: "The last hour: turns, time to first text, model speed, queue, reminders (only you see it)",
	DescriptionLocalizations: &map[discordgo.Locale]string{
		discordgo.Japanese: "直近1時間の応答数・最初の文字までの時間・生成速度・待ち・リマインダー (あなたにだけ見えます)",
	},
}

// statsNumbers is what /stats shows. Turns, tokens and reminders come from
// the database, so every process sharing it agrees on them; times to first
// text, the generation speed and the queue are this process's (the one
// holding the Discord gateway, which answers every mention).
type statsNumbers struct {
	local     metrics.Stats
	turns     db.TurnCounts
	reminders db.ReminderCounts
}

// addStatsCommand registers /stats on b.
func addStatsCommand(b *bot.Bot, m *metrics.Metrics, q db.Querier, log *slog.Logger) {
	b.AddCommand(statsCommand, func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		if err := bot.RespondEphemeral(ctx, s, i, statsAnswer(ctx, m, q, log)); err != nil {
			log.Error("answer /stats", "interaction_id", i.ID, "err", err)
		}
	})
}

func statsAnswer(ctx context.Context, m *metrics.Metrics, q db.Querier, log *slog.Logger) string {
	local := m.Stats()
	since := time.Now().Add(-statsWindow)
	turns, err := db.CountTurnsSince(ctx, q, since)
	if err != nil {
		log.Error("/stats", "err", err)
		return "統計を読み込めませんでした。しばらくしてからもう一度お試しください。"
	}
	reminders, err := db.CountRemindersSince(ctx, q, since, reminderLateAfter)
	if err != nil {
		log.Error("/stats", "err", err)
		return "統計を読み込めませんでした。しばらくしてからもう一度お試しください。"
	}
	return statsReply(statsNumbers{local: local, turns: turns, reminders: reminders})
}

// statsReply renders the numbers in a few short Japanese lines.
func statsReply(n statsNumbers) string {
	var b strings.Builder
	b.WriteString("**直近1時間**\n")
	fmt.Fprintf(&b, "応答 %s 件", digits(int64(n.turns.Turns)))
	if n.turns.Failed > 0 {
		fmt.Fprintf(&b, "（エラー %s 件）", digits(int64(n.turns.Failed)))
	}
	b.WriteString("\n最初の文字まで ")
	if n.local.TextTurns == 0 {
		b.WriteString("—")
	} else {
		fmt.Fprintf(&b, "中央値 %s・95%% %s", seconds(n.local.FirstTextP50), seconds(n.local.FirstTextP95))
	}
	b.WriteString("\n生成 ")
	if n.local.TokensPerSecond > 0 {
		fmt.Fprintf(&b, "%.1f トークン/秒・", n.local.TokensPerSecond)
	}
	fmt.Fprintf(&b, "入力 %s／出力 %s トークン", digits(n.turns.PromptTokens), digits(n.turns.CompletionTokens))
	fmt.Fprintf(&b, "\n待ち 今 %d 件", n.local.QueueLength)
	fmt.Fprintf(&b, "\nリマインダー %s 件お届け", digits(int64(n.reminders.Delivered)))
	if n.reminders.Late > 0 {
		fmt.Fprintf(&b, "（遅れ %s 件）", digits(int64(n.reminders.Late)))
	}
	if n.reminders.Failed > 0 {
		fmt.Fprintf(&b, "・届けられず %s 件", digits(int64(n.reminders.Failed)))
	}
	return b.String()
}

// seconds writes a wait as a person reads it: "0.8 秒", "13 秒", "2 分 05 秒".
func seconds(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f 秒", d.Seconds())
	case d < 2*time.Minute:
		return fmt.Sprintf("%d 秒", int(d.Round(time.Second)/time.Second))
	}
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%d 分 %02d 秒", s/60, s%60)
}

// digits writes a count (never negative) with thousands separators: 12,345.
func digits(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
