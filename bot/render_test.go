package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

func TestViewContents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []llm.Event
		want   []string
	}{
		{"nothing yet", nil, nil},
		{"queued", []llm.Event{llm.Queued{Position: 3}}, []string{"⏳ 順番待ち: 4 番目"}},
		{"thinking is never shown", []llm.Event{llm.Thinking{Text: "hmm"}, llm.Text{Text: "答え"}, llm.Thinking{Text: "more"}}, []string{"答え"}},
		{"tool status", []llm.Event{llm.Queued{Position: 1}, llm.ToolStarted{Name: "web_search", Arguments: `{"query":"a\nb"}`}}, []string{"🔍 web_search: a b"}},
		{"text replaces status", []llm.Event{llm.ToolStarted{Name: "scrape_url", Arguments: `{"url":"https://x"}`}, llm.Text{Text: "読みました"}}, []string{"読みました"}},
		{"whitespace text keeps status", []llm.Event{llm.ToolStarted{Name: "t"}, llm.Text{Text: "\n\n"}}, []string{"🔧 t"}},
		{"empty answer", []llm.Event{llm.Done{}}, []string{emptyAnswerReply}},
		{"failure after text keeps text", []llm.Event{llm.Text{Text: "途中"}, llm.Failed{Err: llm.ErrUnavailable}}, []string{"途中\n\n" + unavailableReply}},
		{"events after done ignored", []llm.Event{llm.Text{Text: "a"}, llm.Done{}, llm.Text{Text: "b"}}, []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var v view
			for _, ev := range tc.events {
				v.apply(ev)
			}
			if got := v.contents(); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("contents = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFailureNotice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"tagged", fmt.Errorf("weather: %w", &llm.ModelNotFoundError{Op: "chat", Model: "gemma3:12b"}), "モデル gemma3:12b が見つかりません。サーバーで `ollama pull gemma3:12b` を実行してください。"},
		{"no tag", &llm.ModelNotFoundError{Op: "show", Model: "llama3"}, "モデル llama3 が見つかりません。サーバーで `ollama pull llama3` を実行してください。"},
		{"namespaced", &llm.ModelNotFoundError{Op: "show", Model: "hf.co/user/m:Q4"}, "`ollama pull hf.co/user/m:Q4`"},
		{"unavailable", fmt.Errorf("chat: %w", llm.ErrUnavailable), unavailableReply},
		{"stopped", errStopped, stoppedReply},
		{"turn timeout", fmt.Errorf("%w after 5m0s: chat qwen3:4b: %w", chat.ErrTurnTimeout, context.DeadlineExceeded), turnTimeoutReply},
		{"other", errors.New("x"), genericErrorReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := failureNotice(tc.err); !strings.Contains(got, tc.want) {
				t.Errorf("notice = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
