package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

const (
	channelID = "200000000000000001"
	guildID   = "300000000000000001"
	aliceID   = "400000000000000001"
	bobID     = "400000000000000002"
	model     = "qwen3:4b"
	// embedModel is EMBED_MODEL's default, pulled in the fake Ollama.
	embedModel = "bge-m3"
)

// waitLog returns the last submatch of re once it appears in buf.
func waitLog(t testing.TB, ctx context.Context, buf *logtest.Buffer, re *regexp.Regexp) string {
	t.Helper()
	m, err := buf.WaitFor(ctx, re)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// harness is one yorozu process started through run, with a fake Discord,
// a fake Ollama and a fresh database.
type harness struct {
	discord *discordtest.Server
	ollama  *ollamatest.Server
	pool    *pgxpool.Pool
	dbURL   string
	httpURL string
	stderr  *logtest.Buffer
	env     map[string]string
	stop    func() error
}

func start(t testing.TB, extraEnv map[string]string) *harness {
	t.Helper()
	return startPrepared(t, extraEnv, nil)
}

// startPrepared is start with the fake Discord set up by prep (faults
// included) before yorozu starts.
func startPrepared(t testing.TB, extraEnv map[string]string, prep func(*discordtest.Server)) *harness {
	t.Helper()
	return startHarness(t, extraEnv, func(h *harness) {
		if prep != nil {
			prep(h.discord)
		}
	})
}

// startHarness is start with both fakes, the environment (h.env) and the
// file system set up by prep before yorozu starts.
func startHarness(t testing.TB, extraEnv map[string]string, prep func(*harness)) *harness {
	t.Helper()
	h := newHarness(t, extraEnv)
	if prep != nil {
		prep(h)
	}
	h.startRun(t, h.env)
	h.openPool(t)
	return h
}

// newHarness makes the fakes, a fresh database and the environment that
// points yorozu at them; nothing runs yet.
func newHarness(t testing.TB, extraEnv map[string]string) *harness {
	t.Helper()
	h := &harness{
		discord: discordtest.New(t),
		ollama:  ollamatest.New(t),
		dbURL:   dbtest.URL(t),
		stderr:  &logtest.Buffer{},
	}
	h.ollama.AddModel(model, "completion", "tools")
	h.ollama.AddModel(embedModel, "embedding")
	h.discord.AddChannel(channelID)
	env := map[string]string{
		"DISCORD_TOKEN":    "test-token",
		"DISCORD_API_BASE": h.discord.URL(),
		"DATABASE_URL":     h.dbURL,
		"OLLAMA_HOST":      h.ollama.URL(),
		"HTTP_ADDR":        "127.0.0.1:0",
		"TIMEZONE":         "Asia/Tokyo",
		"DATA_DIR":         t.TempDir(),
	}
	for k, v := range extraEnv {
		env[k] = v
	}
	h.env = env
	return h
}

// openPool opens the test's own connection to yorozu's database.
func (h *harness) openPool(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := db.Open(ctx, h.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	h.pool = pool
}

func (h *harness) startRun(t testing.TB, env map[string]string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &logtest.Buffer{}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, nil, func(k string) string { return env[k] }, stdout, h.stderr)
	}()
	var once sync.Once
	var runErr error
	h.stop = func() error {
		once.Do(func() {
			cancel()
			runErr = <-errc
		})
		return runErr
	}
	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Errorf("run returned %v\nstderr:\n%s", err, h.stderr.String())
		}
	})

	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	done := make(chan struct{})
	go func() {
		select {
		case err := <-errc:
			// run ended before it was ready: report it and let stop see it.
			errc <- err
			wcancel()
		case <-done:
		}
	}()
	h.httpURL = "http://" + waitLog(t, wctx, stdout, regexp.MustCompile(`yorozu ready: http://(\S+)`))
	close(done)
}

// mention sends a guild message from user that mentions the bot.
func (h *harness) mention(user, text string) *discordgo.Message {
	return h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID,
		GuildID:   guildID,
		Content:   "<@" + h.discord.BotID() + "> " + text,
		Author:    &discordgo.User{ID: user, Username: "user" + user[len(user)-1:]},
		Mentions:  []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
	})
}

// waitReply waits until the bot has posted n messages in the channel and the
// last one reads want, and returns it.
func (h *harness) waitReply(t testing.TB, n int, want func(string) bool) discordtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var last discordtest.Message
	err := h.discord.WaitFor(ctx, func() bool {
		msgs := h.discord.BotMessages(channelID)
		if len(msgs) < n {
			return false
		}
		last = msgs[n-1]
		return want(last.Content)
	})
	if err != nil {
		t.Fatalf("no reply #%d as wanted; bot messages: %+v\nstderr:\n%s", n, h.discord.BotMessages(channelID), h.stderr.String())
	}
	return last
}

