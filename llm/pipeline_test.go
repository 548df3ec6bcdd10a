package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

const (
	toolModel  = "tooly:latest"
	plainModel = "plain:latest"
	thinkModel = "thinker:latest"
)

func newServer(t testing.TB) *ollamatest.Server {
	srv := ollamatest.New(t)
	srv.AddModel(toolModel, "completion", "tools")
	srv.AddModel(plainModel, "completion")
	srv.AddModel(thinkModel, "completion", "tools", "thinking")
	return srv
}

func newPipeline(srv *ollamatest.Server, rec llm.Recorder) *llm.Pipeline {
	return llm.New(llm.Options{Client: srv.Client(), Recorder: rec})
}

func userMsg(text string) []api.Message {
	return []api.Message{{Role: "system", Content: "あなたは親切なボットです。"}, {Role: "user", Content: text}}
}

// events collects what a turn emitted; safe to read while the turn runs.
type events struct {
	mu   sync.Mutex
	list []llm.Event
	on   func(llm.Event)
}

func (e *events) emit(ev llm.Event) error {
	e.mu.Lock()
	e.list = append(e.list, ev)
	on := e.on
	e.mu.Unlock()
	if on != nil {
		on(ev)
	}
	return nil
}

func (e *events) all() []llm.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

func (e *events) texts() []string {
	var out []string
	for _, ev := range e.all() {
		if t, ok := ev.(llm.Text); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

func (e *events) thinking() string {
	var b strings.Builder
	for _, ev := range e.all() {
		if t, ok := ev.(llm.Thinking); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func (e *events) last() llm.Event {
	all := e.all()
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}

// toolSet is a hand-written ToolSet for tests.
type toolSet struct {
	mu    sync.Mutex
	defs  api.Tools
	fn    func(name string, args map[string]any) (string, error)
	calls []string // "name {args}"
}

var _ llm.ToolSet = (*toolSet)(nil)

func newTools(fn func(name string, args map[string]any) (string, error), names ...string) *toolSet {
	ts := &toolSet{fn: fn}
	for _, n := range names {
		props := api.NewToolPropertiesMap()
		props.Set("q", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "query"})
		ts.defs = append(ts.defs, api.Tool{Type: "function", Function: api.ToolFunction{
			Name: n, Description: "looks things up",
			Parameters: api.ToolFunctionParameters{Type: "object", Properties: props, Required: []string{"q"}},
		}})
	}
	return ts
}

func (ts *toolSet) Definitions() api.Tools { return ts.defs }

func (ts *toolSet) Call(_ context.Context, name string, raw json.RawMessage) (string, error) {
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", fmt.Errorf("bad arguments %s: %w", raw, err)
	}
	ts.mu.Lock()
	ts.calls = append(ts.calls, name+" "+string(raw))
	ts.mu.Unlock()
	return ts.fn(name, args)
}

func (ts *toolSet) called() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Clone(ts.calls)
}

// recorder keeps every call; fail makes RecordCall return an error.
type recorder struct {
	mu    sync.Mutex
	calls []llm.Call
	fail  bool
}

var _ llm.Recorder = (*recorder)(nil)

func (r *recorder) RecordCall(_ context.Context, c llm.Call) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	if r.fail {
		return errors.New("database is gone")
	}
	return nil
}

