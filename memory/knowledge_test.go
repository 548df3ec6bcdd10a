package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestKnowledgeFromSearch(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, nil)
	ctx := context.Background()
	result := `[{"title":"猫の日 - Wikipedia","href":"https://ja.wikipedia.org/wiki/猫の日","body":"2月22日は猫の日"},` +
		`{"title":"猫の日とは","href":"https://example.jp/neko","body":"ニャンニャンニャン"}]`
	learn := func(tool, query, result string) {
		m.LearnLater(memory.LearnInput{Tool: tool, Query: query, Session: "discord:channel:c1", Result: result})
	}
	learn("web_search", "猫の日 いつ", result)
	learn("scrape_url", "猫の日", result)                 // not a search: teaches nothing
	learn("web_search", "犬の日", "Error: search failed") // nor does a failure
	learn("web_search", "犬の日", "[]")                   // or an empty result
	eventually(t, "a knowledge entry", func() bool {
		return count(t, f.pool, "SELECT count(*) FROM local_knowledge_docs WHERE path LIKE 'web_search/%'") == 1
	})
	if n := count(t, f.pool, "SELECT count(*) FROM knowledge_entries"); n != 1 {
		t.Fatalf("%d entries; want one, from web_search only", n)
	}
	e, srcs, err := m.Knowledge(ctx, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != "猫の日は2月22日" || e.Query != "猫の日 いつ" || e.SessionKey != "discord:channel:c1" || e.FilePath != "web_search/web/1-猫の日は2月22日.md" {
		t.Errorf("entry = %+v", e)
	}
	if len(srcs) != 2 || srcs[0].URL != "https://ja.wikipedia.org/wiki/猫の日" || srcs[1].Title != "猫の日とは" {
		t.Errorf("sources = %+v", srcs)
	}
	file, err := os.ReadFile(filepath.Join(f.kbDir, "web_search", "web", "1-猫の日は2月22日.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(file), "# 猫の日は2月22日\n") || !strings.Contains(string(file), "- [猫の日 - Wikipedia](https://ja.wikipedia.org/wiki/猫の日)") {
		t.Errorf("file:\n%s", file)
	}

	msgs, err := m.Context(ctx, memory.DiscordChannel("c2"), "", "猫の日はいつ？")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs[1].Content, "- [1] 猫の日は2月22日") {
		t.Errorf("layer 1 = %q", msgs[1].Content)
	}
	if layerOf(msgs[2]) != "kb" || !strings.Contains(msgs[2].Content, "**2月22日**") {
		t.Errorf("layer 3 = %q", msgs[2].Content)
	}
	// A full sync keeps the entry's file indexed as it is.
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, f.pool, "SELECT count(*) FROM local_knowledge_docs"); n != 1 {
		t.Errorf("%d docs after sync", n)
	}
}

