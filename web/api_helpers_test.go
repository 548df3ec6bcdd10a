package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/notes"
)

const testModel = "qwen3:4b"

// api is a server wired as serve wires it, on a fresh database, with a
// fake Ollama behind the real pipeline, memory and tools.
type apiServer struct {
	*testServer
	ollama *ollamatest.Server
	memory *memory.Memory
	c      *client // logged in
	kbDir  string
	// limiter is the per-user rate limit (100 turns a minute).
	limiter *chat.RateLimiter
}

type searchArgs struct {
	Query string `json:"query"`
}

// searchHits is what the fake web_search tool returns.
const searchHits = `[{"title":"東京の天気","href":"https://example.com/tenki","body":"晴れ"}]`

// newAPI starts it; each of opts may change the server's options first.
func newAPI(t testing.TB, opts ...func(*Options)) *apiServer {
	t.Helper()
	pool := dbtest.New(t)
	o := ollamatest.New(t)
	o.AddModel(testModel, "completion", "tools")
	o.AddModel(memory.DefaultEmbedModel, "embedding")
	kbDir := t.TempDir()
	mem := memory.New(pool, memory.Options{Ollama: o.Client(), Model: testModel, KnowledgeDir: kbDir})
	t.Cleanup(mem.Close)
	reg := tools.NewRegistry()
	reg.MustRegister(notes.Tools(mem)...)
	reg.MustRegister(tools.MustNew("web_search", "Search the web.", func(ctx context.Context, a searchArgs) (string, error) {
		return searchHits, nil
	}))
	reg.Before(tools.InjectCaller("session_id", func(c tools.Caller) string { return c.Session }))
	pipe := llm.New(llm.Options{Client: o.Client()})
	conv := &chat.Conversation{Store: mem, Pipeline: pipe, Model: testModel, Tools: reg}
	settings, err := NewSettings(context.Background(), pool, []SettingDef{
		{Key: "default_model", Env: "DEFAULT_MODEL", Default: testModel, Live: true, Validate: func(v string) error {
			if v == "" {
				return errors.New("empty")
			}
			return nil
		}},
		{Key: "search_backend", Env: "SEARCH_BACKEND", Default: "duckduckgo", Live: true, Choices: []string{"duckduckgo", "tavily"}},
		{Key: "tavily_api_key", Env: "TAVILY_API_KEY", Default: "tvly-environment-secret", Secret: true, Live: true},
		{Key: "weather_cron", Env: "WEATHER_CRON", Default: "30 6 * * *"},
	})
	if err != nil {
		t.Fatal(err)
	}
	limiter := chat.NewRateLimiter(100, time.Minute)
	router := chat.NewRouter(conv)
	router.Documents = mem
	serverOpts := Options{Pool: pool, Deps: Deps{
		Chat:      router,
		Memory:    mem,
		Limiter:   limiter,
		Reminders: reminderStore{pool},
		Schedules: &scheduleStore{q: pool},
		Words:     fixedWords{"猫", "ラーメン"},
		Models:    llm.NewPool(llm.PoolOptions{Servers: []llm.PoolServer{{Name: "ollama", Backend: o.Client()}}}),
		Settings:  settings,
		Revisions: mem,
	}}
	for _, f := range opts {
		f(&serverOpts)
	}
	ts := newTestServer(t, serverOpts)
	return &apiServer{testServer: ts, ollama: o, memory: mem, c: ts.quickSession(t), kbDir: kbDir, limiter: limiter}
}

type fixedWords []string

func (f fixedWords) Words(_ context.Context, space string) []string {
	if space != "guild:1" {
		return nil
	}
	return f
}

// reminderStore cancels in the database, as scheduler.Reminders does
// without its River job.
type reminderStore struct{ q db.Querier }

var (
	_ ReminderCanceller = reminderStore{}
	_ WordSource        = fixedWords{}
)

func (s reminderStore) Cancel(ctx context.Context, userID string, id int64) (db.Reminder, error) {
	return db.CancelReminder(ctx, s.q, id, userID, "", time.Now())
}

// sse reads a text/event-stream answer into its events, in order.
func readEvents(t *testing.T, resp *http.Response) []event {
	t.Helper()
	defer resp.Body.Close()
	var evs []event
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func eventTypes(evs []event) string {
	types := make([]string, len(evs))
	for i, e := range evs {
		types[i] = e.Type
	}
	return strings.Join(types, " ")
}

// recordDiscordTurn stores a turn of a Discord channel, as the bot does.
func (a *apiServer) recordDiscordTurn(t *testing.T, channel, user, reply string) db.Session {
	t.Helper()
	key := memory.DiscordChannel(channel)
	if err := a.memory.Record(context.Background(), key, memory.Turn{Source: "discord", ChannelID: channel,
		User: memory.MessageRecord{AuthorID: "u1", AuthorName: "ユーザー", Content: user}, Reply: memory.MessageRecord{Content: reply}}); err != nil {
		t.Fatal(err)
	}
	s, err := db.SessionByKey(context.Background(), a.pool, string(key))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
