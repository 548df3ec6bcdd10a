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
	"github.com/yorozu-bot/yorozu/metrics"
)

func TestStatsReply(t *testing.T) {
	tests := []struct {
		name string
		n    statsNumbers
		want string
	}{
		{"a quiet hour", statsNumbers{}, "**直近1時間**\n応答 0 件\n最初の文字まで —\n生成 入力 0／出力 0 トークン\n待ち 今 0 件\nリマインダー 0 件お届け"},
		{"a busy hour", statsNumbers{
			local:     metrics.Stats{TextTurns: 40, FirstTextP50: 2140 * time.Millisecond, FirstTextP95: 125 * time.Second, TokensPerSecond: 18.44, QueueLength: 2},
			turns:     db.TurnCounts{Turns: 42, Failed: 3, PromptTokens: 1234567, CompletionTokens: 2345},
			reminders: db.ReminderCounts{Delivered: 5, Late: 1, Failed: 1},
		}, "**直近1時間**\n応答 42 件（エラー 3 件）\n最初の文字まで 中央値 2.1 秒・95% 2 分 05 秒\n生成 18.4 トークン/秒・入力 1,234,567／出力 2,345 トークン\n待ち 今 2 件\nリマインダー 5 件お届け（遅れ 1 件）・届けられず 1 件"},
		{"whole seconds from 10 s", statsNumbers{local: metrics.Stats{TextTurns: 1, FirstTextP50: 12400 * time.Millisecond, FirstTextP95: 12400 * time.Millisecond}},
			"**直近1時間**\n応答 0 件\n最初の文字まで 中央値 12 秒・95% 12 秒\n生成 入力 0／出力 0 トークン\n待ち 今 0 件\nリマインダー 0 件お届け"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := statsReply(tc.n); got != tc.want {
				t.Errorf("statsReply =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

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
		if err := db.MarkReminderDelivered(ctx, h.pool, rem.ID, "m", r.delivered, 1); err != nil {
			t.Fatal(err)
		}
	}

	stats := &discordgo.Interaction{ChannelID: channelID, GuildID: guildID, Member: member(bobID, 0),
		Data: discordgo.ApplicationCommandInteractionData{Name: "stats"}}
	want := regexp.MustCompile(`^\*\*直近1時間\*\*
応答 2 件（エラー 1 件）
最初の文字まで 中央値 \d+\.\d 秒・95% \d+\.\d 秒
生成 30\.0 トークン/秒・入力 1,200／出力 30 トークン
待ち 今 0 件
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