// waitCount polls query (a SELECT count) until it returns want: the turn is
// stored after the reply is out, so the database trails Discord a little.
func (h *harness) waitCount(t testing.TB, query string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := h.pool.QueryRow(context.Background(), query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %d, want %d", query, n, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// handle answers the users' turns (streamed calls) with f. memory's
// housekeeping — tags, summaries, knowledge, asked without streaming — gets
// fixed answers of the right shape, so tests script only what users see.
func (h *harness) handle(f func(req api.ChatRequest) ollamatest.Reply) {
	h.ollama.Handle(func(req api.ChatRequest) ollamatest.Reply {
		if !isTurn(req) {
			return housekeeping(req)
		}
		return f(req)
	})
}

// script answers the users' turns with replies in order, then by echoing.
func (h *harness) script(replies ...ollamatest.Reply) {
	var mu sync.Mutex
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return ollamatest.Echo(req)
		}
		r := replies[0]
		replies = replies[1:]
		return r
	})
}

// turns are the chat requests made for users' turns, in order.
func (h *harness) turns() []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range h.ollama.Requests() {
		if isTurn(r) {
			out = append(out, r)
		}
	}
	return out
}

func isTurn(req api.ChatRequest) bool { return req.Stream == nil || *req.Stream }

func housekeeping(req api.ChatRequest) ollamatest.Reply {
	switch f := string(req.Format); {
	case strings.Contains(f, `"summary"`):
		return ollamatest.Text(`{"summary":"- これまでの会話の要約。","tags":["会話","要約","記録"]}`)
	case strings.Contains(f, `"title"`):
		return ollamatest.Text(`{"title":"調べたこと","body":"検索で分かったことの要約。"}`)
	default:
		return ollamatest.Text("- これまでの会話の要約。")
	}
}

func equals(s string) func(string) bool { return func(c string) bool { return c == s } }

func TestMentionIsAnsweredStreamedAndKept(t *testing.T) {
	h := start(t, nil)
	h.script(ollamatest.Text("こんにちは、", "アリスさん。", "今日は何を", "しましょうか？"))

	q := h.mention(aliceID, "こんにちは！")
	got := h.waitReply(t, 1, equals("こんにちは、アリスさん。今日は何をしましょうか？"))
	if got.Reference == nil || got.Reference.MessageID != q.ID {
		t.Errorf("reply does not reply to the user's message: %+v", got.Reference)
	}
	if n := len(h.turns()); n != 1 {
		t.Errorf("a reply without tools made %d LLM calls, want 1", n)
	}
	// The model saw the user's words (mention stripped) and the tools.
	req := h.turns()[0]
	if last := req.Messages[len(req.Messages)-1]; last.Role != "user" || last.Content != "こんにちは！" {
		t.Errorf("last message sent to the model = %+v", last)
	}
	if req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, "現在:") {
		t.Errorf("system prompt missing the current time: %q", req.Messages[0].Content)
	}

	// The turn is kept: the next mention carries it as history.
	h.script(ollamatest.Text("覚えていますよ。"))
	h.mention(bobID, "さっき何て言った？")
	h.waitReply(t, 2, equals("覚えていますよ。"))
	req = h.turns()[1]
	var history []string
	for _, m := range req.Messages[1:] {
		history = append(history, m.Role+":"+m.Content)
	}
	joined := strings.Join(history, "\n")
	if !strings.Contains(joined, "こんにちは！") || !strings.Contains(joined, "assistant:こんにちは、アリスさん。今日は何をしましょうか？") {
		t.Errorf("second request lacks the first turn:\n%s", joined)
	}

	h.waitCount(t, `SELECT count(*) FROM messages`, 4)
	// Both sides of the turn carry their Discord ids.
	h.waitCount(t, `SELECT count(*) FROM messages u JOIN messages r ON r.reply_to_id = u.id
WHERE u.platform_message_id = '`+q.ID+`' AND r.platform_message_id = '`+got.ID+`'`, 1)
	h.waitCount(t, `SELECT count(*) FROM api_logs WHERE model = 'qwen3:4b' AND error = '' AND (request->>'stream') IS DISTINCT FROM 'false'`, 2)
}

// TestWordPoolsAreSavedAtShutdown: what a space's people said is in its
// saved word pool once yorozu stops, for the next start to seed from.
func TestWordPoolsAreSavedAtShutdown(t *testing.T) {
	h := start(t, nil)
	h.script(ollamatest.Text("いいですね。"))
	h.mention(aliceID, "富士山に登りたい")
	h.waitReply(t, 1, equals("いいですね。"))
	h.waitCount(t, `SELECT count(DISTINCT message_id) FROM message_tags`, 2) // the turn's background work is done
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	words, ok, err := db.SavedWordPool(context.Background(), h.pool, "guild:"+guildID)
	if err != nil || !ok || !slices.Contains(words, "富士山") {
		t.Errorf("saved word pool = %q, %v, %v; want the user's 富士山", words, ok, err)
	}
}

