package web

import (
	"net/http"
	"testing"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestEveryToolCallIsNamed: the tool lines of an answer name every tool in
// Japanese, as it runs and in the kept history: the built-in ones by what
// they do (list_fetched_files had no name before), any other (an MCP
// server's) as ツール「…」.
func TestEveryToolCallIsNamed(t *testing.T) {
	a := newAPI(t)
	a.ollama.Script(
		ollamatest.ToolCalls(ollamatest.Call("list_fetched_files", map[string]any{})),
		ollamatest.ToolCalls(ollamatest.Call("wiki_search_pages", map[string]any{"query": "議事録"})),
		ollamatest.Text("見つかりませんでした。"),
	)
	evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{Message: "資料はある？"}))
	var running []string
	for _, ev := range evs {
		if v, ok := ev.Value.(map[string]any); ok && ev.Type == "tool" && v["status"] == "running" {
			running = append(running, v["label"].(string))
		}
	}
	want := []string{"取得した資料の一覧", "ツール「wiki_search_pages」"}
	if len(running) != 2 || running[0] != want[0] || running[1] != want[1] {
		t.Errorf("labels while running = %q, want %q", running, want)
	}
	var ms []messageJSON
	if code := a.c.call("GET", "/chat/sessions/"+itoa(int64(evs[0].Value.(float64)))+"/messages", nil, &ms); code != http.StatusOK || len(ms) != 2 {
		t.Fatalf("history = %d %+v", code, ms)
	}
	var kept []string
	for _, tl := range ms[1].Tools {
		kept = append(kept, tl.Label)
	}
	if len(kept) != 2 || kept[0] != want[0] || kept[1] != want[1] {
		t.Errorf("labels kept = %q, want %q", kept, want)
	}
}