func (r *recorder) all() []llm.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func TestRunStreamsAnswer(t *testing.T) {
	tests := []struct {
		name         string
		model        string
		reply        ollamatest.Reply
		wantTexts    []string
		wantContent  string
		wantThinking string
	}{
		{
			name:        "chunks in order",
			model:       toolModel,
			reply:       ollamatest.Text("こんにちは", "、", "世界！"),
			wantTexts:   []string{"こんにちは", "、", "世界！"},
			wantContent: "こんにちは、世界！",
		},
		{
			name:  "thinking field never shown",
			model: thinkModel,
			reply: ollamatest.Reply{Chunks: []ollamatest.Chunk{
				{Thinking: "ユーザーは挨拶している"}, {Thinking: "。返そう"}, {Content: "やあ"},
			}},
			wantTexts:    []string{"やあ"},
			wantContent:  "やあ",
			wantThinking: "ユーザーは挨拶している。返そう",
		},
		{
			name:         "think tags split across chunks",
			model:        toolModel,
			reply:        ollamatest.Text("<thi", "nk>秘密の", "推論</th", "ink>\n\n答え", "は42"),
			wantTexts:    []string{"答え", "は42"},
			wantContent:  "答えは42",
			wantThinking: "秘密の推論",
		},
		{
			name:         "unclosed think never leaks",
			model:        toolModel,
			reply:        ollamatest.Text("<think>ずっと考え", "ている"),
			wantContent:  "",
			wantThinking: "ずっと考えている",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Script(tc.reply)
			var ev events
			res, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: tc.model, Messages: userMsg("hi")}, ev.emit)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := ev.texts(); !slices.Equal(got, tc.wantTexts) {
				t.Errorf("Text events = %q, want %q", got, tc.wantTexts)
			}
			if res.Content != tc.wantContent {
				t.Errorf("Content = %q, want %q", res.Content, tc.wantContent)
			}
			if got := ev.thinking(); got != tc.wantThinking {
				t.Errorf("Thinking = %q, want %q", got, tc.wantThinking)
			}
			if _, ok := ev.last().(llm.Done); !ok {
				t.Errorf("last event = %#v, want Done", ev.last())
			}
			if n := srv.ChatCalls(); n != 1 {
				t.Errorf("chat calls = %d, want exactly 1", n)
			}
		})
	}
}

// A user sees the first words while the model is still writing.
func TestRunStreamsBeforeReplyEnds(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	srv.Script(ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "first"}, {Content: " second", Wait: release}}})
	var once sync.Once
	ev := events{on: func(e llm.Event) {
		if _, ok := e.(llm.Text); ok {
			once.Do(func() { close(release) }) // only reachable if chunk 1 arrived alone
		}
	}}
	res, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("hi")}, ev.emit)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Content != "first second" {
		t.Errorf("Content = %q", res.Content)
	}
}

func TestRunThinkFlag(t *testing.T) {
	think := &api.ThinkValue{Value: true}
	for _, tc := range []struct {
		model string
		want  bool
	}{{thinkModel, true}, {toolModel, false}} {
		t.Run(tc.model, func(t *testing.T) {
			srv := newServer(t)
			_, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: tc.model, Messages: userMsg("hi"), Think: think}, (&events{}).emit)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := srv.Requests()[0].Think != nil; got != tc.want {
				t.Errorf("think sent = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRunToolRound(t *testing.T) {
	tests := []struct {
		name       string
		toolErr    error
		wantResult string
	}{
		{name: "result goes back as tool message", wantResult: "東京は晴れ"},
		{name: "tool error goes back and loop continues", toolErr: errors.New("service down"), wantResult: "Error: service down"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			call := ollamatest.Call("weather", map[string]any{"q": "東京"})
			call.ID = "call_1"
			srv.Script(ollamatest.ToolCalls(call), ollamatest.Text("晴れです"))
			ts := newTools(func(string, map[string]any) (string, error) {
				if tc.toolErr != nil {
					return "", tc.toolErr
				}
				return "東京は晴れ", nil
			}, "weather")
			var ev events
			res, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("天気は？"), Tools: ts}, ev.emit)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := ts.called(); !slices.Equal(got, []string{`weather {"q":"東京"}`}) {
				t.Errorf("tool calls = %q", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("chat calls = %d, want 2", len(reqs))
			}
			if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "weather" {
				t.Errorf("first call offered tools %v", reqs[0].Tools)
			}
			msgs := reqs[1].Messages
			back := msgs[len(msgs)-1]
			if back.Role != "tool" || back.ToolName != "weather" || back.ToolCallID != "call_1" || back.Content != tc.wantResult {
				t.Errorf("tool message = %+v, want role tool, weather, call_1, %q", back, tc.wantResult)
			}
			if asst := msgs[len(msgs)-2]; asst.Role != "assistant" || len(asst.ToolCalls) != 1 {
				t.Errorf("assistant tool call not sent back: %+v", asst)
			}
			if res.Content != "晴れです" {
				t.Errorf("Content = %q", res.Content)
			}
			var started, finished int
			for _, e := range ev.all() {
				switch e := e.(type) {
				case llm.ToolStarted:
					started++
					if e.Name != "weather" || e.Arguments != `{"q":"東京"}` {
						t.Errorf("ToolStarted = %+v", e)
					}
				case llm.ToolFinished:
					finished++
					if e.Result != tc.wantResult || (e.Err != nil) != (tc.toolErr != nil) {
						t.Errorf("ToolFinished = %+v", e)
					}
				}
			}
			if started != 1 || finished != 1 {
				t.Errorf("started %d finished %d, want 1 and 1", started, finished)
			}
			roles := []string{}
			for _, m := range res.Messages {
				roles = append(roles, m.Role)
			}
			if !slices.Equal(roles, []string{"assistant", "tool", "assistant"}) {
				t.Errorf("Result.Messages roles = %v", roles)
			}
		})
	}
}

func TestRunToolResultsTrimmed(t *testing.T) {
	srv := newServer(t)
	srv.Script(ollamatest.ToolCalls(ollamatest.Call("page", map[string]any{"q": "x"})), ollamatest.Text("ok"))
	long := strings.Repeat("とても長い文章です。", 1000) + "\n---page-info---\nhas_more: true\nnext_token: abc"
	ts := newTools(func(string, map[string]any) (string, error) { return long, nil }, "page")
	if _, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("読んで"), Tools: ts}, (&events{}).emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	msgs := srv.Requests()[1].Messages
	got := msgs[len(msgs)-1].Content
	if n := runes(got); n > llm.MaxResultChars {
		t.Errorf("tool result sent with %d runes, over %d", n, llm.MaxResultChars)
	}
	if !strings.HasSuffix(got, "です。"+llm.TruncationMarker+"\n---page-info---\nhas_more: true\nnext_token: abc") {
		t.Errorf("trimmed result ends %q", got[len(got)-120:])
	}
}

