package memory_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
)

// topics are the axes of topicEmbed: texts about the same topics get close
// vectors, texts about different topics orthogonal ones.
var topics = []string{"猫", "天気", "ラーメン", "python", "将棋"}

// topicEmbed counts topic words; a text with none points along its own axis.
func topicEmbed(_ string, input string) []float32 {
	v := make([]float32, len(topics)+1)
	for i, t := range topics {
		v[i] = float32(strings.Count(strings.ToLower(input), t))
	}
	v[len(topics)] = 0.05
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// fakeModel answers memory's background prompts: summaries and folds (with
// their tags) and knowledge entries. summaries counts summary requests.
type fakeModel struct {
	summaries, folds atomic.Int32
}

func (f *fakeModel) handle(req api.ChatRequest) ollamatest.Reply {
	system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
	switch {
	case strings.Contains(system, "1 つの要約にまとめて"):
		n := f.folds.Add(1)
		return summaryReply("まとめ"+string(rune('A'+n-1))+": 以前の話をまとめた。", "まとめ", "以前", "話")
	case strings.Contains(system, "要約にしてください"):
		n := f.summaries.Add(1)
		first := strings.SplitN(user, "\n", 2)[0]
		return summaryReply("約"+string(rune('0'+n%10))+" 先頭="+first[strings.Index(first, "]")+2:], "会話", "テスト", "猫")
	case strings.Contains(system, "調べ物の記録係"):
		b, _ := json.Marshal(map[string]string{"title": "猫の日は2月22日", "body": "日本の猫の日は **2月22日**。猫の鳴き声にちなむ。"})
		return ollamatest.Text(string(b))
	}
	return ollamatest.Echo(req)
}

// summaryReply is the structured answer to a summary request.
func summaryReply(summary string, tags ...string) ollamatest.Reply {
	b, _ := json.Marshal(map[string]any{"summary": summary, "tags": tags})
	return ollamatest.Text(string(b))
}

type fixture struct {
	pool   *pgxpool.Pool
	ollama *ollamatest.Server
	model  *fakeModel
	kbDir  string
	opts   memory.Options
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{model: &fakeModel{}}
	f.pool = dbtest.New(t)
	f.ollama = ollamatest.New(t)
	f.ollama.AddModel("qwen3:4b", "completion", "tools")
	f.ollama.AddModel("bge-m3", "embedding")
	f.ollama.AddModel("other-embed", "embedding")
	f.ollama.SetEmbed(topicEmbed)
	f.ollama.Handle(f.model.handle)
	f.kbDir = t.TempDir()
	f.opts = memory.Options{
		Location: time.UTC, Ollama: f.ollama.Client(), Model: "qwen3:4b", EmbedModel: "bge-m3",
		KnowledgeDir: f.kbDir,
	}
	return f
}

func (f *fixture) memory(t testing.TB, mod func(*memory.Options)) *memory.Memory {
	t.Helper()
	o := f.opts
	if mod != nil {
		mod(&o)
	}
	m := memory.New(f.pool, o)
	t.Cleanup(m.Close)
	return m
}

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds or a minute passes (CI machines are slow).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

func count(t testing.TB, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// promptTokens estimates msgs as a prompt the way the context budget counts
// each message: its text and the chat template's overhead.
func promptTokens(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += memory.EstimateTokens(m.Content) + memory.MessageOverhead
	}
	return n
}
