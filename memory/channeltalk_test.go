package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/talk"
)

var tokyo = time.FixedZone("JST", 9*3600)

// talkOf is n messages a minute apart, from U1 and U2 in turn, ending at
// 12:00 UTC (21:00 in Tokyo).
func talkOf(n int, text func(i int) string) []talk.Message {
	end := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	var out []talk.Message
	for i := range n {
		out = append(out, talk.Message{
			ID: fmt.Sprint(i), Author: []string{"U1", "U2"}[i%2], Text: text(i),
			At: end.Add(time.Duration(i-n+1) * time.Minute),
		})
	}
	return out
}

func talkMessage(msgs []api.Message) (api.Message, int) {
	for i, m := range msgs {
		if strings.HasPrefix(m.Content, "## チャンネルの最近の会話") {
			return m, i
		}
	}
	return api.Message{}, -1
}

func TestContextTalk(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := memory.DiscordChannel("talk")

	t.Run("the talk comes just before the question, with names and local times", func(t *testing.T) {
		m := f.memory(t, func(o *memory.Options) { o.Location = tokyo })
		msgs, err := m.Context(ctx, key, g1, "今の話まとめて", memory.WithTalk(talkOf(3, func(i int) string { return fmt.Sprint("発言", i) })))
		if err != nil {
			t.Fatal(err)
		}
		got, i := talkMessage(msgs)
		if i != len(msgs)-2 || got.Role != "system" {
			t.Fatalf("the talk is message %d of %d (role %q), want the system message before the question", i, len(msgs), got.Role)
		}
		for _, want := range []string{"20:58 U1: 発言0", "20:59 U2: 発言1", "21:00 U1: 発言2"} {
			if !strings.Contains(got.Content, want) {
				t.Errorf("talk lacks %q:\n%s", want, got.Content)
			}
		}
	})

	t.Run("no talk, no layer", func(t *testing.T) {
		msgs, err := f.memory(t, nil).Context(ctx, key, g1, "こんにちは")
		if err != nil {
			t.Fatal(err)
		}
		if _, i := talkMessage(msgs); i >= 0 {
			t.Errorf("a turn without talk has a talk layer: %q", msgs[i].Content)
		}
	})

	for _, budget := range []int{2000, 6000, 20000} {
		t.Run(fmt.Sprint("a long talk keeps its newest within a quarter of ", budget), func(t *testing.T) {
			long := talkOf(400, func(i int) string {
				return fmt.Sprintf("バーベキューの話その%d、集合場所と時間をどうするか相談しています。", i)
			})
			msgs, err := f.memory(t, func(o *memory.Options) { o.TokenBudget = budget }).Context(ctx, key, g1, "今の話まとめて", memory.WithTalk(long))
			if err != nil {
				t.Fatal(err)
			}
			got, i := talkMessage(msgs)
			if i < 0 {
				t.Fatal("no talk layer")
			}
			if n := promptTokens([]api.Message{got}); n > int(memory.TalkShare*float64(budget)) {
				t.Errorf("talk is %d tokens, over a quarter of %d", n, budget)
			}
			if !strings.Contains(got.Content, "その399、") {
				t.Error("the newest message was cut")
			}
			if strings.Contains(got.Content, "その0、") {
				t.Error("the oldest message was kept over newer ones")
			}
		})
	}
}