// TestRunToolResultsTrimmedAcrossRounds: the 24,000 characters are for all
// tool results of the turn, however many rounds it takes; page-info footers
// survive every cut.
func TestRunToolResultsTrimmedAcrossRounds(t *testing.T) {
	srv := newServer(t)
	srv.Handle(func(req api.ChatRequest) ollamatest.Reply {
		if len(req.Tools) > 0 {
			return ollamatest.ToolCalls(ollamatest.Call("page", map[string]any{"q": "a"}), ollamatest.Call("page", map[string]any{"q": "b"}))
		}
		return ollamatest.Text("まとめました")
	})
	const footer = "\n---page-info---\nhas_more: true\nnext_token: abc"
	long := strings.Repeat("長い文章です。", 2000) + footer
	ts := newTools(func(string, map[string]any) (string, error) { return long, nil }, "page")
	if _, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("読んで"), Tools: ts}, (&events{}).emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	total, results := 0, 0
	for _, m := range last {
		if m.Role != "tool" {
			continue
		}
		results++
		total += runes(m.Content)
		if !strings.HasSuffix(m.Content, llm.TruncationMarker+footer) {
			t.Errorf("result %d lost its cut marker or footer: …%q", results, m.Content[max(0, len(m.Content)-80):])
		}
	}
	if results != 2*llm.MaxToolRounds {
		t.Fatalf("%d tool results in the last request, want %d", results, 2*llm.MaxToolRounds)
	}
	// Footers are kept whole even once the budget is spent.
	if limit := llm.MaxTurnChars + results*runes(llm.TruncationMarker+footer); total > limit {
		t.Errorf("the turn's tool results total %d runes, over %d", total, limit)
	}
	if total < llm.MaxTurnChars/2 {
		t.Errorf("the turn's tool results total only %d runes: the budget was not used", total)
	}
}

