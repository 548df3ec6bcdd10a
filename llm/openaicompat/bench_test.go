package openaicompat_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/openaicompat/openaitest"
)

// BenchmarkChat is one streamed chat call as a turn makes it — twelve
// tools offered, a twenty-message history — through the real openai-go
// client to the fake server: the client's cost on the way to the model
// (request building, encoding, decoding the stream). Target: ≤ 1 ms/op.
func BenchmarkChat(b *testing.B) {
	srv := newServer(b)
	srv.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Text("了解です。") })
	c := newClient(b, srv)
	var tools api.Tools
	for i := range 12 {
		var tool api.Tool
		tool.Type = "function"
		tool.Function.Name = fmt.Sprintf("tool_%d", i)
		tool.Function.Description = "ツールの説明です。A tool that does something useful."
		tool.Function.Parameters.Type = "object"
		tool.Function.Parameters.Required = []string{"query"}
		props := api.NewToolPropertiesMap()
		props.Set("query", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "what to look for"})
		tool.Function.Parameters.Properties = props
		tools = append(tools, tool)
	}
	msgs := []api.Message{{Role: "system", Content: "あなたは親切なボットです。"}}
	for i := range 20 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, api.Message{Role: role, Content: fmt.Sprintf("メッセージ %d: 今日はいい天気ですね。散歩に行きましょう。", i)})
	}
	req := &api.ChatRequest{Model: toolModel, Messages: msgs, Tools: tools}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := c.Chat(ctx, req, func(api.ChatResponse) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
