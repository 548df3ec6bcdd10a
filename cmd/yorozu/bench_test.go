package main

import (
	"context"
	"testing"

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
	seedMessages(b, h, 10_000)
	h.handle(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Text("了解です。") })

	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		h.mention(aliceID, "ベンチマークの質問です")
		h.waitReply(b, i+1, equals("了解です。"))
	}
	b.StopTimer()
	if got := len(h.turns()); got != b.N {
		b.Fatalf("%d LLM calls for %d turns without tools, want exactly one each", got, b.N)
	}
}

func seedMessages(b *testing.B, h *harness, n int) {
	b.Helper()
	ctx := context.Background()
	s, err := db.UpsertSession(ctx, h.pool, db.SessionParams{
		Key: string(memory.DiscordChannel(channelID)), Source: "discord", GuildID: guildID, ChannelID: channelID,
	})
	if err != nil {
		b.Fatal(err)
	}
	_, err = h.pool.Exec(ctx, `
INSERT INTO messages (session_id, role, author_id, author_name, content, created_at)
SELECT $1, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END, $2, 'alice',
       repeat('これは以前の会話のメッセージです。', 3), now() - make_interval(secs => $3 - g)
FROM generate_series(1, $3) AS g`, s.ID, aliceID, n)
	if err != nil {
		b.Fatal(err)
	}
}
