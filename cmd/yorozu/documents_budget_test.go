package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
)

// TestDocumentsWithinBudget: ten documents of 3,000 characters attached to
// a mention are given to the model within CONTEXT_TOKEN_BUDGET, each named
// and cut with a mark, and the user's question reaches it whole.
func TestDocumentsWithinBudget(t *testing.T) {
	const budget = 2000
	h := start(t, map[string]string{"CONTEXT_TOKEN_BUDGET": fmt.Sprint(budget)})
	h.handle(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("読みました。") })
	var atts []*discordgo.MessageAttachment
	for i := range 10 {
		text := []rune(strings.Repeat(fmt.Sprintf("第%d章の本文です。", i+1), 400))[:3000]
		atts = append(atts, h.discord.AddAttachment(fmt.Sprintf("章%d.txt", i+1), "text/plain; charset=utf-8", []byte(string(text))))
	}
	const question = "この10個の資料に共通する話題は何ですか？"
	h.mentionWith(question, atts...)
	h.waitReply(t, 1, equals("読みました。"))

	turns := h.turns()
	if len(turns) != 1 {
		t.Fatalf("%d model calls, want 1", len(turns))
	}
	msgs := turns[0].Messages
	tokens := 0
	for _, m := range msgs {
		tokens += memory.EstimateTokens(m.Content) + memory.MessageOverhead
	}
	if tokens > budget {
		t.Errorf("the model was sent %d tokens; CONTEXT_TOKEN_BUDGET is %d", tokens, budget)
	}
	user := msgs[len(msgs)-1]
	if user.Role != "user" || !strings.HasPrefix(user.Content, question+"\n\n") {
		t.Fatalf("the question did not reach the model whole: %.200q", user.Content)
	}
	for i := range 10 {
		if !strings.Contains(user.Content, fmt.Sprintf("「章%d.txt」", i+1)) {
			t.Errorf("章%d.txt is not named to the model", i+1)
		}
	}
	if n := strings.Count(user.Content, "…（以下省略：予算を超えたため）"); n != 10 {
		t.Errorf("%d documents marked as cut, want 10", n)
	}
	t.Logf("%d tokens sent, the question and its documents %d", tokens, memory.EstimateTokens(user.Content))
}
