package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// BenchmarkToModel times the work before the model call on each route: from
// the mention (MESSAGE_CREATE on the fake gateway) to the chat request
// reaching the fake Ollama's handler, in a channel holding 100,000 earlier
// messages, on an idle bot. ms-to-model is the median until the request
// arrived (its body not yet read: decoding it is Ollama's work);
// ms-to-decoded until the fake had decoded it; ns/op is the whole turn.
func BenchmarkToModel(b *testing.B) {
	routes := []struct{ name, text string }{
		{"chat", "ベンチマークの質問です"},
		{"weather", "今日の天気は？"},
		{"smalltalk", "雑談しよう"},
		{"reminder", "明日の9時に会議をリマインドして"},
	}
	jma := fakeJMA(b)
	for _, rt := range routes {
		b.Run(rt.name, func(b *testing.B) {
			h := start(b, map[string]string{"USER_RATE_LIMIT": "0", "JMA_BASE_URL": jma})
			const seeded = 100_000
			seedMessages(b, h, seeded)
			var mu sync.Mutex
			var arrived, decoded time.Time
			h.ollama.HandleTimed(func(req api.ChatRequest, at time.Time) ollamatest.Reply {
				if !isTurn(req) {
					return housekeeping(req)
				}
				mu.Lock()
				if arrived.IsZero() {
					arrived, decoded = at, time.Now()
				}
				mu.Unlock()
				return ollamatest.Text("了解です。")
			})
			toModel := make([]time.Duration, 0, b.N)
			toDecoded := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				mu.Lock()
				arrived, decoded = time.Time{}, time.Time{}
				mu.Unlock()
				t0 := time.Now()
				h.mention(aliceID, rt.text)
				h.waitAnswers(b, i+1, "了解です。")
				b.StopTimer()
				mu.Lock()
				toModel = append(toModel, arrived.Sub(t0))
				toDecoded = append(toDecoded, decoded.Sub(t0))
				mu.Unlock()
				h.settle(b, seeded+2*(i+1))
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(ms(median(toModel)), "ms-to-model")
			b.ReportMetric(ms(median(toDecoded)), "ms-to-decoded")
		})
	}
}

// waitAnswers waits until n of the bot's messages read text (a weather
// answer comes with a chart as a message of its own).
func (h *harness) waitAnswers(b *testing.B, n int, text string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := h.discord.WaitFor(ctx, func() bool {
		got := 0
		for _, m := range h.discord.BotMessages(channelID) {
			if m.Content == text {
				got++
			}
		}
		return got >= n
	})
	if err != nil {
		b.Fatalf("answer #%d not posted: %v", n, err)
	}
}
