package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

const tipsChannelID = "200000000000000009"

// topicChats are ordinary questions and their answers, each naming a topic.
var topicChats = [][2]string{
	{"ポケモンカードを集めてるんだけど、保管方法は？", "ポケモンカードはスリーブに入れて湿気を避けましょう。"},
	{"富士山に登るならいつがいい？", "富士山は七月から九月の開山期間がおすすめです。"},
	{"カレーの隠し味を教えて", "カレーにはチョコレートやコーヒーがよく合います。"},
	{"将棋の定跡を覚えたい", "将棋なら矢倉か四間飛車から始めましょう。"},
	{"北海道旅行の計画を立ててる", "北海道は移動距離が長いのでレンタカーが便利です。"},
}

// TestTwentyTurnsCostOneModelCallEach drives 20 tool-less turns through the
// real discordgo and ollama clients: with all background work done, at most
// 22 model calls (20 replies, a summary, the tip small talk posts), every
// stored message tagged, and the small-talk topic is a related tag of what
// was said.
func TestTwentyTurnsCostOneModelCallEach(t *testing.T) {
	env := map[string]string{"USER_RATE_LIMIT": "0"}
	h := start(t, nil) // for its fakes; restarted below with the tips webhook
	h.discord.AddChannel(tipsChannelID)
	h.discord.AddWebhook("500000000000000002", "tips-token", tipsChannelID)
	env["TIPS_WEBHOOK_URL"] = h.discord.URL() + "api/v10/webhooks/500000000000000002/tips-token"
	env["TIPS_CRON"] = "0 0 1 1 *" // the schedule stays out of the way
	if time.Now().In(jstZone(t)).Hour() == 3 {
		env["TIMEZONE"] = "UTC" // no tips in the 03:00 hour
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		h.env[k] = v
	}
	h.startRun(t, h.env)

	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		if topic, ok := strings.CutPrefix(user, "お題："); ok {
			return ollamatest.Text(topic + "のどうでもいい豆知識です。")
		}
		for _, c := range topicChats {
			if user == c[0] {
				return ollamatest.Text(c[1])
			}
		}
		return ollamatest.Text("いいですね、楽しそうです。")
	})

	const turns = 20
	for i := range turns - 1 {
		c := topicChats[i%len(topicChats)]
		h.mention(aliceID, c[0])
		h.waitReply(t, i+1, equals(c[1]))
	}
	h.settleTest(t, 2*(turns-1))

	// Small talk: the user's ポケモン is closest to the tag ポケモンカード.
	h.mention(aliceID, "暇だからポケモンの話でもしよう")
	h.waitReply(t, turns, equals("いいですね、楽しそうです。"))
	tipCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(tipCtx, func() bool { return len(h.discord.Messages(tipsChannelID)) == 1 }); err != nil {
		t.Fatalf("no tip posted: %v\n%s", err, h.stderr.String())
	}
	if got := h.discord.Messages(tipsChannelID)[0].Content; !strings.Contains(got, "ポケモンカードのどうでもいい豆知識") {
		t.Errorf("tip %q is not on the related tag ポケモンカード", got)
	}
	smalltalk := h.turns()[turns-1]
	if sys := smalltalk.Messages; !strings.Contains(systemTexts(sys), "「ポケモンカード」") {
		t.Errorf("small-talk system text does not name the related tag:\n%s", systemTexts(sys))
	}
	h.settleTest(t, 2*turns)

	calls := h.ollama.ChatCalls()
	t.Logf("%d model calls for %d turns (%.2f per turn)", calls, turns, float64(calls)/turns)
	if calls > turns+2 {
		for _, r := range h.ollama.Requests() {
			t.Logf("call: stream=%v format=%s system=%.60q", r.Stream == nil || *r.Stream, r.Format, r.Messages[0].Content)
		}
		t.Fatalf("%d model calls for %d tool-less turns, want at most %d", calls, turns, turns+2)
	}
	var untagged int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM messages m
WHERE NOT EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id)`).Scan(&untagged); err != nil {
		t.Fatal(err)
	}
	if untagged != 0 {
		t.Errorf("%d stored messages without tags", untagged)
	}
	// Every model call, the background summary's and the tip's included,
	// is logged under the server's space.
	var summaries, elsewhere int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE kind = 'summary' AND space = $1),
count(*) FILTER (WHERE space <> $1) FROM api_logs`, "guild:"+guildID).Scan(&summaries, &elsewhere); err != nil {
		t.Fatal(err)
	}
	if summaries == 0 || elsewhere != 0 {
		t.Errorf("%d summary calls in the server's space (want some), %d calls elsewhere (want none)", summaries, elsewhere)
	}
}

// settleTest waits until messages are stored, all tagged, and no summary is
// due (fewer than 30 unsummarised).
func (h *harness) settleTest(t testing.TB, messages int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var total, unsummarised, untagged int
		err := h.pool.QueryRow(context.Background(), `
SELECT count(*), count(*) FILTER (WHERE archived_at IS NULL),
       count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id))
FROM messages m`).Scan(&total, &unsummarised, &untagged)
		if err != nil {
			t.Fatal(err)
		}
		if total == messages && unsummarised < 30 && untagged == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not settled: %d messages (want %d), %d unsummarised, %d untagged", total, messages, unsummarised, untagged)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func systemTexts(msgs []api.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role == "system" {
			fmt.Fprintln(&b, m.Content)
		}
	}
	return b.String()
}

func jstZone(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