// TestRunToolTimeout: a tool that hangs, whether or not it heeds its
// context, is given up at the tool timeout; the model is told so and the
// turn goes on to an answer.
func TestRunToolTimeout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		heedsCtx bool
		timeout  time.Duration
		want     string
	}{
		{"tool heeds its context", true, 50 * time.Millisecond, "Error: hang timed out after 50ms"},
		{"tool ignores its context", false, time.Second, "Error: hang timed out after 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Script(ollamatest.ToolCalls(ollamatest.Call("hang", map[string]any{"q": "x"})), ollamatest.Text("ツールが応答しませんでした"))
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			ts := &ctxTools{toolSet: newTools(nil, "hang"), fn: func(ctx context.Context) (string, error) {
				if tc.heedsCtx {
					<-ctx.Done()
					return "", ctx.Err()
				}
				<-release
				return "too late", nil
			}}
			p := llm.New(llm.Options{Client: srv.Client(), ToolTimeout: tc.timeout})
			var ev events
			res, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("調べて"), Tools: ts}, ev.emit)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			msgs := srv.Requests()[1].Messages
			if back := msgs[len(msgs)-1]; back.Role != "tool" || back.Content != tc.want {
				t.Errorf("tool message = %+v, want %q", back, tc.want)
			}
			if res.Content != "ツールが応答しませんでした" {
				t.Errorf("Content = %q", res.Content)
			}
			var finished []llm.ToolFinished
			for _, e := range ev.all() {
				if f, ok := e.(llm.ToolFinished); ok {
					finished = append(finished, f)
				}
			}
			if len(finished) != 1 || !errors.Is(finished[0].Err, llm.ErrToolTimeout) {
				t.Errorf("ToolFinished = %+v, want one with ErrToolTimeout", finished)
			}
		})
	}
}

// ctxTools is a tool set whose calls run fn with the call's context.
type ctxTools struct {
	*toolSet
	fn func(ctx context.Context) (string, error)
}

func (c *ctxTools) Call(ctx context.Context, _ string, _ json.RawMessage) (string, error) {
	return c.fn(ctx)
}

func TestRunToolRoundCap(t *testing.T) {
	srv := newServer(t)
	srv.Handle(func(req api.ChatRequest) ollamatest.Reply {
		if len(req.Tools) > 0 {
			return ollamatest.ToolCalls(ollamatest.Call("search", map[string]any{"q": "more"}))
		}
		return ollamatest.Text("これで答えます")
	})
	ts := newTools(func(string, map[string]any) (string, error) { return "nothing new", nil }, "search")
	res, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("調べて"), Tools: ts}, (&events{}).emit)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != llm.MaxToolRounds+1 {
		t.Fatalf("chat calls = %d, want %d", len(reqs), llm.MaxToolRounds+1)
	}
	for i, r := range reqs {
		if offered := len(r.Tools) > 0; offered != (i < llm.MaxToolRounds) {
			t.Errorf("call %d offered tools = %v", i+1, offered)
		}
	}
	if n := len(ts.called()); n != llm.MaxToolRounds {
		t.Errorf("tool ran %d times, want %d", n, llm.MaxToolRounds)
	}
	if res.Content != "これで答えます" || res.Metrics.Calls != llm.MaxToolRounds+1 {
		t.Errorf("Content %q calls %d", res.Content, res.Metrics.Calls)
	}
}

