package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm/openaicompat/openaitest"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

// startOpenAI starts yorozu on a fake OpenAI-compatible server alone:
// OPENAI_BASE_URL set, OLLAMA_HOST not. The fake Ollama stays up to show
// it is never asked.
func startOpenAI(t testing.TB, extraEnv map[string]string) (*harness, *openaitest.Server) {
	t.Helper()
	// The dictionary the router reads words with loads once per process
	// (long under -race); the tests time the model server, not it.
	if err := wordpool.Load(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	srv := openaitest.New(t)
	srv.AddModel(model, "tools")
	srv.AddModel(embedModel, "embedding")
	h := startHarness(t, extraEnv, func(h *harness) {
		delete(h.env, "OLLAMA_HOST")
		h.env["OPENAI_BASE_URL"] = srv.URL()
	})
	return h, srv
}

// openAITurns answers the users' turns (streamed) with f, and memory's
// housekeeping (not streamed) with fixed answers of the right shape.
func openAITurns(srv *openaitest.Server, f func(req openaitest.Request) openaitest.Reply) {
	srv.Handle(func(req openaitest.Request) openaitest.Reply {
		if !req.Stream {
			switch rf := string(req.ResponseFormat); {
			case strings.Contains(rf, `"summary"`):
				return openaitest.Text(`{"summary":"- これまでの会話の要約。","tags":["会話","要約","記録"]}`)
			case strings.Contains(rf, `"title"`):
				return openaitest.Text(`{"title":"調べたこと","body":"検索で分かったことの要約。"}`)
			default:
				return openaitest.Text("- これまでの会話の要約。")
			}
		}
		return f(req)
	})
}

func streamedTurns(srv *openaitest.Server) []openaitest.Request {
	var out []openaitest.Request
	for _, r := range srv.Requests() {
		if r.Stream {
			out = append(out, r)
		}
	}
	return out
}

// TestMentionAnsweredThroughOpenAICompatibleServer: with OPENAI_BASE_URL
// alone, a mention is answered from the SSE stream, the Discord message
// edited as the text comes, and no Ollama is asked anything.
func TestMentionAnsweredThroughOpenAICompatibleServer(t *testing.T) {
	h, srv := startOpenAI(t, nil)
	rest := make(chan struct{})
	openAITurns(srv, func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Chunks: []openaitest.Chunk{
			{Reasoning: "挨拶に答える。"},
			{Content: "こんにちは、"},
			{Content: "アリスさん。", Wait: rest},
			{Content: "今日は何をしましょうか？"},
		}}
	})
	q := h.mention(aliceID, "こんにちは！")
	first := h.waitReply(t, 1, equals("こんにちは、"))
	close(rest)
	got := h.waitReply(t, 1, equals("こんにちは、アリスさん。今日は何をしましょうか？"))
	if got.ID != first.ID || got.Edits == 0 {
		t.Errorf("the answer was not streamed into one edited message: first %s, last %s with %d edits", first.ID, got.ID, got.Edits)
	}
	if got.Reference == nil || got.Reference.MessageID != q.ID {
		t.Errorf("reply does not reply to the user's message: %+v", got.Reference)
	}
	turns := streamedTurns(srv)
	if len(turns) != 1 {
		t.Fatalf("streamed calls = %d, want 1", len(turns))
	}
	if last := turns[0].Messages[len(turns[0].Messages)-1]; last.Role != "user" || last.Content != "こんにちは！" {
		t.Errorf("last message sent = %+v", last)
	}
	if len(turns[0].Tools) == 0 {
		t.Error("no tools offered natively to a model that takes them")
	}
	if n := h.ollama.ChatCalls() + h.ollama.VersionCalls() + h.ollama.ShowCalls(); n != 0 {
		t.Errorf("Ollama was asked %d times; with OPENAI_BASE_URL alone it is not used", n)
	}
	h.waitCount(t, `SELECT count(*) FROM messages`, 2)
	h.waitCount(t, `SELECT count(*) FROM api_logs WHERE model = 'qwen3:4b' AND error = '' AND response LIKE 'こんにちは、アリスさん%'`, 1)

	// /readyz says the model server and the models answer.
	h.waitReadyz(t, func(code int, checks map[string]string) bool {
		return code == 200 && checks["ollama"] == "ok" && checks["models"] == "ok"
	})
}

