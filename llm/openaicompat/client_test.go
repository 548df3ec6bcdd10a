package openaicompat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/openaicompat"
	"github.com/yorozu-bot/yorozu/llm/openaicompat/openaitest"
	"github.com/yorozu-bot/yorozu/tools"
)

// backend is llm.Backend as the pool engineer defines it: what a model
// server must answer. Declared here so this package does not depend on it.
var _ llm.Backend = (*openaicompat.Client)(nil)

const (
	toolModel   = "qwen3-8b"        // takes tools
	plainModel  = "gemma-2b"        // refuses tools: the structured fallback
	visionModel = "qwen3-vl-8b"     // sees (configured)
	embedModel  = "bge-m3"          // embeddings only
	blindModel  = "llama-text-only" // configured with vision, refuses images
)

func newServer(t testing.TB) *openaitest.Server {
	srv := openaitest.New(t)
	srv.AddModel(toolModel, "tools")
	srv.AddModel(plainModel)
	srv.AddModel(visionModel, "tools", "vision")
	srv.AddModel(embedModel, "embedding")
	srv.AddModel(blindModel, "tools")
	return srv
}

func newClient(t testing.TB, srv *openaitest.Server, mod ...func(*openaicompat.Config)) *openaicompat.Client {
	t.Helper()
	cfg := openaicompat.Config{
		BaseURL: srv.URL(),
		Capabilities: openaicompat.Capabilities(map[string][]string{
			visionModel: {"vision", "tools"},
			blindModel:  {"vision", "tools"},
		}),
	}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := openaicompat.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userMsg(text string) []api.Message {
	return []api.Message{{Role: "system", Content: "あなたは親切なボットです。"}, {Role: "user", Content: text}}
}

// events collects what a turn emitted.
type events struct {
	mu   sync.Mutex
	list []llm.Event
}

func (e *events) emit(ev llm.Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
	return nil
}

func (e *events) texts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.list {
		if t, ok := ev.(llm.Text); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

func (e *events) thinking() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, ev := range e.list {
		if t, ok := ev.(llm.Thinking); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func (e *events) tools() []llm.ToolFinished {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []llm.ToolFinished
	for _, ev := range e.list {
		if t, ok := ev.(llm.ToolFinished); ok {
			out = append(out, t)
		}
	}
	return out
}

// chatRequests are the requests that were not capability probes.
func chatRequests(srv *openaitest.Server) []openaitest.Request {
	var out []openaitest.Request
	for _, r := range srv.Requests() {
		if !openaitest.IsProbe(r) {
			out = append(out, r)
		}
	}
	return out
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=city name"`
}

func weatherTools(t testing.TB, calls *[]string) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	tool, err := tools.New("get_weather", "Current weather of a city.", func(_ context.Context, a weatherArgs) (string, error) {
		*calls = append(*calls, a.City)
		return a.City + "は晴れ、18度です。", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(tool); err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestStreamsTextThroughPipeline(t *testing.T) {
	srv := newServer(t)
	srv.Script(openaitest.Reply{Chunks: []openaitest.Chunk{{Content: "こんにちは"}, {Content: "、元気"}, {Content: "です。"}}, Usage: &openaitest.Usage{Prompt: 21, Completion: 5}})
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	var ev events
	res, err := p.Run(context.Background(), llm.Request{Model: toolModel, Messages: userMsg("やあ"), Options: map[string]any{"temperature": 0.3, "num_predict": 200, "num_ctx": 8192}}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.texts(); !slices.Equal(got, []string{"こんにちは", "、元気", "です。"}) {
		t.Errorf("streamed texts = %q, want one per chunk", got)
	}
	if res.Content != "こんにちは、元気です。" {
		t.Errorf("content = %q", res.Content)
	}
	if res.Metrics.PromptTokens != 21 || res.Metrics.CompletionTokens != 5 {
		t.Errorf("tokens = %d/%d, want the usage the server sent (21/5)", res.Metrics.PromptTokens, res.Metrics.CompletionTokens)
	}
	reqs := chatRequests(srv)
	if len(reqs) != 1 {
		t.Fatalf("chat requests = %d, want 1", len(reqs))
	}
	r := reqs[0]
	if !r.Stream || !r.IncludeUsage {
		t.Errorf("stream=%v include_usage=%v, want both", r.Stream, r.IncludeUsage)
	}
	if r.MaxTokens != 200 || r.Temperature == nil || *r.Temperature != 0.3 {
		t.Errorf("max_tokens=%d temperature=%v, want num_predict and temperature mapped", r.MaxTokens, r.Temperature)
	}
	if strings.Contains(string(r.Raw), "num_ctx") {
		t.Errorf("request carries the Ollama-only num_ctx: %s", r.Raw)
	}
	if r.Messages[0].Role != "system" || r.Messages[1].Content != "やあ" {
		t.Errorf("messages = %+v", r.Messages)
	}
}

func TestToolCallRoundTripsIDs(t *testing.T) {
	srv := newServer(t)
	srv.Script(openaitest.ToolCall("call_abc123", "get_weather", `{"city": "札幌"}`), openaitest.Text("札幌は晴れです。"))
	var called []string
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	var ev events
	res, err := p.Run(context.Background(), llm.Request{Model: toolModel, Messages: userMsg("札幌の天気は？"), Tools: weatherTools(t, &called)}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(called, []string{"札幌"}) {
		t.Errorf("tool called with %q, want the arguments assembled from the deltas", called)
	}
	if res.Content != "札幌は晴れです。" {
		t.Errorf("answer = %q", res.Content)
	}
	reqs := chatRequests(srv)
	if len(reqs) != 2 {
		t.Fatalf("chat requests = %d, want 2", len(reqs))
	}
	if !slices.Equal(reqs[0].Tools, []string{"get_weather"}) {
		t.Errorf("tools offered = %q", reqs[0].Tools)
	}
	second := reqs[1].Messages
	asst, tool := second[len(second)-2], second[len(second)-1]
	if asst.Role != "assistant" || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].ID != "call_abc123" || asst.ToolCalls[0].Name != "get_weather" {
		t.Errorf("assistant message sent back = %+v, want the call with its id", asst)
	}
	var args map[string]string
	if err := json.Unmarshal([]byte(asst.ToolCalls[0].Arguments), &args); err != nil || args["city"] != "札幌" {
		t.Errorf("arguments sent back = %q", asst.ToolCalls[0].Arguments)
	}
	if tool.Role != "tool" || tool.ToolCallID != "call_abc123" || !strings.Contains(tool.Content, "晴れ、18度") {
		t.Errorf("tool result = %+v, want role tool with tool_call_id call_abc123", tool)
	}
}

func TestTwoToolCallsInOneStream(t *testing.T) {
	srv := newServer(t)
	srv.Script(openaitest.Reply{Chunks: []openaitest.Chunk{
		{ToolCalls: []openaitest.ToolCallDelta{{Index: 0, ID: "call_1", Name: "get_weather"}, {Index: 1, ID: "call_2", Name: "get_weather"}}},
		{ToolCalls: []openaitest.ToolCallDelta{{Index: 1, Arguments: `{"city":`}, {Index: 0, Arguments: `{"city":"那覇"}`}}},
		{ToolCalls: []openaitest.ToolCallDelta{{Index: 1, Arguments: `"仙台"}`}}},
	}}, openaitest.Text("どちらも晴れ。"))
	var called []string
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	if _, err := p.Run(context.Background(), llm.Request{Model: toolModel, Messages: userMsg("那覇と仙台"), Tools: weatherTools(t, &called)}, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(called, []string{"那覇", "仙台"}) {
		t.Errorf("calls = %q, want both, in their order", called)
	}
	msgs := chatRequests(srv)[1].Messages
	ids := []string{msgs[len(msgs)-2].ToolCallID, msgs[len(msgs)-1].ToolCallID}
	if !slices.Equal(ids, []string{"call_1", "call_2"}) {
		t.Errorf("tool_call_ids = %q", ids)
	}
}

func TestStructuredFallbackForModelWithoutTools(t *testing.T) {
	srv := newServer(t)
	srv.Script(
		openaitest.Text(`{"tool_calls":[{"name":"get_weather","arguments":{"city":"福岡"}}],"answer":""}`),
		openaitest.Text(`{"answer":"福岡は晴れ、18度です。"}`),
	)
	var called []string
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	var ev events
	res, err := p.Run(context.Background(), llm.Request{Model: plainModel, Messages: userMsg("福岡の天気"), Tools: weatherTools(t, &called)}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(called, []string{"福岡"}) || res.Content != "福岡は晴れ、18度です。" {
		t.Errorf("called %q, answer %q", called, res.Content)
	}
	probes := 0
	for _, r := range srv.Requests() {
		if openaitest.IsProbe(r) {
			probes++
		}
	}
	if probes != 2 {
		t.Errorf("probes = %d, want 2 (with a tool, refused; then without)", probes)
	}
	for _, r := range chatRequests(srv) {
		if len(r.Tools) != 0 {
			t.Errorf("native tools offered to a model that refuses them: %q", r.Tools)
		}
		var rf struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		}
		if err := json.Unmarshal(r.ResponseFormat, &rf); err != nil || rf.Type != "json_schema" || rf.JSONSchema.Schema["type"] != "object" {
			t.Errorf("response_format = %s, want the fallback's JSON schema", r.ResponseFormat)
		}
	}
	// A second turn asks no probe again.
	before := srv.ChatCalls()
	srv.Script(openaitest.Text(`{"answer":"はい。"}`))
	if _, err := p.Run(context.Background(), llm.Request{Model: plainModel, Messages: userMsg("ありがとう"), Tools: weatherTools(t, &called)}, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.ChatCalls() - before; got != 1 {
		t.Errorf("second turn made %d calls, want 1 (capabilities cached)", got)
	}
}

func TestReasoningKeptOutOfAnswer(t *testing.T) {
	cases := []struct {
		name  string
		reply openaitest.Reply
	}{
		{"reasoning_content", openaitest.Reply{Chunks: []openaitest.Chunk{{Reasoning: "ユーザーは挨拶している。"}, {Content: "こんにちは！"}}}},
		{"reasoning", openaitest.Reply{Chunks: []openaitest.Chunk{{Reasoning: "ユーザーは挨拶している。", ReasoningField: "reasoning"}, {Content: "こんにちは！"}}}},
		{"think tags in content", openaitest.Text("<think>ユーザーは", "挨拶している。</th", "ink>こんにちは！")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Script(tc.reply)
			p := llm.New(llm.Options{Client: newClient(t, srv)})
			var ev events
			res, err := p.Run(context.Background(), llm.Request{Model: toolModel, Messages: userMsg("こんにちは")}, ev.emit)
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != "こんにちは！" {
				t.Errorf("answer = %q, want no reasoning in it", res.Content)
			}
			if got := ev.thinking(); got != "ユーザーは挨拶している。" {
				t.Errorf("thinking = %q", got)
			}
		})
	}
}

// png is a 1×1 PNG.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func TestImagesGoAsDataURLs(t *testing.T) {
	srv := newServer(t)
	srv.Script(openaitest.Text("猫の写真です。"))
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	msgs := []api.Message{{Role: "user", Content: "これは何？", Images: []api.ImageData{png}}}
	res, err := p.Run(context.Background(), llm.Request{Model: visionModel, Messages: msgs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "猫の写真です。" {
		t.Errorf("answer = %q", res.Content)
	}
	got := chatRequests(srv)[0].Messages[0]
	if got.Content != "これは何？" || len(got.Images) != 1 || !strings.HasPrefix(got.Images[0], "data:image/png;base64,iVBOR") {
		t.Errorf("user message = %+v, want the text and a PNG data URL", got)
	}

	// A model not configured with vision never gets the image.
	srv.Script(openaitest.Text("画像は見えません。"))
	if _, err := p.Run(context.Background(), llm.Request{Model: toolModel, Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	if reqs := chatRequests(srv); len(reqs[len(reqs)-1].Messages[0].Images) != 0 {
		t.Error("an image went to a model without vision")
	}
}

func TestStopCancelsTheRequest(t *testing.T) {
	srv := newServer(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Script(openaitest.Reply{Chunks: []openaitest.Chunk{{Content: "長い答えの"}, {Content: "続き", Wait: hold}}})
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(ctx, llm.Request{Model: toolModel, Messages: userMsg("長い話")}, func(ev llm.Event) error {
			if _, ok := ev.(llm.Text); ok {
				once.Do(func() { close(first) })
			}
			return nil
		})
		done <- err
	}()
	<-first
	cancel() // 停止
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	select {
	case <-srv.Cancelled():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the request cancelled")
	}
}

func TestEmbedAndList(t *testing.T) {
	srv := newServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	resp, err := c.Embed(ctx, &api.EmbedRequest{Model: embedModel, Input: []string{"今日は晴れ", "明日は雨"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Embeddings) != 2 || len(resp.Embeddings[0]) != 32 || resp.PromptEvalCount != 2 {
		t.Errorf("embeddings = %d of %d dims, %d tokens", len(resp.Embeddings), len(resp.Embeddings[0]), resp.PromptEvalCount)
	}
	one, err := c.Embed(ctx, &api.EmbedRequest{Model: embedModel, Input: "今日は晴れ"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Embeddings[0], resp.Embeddings[0]) {
		t.Error("one input embedded differently from the same input in a list")
	}
	if _, err := c.Embed(ctx, &api.EmbedRequest{Model: embedModel, Input: 42}); err == nil {
		t.Error("a number as input was sent")
	}
	names, err := llm.InstalledModels(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{blindModel, embedModel, plainModel, toolModel, visionModel}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("models = %q, want %q", names, want)
	}
	// The knowledge base path: a missing embedding model is named.
	bg := llm.New(llm.Options{Client: c}).BackgroundClient()
	_, err = bg.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed", Input: "x"})
	if m, ok := llm.MissingModel(err); !ok || m.Model != "nomic-embed" || m.PullCommand() != "" {
		t.Errorf("missing embedding model: %v", err)
	}
}

func TestCapabilities(t *testing.T) {
	srv := newServer(t)
	c := newClient(t, srv)
	p := llm.New(llm.Options{Client: c})
	ctx := context.Background()
	cases := []struct {
		model               string
		tools, vision, chat bool
	}{
		{toolModel, true, false, true},
		{plainModel, false, false, true},
		{visionModel, true, true, true},
		{embedModel, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.model, func(t *testing.T) {
			caps, err := p.Capabilities(ctx, tc.model)
			if err != nil {
				t.Fatal(err)
			}
			if caps.Tools != tc.tools || caps.Vision != tc.vision || slices.Contains(caps.All, "completion") != tc.chat {
				t.Errorf("caps = %+v", caps)
			}
		})
	}
	_, err := p.Capabilities(ctx, "no-such-model")
	m, ok := llm.MissingModel(err)
	if !ok || m.Server != srv.URL() || m.PullCommand() != "" || strings.Contains(err.Error(), "ollama pull") {
		t.Errorf("missing model: %v, want a ModelNotFoundError naming the server, without ollama pull", err)
	}
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name  string
		setup func(*openaitest.Server)
		mod   func(*openaicompat.Config)
		model string
		msgs  []api.Message
		check func(t *testing.T, err error, texts []string)
	}{
		{
			name:  "model missing",
			setup: func(s *openaitest.Server) {},
			model: "qwen9:999b",
			check: func(t *testing.T, err error, _ []string) {
				if m, ok := llm.MissingModel(err); !ok || m.Model != "qwen9:999b" || m.PullCommand() != "" {
					t.Errorf("err = %v, want model missing", err)
				}
			},
		},
		{
			name:  "server down",
			setup: func(s *openaitest.Server) { s.Down() },
			check: func(t *testing.T, err error, _ []string) {
				if !errors.Is(err, llm.ErrUnavailable) {
					t.Errorf("err = %v, want ErrUnavailable", err)
				}
			},
		},
		{
			name:  "5xx",
			setup: func(s *openaitest.Server) { s.Script(openaitest.Reply{Status: http.StatusBadGateway}) },
			check: func(t *testing.T, err error, _ []string) {
				if !errors.Is(err, llm.ErrUnavailable) {
					t.Errorf("err = %v, want ErrUnavailable", err)
				}
			},
		},
		{
			name:  "401 names the key variable",
			setup: func(s *openaitest.Server) { s.RequireKey("sk-right") },
			mod:   func(c *openaicompat.Config) { c.APIKey, c.KeyVar = "sk-wrong", "OPENAI_API_KEY" },
			check: func(t *testing.T, err error, _ []string) {
				var k *llm.KeyRefusedError
				if !errors.As(err, &k) || k.KeyVar != "OPENAI_API_KEY" || k.Status != 401 || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
					t.Errorf("err = %v, want a KeyRefusedError naming OPENAI_API_KEY", err)
				}
				if strings.Contains(err.Error(), "sk-wrong") {
					t.Error("the key is in the error")
				}
			},
		},
		{
			name: "429 with a long Retry-After",
			setup: func(s *openaitest.Server) {
				s.Script(openaitest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "120", Message: "Rate limit reached"})
			},
			check: func(t *testing.T, err error, _ []string) {
				var b *llm.BusyError
				if !errors.As(err, &b) || b.RetryAfter != 120*time.Second {
					t.Errorf("err = %v, want BusyError with 120s", err)
				}
			},
		},
		{
			name:  "HTML page",
			setup: func(s *openaitest.Server) { s.Script(openaitest.Reply{HTML: true}) },
			check: func(t *testing.T, err error, _ []string) {
				var b *llm.BadAnswerError
				if !errors.As(err, &b) || !strings.Contains(err.Error(), "HTML") || !strings.Contains(err.Error(), "127.0.0.1") {
					t.Errorf("err = %v, want a BadAnswerError naming the server", err)
				}
			},
		},
		{
			name: "unexpected JSON shape",
			setup: func(s *openaitest.Server) {
				s.Script(openaitest.Reply{Chunks: []openaitest.Chunk{{Raw: `{"result":"ok","text":"こんにちは"}`}}})
			},
			check: func(t *testing.T, err error, _ []string) {
				var b *llm.BadAnswerError
				if !errors.As(err, &b) || !strings.Contains(err.Error(), "unexpected shape") {
					t.Errorf("err = %v, want a BadAnswerError", err)
				}
			},
		},
		{
			name: "stream cut mid-answer",
			setup: func(s *openaitest.Server) {
				s.Script(openaitest.Reply{Chunks: []openaitest.Chunk{{Content: "途中まで"}, {Content: "の答え"}}, Cut: true})
			},
			check: func(t *testing.T, err error, texts []string) {
				if !errors.Is(err, llm.ErrUnavailable) {
					t.Errorf("err = %v, want ErrUnavailable", err)
				}
				if strings.Join(texts, "") != "途中までの答え" {
					t.Errorf("texts = %q, want what came, once", texts)
				}
			},
		},
		{
			name:  "model refuses images",
			setup: func(s *openaitest.Server) {},
			model: blindModel,
			msgs:  []api.Message{{Role: "user", Content: "これは？", Images: []api.ImageData{png}}},
			check: func(t *testing.T, err error, _ []string) {
				var im *llm.ImagesRefusedError
				if !errors.As(err, &im) || im.Model != blindModel {
					t.Errorf("err = %v, want ImagesRefusedError", err)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			var mods []func(*openaicompat.Config)
			if tc.mod != nil {
				mods = append(mods, tc.mod)
			}
			// Capabilities are configured so the faults hit the chat call.
			mods = append(mods, func(c *openaicompat.Config) {
				c.Capabilities[toolModel] = llm.Capabilities{Tools: true, All: []string{"completion", "tools"}}
			})
			p := llm.New(llm.Options{Client: newClient(t, srv, mods...)})
			// Let Show find the model before the fault is set.
			model := tc.model
			if model == "" {
				model = toolModel
			}
			if model != "qwen9:999b" {
				if _, err := p.Capabilities(context.Background(), model); err != nil {
					t.Fatal(err)
				}
			}
			tc.setup(srv)
			msgs := tc.msgs
			if msgs == nil {
				msgs = userMsg("こんにちは")
			}
			var ev events
			_, err := p.Run(context.Background(), llm.Request{Model: model, Messages: msgs}, ev.emit)
			if err == nil {
				t.Fatal("Run succeeded")
			}
			tc.check(t, err, ev.texts())
		})
	}
}

func TestRetryAfterShortIsWaitedOnce(t *testing.T) {
	srv := newServer(t)
	srv.Script(openaitest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0.05"}, openaitest.Text("お待たせしました。"))
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	res, err := p.Run(context.Background(), llm.Request{Model: toolModel, Messages: userMsg("こんにちは")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "お待たせしました。" {
		t.Errorf("answer = %q", res.Content)
	}
	if n := len(chatRequests(srv)); n != 2 {
		t.Errorf("chat requests = %d, want 2 (the 429, then once more)", n)
	}

	// Twice busy: one retry only, then the busy error.
	srv.Script(openaitest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0"}, openaitest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0"}, openaitest.Text("not reached"))
	_, err = p.Run(context.Background(), llm.Request{Model: toolModel, Messages: userMsg("もう一度")}, nil)
	if !errors.Is(err, llm.ErrBusy) {
		t.Errorf("err = %v, want ErrBusy", err)
	}
}

func TestInvalidToolArgumentsGoBackAsError(t *testing.T) {
	srv := newServer(t)
	srv.Script(openaitest.ToolCall("call_bad", "get_weather", `{"city": "札幌"`), openaitest.Text("すみません、もう一度調べます。"))
	var called []string
	p := llm.New(llm.Options{Client: newClient(t, srv)})
	var ev events
	res, err := p.Run(context.Background(), llm.Request{Model: toolModel, Messages: userMsg("札幌の天気"), Tools: weatherTools(t, &called)}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(called) != 0 {
		t.Errorf("the tool ran with broken arguments: %q", called)
	}
	fin := ev.tools()
	if len(fin) != 1 || fin[0].Err == nil || !strings.HasPrefix(fin[0].Result, "Error: ") {
		t.Fatalf("tool results = %+v, want one Error: result", fin)
	}
	if !strings.Contains(fin[0].Result, openaicompat.InvalidArgumentsKey) {
		t.Errorf("result %q does not tell the model its arguments were not JSON", fin[0].Result)
	}
	if res.Content != "すみません、もう一度調べます。" {
		t.Errorf("answer = %q, want the loop to go on", res.Content)
	}
	msgs := chatRequests(srv)[1].Messages
	if last := msgs[len(msgs)-1]; last.ToolCallID != "call_bad" || !strings.HasPrefix(last.Content, "Error: ") {
		t.Errorf("tool message = %+v", last)
	}
}

func TestNonStreamingChat(t *testing.T) {
	srv := newServer(t)
	srv.Script(openaitest.Reply{Chunks: []openaitest.Chunk{{Reasoning: "考え中"}, {Content: "要約です。"}}})
	c := newClient(t, srv)
	stream := false
	var got []api.ChatResponse
	err := c.Chat(context.Background(), &api.ChatRequest{Model: toolModel, Messages: userMsg("要約して"), Stream: &stream}, func(r api.ChatResponse) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Done || got[0].Message.Content != "要約です。" || got[0].Message.Thinking != "考え中" || got[0].Metrics.EvalCount != 1 {
		t.Errorf("responses = %+v", got)
	}
}

func TestNewRefusesBadBaseURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8080/v1", "ftp://host/v1", "http://"} {
		if _, err := openaicompat.New(openaicompat.Config{BaseURL: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
}

func ExampleNew() {
	c, err := openaicompat.New(openaicompat.Config{
		BaseURL:      "http://127.0.0.1:8080/v1",
		Capabilities: openaicompat.Capabilities(map[string][]string{"qwen3-vl-8b": {"vision", "tools"}}),
	})
	fmt.Println(c.Server(), err)
	// Output: http://127.0.0.1:8080/v1 <nil>
}
