package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

type reminderArgs struct {
	Content   string `json:"content" jsonschema_description:"what to remind of"`
	SessionID string `json:"session_id,omitempty" tool:"hidden"`
	UserID    string `json:"user_id,omitempty" tool:"hidden"`
}

type queryArgs struct {
	Query string `json:"query"`
}

func reminderTool() Tool {
	return MustNew("create_reminder", "Create a reminder.", func(_ context.Context, a reminderArgs) (string, error) {
		return fmt.Sprintf("session=%q user=%q content=%q", a.SessionID, a.UserID, a.Content), nil
	})
}

func queryTool(name string) Tool {
	return MustNew(name, "Look something up.", func(_ context.Context, a queryArgs) (string, error) {
		return name + ": " + a.Query, nil
	})
}

// staticTool is a Tool not made by New, as an MCP bridge would make one.
type staticTool struct {
	meta Meta
	exec func(context.Context, json.RawMessage) (string, error)
}

var _ Tool = (*staticTool)(nil)

func (s *staticTool) Meta() Meta { return s.meta }
func (s *staticTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	return s.exec(ctx, args)
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name    string
		tools   []Tool
		wantErr string
	}{
		{name: "distinct names", tools: []Tool{queryTool("a"), queryTool("b")}},
		{name: "duplicate", tools: []Tool{queryTool("web_search"), queryTool("web_search")},
			wantErr: "register tool web_search: duplicate name"},
		{name: "empty name", tools: []Tool{&staticTool{meta: Meta{Name: ""}}},
			wantErr: `register tool "": name must match`},
		{name: "invalid name", tools: []Tool{&staticTool{meta: Meta{Name: "web.search"}}},
			wantErr: `register tool "web.search": name must match`},
		{name: "nil", tools: []Tool{nil}, wantErr: "nil tool"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry()
			var err error
			for _, tool := range tc.tools {
				if err = r.Register(tool); err != nil {
					break
				}
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Register: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Register error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestRegistryListsAndCalls(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(queryTool("web_search"), reminderTool(), queryTool("read_knowledge"))

	if got := strings.Join(r.Names(), ","); got != "create_reminder,read_knowledge,web_search" {
		t.Errorf("Names = %s", got)
	}
	var defs []string
	for _, d := range r.Definitions() {
		if d.Type != "function" {
			t.Errorf("%s: type %q", d.Function.Name, d.Type)
		}
		defs = append(defs, d.Function.Name)
	}
	if strings.Join(defs, ",") != "create_reminder,read_knowledge,web_search" {
		t.Errorf("Definitions not sorted: %v", defs)
	}

	tests := []struct {
		name, tool, args string
		want             string
		wantErr          string
		unknown          bool
	}{
		{name: "known tool", tool: "web_search", args: `{"query":"梅雨"}`, want: "web_search: 梅雨"},
		{name: "bad argument passes through unwrapped", tool: "web_search", args: `{}`,
			wantErr: `invalid argument "query": missing required argument`},
		{name: "unknown tool", tool: "web_serch", args: `{}`, unknown: true,
			wantErr: `unknown tool "web_serch" (available: create_reminder, read_knowledge, web_search)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Call(t.Context(), tc.tool, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Call error = %v, want %s", err, tc.wantErr)
				}
				if errors.Is(err, ErrUnknownTool) != tc.unknown {
					t.Errorf("errors.Is(err, ErrUnknownTool) = %v", !tc.unknown)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Call = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestHiddenArgumentsInjected(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(reminderTool(), queryTool("web_search"))
	r.Before(InjectCaller("session_id", func(c Caller) string { return c.Session }))
	r.Before(InjectCaller("user_id", func(c Caller) string { return c.UserID }))

	for _, d := range r.Definitions() {
		for name := range d.Function.Parameters.Properties.All() {
			if name == "session_id" || name == "user_id" {
				t.Errorf("%s shows hidden argument %s", d.Function.Name, name)
			}
		}
	}

	ctx := WithCaller(t.Context(), Caller{Session: "discord:42", UserID: "u1"})
	tests := []struct {
		name string
		ctx  context.Context
		tool string
		args string
		want string
	}{
		{name: "injected from caller", ctx: ctx, tool: "create_reminder", args: `{"content":"薬"}`,
			want: `session="discord:42" user="u1" content="薬"`},
		{name: "model cannot set a hidden argument", ctx: ctx, tool: "create_reminder",
			args: `{"content":"x","session_id":"discord:other","user_id":"u2"}`,
			want: `session="discord:42" user="u1" content="x"`},
		{name: "model value dropped even without caller", ctx: t.Context(), tool: "create_reminder",
			args: `{"content":"x","session_id":"discord:other"}`,
			want: `session="" user="" content="x"`},
		{name: "double-encoded arguments cannot smuggle one", ctx: t.Context(), tool: "create_reminder",
			args: `"{\"content\":\"x\",\"session_id\":\"discord:other\"}"`,
			want: `session="" user="" content="x"`},
		{name: "escaped key cannot smuggle one", ctx: t.Context(), tool: "create_reminder",
			args: `{"content":"x","session\u005fid":"discord:other"}`,
			want: `session="" user="" content="x"`},
		{name: "tools without the argument untouched", ctx: ctx, tool: "web_search", args: `{"query":"q"}`,
			want: "web_search: q"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Call(tc.ctx, tc.tool, json.RawMessage(tc.args))
			if err != nil || got != tc.want {
				t.Fatalf("Call = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Run("other spelling refused", func(t *testing.T) {
		_, err := r.Call(ctx, "create_reminder", json.RawMessage(`{"content":"x","Session_ID":"discord:other"}`))
		if err == nil || !strings.HasPrefix(err.Error(), `invalid argument "Session_ID": unknown argument`) {
			t.Fatalf("Call error = %v", err)
		}
	})
}

func TestCaller(t *testing.T) {
	if _, ok := CallerFrom(t.Context()); ok {
		t.Error("CallerFrom found a caller in an empty context")
	}
	want := Caller{Session: "s", Source: "discord", GuildID: "g", ChannelID: "c", UserID: "u", MessageID: "m"}
	got, ok := CallerFrom(WithCaller(t.Context(), want))
	if !ok || got != want {
		t.Errorf("CallerFrom = %+v, %v", got, ok)
	}
}

func TestHooks(t *testing.T) {
	var executed []string
	exec := func(_ context.Context, a queryArgs) (string, error) {
		executed = append(executed, a.Query)
		if a.Query == "fail" {
			return "", errors.New("backend down")
		}
		return "result for " + a.Query, nil
	}
	started := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

	tests := []struct {
		name     string
		before   []BeforeHook
		after    []AfterHook
		args     string
		want     string
		wantErr  string
		executed string
	}{
		{name: "before hooks run in order and rewrite arguments",
			before: []BeforeHook{
				func(_ context.Context, c *Invocation) error { return c.SetArg("query", "first") },
				func(_ context.Context, c *Invocation) error {
					var a queryArgs
					_ = json.Unmarshal(c.Args, &a)
					return c.SetArg("query", a.Query+"+second")
				},
			},
			args: `{"query":"orig"}`, want: "result for first+second", executed: "first+second"},
		{name: "before hook error stops the call",
			before: []BeforeHook{func(context.Context, *Invocation) error { return errors.New("rate limited") }},
			after: []AfterHook{func(_ context.Context, c Invocation, res string, err error) (string, error) {
				return res, fmt.Errorf("%s: %w", c.Tool, err)
			}},
			args: `{"query":"q"}`, wantErr: "search: rate limited"},
		{name: "after hooks chain and rewrite the result",
			after: []AfterHook{
				func(_ context.Context, c Invocation, res string, err error) (string, error) {
					if !c.Started.Equal(started) || c.Tool != "search" || string(c.Args) != `{"query":"q"}` {
						t.Errorf("after hook got invocation %+v", c)
					}
					return strings.ToUpper(res), err
				},
				func(_ context.Context, _ Invocation, res string, err error) (string, error) {
					return res + " [audited]", err
				},
			},
			args: `{"query":"q"}`, want: "RESULT FOR Q [audited]", executed: "q"},
		{name: "after hook turns an error into a result",
			after: []AfterHook{func(_ context.Context, _ Invocation, _ string, err error) (string, error) {
				return "Error: " + err.Error(), nil
			}},
			args: `{"query":"fail"}`, want: "Error: backend down", executed: "fail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			executed = nil
			r := NewRegistry()
			r.now = func() time.Time { return started }
			r.MustRegister(MustNew("search", "", exec))
			for _, h := range tc.before {
				r.Before(h)
			}
			for _, h := range tc.after {
				r.After(h)
			}
			got, err := r.Call(t.Context(), "search", json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Call error = %v, want %s", err, tc.wantErr)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("Call = %q, %v; want %q", got, err, tc.want)
			}
			if strings.Join(executed, ",") != tc.executed {
				t.Errorf("executed with %q, want %q", executed, tc.executed)
			}
		})
	}
}

func TestPanicRecovered(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(MustNew("boom", "", func(context.Context, queryArgs) (string, error) {
		var m map[string]int
		//lint:ignore SA5000 the point is a tool that panics
		m["x"] = 1
		return "", nil
	}))
	r.MustRegister(&staticTool{meta: Meta{Name: "boom2"}, exec: func(context.Context, json.RawMessage) (string, error) {
		panic("kaboom")
	}})
	for _, tc := range []struct{ tool, want string }{
		{"boom", "tool boom panicked: assignment to entry in nil map"},
		{"boom2", "tool boom2 panicked: kaboom"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := r.Call(t.Context(), tc.tool, json.RawMessage(`{"query":"q"}`))
			var pe *PanicError
			if !errors.As(err, &pe) || err.Error() != tc.want || len(pe.Stack) == 0 {
				t.Fatalf("Call error = %v, want %s with a stack", err, tc.want)
			}
		})
	}
}

func TestSubset(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(queryTool("web_search"), reminderTool(), queryTool("list_reminders"))
	var seen []string
	var mu sync.Mutex
	r.After(func(_ context.Context, c Invocation, res string, err error) (string, error) {
		mu.Lock()
		seen = append(seen, c.Tool)
		mu.Unlock()
		return res, err
	})

	sub, err := r.Subset("list_reminders", "create_reminder")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sub.Names(), ","); got != "create_reminder,list_reminders" {
		t.Errorf("subset Names = %s", got)
	}
	if len(sub.Definitions()) != 2 {
		t.Errorf("subset offers %d tools", len(sub.Definitions()))
	}
	if _, err := sub.Call(t.Context(), "web_search", json.RawMessage(`{"query":"q"}`)); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("subset called a tool outside it: %v", err)
	}
	if _, err := sub.Call(t.Context(), "list_reminders", json.RawMessage(`{"query":"q"}`)); err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != "list_reminders" {
		t.Errorf("subset did not share hooks: seen %v", seen)
	}
	if _, err := r.Subset("create_reminder", "nope"); !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Subset with unknown name: %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(queryTool("web_search"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.Call(ctx, "web_search", json.RawMessage(`{"query":"q"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("Call with canceled context: %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(reminderTool(), queryTool("web_search"))
	r.Before(InjectCaller("session_id", func(c Caller) string { return c.Session }))
	r.After(func(_ context.Context, _ Invocation, res string, err error) (string, error) { return res, err })

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Go(func() {
			ctx := WithCaller(t.Context(), Caller{Session: fmt.Sprint("s", i)})
			got, err := r.Call(ctx, "create_reminder", json.RawMessage(fmt.Sprintf(`{"content":"c%d"}`, i)))
			want := fmt.Sprintf(`session="s%d" user="" content="c%d"`, i, i)
			if err != nil || got != want {
				errs <- fmt.Errorf("call %d = %q, %v; want %q", i, got, err, want)
			}
			if defs := r.Definitions(); len(defs) != 2 {
				errs <- fmt.Errorf("Definitions has %d tools", len(defs))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkCall(b *testing.B) {
	r := NewRegistry()
	r.MustRegister(MustNew("web_search", "Search the web.", func(_ context.Context, a searchArgs) (string, error) {
		return a.Query, nil
	}))
	args := json.RawMessage(`{"query":"東京 天気","max_results":3,"region":"jp"}`)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Call(ctx, "web_search", args); err != nil {
			b.Fatal(err)
		}
	}
}

// DefinitionsJSON is the JSON of Definitions, the same bytes each time,
// and follows a tool registered later; a subset has its own.
func TestDefinitionsJSON(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(queryTool("web_search"), reminderTool())
	want, err := json.Marshal(r.Definitions())
	if err != nil {
		t.Fatal(err)
	}
	got := r.DefinitionsJSON()
	if string(got) != string(want) {
		t.Errorf("DefinitionsJSON\n%s\nwant\n%s", got, want)
	}
	if again := r.DefinitionsJSON(); &again[0] != &got[0] {
		t.Error("encoded again")
	}
	sub, err := r.Subset("web_search")
	if err != nil {
		t.Fatal(err)
	}
	r.MustRegister(queryTool("read_knowledge"))
	want, _ = json.Marshal(r.Definitions())
	if got := r.DefinitionsJSON(); string(got) != string(want) || !strings.Contains(string(got), "read_knowledge") {
		t.Errorf("after a registration DefinitionsJSON is\n%s\nwant\n%s", got, want)
	}
	want, _ = json.Marshal(sub.Definitions())
	if got := sub.DefinitionsJSON(); string(got) != string(want) || strings.Contains(string(got), "create_reminder") {
		t.Errorf("the subset's DefinitionsJSON is\n%s\nwant\n%s", got, want)
	}
}
