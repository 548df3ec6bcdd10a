package memory_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/talk"
)

// bgeDims is bge-m3's embedding size.
const bgeDims = 1024

// wideEmbed is a deterministic 1,024-dimension unit vector per input.
func wideEmbed(_ string, input string) []float32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(input))
	seed := h.Sum64()
	v := make([]float32, bgeDims)
	var n float64
	for i := range v {
		seed = seed*6364136223846793005 + 1442695040888963407
		v[i] = float32(int32(seed>>33)) / (1 << 31)
		n += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// BenchmarkContext assembles a turn's context in a session holding n
// messages, in the state the summariser leaves it: all but the newest 12
// archived under summaries, the session's older summaries folded (8 live),
// plus 1,000 summaries across 100 other sessions, 500 knowledge-base files
// of 1,024-dimension embeddings (a fifth of them in other servers' folders),
// and 50 spaces (servers) each with 15 knowledge entries and 30 note pages,
// one page linked to the session. With kb=on the user's message is
// embedded by a fake Ollama over HTTP (kb=off: no knowledge base). With
// cache=cold every turn reads the database; with cache=warm the context
// cache holds the session's reads (a turn in a conversation active lately).
func BenchmarkContext(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			pool := dbtest.New(b)
			key := memory.DiscordChannel("bench")
			seedSteadyState(b, pool, string(key), n)
			ollama := ollamatest.New(b)
			ollama.AddModel("bge-m3", "embedding")
			ollama.SetEmbed(wideEmbed)
			for _, cache := range []string{"cold", "warm"} {
				for _, kb := range []string{"on", "off"} {
					b.Run("cache="+cache+"/kb="+kb, func(b *testing.B) {
						o := memory.Options{Location: time.UTC}
						if kb == "on" {
							o.Ollama, o.KnowledgeDir = ollama.Client(), b.TempDir()
						}
						if cache == "warm" {
							o.ContextCache = memory.DefaultContextCache
						}
						m := memory.New(pool, o)
						b.Cleanup(m.Close)
						if cache == "warm" {
							waitCacheWarm(b, m, key)
						}
						var msgs []api.Message
						b.ReportAllocs()
						b.ResetTimer()
						for b.Loop() {
							var err error
							if msgs, err = m.Context(ctx, key, benchSpace, "こんにちは、今日は何をしようかな？"); err != nil {
								b.Fatal(err)
							}
						}
						b.StopTimer()
						tokens := promptTokens(msgs)
						b.ReportMetric(float64(tokens), "tokens")
						if cache == "warm" {
							_, bytes := memory.CacheSize(m) // one conversation's entry
							b.ReportMetric(float64(bytes), "cache-B")
						}
						if tokens > memory.DefaultTokenBudget {
							b.Errorf("prompt is %d tokens; budget %d", tokens, memory.DefaultTokenBudget)
						}
					})
				}
			}
		})
	}
}

