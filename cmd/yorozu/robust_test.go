package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// hungMCPServer serves one MCP tool, "lookup", that never answers until the
// test ends.
func hungMCPServer(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	s := sdk.NewServer(&sdk.Implementation{Name: "wiki", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "lookup", Description: "Look up a wiki page."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct {
			Title string `json:"title"`
		}) (*sdk.CallToolResult, any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "too late"}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv.URL
}

// TestHungMCPToolTimesOut: an MCP tool that never answers is given up after
// TOOL_TIMEOUT; the model reads why and still answers the user.
func TestHungMCPToolTimesOut(t *testing.T) {
	mcpURL := hungMCPServer(t)
	h := start(t, map[string]string{
		"MCP_SERVERS":  `[{"name":"wiki","url":"` + mcpURL + `"}]`,
		"TOOL_TIMEOUT": "300ms",
	})
	var mu sync.Mutex
	var toolResult string
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			mu.Lock()
			toolResult = last.Content
			mu.Unlock()
			return ollamatest.Text("辞書が応答しないので、分かる範囲で答えます。")
		}
		return ollamatest.ToolCalls(ollamatest.Call("wiki_lookup", map[string]any{"title": "京都"}))
	})
	h.mention(aliceID, "京都について調べて")
	h.waitReply(t, 1, equals("辞書が応答しないので、分かる範囲で答えます。"))
	mu.Lock()
	defer mu.Unlock()
	if toolResult != "Error: wiki_lookup timed out after 300ms" {
		t.Errorf("the model was told %q", toolResult)
	}
}

// TestTurnPastItsDeadlineKeepsWhatWasWritten: a model that stops in the
// middle of its answer is cut at TURN_TIMEOUT; the user keeps the part that
// was written, with a short note, and the channel answers the next turn.
func TestTurnPastItsDeadlineKeepsWhatWasWritten(t *testing.T) {
	h := start(t, map[string]string{"TURN_TIMEOUT": "1s", "TOOL_TIMEOUT": "1s"})
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	h.script(ollamatest.Reply{Chunks: []ollamatest.Chunk{
		{Content: "途中までの答えです。"},
		{Content: "続き", Wait: never},
	}}, ollamatest.Text("次の答え"))
	h.mention(aliceID, "長い話をして")
	h.waitReply(t, 1, func(c string) bool {
		return strings.HasPrefix(c, "途中までの答えです。\n\n") && strings.Contains(c, "時間がかかりすぎたため")
	})
	h.mention(aliceID, "次")
	h.waitReply(t, 2, equals("次の答え"))
}

// TestFailedTurnIsRemembered: when the model fails, the user's message is
// still kept, and the next turn has it in context.
func TestFailedTurnIsRemembered(t *testing.T) {
	h := start(t, nil)
	h.ollama.Down()
	h.mention(aliceID, "私の誕生日は5月5日です")
	h.waitReply(t, 1, func(c string) bool { return strings.Contains(c, "接続できません") })
	h.waitCount(t, `SELECT count(*) FROM messages WHERE role = 'user' AND content = '私の誕生日は5月5日です'`, 1)

	h.ollama.Up()
	h.script(ollamatest.Text("5月5日ですね。"))
	h.mention(aliceID, "私の誕生日はいつ？")
	h.waitReply(t, 2, equals("5月5日ですね。"))
	var history []string
	for _, m := range h.turns()[0].Messages {
		history = append(history, m.Role+":"+m.Content)
	}
	if !strings.Contains(strings.Join(history, "\n"), "user:user1: 私の誕生日は5月5日です") {
		t.Errorf("the next turn lacks the failed turn's message:\n%s", strings.Join(history, "\n"))
	}
}