func TestOllamaDownThenBack(t *testing.T) {
	h := start(t, nil)
	h.ollama.Down()
	h.mention(aliceID, "聞こえますか？")
	h.waitReply(t, 1, func(c string) bool {
		return strings.Contains(c, "モデルサーバーに接続できません")
	})

	h.ollama.Up()
	h.script(ollamatest.Text("はい、聞こえます。"))
	h.mention(aliceID, "聞こえますか？")
	h.waitReply(t, 2, equals("はい、聞こえます。"))
}

func TestModelNotFoundNamesThePull(t *testing.T) {
	for _, m := range []string{"gemma3:27b", "llama3"} {
		t.Run(m, func(t *testing.T) {
			h := start(t, map[string]string{"DEFAULT_MODEL": m})
			h.mention(aliceID, "こんにちは")
			want := "モデル " + m + " が見つかりません。サーバーで `ollama pull " + m + "` を実行してください。"
			h.waitReply(t, 1, equals(want))
		})
	}
}

func TestReadiness(t *testing.T) {
	h := start(t, nil)
	resp, err := http.Get(h.httpURL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Ready  bool
		Checks map[string]string
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !r.Ready || r.Checks["discord"] != "ok" || r.Checks["migrations"] != "ok" || r.Checks["database"] != "ok" {
		t.Errorf("/readyz = %d %+v", resp.StatusCode, r)
	}
}

func TestWithoutDiscordTheRestRuns(t *testing.T) {
	h := start(t, map[string]string{"DISCORD_TOKEN": ""})
	resp, err := http.Get(h.httpURL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/readyz without Discord = %d", resp.StatusCode)
	}
	if h.discord.Sessions() != 0 {
		t.Error("connected to Discord without a token")
	}
}

func TestSecretsStayOutOfTheLog(t *testing.T) {
	h := start(t, map[string]string{"DISCORD_TOKEN": "MTIzNDU2.secret-token-value", "ADMIN_PASSWORD": "admin-secret-value"})
	h.script(ollamatest.Text("ok"))
	h.mention(aliceID, "hi")
	h.waitReply(t, 1, equals("ok"))
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"secret-token-value", "admin-secret-value", "postgres://"} {
		if strings.Contains(h.stderr.String(), s) {
			t.Errorf("log contains %q:\n%s", s, h.stderr.String())
		}
	}
}

// TestURLSecretsStayOutOfTheLog: OLLAMA_HOST and SEARXNG_URL with
// credentials work, and neither the start-up line nor the errors that quote
// the URL (Ollama down) show the password or the key.
func TestURLSecretsStayOutOfTheLog(t *testing.T) {
	h := start(t, nil)
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	env := maps.Clone(h.env)
	env["OLLAMA_HOST"] = strings.Replace(h.ollama.URL(), "http://", "http://yorozu:ollama-pass-secret@", 1) + "?key=ollama-key-secret"
	env["SEARCH_BACKEND"] = "searxng"
	env["SEARXNG_URL"] = "https://searx:searx-pass-secret@searx.example/?token=searx-token-secret"
	h.startRun(t, env)
	h.script(ollamatest.Text("聞こえます"))
	h.mention(aliceID, "聞こえますか")
	h.waitReply(t, 1, equals("聞こえます"))
	h.ollama.Down()
	h.mention(aliceID, "まだ聞こえますか")
	h.waitReply(t, 2, func(c string) bool { return strings.Contains(c, "接続できません") })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	log := h.stderr.String()
	if !strings.Contains(log, `ollama_host="http://xxxxx@127.0.0.1`) || !strings.Contains(log, "connection refused") {
		t.Errorf("log lacks the masked host or the failure:\n%s", log)
	}
	if strings.Contains(log, "secret") {
		t.Errorf("log shows a URL secret:\n%s", log)
	}
}