// TestToolCallThroughOpenAICompatibleServer: the model's tool call comes as
// deltas, the reminder is created, its result goes back as a "tool" message
// with the call's id, and the answer after it reaches the user.
func TestToolCallThroughOpenAICompatibleServer(t *testing.T) {
	h, srv := startOpenAI(t, nil)
	due := time.Now().Add(2 * time.Hour).Truncate(time.Second).In(time.FixedZone("JST", 9*3600)).Format(time.RFC3339)
	var mu sync.Mutex
	openAITurns(srv, func(req openaitest.Request) openaitest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return openaitest.Text("リマインダーを登録しました。")
		}
		args, _ := json.Marshal(map[string]string{"content": "ゴミ出し", "due_at": due})
		return openaitest.ToolCall("call_rem1", "create_reminder", string(args))
	})
	h.mention(aliceID, "2時間後にゴミ出しをリマインドして")
	h.waitReply(t, 1, equals("リマインダーを登録しました。"))
	h.waitCount(t, `SELECT count(*) FROM reminders WHERE content = 'ゴミ出し' AND cancelled_at IS NULL`, 1)

	turns := streamedTurns(srv)
	if len(turns) != 2 {
		t.Fatalf("streamed calls = %d, want 2 (the call, then the answer)", len(turns))
	}
	msgs := turns[1].Messages
	asst, tool := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if len(asst.ToolCalls) != 1 || asst.ToolCalls[0].ID != "call_rem1" || tool.Role != "tool" || tool.ToolCallID != "call_rem1" {
		t.Errorf("sent back: assistant %+v, tool %+v; want the call and its result tied by call_rem1", asst, tool)
	}
}

// TestOpenAICompatibleKeyRefusedNamesTheVariable: a 401 from a hosted API
// is answered with a message naming OPENAI_API_KEY, and nothing else is
// posted.
func TestOpenAICompatibleKeyRefusedNamesTheVariable(t *testing.T) {
	h, srv := startOpenAI(t, map[string]string{"OPENAI_API_KEY": "sk-wrong"})
	srv.RequireKey("sk-right")
	h.mention(aliceID, "こんにちは")
	got := h.waitReply(t, 1, func(c string) bool { return strings.Contains(c, "OPENAI_API_KEY") })
	if strings.Contains(got.Content, "sk-wrong") {
		t.Errorf("the key is shown to the user: %q", got.Content)
	}
	if n := len(h.discord.BotMessages(channelID)); n != 1 {
		t.Errorf("bot posted %d messages, want 1", n)
	}
}

// BenchmarkToModelOpenAI is BenchmarkToModel's chat route on an
// OpenAI-compatible server: from the mention to the chat request reaching
// the fake server's handler (ms-to-model, median; target ≤ 3 ms), in a
// channel holding 100,000 earlier messages, on an idle bot.
func BenchmarkToModelOpenAI(b *testing.B) {
	h, srv := startOpenAI(b, map[string]string{"USER_RATE_LIMIT": "0"})
	const seeded = 100_000
	seedMessages(b, h, seeded)
	var mu sync.Mutex
	var arrived time.Time
	srv.HandleTimed(func(req openaitest.Request, at time.Time) openaitest.Reply {
		if !req.Stream {
			return openaitest.Text("- 要約。")
		}
		mu.Lock()
		if arrived.IsZero() {
			arrived = at
		}
		mu.Unlock()
		return openaitest.Text("了解です。")
	})
	toModel := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		mu.Lock()
		arrived = time.Time{}
		mu.Unlock()
		t0 := time.Now()
		h.mention(aliceID, "ベンチマークの質問です")
		h.waitAnswers(b, i+1, "了解です。")
		b.StopTimer()
		mu.Lock()
		toModel = append(toModel, arrived.Sub(t0))
		mu.Unlock()
		h.settle(b, seeded+2*(i+1))
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(ms(median(toModel)), "ms-to-model")
}

// TestDoctorOnOpenAICompatibleServer: `yorozu doctor` with OPENAI_BASE_URL
// alone checks that server and its models (never Ollama), and a refused key
// is told with the variable to fix.
func TestDoctorOnOpenAICompatibleServer(t *testing.T) {
	srv := openaitest.New(t)
	srv.AddModel(model, "tools")
	srv.AddModel(embedModel, "embedding")
	env := map[string]string{"DATA_DIR": t.TempDir(), "DATABASE_URL": dbtest.URL(t), "OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test"}
	doctor := func() string {
		var stdout, stderr bytes.Buffer
		_ = run(context.Background(), []string{"doctor"}, func(k string) string { return env[k] }, &stdout, &stderr)
		return stdout.String()
	}
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL(), "/v1"), "http://")
	out := doctor()
	for _, want := range []string{
		"✅ モデルサーバー " + host + "（openai）に接続できます（モデル 2 個、スロット 1）",
		"✅ モデル qwen3:4b（DEFAULT_MODEL, REMINDER_MODEL, WEATHER_NOTIFY_MODEL）があります / model qwen3:4b (DEFAULT_MODEL, REMINDER_MODEL, WEATHER_NOTIFY_MODEL) is pulled (completion, tools)",
	} {
		if !strings.Contains(out, "\n"+want) {
			t.Errorf("no line starting %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Ollama に接続") || strings.Contains(out, "sk-test") {
		t.Errorf("doctor speaks of Ollama or shows the key:\n%s", out)
	}

	srv.RequireKey("sk-other")
	out = doctor()
	if !strings.Contains(out, "❌ モデルサーバー "+host+" に接続できません") || !strings.Contains(out, "→ OPENAI_API_KEY を正しい API キーにしてください") {
		t.Errorf("a refused key is not told with its variable:\n%s", out)
	}
}
