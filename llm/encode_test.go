package llm_test

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// encodedTools is a toolSet that keeps its definitions' JSON, as
// tools.Registry does; json is what it hands out.
type encodedTools struct {
	*toolSet
	json []byte
}

var _ llm.EncodedTools = encodedTools{}

func (e encodedTools) DefinitionsJSON() []byte { return e.json }

// A ToolSet that keeps its definitions' JSON has those bytes sent as the
// request's tools, on every round, and kept in the call log; the request
// reads as the one encoded whole.
func TestRunSendsTheToolsJSONKept(t *testing.T) {
	srv := newServer(t)
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	client := llm.NewClient(u, nil)
	call := ollamatest.Call("weather", map[string]any{"q": "東京"})
	srv.Script(ollamatest.ToolCalls(call), ollamatest.Text("晴れです"))
	ts := newTools(func(string, map[string]any) (string, error) { return "晴れ", nil }, "weather", "news")
	// The kept JSON says something the definitions do not, so what the
	// server gets shows which was sent.
	kept := slices.Clone(ts.Definitions())
	kept[0].Function.Description = "kept JSON"
	b, err := json.Marshal(kept)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	p := llm.New(llm.Options{Client: client, Recorder: rec})
	var ev events
	if _, err := p.Run(t.Context(), llm.Request{Model: toolModel, Messages: userMsg("天気は？"), Tools: encodedTools{ts, b}}, ev.emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("chat calls = %d, want 2", len(reqs))
	}
	for i, r := range reqs {
		if len(r.Tools) != 2 || r.Tools[0].Function.Description != "kept JSON" || r.Tools[1].Function.Name != "news" {
			t.Errorf("call %d offered %+v", i, r.Tools)
		}
	}
	calls := rec.all()
	if len(calls) != 2 {
		t.Fatalf("recorded %d calls", len(calls))
	}
	var logged api.ChatRequest
	if err := json.Unmarshal(calls[0].Request, &logged); err != nil {
		t.Fatalf("logged request %s: %v", calls[0].Request, err)
	}
	if !reflect.DeepEqual(logged, reqs[0]) {
		t.Errorf("the call log keeps\n%+v\nthe server got\n%+v", logged, reqs[0])
	}
}

// The body with the tools' JSON put in reads as json.Marshal of the whole
// request, and costs a fraction of it.
func BenchmarkChatBody(b *testing.B) {
	srv := newServer(b)
	u, _ := url.Parse(srv.URL())
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	ts := newTools(func(string, map[string]any) (string, error) { return "", nil }, names...)
	kept, _ := json.Marshal(ts.Definitions())
	for _, tc := range []struct {
		name  string
		tools llm.ToolSet
	}{{"encoded each call", ts}, {"kept", encodedTools{ts, kept}}} {
		b.Run(tc.name, func(b *testing.B) {
			srv.Handle(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("はい") })
			p := llm.New(llm.Options{Client: llm.NewClient(u, nil)})
			req := llm.Request{Model: toolModel, Messages: userMsg("ベンチマーク"), Tools: tc.tools}
			for b.Loop() {
				if _, err := p.Run(context.Background(), req, func(llm.Event) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
