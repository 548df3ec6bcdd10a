package commands

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// statsWindow is the period /stats sums up; reminderLateAfter is how late
// a delivered reminder may be before /stats calls it late, the lateness at
// which the reminder itself says it is late (scheduler.Options.LateAfter).
const (
	statsWindow       = time.Hour
	reminderLateAfter = time.Minute
)

// LiveStats are the numbers only this process knows, over the last hour:
// the process holding the Discord gateway answers every mention.
// metrics.Stats converts to it.
type LiveStats struct {
	Window time.Duration
	// TextTurns is the number of turns that showed text; FirstTextP50 and
	// FirstTextP95 are over them, zero when there were none.
	TextTurns                  int
	FirstTextP50, FirstTextP95 time.Duration
	// TokensPerSecond is zero when nothing was generated.
	TokensPerSecond float64
	QueueLength     int
}

// StatsOptions are what /stats reads.
type StatsOptions struct {
	Live func() LiveStats // this process's numbers
	DB   db.Querier       // turns, tokens and reminders of every process
	Now  func() time.Time // default time.Now
	Log  *slog.Logger
}

// Stats is /stats: the last hour at a glance, only for the caller.
func Stats(o StatsOptions) Command {
	if o.Now == nil {
		o.Now = time.Now
	}
	return Command{
		Name:          "stats",
		Description:   "The last hour: turns, time to first text, model speed, queue, reminders (only you see it)",
		DescriptionJA: "直近1時間の応答数・答え始めるまでの時間・生成速度・順番待ち・リマインダー（あなたにだけ見えます）",
		Run: func(ctx context.Context, _ Request) Reply {
			return Text(statsAnswer(ctx, o))
		},
	}
}

// statsNumbers is what /stats shows. Turns, tokens and reminders come from
// the database, so every process sharing it agrees on them; times to first
// text, the generation speed and the queue are this process's.
type statsNumbers struct {
	local     LiveStats
	turns     db.TurnCounts
	reminders db.ReminderCounts
}

func statsAnswer(ctx context.Context, o StatsOptions) string {
	local := o.Live()
	since := o.Now().Add(-statsWindow)
	turns, err := db.CountTurnsSince(ctx, o.DB, since)
	if err != nil {
		o.Log.Error("/stats", "err", err)
		return "統計を読み込めませんでした。しばらくしてからもう一度お試しください。"
	}
	reminders, err := db.CountRemindersSince(ctx, o.DB, since, reminderLateAfter)
	if err != nil {
		o.Log.Error("/stats", "err", err)
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
	b.WriteString("\n答え始めるまで ")
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
	fmt.Fprintf(&b, "\nいまの順番待ち %d 件", n.local.QueueLength)
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