// waitCacheWarm waits until m's context cache listens and holds key's
// reads.
func waitCacheWarm(b testing.TB, m *memory.Memory, key memory.SessionKey) {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := m.Context(context.Background(), key, benchSpace, "warm"); err != nil {
			b.Fatal(err)
		}
		if hits, _ := memory.CacheStats(m); hits > 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatal("the context cache never held the session")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// benchSpace is the space of the benchmark's session, one of 50.
const benchSpace = memory.Space("guild:0")

func seedSteadyState(b testing.TB, pool *pgxpool.Pool, key string, n int) {
	b.Helper()
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		b.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			b.Fatal(err)
		}
	}
	s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: string(benchSpace), Key: key, Source: "discord"})
	if err != nil {
		b.Fatal(err)
	}
	// Other sessions and their 1,000 summaries.
	exec(`INSERT INTO sessions (key, space) SELECT 'discord:channel:other' || g, 'guild:' || (g % 50) FROM generate_series(1, 100) g`)
	exec(`INSERT INTO memories (session_id, content, tokens, message_count, period_start, period_end)
SELECT (SELECT id FROM sessions WHERE key = 'discord:channel:other' || (g % 100 + 1)), repeat('別の会話の要約です。', 12), 130, 10,
       now() - g * interval '1 hour', now() - g * interval '1 hour' + interval '10 minutes'
FROM generate_series(1, 1000) g`)
	// This session: one summary per 10 archived messages, all but the
	// newest 8 folded into them.
	archived := n - 12
	exec(`INSERT INTO memories (session_id, content, tokens, message_count, period_start, period_end)
SELECT $1, repeat('これまでの会話の要約です。', 6), 80, 10,
       now() - ($2 - g * 10) * interval '1 minute', now() - ($2 - g * 10 - 9) * interval '1 minute'
FROM generate_series(0, $3 - 1) g`, s.ID, n, archived/10)
	exec(`UPDATE memories SET folded_into = (SELECT max(id) FROM memories WHERE session_id = $1)
WHERE session_id = $1 AND id < (SELECT max(id) - 7 FROM memories WHERE session_id = $1)`, s.ID)
	exec(`INSERT INTO messages (session_id, role, author_id, author_name, content, created_at, archived_at, memory_id)
SELECT $1, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END, 'u' || (g % 5), 'ユーザー' || (g % 5),
       repeat('これはベンチマーク用のメッセージです。', 5), now() - ($2 - g) * interval '1 minute',
       CASE WHEN g <= $3 THEN now() END,
       CASE WHEN g <= $3 THEN (SELECT min(id) FROM memories WHERE session_id = $1) END
FROM generate_series(1, $2) g`, s.ID, n, archived)
	// Knowledge, notes and the knowledge base, in 50 spaces.
	exec(`INSERT INTO knowledge_entries (space, title, body)
SELECT 'guild:' || sp, 'ウェブで調べたこと ' || g, 'body' FROM generate_series(1, 15) g, generate_series(0, 49) sp`)
	exec(`INSERT INTO note_pages (space, title, content, section, position)
SELECT 'guild:' || sp, 'ページ' || g, repeat('ノートの内容です。', 30), 'セクション' || (g / 10), g - 1
FROM generate_series(1, 30) g, generate_series(0, 49) sp`)
	exec(`INSERT INTO session_note_pages (session_id, page_id)
VALUES ($1, (SELECT min(id) FROM note_pages WHERE space = $2))`, s.ID, string(benchSpace))
	rows := make([][]any, 500)
	for i := range rows {
		path := fmt.Sprintf("doc%d.md", i)
		switch i % 10 {
		case 1:
			path = fmt.Sprintf("spaces/%d/doc%d.md", i%50, i)
		case 2:
			path = fmt.Sprintf("web_search/guild-%d/doc%d.md", i%50, i)
		}
		rows[i] = []any{path, fmt.Sprint("doc ", i), strings.Repeat("ナレッジベースの文書です。", 80),
			fmt.Sprint(i), wideEmbed("", fmt.Sprint("doc", i)), "bge-m3"}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"local_knowledge_docs"},
		[]string{"path", "title", "content", "content_hash", "embedding", "embedding_model"}, pgx.CopyFromRows(rows)); err != nil {
		b.Fatal(err)
	}
	exec("ANALYZE")
}

// BenchmarkContextTalk is BenchmarkContext's 1,000-message session with
// and without a full channel talk buffer (talk.DefaultMessages messages of
// talk.MaxChars characters, read with Since as a turn reads it): what the
// talk adds to a turn's context assembly.
func BenchmarkContextTalk(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	key := memory.DiscordChannel("bench")
	seedSteadyState(b, pool, string(key), 1000)
	ollama := ollamatest.New(b)
	ollama.AddModel("bge-m3", "embedding")
	ollama.SetEmbed(wideEmbed)
	m := memory.New(pool, memory.Options{Location: time.UTC, Ollama: ollama.Client(), KnowledgeDir: b.TempDir()})
	b.Cleanup(m.Close)
	buf := talk.New(talk.Options{})
	now := time.Now()
	for i := range talk.DefaultMessages * 2 {
		buf.Add("bench", talk.Message{ID: fmt.Sprint(i), Author: "U1", Text: strings.Repeat("話", talk.MaxChars),
			At: now.Add(time.Duration(i-talk.DefaultMessages*2) * time.Second)})
	}
	for _, withTalk := range []bool{false, true} {
		b.Run(fmt.Sprint("talk=", withTalk), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var opts []memory.ContextOption
				if withTalk {
					opts = append(opts, memory.WithTalk(buf.Since("bench", now.Add(-talk.Window), now, "")))
				}
				if _, err := m.Context(ctx, key, benchSpace, "こんにちは、今の話どう思う？", opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecord stores one turn (the user's message and the answer) in a
// conversation: the transaction a turn's Begin hands to its commit, the
// context cache's triggers included.
func BenchmarkRecord(b *testing.B) {
	pool := dbtest.New(b)
	m := memory.New(pool, memory.Options{Location: time.UTC})
	b.Cleanup(m.Close)
	key := memory.DiscordChannel("bench")
	t0 := time.Now()
	i := 0
	for b.Loop() {
		i++
		at := t0.Add(time.Duration(i) * time.Second)
		err := m.Record(context.Background(), key, memory.Turn{Source: "discord", GuildID: "g1", ChannelID: "c1",
			User:  memory.MessageRecord{AuthorID: "u1", AuthorName: "たろう", Content: "今日は何をしようかな？", PlatformMessageID: fmt.Sprint("q", i), At: at},
			Reply: memory.MessageRecord{Content: "散歩はいかがでしょう。", Model: "qwen3:4b", At: at.Add(time.Millisecond)}})
		if err != nil {
			b.Fatal(err)
		}
	}
}
