package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
)

// BenchmarkTurn measures one whole turn: MESSAGE_CREATE over the fake
// gateway, context from a channel holding 10,000 earlier messages, one call
// to an instant fake Ollama, the reply posted over REST, the turn stored.
// ns/op is the wall time a user waits minus the model's own time (zero here).
func BenchmarkTurn(b *testing.B) {
	h := start(b, map[string]string{"USER_RATE_LIMIT": "0"})
	const seeded = 10_000
	seedMessages(b, h, seeded)
	h.handle(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Text("了解です。") })

	b.ReportAllocs()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		h.mention(aliceID, "ベンチマークの質問です")
		h.waitReply(b, i+1, equals("了解です。"))
		lat = append(lat, time.Since(t0))
		b.StopTimer()
		h.settle(b, seeded+2*(i+1))
		b.StartTimer()
	}
	b.StopTimer()
	if got := len(h.turns()); got != b.N {
		b.Fatalf("%d LLM calls for %d turns without tools, want exactly one each", got, b.N)
	}
	reportTurns(b, h, lat)
}

// BenchmarkTurnBackToBack is BenchmarkTurn with each mention sent as soon
// as the previous reply is out, so the previous turn's background work
// (storing, tags, the word pool, summaries) competes with it and is timed;
// the last turn's work is timed too, by waiting for it before the clock
// stops. calls/turn counts everything sent to Ollama.
func BenchmarkTurnBackToBack(b *testing.B) {
	h := start(b, map[string]string{"USER_RATE_LIMIT": "0"})
	const seeded = 10_000
	seedMessages(b, h, seeded)
	h.handle(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Text("了解です。") })

	b.ReportAllocs()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		h.mention(aliceID, "ベンチマークの質問です")
		h.waitReply(b, i+1, equals("了解です。"))
		lat = append(lat, time.Since(t0))
	}
	h.settle(b, seeded+2*b.N)
	b.StopTimer()
	reportTurns(b, h, lat)
}

// reportTurns reports the latency percentiles and the model calls per turn
// (everything sent to Ollama's chat endpoint, housekeeping included).
func reportTurns(b *testing.B, h *harness, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "ms-p90")
	b.ReportMetric(float64(h.ollama.ChatCalls())/float64(b.N), "calls/turn")
}

// settle waits, untimed, until the last turn is wholly kept — stored, its
// messages tagged, the session summarised when due — so every timed turn
// starts on an idle bot, as a user's message usually does. Back-to-back
// turns would instead time the housekeeping of the turn before.
func (h *harness) settle(b *testing.B, messages int) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var total, unsummarised, untagged int
		err := h.pool.QueryRow(context.Background(), `
SELECT count(*),
       count(*) FILTER (WHERE archived_at IS NULL),
       count(*) FILTER (WHERE author_name <> 'alice-seed'
                          AND NOT EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id))
FROM messages m`).Scan(&total, &unsummarised, &untagged)
		if err != nil {
			b.Fatal(err)
		}
		if total == messages && unsummarised < 30 && untagged == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("not settled: %d messages (want %d), %d unsummarised, %d untagged", total, messages, unsummarised, untagged)
		}
		time.Sleep(time.Millisecond)
	}
}

// seedMessages stores n earlier messages in the channel the way yorozu
// leaves them: all but the newest ten summarised (archived, covered by eight
// summaries), the rest still waiting to be.
func seedMessages(b *testing.B, h *harness, n int) {
	b.Helper()
	ctx := context.Background()
	s, err := db.UpsertSession(ctx, h.pool, db.SessionParams{
		Key: string(memory.DiscordChannel(channelID)), Source: "discord", GuildID: guildID, ChannelID: channelID,
		Space: string(memory.GuildSpace(guildID)),
	})
	if err != nil {
		b.Fatal(err)
	}
	var summaries []int64
	for i := range 8 {
		at := time.Now().Add(-time.Duration(8-i) * time.Hour)
		m, err := db.InsertMemory(ctx, h.pool, db.MemoryParams{
			SessionID: s.ID, Content: "- 以前の会話の要約。アリスが質問し、よろずが答えた。", Tokens: 30,
			MessageCount: n / 8, PeriodStart: at, PeriodEnd: at.Add(time.Hour),
		})
		if err != nil {
			b.Fatal(err)
		}
		summaries = append(summaries, m.ID)
	}
	_, err = h.pool.Exec(ctx, `
INSERT INTO messages (session_id, role, author_id, author_name, content, created_at, archived_at, memory_id)
SELECT $1, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END, $2, 'alice-seed',
       repeat('これは以前の会話のメッセージです。', 3), now() - make_interval(secs => $3 - g),
       CASE WHEN g <= $3 - 10 THEN now() END,
       CASE WHEN g <= $3 - 10 THEN ($4::bigint[])[1 + (g - 1) * 8 / $3] END
FROM generate_series(1, $3) AS g`, s.ID, aliceID, n, summaries)
	if err != nil {
		b.Fatal(err)
	}
}