func TestRunStructuredFallback(t *testing.T) {
	srv := newServer(t)
	srv.Script(
		ollamatest.Text(`{"tool_calls":[{"name":"weather","arguments":{"q":"大阪"}}],`, `"answer":""}`),
		ollamatest.Text(`{"tool_calls":[],"answer":"大阪は雨です"}`),
	)
	ts := newTools(func(string, map[string]any) (string, error) { return "大阪は雨", nil }, "weather", "news")
	var ev events
	res, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: plainModel, Messages: userMsg("大阪の天気"), Tools: ts}, ev.emit)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("chat calls = %d, want 2", len(reqs))
	}
	first := reqs[0]
	if len(first.Tools) != 0 {
		t.Errorf("native tools sent to a model without tools capability")
	}
	var schema struct {
		Properties struct {
			ToolCalls struct {
				Items struct {
					Properties struct {
						Name struct {
							Enum []string `json:"enum"`
						} `json:"name"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"tool_calls"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(first.Format, &schema); err != nil {
		t.Fatalf("format %s: %v", first.Format, err)
	}
	if got := schema.Properties.ToolCalls.Items.Properties.Name.Enum; !slices.Equal(got, []string{"weather", "news"}) {
		t.Errorf("format enum = %v (format %s)", got, first.Format)
	}
	if first.Messages[0].Role != "system" || first.Messages[1].Role != "system" || !strings.Contains(first.Messages[1].Content, `"weather"`) {
		t.Errorf("tool instructions missing after the system prompt: %+v", first.Messages[:2])
	}
	if got := ts.called(); !slices.Equal(got, []string{`weather {"q":"大阪"}`}) {
		t.Errorf("tool calls = %q", got)
	}
	back := reqs[1].Messages[len(reqs[1].Messages)-1]
	if back.Role != "user" || back.Content != "Tool result (weather):\n大阪は雨" {
		t.Errorf("tool result sent as %+v", back)
	}
	if got := ev.texts(); !slices.Equal(got, []string{"大阪は雨です"}) || res.Content != "大阪は雨です" {
		t.Errorf("texts %q content %q", got, res.Content)
	}
	if len(res.Messages) != 3 || res.Messages[1].Role != "tool" || res.Messages[0].ToolCalls[0].Function.Name != "weather" {
		t.Errorf("Result.Messages not in native form: %+v", res.Messages)
	}
}

func TestCapabilitiesCached(t *testing.T) {
	srv := newServer(t)
	p := newPipeline(srv, nil)
	for range 3 {
		if _, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("hi")}, (&events{}).emit); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	if n := srv.ShowCalls(); n != 1 {
		t.Errorf("show calls = %d, want 1", n)
	}
	if n := srv.ChatCalls(); n != 3 {
		t.Errorf("chat calls = %d, want 3 (one per reply without tools)", n)
	}
	caps, err := p.Capabilities(t.Context(), thinkModel)
	if err != nil || !caps.Tools || !caps.Thinking || caps.Vision {
		t.Errorf("Capabilities(%s) = %+v, %v", thinkModel, caps, err)
	}
}

func TestRunModelNotFound(t *testing.T) {
	srv := newServer(t)
	p := newPipeline(srv, nil)
	check := func(t *testing.T, model string) {
		t.Helper()
		var ev events
		_, err := p.Run(t.Context(), llm.Request{Model: model, Messages: userMsg("hi")}, ev.emit)
		if !errors.Is(err, llm.ErrModelNotFound) {
			t.Fatalf("err = %v, want ErrModelNotFound", err)
		}
		if m, ok := llm.MissingModel(err); !ok || m.Model != model {
			t.Errorf("MissingModel(%v) = %+v, %v; want the model %s", err, m, ok, model)
		}
		if want := "ollama pull " + model; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name the command %q", err, want)
		}
		if f, ok := ev.last().(llm.Failed); !ok || f.Err != err {
			t.Errorf("last event = %#v, want Failed with the error", ev.last())
		}
	}
	t.Run("unknown at show", func(t *testing.T) {
		check(t, "missing:7b")
		if n := srv.ChatCalls(); n != 0 {
			t.Errorf("chat calls = %d, want 0", n)
		}
		srv.AddModel("missing:7b", "completion") // pulled now: not cached as missing
		if _, err := p.Run(t.Context(), llm.Request{Model: "missing:7b", Messages: userMsg("hi")}, (&events{}).emit); err != nil {
			t.Errorf("after pull: %v", err)
		}
	})
	t.Run("no tag", func(t *testing.T) { check(t, "llama3") })
	t.Run("removed after capabilities were cached", func(t *testing.T) {
		srv.RemoveModel("missing:7b")
		check(t, "missing:7b")
	})
}

func TestRunOllamaUnavailable(t *testing.T) {
	tests := []struct {
		name    string
		break_  func(srv *ollamatest.Server)
		restore func(srv *ollamatest.Server)
	}{
		{name: "connection refused", break_: (*ollamatest.Server).Down, restore: (*ollamatest.Server).Up},
		{name: "server error", break_: func(s *ollamatest.Server) { s.Status(503) }, restore: func(s *ollamatest.Server) { s.Status(0) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			p := newPipeline(srv, nil)
			run := func() (llm.Result, error) {
				return p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("ping")}, (&events{}).emit)
			}
			if _, err := run(); err != nil { // warm connection and cache
				t.Fatalf("first Run: %v", err)
			}
			tc.break_(srv)
			if _, err := run(); !errors.Is(err, llm.ErrUnavailable) {
				t.Fatalf("err = %v, want ErrUnavailable", err)
			}
			tc.restore(srv)
			res, err := run()
			if err != nil || res.Content != "ping" {
				t.Fatalf("after recovery: %q, %v", res.Content, err)
			}
		})
	}
	t.Run("down before the first show", func(t *testing.T) {
		srv := newServer(t)
		srv.Down()
		_, err := newPipeline(srv, nil).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("ping")}, (&events{}).emit)
		if !errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
	})
}

func TestRunMidStreamFailure(t *testing.T) {
	tests := []struct {
		name  string
		reply ollamatest.Reply
	}{
		{name: "error line", reply: ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "途中まで"}, {Error: "model runner crashed"}}}},
		{name: "connection cut", reply: ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "途中まで"}}, Cut: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Script(tc.reply)
			rec := &recorder{}
			var ev events
			_, err := newPipeline(srv, rec).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("hi")}, ev.emit)
			if !errors.Is(err, llm.ErrUnavailable) {
				t.Fatalf("err = %v, want ErrUnavailable", err)
			}
			if _, ok := ev.last().(llm.Failed); !ok {
				t.Errorf("last event = %#v, want Failed", ev.last())
			}
			if calls := rec.all(); len(calls) != 1 || calls[0].Err == "" {
				t.Errorf("failed call not recorded with its error: %+v", calls)
			}
		})
	}
}

func TestRunQueue(t *testing.T) {
	srv := newServer(t)
	p := llm.New(llm.Options{Client: srv.Client(), Concurrency: 1})
	arrived := make(chan string, 3)
	gates := map[string]chan struct{}{"A": make(chan struct{}), "B": make(chan struct{}), "C": make(chan struct{})}
	srv.Handle(func(req api.ChatRequest) ollamatest.Reply {
		who := req.Messages[len(req.Messages)-1].Content
		arrived <- who
		return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: who}}, Gate: gates[who]}
	})
	type outcome struct {
		res llm.Result
		err error
	}
	start := func(ctx context.Context, who string, ev *events) chan outcome {
		done := make(chan outcome, 1)
		go func() {
			res, err := p.Run(ctx, llm.Request{Model: toolModel, Messages: userMsg(who)}, ev.emit)
			done <- outcome{res, err}
		}()
		return done
	}
	queued := func(ev *events) chan int {
		ch := make(chan int, 8)
		ev.on = func(e llm.Event) {
			if q, ok := e.(llm.Queued); ok {
				ch <- q.Position
			}
		}
		return ch
	}
	// Warm the capability cache so all three turns go straight to chat.
	if _, err := p.Capabilities(t.Context(), toolModel); err != nil {
		t.Fatal(err)
	}

	evA := &events{}
	doneA := start(t.Context(), "A", evA)
	if who := <-arrived; who != "A" {
		t.Fatalf("first at Ollama: %s", who)
	}
	evB, evC := &events{}, &events{}
	qB, qC := queued(evB), queued(evC)
	ctxB, cancelB := context.WithCancel(t.Context())
	doneB := start(ctxB, "B", evB)
	if pos := <-qB; pos != 1 {
		t.Fatalf("B queued at %d, want 1", pos)
	}
	doneC := start(t.Context(), "C", evC)
	if pos := <-qC; pos != 2 {
		t.Fatalf("C queued at %d, want 2", pos)
	}
	if n := p.QueueLen(); n != 2 {
		t.Errorf("QueueLen = %d, want 2", n)
	}
	cancelB() // B gives up; C moves up
	if out := <-doneB; !errors.Is(out.err, context.Canceled) {
		t.Errorf("B err = %v, want context.Canceled", out.err)
	}
	if pos := <-qC; pos != 1 {
		t.Errorf("C moved to %d, want 1", pos)
	}
	close(gates["A"])
	if out := <-doneA; out.err != nil || out.res.Content != "A" {
		t.Errorf("A = %q, %v", out.res.Content, out.err)
	}
	if who := <-arrived; who != "C" {
		t.Fatalf("next at Ollama: %s, want C", who)
	}
	close(gates["C"])
	if out := <-doneC; out.err != nil || out.res.Content != "C" {
		t.Errorf("C = %q, %v", out.res.Content, out.err)
	}
	if n := p.QueueLen(); n != 0 {
		t.Errorf("QueueLen = %d after all turns, want 0", n)
	}
	if n := srv.ChatCalls(); n != 2 {
		t.Errorf("chat calls = %d, want 2 (B never reached Ollama)", n)
	}
	if _, ok := evA.all()[0].(llm.Queued); ok {
		t.Errorf("A was queued although a slot was free")
	}
}

// TestBackgroundWaitsBehindTurns: housekeeping that queued first still lets
// a user's turn that arrives later go before it.
func TestBackgroundWaitsBehindTurns(t *testing.T) {
	srv := newServer(t)
	p := llm.New(llm.Options{Client: srv.Client(), Concurrency: 1})
	if _, err := p.Capabilities(t.Context(), toolModel); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	var mu sync.Mutex
	var order []string
	srv.Handle(func(req api.ChatRequest) ollamatest.Reply {
		who := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		order = append(order, who)
		mu.Unlock()
		if who == "A" {
			return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: who}}, Gate: gate}
		}
		return ollamatest.Text(who)
	})
	run := func(who string, ev *events) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg(who)}, ev.emit)
			done <- err
		}()
		return done
	}
	doneA := run("A", &events{})
	waitFor(t, func() bool { return srv.ChatCalls() == 1 })

	bgDone := make(chan error, 1)
	go func() {
		bgDone <- p.Background(t.Context(), func(ctx context.Context) error {
			mu.Lock()
			order = append(order, "background")
			mu.Unlock()
			return nil
		})
	}()
	waitFor(t, func() bool { return p.QueueLen() == 1 })

	evB := &events{}
	queuedB := make(chan int, 4)
	evB.on = func(e llm.Event) {
		if q, ok := e.(llm.Queued); ok {
			queuedB <- q.Position
		}
	}
	doneB := run("B", evB)
	if pos := <-queuedB; pos != 1 {
		t.Errorf("B queued at %d, want 1 (ahead of the background call)", pos)
	}
	close(gate)
	for _, ch := range []chan error{doneA, doneB, bgDone} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(order, ","); got != "A,B,background" {
		t.Errorf("order = %s, want A,B,background", got)
	}
}

func TestRecorder(t *testing.T) {
	srv := newServer(t)
	first := ollamatest.ToolCalls(ollamatest.Call("weather", map[string]any{"q": "札幌"}))
	first.Metrics = api.Metrics{PromptEvalCount: 120, EvalCount: 15, TotalDuration: time.Second}
	second := ollamatest.Text("雪です")
	second.Metrics = api.Metrics{PromptEvalCount: 160, EvalCount: 8, TotalDuration: 2 * time.Second}
	srv.Script(first, second)
	rec := &recorder{fail: true} // a failing recorder must not fail the turn
	ts := newTools(func(string, map[string]any) (string, error) { return "雪", nil }, "weather")
	var ev events
	res, err := newPipeline(srv, rec).Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("札幌"), Tools: ts}, ev.emit)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	calls := rec.all()
	if len(calls) != 2 {
		t.Fatalf("recorded %d calls, want 2", len(calls))
	}
	want := []struct {
		prompt, completion int
		response           string
	}{{120, 15, `[tool_call] weather {"q":"札幌"}`}, {160, 8, "雪です"}}
	for i, c := range calls {
		if c.Model != toolModel || c.PromptTokens != want[i].prompt || c.CompletionTokens != want[i].completion || c.Response != want[i].response || c.Err != "" {
			t.Errorf("call %d = %+v", i, c)
		}
		var sent api.ChatRequest
		if err := json.Unmarshal(c.Request, &sent); err != nil || sent.Model != toolModel {
			t.Errorf("call %d request %s: %v", i, c.Request, err)
		}
	}
	wantM := llm.Metrics{Calls: 2, PromptTokens: 280, CompletionTokens: 23, Total: 3 * time.Second}
	got := res.Metrics
	got.Wall = 0
	if got != wantM {
		t.Errorf("Metrics = %+v, want %+v", got, wantM)
	}
	if d, ok := ev.last().(llm.Done); !ok || d.Metrics != res.Metrics {
		t.Errorf("Done = %#v, want metrics %+v", ev.last(), res.Metrics)
	}
}

func BenchmarkRunNoTools(b *testing.B) {
	srv := newServer(b)
	p := newPipeline(srv, nil)
	req := llm.Request{Model: toolModel, Messages: userMsg("ベンチマークの答えを返してください")}
	emit := func(llm.Event) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Run(context.Background(), req, emit); err != nil {
			b.Fatal(err)
		}
	}
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}
