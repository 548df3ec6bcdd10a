package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// chatOutcome is what a caller of Chat sees: the responses and the error.
type chatOutcome struct {
	content string
	done    int
	err     error
}

func chatWith(t *testing.T, c llm.Backend, model string, stream bool) chatOutcome {
	t.Helper()
	var out chatOutcome
	out.err = c.Chat(context.Background(), &api.ChatRequest{Model: model, Messages: userMsg("こんにちは"), Stream: &stream},
		func(r api.ChatResponse) error {
			out.content += r.Message.Content
			if r.Done {
				out.done++
			}
			return nil
		})
	return out
}

// TestClientChatsAsAPIClient: llm.Client's Chat (its own buffer) gives what
// api.Client's gives, answers and errors alike, for the same server.
func TestClientChatsAsAPIClient(t *testing.T) {
	long := strings.Repeat("長い答え。", 20_000) // one 300 KB line, past the first buffer
	for _, tc := range []struct {
		name   string
		model  string
		stream bool
		reply  ollamatest.Reply
		status int
	}{
		{name: "streamed", model: plainModel, stream: true, reply: ollamatest.Text("こん", "にちは")},
		{name: "whole", model: plainModel, stream: false, reply: ollamatest.Text("こん", "にちは")},
		{name: "long line", model: plainModel, stream: false, reply: ollamatest.Text(long)},
		{name: "error mid-stream", model: plainModel, stream: true,
			reply: ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "途中"}, {Error: "model runner has unexpectedly stopped"}}}},
		{name: "model not found", model: "missing:latest", stream: true, reply: ollamatest.Text("x")},
		{name: "server error", model: plainModel, stream: true, status: http.StatusInternalServerError},
		{name: "unauthorized", model: plainModel, stream: true, status: http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Handle(func(api.ChatRequest) ollamatest.Reply { return tc.reply })
			srv.Status(tc.status)
			u, err := url.Parse(srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			want := chatWith(t, srv.Client(), tc.model, tc.stream)
			got := chatWith(t, llm.NewClient(u, &http.Client{}), tc.model, tc.stream)
			if got.content != want.content || got.done != want.done {
				t.Errorf("got %d chars, %d done; api.Client %d chars, %d done", len(got.content), got.done, len(want.content), want.done)
			}
			if (got.err == nil) != (want.err == nil) || (got.err != nil && got.err.Error() != want.err.Error()) {
				t.Errorf("error %v, api.Client's %v", got.err, want.err)
			}
			var gotStatus, wantStatus api.StatusError
			if errors.As(want.err, &wantStatus) && (!errors.As(got.err, &gotStatus) || gotStatus != wantStatus) {
				t.Errorf("error %#v, api.Client's %#v", got.err, want.err)
			}
			var gotAuth, wantAuth api.AuthorizationError
			if errors.As(want.err, &wantAuth) && (!errors.As(got.err, &gotAuth) || gotAuth != wantAuth) {
				t.Errorf("error %#v, api.Client's %#v", got.err, want.err)
			}
		})
	}
}

// TestClientRefusesAnOverlongLine: a line past MaxLineBytes is an error
// the pipeline reports as Ollama failing, not a silently empty answer.
func TestClientRefusesAnOverlongLine(t *testing.T) {
	srv := newServer(t)
	srv.Handle(func(api.ChatRequest) ollamatest.Reply {
		return ollamatest.Text(strings.Repeat("a", llm.MaxLineBytes))
	})
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	p := llm.New(llm.Options{Client: llm.NewClient(u, &http.Client{})})
	_, err = p.Run(context.Background(), llm.Request{Model: plainModel, Messages: userMsg("こんにちは")}, func(llm.Event) error { return nil })
	if !errors.Is(err, llm.ErrUnavailable) || !strings.Contains(err.Error(), "token too long") {
		t.Fatalf("err = %v, want ErrUnavailable saying the line is too long", err)
	}
}
