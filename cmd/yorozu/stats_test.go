package main

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestStatsCommand: /stats answers only the caller with the last hour: the
// turns of every process sharing the database (one answered here, one
// failed elsewhere), the time to first text and generation speed of this
// process, the queue now, and the reminders delivered and late.
func TestStatsCommand(t *testing.T) {
	h := start(t, nil)
	h.handle(func(api.ChatRequest) ollamatest.Reply {
		r := ollamatest.Text("はい、どうぞ。")
		r.Metrics = api.Metrics{PromptEvalCount: 1200, EvalCount: 30, EvalDuration: time.Second}
		return r
	})
	h.mention(aliceID, "こんにちは")
	h.waitReply(t, 1, equals("はい、どうぞ。"))
	h.waitCount(t, "SELECT count(*) FROM api_logs WHERE kind = 'reply'", 1)

	ctx := context.Background()
	now := time.Now()
	for _, l := range []db.APILogParams{
		{Model: model, Kind: "reply", TurnID: "on-another-process", Error: "chat qwen3:4b: model unavailable", CreatedAt: now.Add(-10 * time.Minute)},
		{Model: model, Kind: "reply", TurnID: "two-hours-ago", CompletionTokens: 999, CreatedAt: now.Add(-2 * time.Hour)},
	} {
		if err := db.InsertAPILog(ctx, h.pool, l); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []struct{ due, delivered time.Time }{
		{now.Add(-20 * time.Minute), now.Add(-20*time.Minute + 2*time.Second)},
		{now.Add(-40 * time.Minute), now.Add(-30 * time.Minute)}, // due while the bot was down
		{now.Add(-3 * time.Hour), now.Add(-3 * time.Hour)},
	} {
		rem, err := db.CreateReminder(ctx, h.pool, db.ReminderParams{GuildID: guildID, ChannelID: channelID, UserID: bobID, Content: "x", DueAt: r.due})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RecordOutcome(ctx, h.pool, db.Outcome{Delivery: db.Delivery{ReminderID: rem.ID, Occurrence: rem.DueAt,
			HandledAt: r.delivered, MessageID: "m"}, Occurrences: 1, Attempts: 1}); err != nil {
			t.Fatal(err)
		}
	}

	stats := &discordgo.Interaction{ChannelID: channelID, GuildID: guildID, Member: member(bobID, 0),
		Data: discordgo.ApplicationCommandInteractionData{Name: "stats"}}
	want := regexp.MustCompile(`^\*\*直近1時間\*\*
応答 2 件（エラー 1 件）
答え始めるまで 中央値 \d+\.\d 秒・95% \d+\.\d 秒
生成 30\.0 トークン/秒・入力 1,200／出力 30 トークン
いまの順番待ち 0 件
リマインダー 2 件お届け（遅れ 1 件）$`)
	// The turn's time to first text is kept as the turn ends, just after
	// the reply is out: ask until it is in.
	deadline := time.Now().Add(10 * time.Second)
	for got := h.command(t, stats); !want.MatchString(got); got = h.command(t, stats) {
		if time.Now().After(deadline) {
			t.Fatalf("/stats =\n%s\nwant it to match\n%s", got, want)
		}
	}
	var names []string
	for _, c := range h.discord.Commands() {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "stats") {
		t.Errorf("registered commands %q lack /stats", names)
	}
}
