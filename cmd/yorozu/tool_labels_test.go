package main

import (
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestEveryToolHasALabel: every tool the model is offered has a Japanese
// name for the lines that show tool activity (the admin page's, the kept
// history's), not the generic ツール「…」 kept for MCP servers' tools.
func TestEveryToolHasALabel(t *testing.T) {
	h := start(t, nil)
	h.script(ollamatest.Text("はい。"))
	h.mention(aliceID, "何ができるの？")
	h.waitReply(t, 1, equals("はい。"))
	reqs := h.turns()
	if len(reqs) == 0 || len(reqs[0].Tools) == 0 {
		t.Fatal("no tools offered")
	}
	for _, tl := range reqs[0].Tools {
		name := tl.Function.Name
		if l := chat.ToolLabel(name); strings.HasPrefix(l, "ツール「") {
			t.Errorf("tool %s has no label of its own (shown as %s)", name, l)
		}
	}
}