func TestCommandLine(t *testing.T) {
	dbURL := dbtest.EmptyURL(t)
	for _, tc := range []struct {
		name     string
		args     []string
		env      map[string]string
		wantErr  string
		wantOut  string
		wantCode int
	}{
		{name: "version", args: []string{"version"}, wantOut: "yorozu dev"},
		{name: "help", args: []string{"-h"}, wantOut: "yorozu migrate"},
		{name: "command help", args: []string{"migrate", "-h"}, wantOut: "Usage: yorozu migrate"},
		{name: "doctor help", args: []string{"doctor", "-h"}, wantOut: "It changes nothing and posts nothing; the exit status is 1 when something is ❌"},
		{name: "unknown command", args: []string{"frobnicate"}, wantErr: `unknown command "frobnicate"`, wantCode: 2},
		{name: "stray argument", args: []string{"version", "now"}, wantErr: "takes no arguments", wantCode: 2},
		{name: "bad config names the variable", args: []string{"serve"}, env: map[string]string{"LLM_CONCURRENCY": "zero"}, wantErr: "LLM_CONCURRENCY", wantCode: 1},
		{name: "migrate", args: []string{"migrate"}, env: map[string]string{"DATABASE_URL": dbURL}, wantOut: "migrations applied:"},
		{name: "migrate again is a no-op", args: []string{"migrate"}, env: map[string]string{"DATABASE_URL": dbURL}, wantOut: "migrations applied:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := run(ctx, tc.args, func(k string) string { return tc.env[k] }, &stdout, &stderr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if exitCode(err) != tc.wantCode {
					t.Errorf("exit code %d, want %d", exitCode(err), tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v\nstderr: %s", err, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.wantOut) {
				t.Errorf("stdout = %q, want %q", stdout.String(), tc.wantOut)
			}
			if strings.Contains(stderr.String(), "Usage:") {
				t.Errorf("the usage went to stderr too: %q", stderr.String())
			}
		})
	}
}

func TestEmbeddedAsRootSaysToSetDatabaseURL(t *testing.T) {
	if !isRoot() {
		t.Skip("not root: only root is refused the embedded PostgreSQL (its start itself is tested in package db)")
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"migrate"}, func(k string) string {
		return map[string]string{"DATA_DIR": t.TempDir()}[k]
	}, &stdout, &stderr)
	if err == nil || !errors.Is(err, db.ErrEmbeddedAsRoot) || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("err = %v", err)
	}
}

func isRoot() bool { return os.Geteuid() == 0 }

// TestTwoUsersShareOneLLMSlot: with LLM_CONCURRENCY=1 a second channel's
// turn waits, is told its place, and both are answered in arrival order.
func TestTwoUsersShareOneLLMSlot(t *testing.T) {
	h := start(t, map[string]string{"LLM_CONCURRENCY": "1"})
	const otherChannel = "200000000000000002"
	h.discord.AddChannel(otherChannel)

	gate, firstAsked := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var order []string
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		q := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		order = append(order, q)
		mu.Unlock()
		if q == "first" {
			close(firstAsked)
			return ollamatest.Reply{Gate: gate, Chunks: []ollamatest.Chunk{{Content: "answer to first"}}}
		}
		return ollamatest.Text("answer to second")
	})

	h.mention(aliceID, "first")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case <-firstAsked:
	case <-ctx.Done():
		t.Fatal("the first turn never reached the model")
	}
	h.discord.SendMessage(&discordgo.Message{
		ChannelID: otherChannel, GuildID: guildID,
		Content:  "<@" + h.discord.BotID() + "> second",
		Author:   &discordgo.User{ID: bobID, Username: "bob"},
		Mentions: []*discordgo.User{{ID: h.discord.BotID(), Bot: true}},
	})
	// Bob sees his place in the queue while Alice's answer is being
	// written: second, as he would behind her in her own channel.
	if err := h.discord.WaitFor(ctx, func() bool {
		for _, m := range h.discord.BotMessages(otherChannel) {
			if m.Content == "⏳ 順番待ち: 2 番目" {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no queue notice for the second user: %+v", h.discord.BotMessages(otherChannel))
	}
	close(gate)
	h.waitReply(t, 1, equals("answer to first"))
	if err := h.discord.WaitFor(ctx, func() bool {
		msgs := h.discord.BotMessages(otherChannel)
		return len(msgs) == 1 && msgs[0].Content == "answer to second"
	}); err != nil {
		t.Fatalf("second user not answered (the notice should become the answer): %+v", h.discord.BotMessages(otherChannel))
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, ",") != "first,second" {
		t.Errorf("LLM saw %v, want first then second", order)
	}
}

// TestLongUserMessageIsKeptWhole: a 20,000-character message reaches the
// model and the database whole.
func TestLongUserMessageIsKeptWhole(t *testing.T) {
	h := start(t, nil)
	long := strings.Repeat("長い質問です。", 20_000/7)
	var got string
	var mu sync.Mutex
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		got = req.Messages[len(req.Messages)-1].Content
		mu.Unlock()
		return ollamatest.Text("読みました。")
	})
	h.mention(aliceID, long)
	h.waitReply(t, 1, equals("読みました。"))
	mu.Lock()
	defer mu.Unlock()
	if got != long {
		t.Errorf("model got %d characters, want %d", len([]rune(got)), len([]rune(long)))
	}
	h.waitCount(t, `SELECT count(*) FROM messages WHERE role = 'user' AND content = '`+long+`'`, 1)
}
