package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// Layer headings as Context writes them.
var layerHeads = []struct{ name, prefix string }{
	{"headings", "## 蓄積した知識"},
	{"notes", "## 共有ノート"},
	{"linked", "## リンクされたノート"},
	{"kb", "## ナレッジベース"},
	{"summaries", "## 長期記憶"},
	{"chain", "## 返信先の発言"},
}

// g1 is the space of the server the seeded turns come from.
var g1 = memory.GuildSpace("g1")

func layerOf(m api.Message) string {
	for _, l := range layerHeads {
		if m.Role == "system" && strings.HasPrefix(m.Content, l.prefix) {
			return l.name
		}
	}
	return ""
}

// populate fills every layer for session key: a knowledge entry, two note
// sections with a linked page, two KB files, a summary and three turns.
func populate(t *testing.T, f *fixture, m *memory.Memory, key memory.SessionKey, scale int) {
	t.Helper()
	ctx := context.Background()
	for i := range 15 * scale / scale {
		if _, err := db.InsertKnowledge(ctx, f.pool, db.KnowledgeParams{Space: string(g1),
			Title: fmt.Sprintf("猫の日の由来 その%d %s", i, strings.Repeat("補足", scale)), Body: "2月22日",
			Sources: []db.KnowledgeSource{{URL: "https://example.com/neko"}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		section := []string{"生活", "ペット"}[i%2]
		if _, err := m.WriteNote(ctx, g1, db.NoteEditor{SessionKey: string(key)}, fmt.Sprintf("ページ%d", i), strings.Repeat("ノートの本文です。", 2*scale), memory.NoteCreate, section); err != nil {
			t.Fatal(err)
		}
	}
	linked, err := m.WriteNote(ctx, g1, db.NoteEditor{SessionKey: string(key)}, "猫の名前候補", "タマ、ミケ、クロ\n"+strings.Repeat("候補の説明。", 20*scale), memory.NoteCreate, "ペット")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.kbDir, "pets/cat.md", "# 猫の飼い方\n猫には猫用のフードを。"+strings.Repeat("猫の健康のために水を用意する。", 10*scale))
	writeFile(t, f.kbDir, "food/ramen.md", "# ラーメンの作り方\nラーメンはスープから。")
	if err := m.SyncKnowledgeBase(ctx); err != nil {
		t.Fatal(err)
	}
	seed(t, m, key, 6*scale, time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))
	if err := m.SetLinkedNotes(ctx, key, []int64{linked.ID}); err != nil {
		t.Fatal(err)
	}
	s, err := db.SessionByKey(ctx, f.pool, string(key))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		at := time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC)
		if _, err := db.InsertMemory(ctx, f.pool, db.MemoryParams{SessionID: s.ID, Content: fmt.Sprintf("要約%d: %s", i, strings.Repeat("以前の会話。", 5*scale)),
			PeriodStart: at, PeriodEnd: at.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestContextLayersInOrder(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, func(o *memory.Options) { o.TokenBudget = 100000 })
	key := memory.DiscordChannel("c1")
	populate(t, f, m, key, 1)

	msgs, err := m.Context(context.Background(), key, g1, "猫の餌は何がいい？", memory.WithReplyChain(testChain(1)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range msgs[1:] {
		if l := layerOf(msg); l != "" {
			got = append(got, l)
		} else {
			got = append(got, msg.Role[:1])
		}
	}
	want := "headings notes linked kb summaries chain u a u a u a u a u a u a u"
	if strings.Join(got, " ") != want {
		t.Fatalf("layers = %s\nwant     %s", strings.Join(got, " "), want)
	}
	if !strings.HasPrefix(msgs[0].Content, memory.DefaultPersona) {
		t.Error("first message is not the persona")
	}
	checks := []struct {
		i        int
		has, not []string
	}{
		{1, []string{"猫の日の由来 その14", "猫の日の由来 その0", "read_knowledge"}, nil},
		{2, []string{"### 生活", "### ペット", "- ★ [", "猫の名前候補: タマ、ミケ、クロ", "- [1] ページ0: ノートの本文です。"}, nil},
		{3, []string{"### [", "猫の名前候補\nタマ、ミケ、クロ"}, []string{"ページ0"}},
		{4, []string{"猫の飼い方", "pets/cat.md", "信頼できる"}, []string{"ラーメン"}},
		{5, []string{"要約0", "要約1", "要約2"}, nil},
		{6, []string{"- [2026-10-01 00:00] たろう: 猫を飼いたい", "- [2026-10-01 00:01] あなた (よろず): 猫はいいですね",
			"最後が直接の返信先"}, []string{"u5"}},
	}
	for _, c := range checks {
		for _, s := range c.has {
			if !strings.Contains(msgs[c.i].Content, s) {
				t.Errorf("layer %s lacks %q:\n%s", got[c.i-1], s, msgs[c.i].Content)
			}
		}
		for _, s := range c.not {
			if strings.Contains(msgs[c.i].Content, s) {
				t.Errorf("layer %s has %q", got[c.i-1], s)
			}
		}
	}
	// Sections are grouped: every 生活 page is listed before the ペット heading.
	notes := msgs[2].Content
	if strings.Count(notes, "### 生活") != 1 || strings.Count(notes, "### ペット") != 1 {
		t.Errorf("sections not grouped:\n%s", notes)
	}
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != "猫の餌は何がいい？" {
		t.Errorf("last message = %+v", last)
	}
}

// layerTokens sums the estimated tokens per layer name ("recent" for history).
func layerTokens(msgs []api.Message) map[string]int {
	out := map[string]int{}
	for i, msg := range msgs {
		name := layerOf(msg)
		switch {
		case i == 0:
			name = "system"
		case i == len(msgs)-1:
			name = "user"
		case name == "":
			name = "recent"
		}
		out[name] += promptTokens([]api.Message{msg})
	}
	return out
}

func TestContextBudget(t *testing.T) {
	f := newFixture(t)
	key := memory.DiscordChannel("c1")
	m := f.memory(t, nil)
	populate(t, f, m, key, 8)
	// Stop the background summaries the seeding started: every budget below
	// must see the same stored history.
	m.Close()
	ctx := context.Background()
	chain := memory.WithReplyChain(testChain(8))
	full, err := f.memory(t, func(o *memory.Options) { o.TokenBudget = 1 << 20 }).Context(ctx, key, g1, "猫の餌は何がいい？", chain)
	if err != nil {
		t.Fatal(err)
	}
	need := layerTokens(full)
	total := promptTokens(full)
	slack := itemSlack(full)
	t.Logf("everything: %d tokens %v", total, need)

	// Give-way order: the first to go is listed first.
	order := []string{"kb", "linked", "notes", "headings", "chain", "summaries", "recent"}
	for _, budget := range []int{total, total - 300, total * 3 / 4, total / 2, total / 3, 3000, 2000, 1200} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			msgs, err := f.memory(t, func(o *memory.Options) { o.TokenBudget = budget }).Context(ctx, key, g1, "猫の餌は何がいい？", chain)
			if err != nil {
				t.Fatal(err)
			}
			got := layerTokens(msgs)
			if n := promptTokens(msgs); n > budget {
				t.Errorf("prompt is %d tokens; budget %d", n, budget)
			}
			// The newest turn and the user's message always stay.
			n := len(msgs)
			if msgs[n-1].Content != "猫の餌は何がいい？" || !strings.HasSuffix(msgs[n-2].Content, full[len(full)-2].Content) ||
				!strings.HasSuffix(msgs[n-3].Content, full[len(full)-3].Content) {
				t.Errorf("newest turn lost: %q %q", msgs[n-3].Content, msgs[n-2].Content)
			}
			// A layer that gave way to someone means every layer that gives
			// way before it gave way as far as it can: down to its share.
			shares := map[string]float64{"kb": 0.20, "linked": 0.15, "notes": 0.10, "headings": 0.05, "chain": 0.15, "summaries": 0.20, "recent": 0.30}
			for i, l := range order {
				if got[l] >= need[l] {
					continue
				}
				for _, earlier := range order[:i] {
					// Items are kept whole (only long texts are cut), so l
					// may have left room it could not use: its largest item.
					limit := int(shares[earlier]*float64(budget)) + slack[l]
					if got[earlier] > limit && got[earlier] > 0 {
						t.Errorf("%s gave way (%d of %d tokens) while %s, which gives way first, kept %d > its share %d",
							l, got[l], need[l], earlier, got[earlier], limit)
					}
				}
			}
			t.Logf("budget %d: %v", budget, got)
		})
	}

	t.Run("newest turn over budget", func(t *testing.T) {
		msgs, err := f.memory(t, func(o *memory.Options) { o.TokenBudget = 10 }).Context(ctx, key, g1, "猫？")
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 4 || msgs[0].Role != "system" || msgs[3].Content != "猫？" {
			t.Errorf("at a tiny budget got %d messages; want system, the newest turn and the user message", len(msgs))
		}
	})
}

// itemSlack is, per layer, its heading plus its largest item, in tokens.
func itemSlack(msgs []api.Message) map[string]int {
	out := map[string]int{}
	for _, msg := range msgs[1 : len(msgs)-1] {
		name := layerOf(msg)
		if name == "" {
			out["recent"] = max(out["recent"], promptTokens([]api.Message{msg}))
			continue
		}
		sep := "\n- "
		if name == "linked" || name == "kb" {
			sep = "\n### "
		}
		parts := strings.Split(msg.Content, sep)
		big := 0
		for _, p := range parts[1:] {
			big = max(big, memory.EstimateTokens(p)+2)
		}
		out[name] = big + memory.EstimateTokens(parts[0]) + memory.MessageOverhead
	}
	return out
}

// testChain is a reply chain, newest first: an old answer, the question it
// answered, and a message that is among the recent ones (u5 of seed with
// scale 1), which the chain layer leaves out.
func testChain(scale int) []memory.ChainMessage {
	t0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	return []memory.ChainMessage{
		{ID: "501 502", ReplyTo: "500", FromBot: true, Content: "猫はいいですね。" + strings.Repeat("猫の魅力を語る。", 10*scale), At: t0.Add(time.Minute)},
		{ID: "500", ReplyTo: "seed-u5", AuthorName: "たろう", Content: "猫を飼いたい", At: t0},
		{ID: "seed-u5", AuthorName: "はなこ", Content: "u5", At: t0.Add(-time.Minute)},
	}
}
