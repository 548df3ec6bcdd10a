package chat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

type echoArgs struct {
	Word  string `json:"word" jsonschema_description:"the word to shout"`
	Times int    `json:"times,omitempty" jsonschema:"default=2"`
}

// newConversation wires the real registry, pipeline and memory to a fake
// Ollama, as serve does.
func newConversation(t *testing.T) (*Conversation, *ollamatest.Server, *[]tools.Caller) {
	t.Helper()
	srv := ollamatest.New(t)
	srv.AddModel("qwen3:4b", "completion", "tools")
	var mu sync.Mutex
	var callers []tools.Caller
	reg := tools.NewRegistry()
	reg.MustRegister(tools.MustNew("shout", "Repeat a word loudly.", func(ctx context.Context, a echoArgs) (string, error) {
		c, _ := tools.CallerFrom(ctx)
		mu.Lock()
		callers = append(callers, c)
		mu.Unlock()
		return strings.Repeat(strings.ToUpper(a.Word)+"!", a.Times), nil
	}))
	return &Conversation{
		Store:    memory.New(dbtest.New(t), memory.Options{}),
		Pipeline: llm.New(llm.Options{Client: srv.Client()}),
		Model:    "qwen3:4b",
		Tools:    reg,
	}, srv, &callers
}

func toolResults(req api.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestConversationToolRound(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       map[string]any
		wantResult string
	}{
		{"good arguments", map[string]any{"word": "hey"}, "HEY!HEY!"},
		{"malformed argument", map[string]any{"word": "hey", "times": "lots"}, `Error: invalid argument "times"`},
		{"missing argument", map[string]any{}, `Error: invalid argument "word"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, srv, callers := newConversation(t)
			srv.Script(ollamatest.ToolCalls(ollamatest.Call("shout", tc.args)), ollamatest.Text("どうぞ。"))

			var events []string
			err := c.Handle(context.Background(), Request{
				Session: "discord:channel:1", Source: "discord", ChannelID: "1", AuthorID: "42", Text: "叫んで",
			}, func(e llm.Event) error {
				switch e := e.(type) {
				case llm.ToolStarted:
					events = append(events, "start:"+e.Name)
				case llm.ToolFinished:
					events = append(events, "done:"+e.Name)
				case llm.Text:
					events = append(events, "text:"+e.Text)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(events, " "); got != "start:shout done:shout text:どうぞ。" {
				t.Errorf("events = %s", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d LLM calls, want 2 (tool round + answer)", len(reqs))
			}
			if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "shout" {
				t.Errorf("tools offered = %v", reqs[0].Tools)
			}
			res := toolResults(reqs[1])
			if len(res) != 1 || !strings.HasPrefix(res[0], tc.wantResult) {
				t.Errorf("tool result sent back = %q, want prefix %q", res, tc.wantResult)
			}
			if tc.name == "good arguments" && ((*callers)[0].UserID != "42" || (*callers)[0].Text != "叫んで") {
				t.Errorf("tool saw caller %+v", (*callers)[0])
			}
		})
	}
}

func TestConversationRecordsTheTurn(t *testing.T) {
	c, srv, _ := newConversation(t)
	srv.Script(ollamatest.Text("一つ目の答え"), ollamatest.Text("二つ目の答え"))
	emit := func(llm.Event) error { return nil }
	for _, q := range []string{"一つ目", "二つ目"} {
		if err := c.Handle(context.Background(), Request{Session: "web:admin", Source: "web", Text: q}, emit); err != nil {
			t.Fatal(err)
		}
	}
	second := srv.Requests()[1]
	b, _ := json.Marshal(second.Messages)
	if !strings.Contains(string(b), "一つ目の答え") {
		t.Errorf("the first turn is not in the second prompt: %s", b)
	}
}

func TestConversationExtraSystemText(t *testing.T) {
	c, srv, _ := newConversation(t)
	c.System = "天気予報: 晴れ"
	srv.Script(ollamatest.Text("晴れです"))
	if err := c.Handle(context.Background(), Request{Session: "web:admin", Text: "天気は？"}, func(llm.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages
	if msgs[0].Role != "system" || msgs[1].Role != "system" || msgs[1].Content != "天気予報: 晴れ" {
		t.Errorf("extra system text not right after the persona: %+v", msgs[:2])
	}
	if msgs[len(msgs)-1].Content != "天気は？" {
		t.Errorf("user message not last: %+v", msgs[len(msgs)-1])
	}
}

// hungStore stands for a database that does not answer: the call it hangs
// in waits for its context.
type hungStore struct {
	hangContext, hangRecord bool
	recorded                chan error
}

func (s *hungStore) Context(ctx context.Context, _ memory.SessionKey, _ memory.Space, text string, _ ...memory.ContextOption) ([]api.Message, error) {
	if s.hangContext {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return []api.Message{{Role: "user", Content: text}}, nil
}

func (s *hungStore) Record(ctx context.Context, _ memory.SessionKey, _ memory.Turn) error {
	if !s.hangRecord {
		return nil
	}
	<-ctx.Done()
	s.recorded <- ctx.Err()
	return ctx.Err()
}

// Every store call of a turn has a deadline: a hung database fails the
// turn (reading its context) or gives up keeping it (after the answer),
// and the turn returns instead of holding its channel.
func TestConversationStoreDeadlines(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel("qwen3:4b", "completion")
	for _, tc := range []struct {
		name  string
		store *hungStore
	}{
		{"context", &hungStore{hangContext: true}},
		{"record", &hungStore{hangRecord: true, recorded: make(chan error, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Conversation{Store: tc.store, Pipeline: llm.New(llm.Options{Client: srv.Client()}),
				Model: "qwen3:4b", StoreTimeout: 200 * time.Millisecond}
			srv.Script(ollamatest.Text("答え"))
			began := time.Now()
			err := c.Handle(context.Background(), Request{Session: "web:admin", Source: "web", Text: "質問"},
				func(llm.Event) error { return nil })
			if d := time.Since(began); d > 3*time.Second {
				t.Errorf("Handle took %s with a hung store, want about its 200 ms deadline", d)
			}
			switch tc.name {
			case "context":
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Handle = %v, want the deadline's error", err)
				}
			case "record":
				if err != nil {
					t.Errorf("Handle = %v: the answer was out; failing to keep it is only logged", err)
				}
				if rerr := <-tc.store.recorded; !errors.Is(rerr, context.DeadlineExceeded) {
					t.Errorf("Record ended with %v, want its deadline", rerr)
				}
			}
		})
	}
}

// gatedStore is a Store whose Context waits until gate is closed (or a
// second passes: then it fails), recording nothing.
type gatedStore struct {
	gate <-chan struct{}
}

func (g gatedStore) Context(ctx context.Context, _ memory.SessionKey, _ memory.Space, text string, _ ...memory.ContextOption) ([]api.Message, error) {
	select {
	case <-g.gate:
	case <-time.After(time.Second):
		return nil, errors.New("the aside did not run beside the context")
	}
	return []api.Message{{Role: "system", Content: "よろず"}, {Role: "user", Content: text}}, nil
}

func (gatedStore) Record(context.Context, memory.SessionKey, memory.Turn) error { return nil }

// An aside's text is worked out while the context is read (the context
// here waits for the aside to start), and joins the system text after the
// handler's own, before the history.
func TestAsideRunsBesideTheContext(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel("qwen3:4b", "completion")
	started := make(chan struct{})
	c := &Conversation{
		Store:    gatedStore{gate: started},
		Pipeline: llm.New(llm.Options{Client: srv.Client()}),
		Model:    "qwen3:4b",
	}
	h := c.with("手順A").withAside(func(context.Context) string {
		close(started)
		return "話題B"
	})
	if err := h.Handle(t.Context(), Request{Session: "s", Text: "こんにちは"}, func(llm.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls", len(reqs))
	}
	var roles, texts []string
	for _, m := range reqs[0].Messages {
		roles, texts = append(roles, m.Role), append(texts, m.Content)
	}
	if got := strings.Join(texts, " | "); got != "よろず | 手順A\n\n話題B | こんにちは" {
		t.Errorf("messages %q (%v)", got, roles)
	}
}

// A turn whose Admit fails ends with ErrNotAdmitted: the model may have
// been asked (the claim is made beside the call), but no tool runs and
// nothing is recorded. One admitted runs its tool and is kept, and the
// adapter is released once the turn is in the context.
func TestAdmitBeforeToolsAndRecord(t *testing.T) {
	c, srv, callers := newConversation(t)
	refused := errors.New("claimed elsewhere")
	srv.Script(ollamatest.ToolCalls(ollamatest.Call("shout", map[string]any{"word": "a", "times": 1})))
	released := false
	req := Request{Session: "discord:channel:1", Source: "discord", Text: "こんにちは",
		Admit: func(context.Context) error { return refused }, Release: func() { released = true }}
	if err := c.Handle(t.Context(), req, func(llm.Event) error { return nil }); !errors.Is(err, refused) || !errors.Is(err, ErrNotAdmitted) {
		t.Fatalf("Handle = %v, want ErrNotAdmitted with Admit's error", err)
	}
	if len(*callers) != 0 || released {
		t.Errorf("refused turn: %d tool calls, released %v", len(*callers), released)
	}
	msgs, err := c.Store.Context(t.Context(), "discord:channel:1", "", "次")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 { // the system prompt and the new text: nothing kept
		t.Errorf("after a refused turn the context holds %d messages", len(msgs))
	}
	admitted := 0
	srv.Script(ollamatest.ToolCalls(ollamatest.Call("shout", map[string]any{"word": "a", "times": 1})), ollamatest.Text("どうぞ。"))
	req.Admit = func(context.Context) error { admitted++; return nil }
	req.Release = func() {
		released = true
		msgs, err := c.Store.Context(context.WithoutCancel(t.Context()), "discord:channel:1", "", "次")
		if err != nil || len(msgs) < 4 {
			t.Errorf("released before the turn is in the context: %d messages, %v", len(msgs), err)
		}
	}
	if err := c.Handle(t.Context(), req, func(llm.Event) error { return nil }); err != nil || admitted == 0 || !released || len(*callers) != 1 {
		t.Errorf("admitted turn: %v, admitted %d times, released %v, %d tool calls", err, admitted, released, len(*callers))
	}
}