func TestKnowledgeBaseSync(t *testing.T) {
	f := newFixture(t)
	var embedded atomic.Int32
	f.ollama.SetEmbed(func(model, in string) []float32 {
		embedded.Add(1)
		return topicEmbed(model, in)
	})
	ctx := context.Background()
	writeFile(t, f.kbDir, "pets/cat.md", "# 猫の飼い方\n猫の餌")
	writeFile(t, f.kbDir, "pets/cat2.md", "猫と将棋")
	writeFile(t, f.kbDir, "food/ramen.md", "# ラーメン\nラーメン")
	writeFile(t, f.kbDir, "notes.txt", "猫") // not Markdown
	m := f.memory(t, nil)
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	if n := embedded.Load(); n != 3 {
		t.Errorf("embedded %d files; want 3", n)
	}
	kb := func(m *memory.Memory, text string) string {
		t.Helper()
		msgs, err := m.Context(ctx, memory.Web("admin"), "", text)
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range msgs {
			if layerOf(msg) == "kb" {
				return msg.Content
			}
		}
		return ""
	}
	got := kb(m, "猫の餌について")
	if !strings.Contains(got, "### 猫の飼い方 (pets/cat.md)") || strings.Contains(got, "ramen") {
		t.Errorf("kb layer for 猫:\n%s", got)
	}
	// cat2 (猫 and 将棋) is at cosine ~0.71 from a message about 猫 only.
	if strings.Contains(got, "cat2.md") {
		t.Errorf("a file below 0.75 was included:\n%s", got)
	}
	if got := kb(m, "今日の天気"); got != "" {
		t.Errorf("kb layer for an unrelated message:\n%s", got)
	}

	t.Run("unchanged files are not embedded again", func(t *testing.T) {
		embedded.Store(0)
		if err := m.SyncKnowledgeBase(ctx); err != nil {
			t.Fatal(err)
		}
		if n := embedded.Load(); n != 0 {
			t.Errorf("embedded %d files", n)
		}
	})
	t.Run("a changed file is embedded again", func(t *testing.T) {
		embedded.Store(0)
		writeFile(t, f.kbDir, "food/ramen.md", "# ラーメンと猫\n猫舌でも食べられるラーメン。猫")
		if err := m.SyncKnowledgeBase(ctx); err != nil {
			t.Fatal(err)
		}
		if n := embedded.Load(); n != 1 {
			t.Errorf("embedded %d files", n)
		}
	})
	t.Run("a removed file leaves the index", func(t *testing.T) {
		if err := os.Remove(filepath.Join(f.kbDir, "pets", "cat.md")); err != nil {
			t.Fatal(err)
		}
		if err := m.SyncKnowledgeBase(ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(t, f.pool, "SELECT count(*) FROM local_knowledge_docs WHERE path = 'pets/cat.md'"); n != 0 {
			t.Error("removed file still indexed")
		}
		if got := kb(m, "猫の餌について"); strings.Contains(got, "cat.md") {
			t.Errorf("removed file still in the context:\n%s", got)
		}
	})
	t.Run("a new model embeds everything again", func(t *testing.T) {
		embedded.Store(0)
		other := f.memory(t, func(o *memory.Options) { o.EmbedModel = "other-embed" })
		if err := other.SyncKnowledgeBase(ctx); err != nil {
			t.Fatal(err)
		}
		if n := embedded.Load(); n != 2 {
			t.Errorf("embedded %d files; want both again", n)
		}
		stamps, err := db.LocalDocStamps(ctx, f.pool)
		if err != nil || len(stamps) != 2 || stamps[0].EmbeddingModel != "other-embed" || stamps[1].EmbeddingModel != "other-embed" {
			t.Errorf("index after the new model's sync = %+v, %v; want both files embedded with other-embed", stamps, err)
		}
		if got := kb(other, "猫舌"); !strings.Contains(got, "ramen.md") {
			t.Errorf("kb layer with the new model:\n%s", got)
		}
	})
	t.Run("an embedding failure drops the layer only", func(t *testing.T) {
		f.ollama.Status(500)
		defer f.ollama.Status(0)
		msgs, err := m.Context(ctx, memory.Web("admin"), "", "猫舌")
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range msgs {
			if layerOf(msg) == "kb" {
				t.Error("kb layer without an embedding")
			}
		}
		if msgs[len(msgs)-1].Content != "猫舌" {
			t.Errorf("context = %+v", msgs)
		}
	})
}

func TestEmbedsTheUserMessageOncePerTurn(t *testing.T) {
	f := newFixture(t)
	var inputs atomic.Int32
	f.ollama.SetEmbed(func(model, in string) []float32 { inputs.Add(1); return topicEmbed(model, in) })
	m := f.memory(t, nil)

	// An empty knowledge base costs no embedding at all.
	if _, err := m.Context(context.Background(), memory.Web("admin"), "", "猫"); err != nil {
		t.Fatal(err)
	}
	if n := inputs.Load(); n != 0 {
		t.Errorf("%d embeddings with an empty knowledge base, want none", n)
	}

	writeFile(t, f.kbDir, "pets/cat.md", "# 猫の飼い方\n猫には猫用のフードを。")
	if err := m.SyncKnowledgeBase(context.Background()); err != nil {
		t.Fatal(err)
	}
	inputs.Store(0)
	if _, err := m.Context(context.Background(), memory.Web("admin"), "", "猫"); err != nil {
		t.Fatal(err)
	}
	if n := inputs.Load(); n != 1 {
		t.Errorf("%d embeddings for one turn, want 1", n)
	}
	_ = api.Message{}
}

func TestKnownSearchResultCostsNoModelCall(t *testing.T) {
	f := newFixture(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	m := f.memory(t, func(o *memory.Options) { o.Now = func() time.Time { return now } })
	ctx := context.Background()
	hits := func(urls ...string) string {
		var items []string
		for _, u := range urls {
			items = append(items, `{"title":"t","href":"`+u+`","body":"b"}`)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	learn := func(query, result string) db.KnowledgeEntry {
		t.Helper()
		e, err := m.Learn(ctx, memory.LearnInput{Tool: "web_search", Query: query, Space: memory.GuildSpace("g1"), Result: result})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	first := learn("猫の日", hits("https://a.example/", "https://b.example/"))
	for _, tc := range []struct {
		name      string
		query     string
		result    string
		later     time.Duration
		wantCalls int
	}{
		{"same query and sources, in another order", "猫の日", hits("https://b.example/", "https://a.example/"), time.Hour, 1},
		{"another source", "猫の日", hits("https://a.example/", "https://c.example/"), time.Hour, 2},
		{"another query", "猫の日 由来", hits("https://a.example/", "https://b.example/"), time.Hour, 3},
		{"a day later", "猫の日", hits("https://a.example/", "https://b.example/"), 25 * time.Hour, 4},
	} {
		now = now.Add(tc.later)
		e := learn(tc.query, tc.result)
		if got := f.ollama.ChatCalls(); got != tc.wantCalls {
			t.Errorf("%s: %d model calls in all, want %d", tc.name, got, tc.wantCalls)
		}
		if tc.wantCalls == 1 && e.ID != first.ID {
			t.Errorf("%s: entry %d, want the known %d", tc.name, e.ID, first.ID)
		}
	}
}

// The knowledge base's cache holds every file's vector but only the texts
// of the files found lately, within its bounds; a text let go is read again
// when a search finds its file, and a sync that changed one file reads only
// that row again.
func TestKnowledgeBaseCacheBounds(t *testing.T) {
	f := newFixture(t)
	f.ollama.SetEmbed(topicEmbed)
	ctx := context.Background()
	files := map[string]string{
		"cat.md":    "# 猫\n猫の話。",
		"ramen.md":  "# ラーメン\nラーメンの話。",
		"shogi.md":  "# 将棋\n将棋の話。",
		"python.md": "# Python\npythonの話。",
	}
	for name, text := range files {
		writeFile(t, f.kbDir, name, text)
	}
	m := f.memory(t, func(o *memory.Options) { o.KBCacheFiles = 2 })
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	layer := func(text string) string {
		t.Helper()
		msgs, err := m.Context(ctx, memory.Web("admin"), "", text)
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range msgs {
			if layerOf(msg) == "kb" {
				return msg.Content
			}
		}
		return ""
	}
	for _, q := range []string{"猫", "ラーメン", "将棋", "python", "猫"} {
		if got := layer(q + "について"); !strings.Contains(got, q+"の話") {
			t.Errorf("kb layer for %s:\n%s", q, got)
		}
		if s := m.KnowledgeCache(); s.Files != 4 || s.Texts > 2 {
			t.Errorf("after %s the cache holds %+v, want 4 files and at most 2 texts", q, s)
		}
	}
	before := m.KnowledgeCache().Loaded

	writeFile(t, f.kbDir, "ramen.md", "# ラーメン\nラーメンの新しい話。")
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	if got := layer("ラーメン"); !strings.Contains(got, "ラーメンの新しい話") {
		t.Errorf("kb layer after the change:\n%s", got)
	}
	if read := m.KnowledgeCache().Loaded - before; read != 1 {
		t.Errorf("%d rows read after one file changed, want 1", read)
	}
}
