package metrics

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

func TestRouteGroup(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/api/v10/channels/123/messages", "messages"},
		{"/api/v10/channels/123/messages/456", "messages"},
		{"/api/v10/channels/123/typing", "typing"},
		{"/api/v10/channels/123", "channels"},
		{"/api/v10/webhooks/1/secret-token", "webhooks"},
		{"/api/v10/interactions/1/tok/callback", "interactions"},
		{"/api/v10/applications/1/commands", "commands"},
		{"/api/v10/gateway", "gateway"},
		{"/api/v10/users/@me", "users"},
		{"/proxy/api/v9/guilds/1", "guilds"},
		{"/api/v10/stickers", "other"},
		{"/", "other"},
	} {
		if got := RouteGroup(tc.path); got != tc.want {
			t.Errorf("RouteGroup(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestStatsOfTheLastHour: turns older than an hour drop out; percentiles
// are over the turns that showed text.
func TestStatsOfTheLastHour(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	m := New(Options{Now: func() time.Time { return now }, QueueLength: func() int { return 3 }})
	answer := func(first time.Duration, err error) chat.Handler {
		return chat.HandlerFunc(func(_ context.Context, _ chat.Request, emit func(llm.Event) error) error {
			if first >= 0 {
				now = now.Add(first)
				_ = emit(llm.Text{Text: "x"})
			}
			return err
		})
	}
	run := func(h chat.Handler) {
		_ = m.Turns("chat", h).Handle(context.Background(), chat.Request{Source: "discord"}, nil)
	}
	run(answer(50*time.Second, nil)) // will be older than an hour
	now = now.Add(2 * time.Hour)
	for i := 1; i <= 20; i++ {
		run(answer(time.Duration(i)*time.Second, nil))
	}
	run(answer(-1, errors.New("ollama down")))
	run(answer(-1, context.Canceled))
	m.LLMCall(llm.Call{Model: "m", CompletionTokens: 100, EvalDuration: 4 * time.Second})
	m.LLMCall(llm.Call{Model: "m", CompletionTokens: 50, EvalDuration: time.Second})

	st := m.Stats()
	if st.TextTurns != 20 || st.QueueLength != 3 {
		t.Errorf("turns with text %d, queue %d; want 20, 3", st.TextTurns, st.QueueLength)
	}
	if st.FirstTextP50 != 10*time.Second || st.FirstTextP95 != 19*time.Second {
		t.Errorf("first text p50 %s p95 %s; want 10s and 19s", st.FirstTextP50, st.FirstTextP95)
	}
	if st.TokensPerSecond != 30 {
		t.Errorf("tokens/s = %g, want 30", st.TokensPerSecond)
	}
}

// A turn that was not admitted (its message claimed elsewhere, or not yet)
// is no turn: it is counted when it runs again.
func TestTurnsNotAdmittedAreNotCounted(t *testing.T) {
	m := New(Options{})
	notAdmitted := chat.HandlerFunc(func(context.Context, chat.Request, func(llm.Event) error) error {
		return fmt.Errorf("chat: %w: %w", chat.ErrNotAdmitted, errors.New("mention not claimed"))
	})
	err := m.Turns("chat", notAdmitted).Handle(context.Background(), chat.Request{Source: "discord"}, nil)
	if !errors.Is(err, chat.ErrNotAdmitted) {
		t.Fatalf("Handle = %v, want the handler's error", err)
	}
	_ = m.Turns("chat", chat.HandlerFunc(func(context.Context, chat.Request, func(llm.Event) error) error { return nil })).
		Handle(context.Background(), chat.Request{Source: "discord"}, nil)
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		if f.GetName() == "yorozu_turns_total" {
			for _, s := range f.Metric {
				for _, l := range s.Label {
					if l.GetName() == "outcome" {
						got[l.GetValue()] += s.Counter.GetValue()
					}
				}
			}
		}
	}
	if len(got) != 1 || got["ok"] != 1 {
		t.Errorf("turns by outcome = %v, want one ok", got)
	}
}

func TestUnknownToolsShareOneLabel(t *testing.T) {
	m := New(Options{})
	m.SetTools([]string{"web_search"})
	m.toolFinished(llm.ToolFinished{Name: "web_search"})
	m.toolFinished(llm.ToolFinished{Name: "made_up_by_the_model", Err: errors.New("unknown tool")})
	// As the pipeline reports a tool it gave up on.
	m.toolFinished(llm.ToolFinished{Name: "web_search", Err: fmt.Errorf("web_search %w after 60s", llm.ErrToolTimeout)})
	m.toolFinished(llm.ToolFinished{Name: "web_search", Err: context.DeadlineExceeded})
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != "yorozu_tool_calls_total" {
			continue
		}
		for _, s := range f.Metric {
			got[s.Label[1].GetValue()+"/"+s.Label[0].GetValue()] = s.Counter.GetValue()
		}
	}
	want := map[string]float64{"web_search/ok": 1, "web_search/timeout": 2, "unknown/error": 1}
	if len(got) != len(want) {
		t.Fatalf("tool series = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("tool series = %v, want %v", got, want)
		}
	}
}
