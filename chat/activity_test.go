package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/llm"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    string
		max  int
		want string
	}{
		{"short", "東京 天気", 10, "東京 天気"},
		{"newlines and runs of spaces", "  a\n\tb   c \n", 10, "a b c"},
		{"exactly max", "あいうえお", 5, "あいうえお"},
		{"cut counts characters, not bytes", "あいうえおか", 5, "あいうえ…"},
		{"empty", "", 5, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := OneLine(tc.s, tc.max); got != tc.want {
				t.Errorf("OneLine(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
			}
		})
	}
}

func TestToolPreview(t *testing.T) {
	t.Parallel()
	keys := []string{"query", "url", "file_id"}
	tests := []struct {
		name string
		args string
		keys []string
		want string
	}{
		{"no arguments", `{}`, nil, ""},
		{"nothing sent", ``, nil, ""},
		{"lone string", `{"query":"東京\n天気"}`, nil, "東京 天気"},
		{"lone number", `{"file_id":12}`, nil, `{"file_id":12}`},
		{"several", `{"page":1,"title":"x"}`, nil, `{"page":1,"title":"x"}`},
		{"not json", "a\nb", nil, "a b"},
		{"long", `{"query":"` + strings.Repeat("あ", 40) + `"}`, nil, strings.Repeat("あ", 29) + "…"},
		{"key first", `{"file_type":"csv","query":"都道府県別人口"}`, keys, "都道府県別人口"},
		{"keys in order", `{"url":"https://example.com/a.pdf","query":"q"}`, keys, "q"},
		{"empty key skipped", `{"query":"","url":"https://x"}`, keys, "https://x"},
		{"number key", `{"file_id":12,"page":2}`, keys, "12"},
		{"no key: lone string", `{"city":"大阪"}`, keys, "大阪"},
		{"no key: as sent", `{"a":1,"b":2}`, keys, `{"a":1,"b":2}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ToolPreview(tc.args, 30, tc.keys...); got != tc.want {
				t.Errorf("ToolPreview(%s, %v) = %q, want %q", tc.args, tc.keys, got, tc.want)
			}
		})
	}
}

func TestFailureTexts(t *testing.T) {
	t.Parallel()
	texts := FailureTexts{Timeout: "timeout", Unavailable: "unavailable", Other: func(err error) string { return "other: " + err.Error() }}
	missing := &llm.ModelNotFoundError{Op: "chat", Model: "gemma3:12b"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"timeout", fmt.Errorf("%w after 5m0s: chat qwen3:4b: %w", ErrTurnTimeout, context.DeadlineExceeded), "timeout"},
		{"timeout of an unavailable call", fmt.Errorf("%w after 5m0s: %w", ErrTurnTimeout, llm.ErrUnavailable), "timeout"},
		{"missing model", fmt.Errorf("weather: %w", missing), "モデル gemma3:12b が見つかりません。サーバーで `ollama pull gemma3:12b` を実行してください。"},
		{"missing model on an OpenAI-compatible server", fmt.Errorf("chat: %w", &llm.ModelNotFoundError{Op: "chat", Model: "qwen3-8b", Server: "http://gpu:8080/v1"}),
			"モデル qwen3-8b がモデルサーバーにありません。サーバーでそのモデルを読み込むか、サーバーにあるモデルを設定してください。"},
		{"key refused", fmt.Errorf("chat m: %w", &llm.KeyRefusedError{Server: "https://openrouter.ai/api/v1", KeyVar: "OPENAI_API_KEY", Status: 401}),
			"モデルサーバーが API キーを受け付けませんでした（401）。管理者は OPENAI_API_KEY の設定を確認してください。"},
		{"busy", fmt.Errorf("chat m: %w", &llm.BusyError{RetryAfter: 90 * time.Second}), "モデルサーバーが混み合っています。90 秒ほどしてからもう一度お試しください。"},
		{"busy without a wait", &llm.BusyError{}, "モデルサーバーが混み合っています。しばらくしてからもう一度お試しください。"},
		{"HTML instead of the API", fmt.Errorf("chat m: %w", &llm.BadAnswerError{Server: "http://gpu:8080", What: "an HTML page"}),
			"モデルサーバーから API ではない応答（HTML のページなど）が返りました。管理者はサーバーのアドレス（OPENAI_BASE_URL など、ふつうは /v1 で終わります）を確認してください。"},
		{"images refused", fmt.Errorf("chat m: %w", &llm.ImagesRefusedError{Model: "llama3"}), "モデル llama3 は画像を受け付けませんでした。画像なしでもう一度送るか、画像に対応したモデルを選んでください。"},
		{"unavailable", fmt.Errorf("chat: %w", llm.ErrUnavailable), "unavailable"},
		{"other", errors.New("x"), "other: x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := texts.Text(tc.err); got != tc.want {
				t.Errorf("Text(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestToolLabel(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"web_search", "Web 検索"},
		{"list_fetched_files", "取得した資料の一覧"},
		{"read_fetched_file", "取得した資料を読む"},
		{"disaster_info", "防災情報を調べる"},
		{"weather_forecast", "天気予報を調べる"},
		{"wiki_search_pages", "ツール「wiki_search_pages」"}, // an MCP server's
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ToolLabel(tc.name); got != tc.want {
				t.Errorf("ToolLabel(%q) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}
