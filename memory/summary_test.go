package memory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestSummariesArchiveTheOlderHalf(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, nil)
	key := memory.DiscordChannel("c1")
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

	seed(t, m, key, 9, t0) // 18 messages: not yet
	eventually(t, "tags of the 18 messages", func() bool {
		return count(t, f.pool, "SELECT count(DISTINCT message_id) FROM message_tags") == 18
	})
	if n := count(t, f.pool, "SELECT count(*) FROM memories"); n != 0 {
		t.Fatalf("%d summaries before 20 messages", n)
	}

	seed(t, m, key, 1, t0.Add(9*time.Minute)) // the 20th message
	eventually(t, "a summary", func() bool { return count(t, f.pool, "SELECT count(*) FROM memories") == 1 })
	eventually(t, "archived messages", func() bool {
		return count(t, f.pool, "SELECT count(*) FROM messages WHERE archived_at IS NOT NULL") == 10
	})
	// The oldest ten (u0…a4) were summarised and point at the summary; all
	// twenty are still stored.
	if n := count(t, f.pool, `SELECT count(*) FROM messages m JOIN memories s ON s.id = m.memory_id
WHERE m.archived_at IS NOT NULL AND m.content IN ('u0','a0','u1','a1','u2','a2','u3','a3','u4','a4')`); n != 10 {
		t.Errorf("%d of the oldest ten archived with the summary", n)
	}
	if n := count(t, f.pool, "SELECT count(*) FROM messages"); n != 20 {
		t.Errorf("%d messages stored; archived ones must stay", n)
	}
	mems, err := m.Summaries(ctx, key)
	if err != nil || len(mems) != 1 {
		t.Fatalf("summaries = %v, %v", mems, err)
	}
	if !strings.Contains(mems[0].Content, "先頭=たろう: u0") || mems[0].MessageCount != 10 ||
		!mems[0].PeriodStart.Equal(t0) || !mems[0].PeriodEnd.Equal(t0.Add(4*time.Minute+time.Second)) {
		t.Errorf("summary = %+v", mems[0])
	}
	eventually(t, "summary tags", func() bool {
		return count(t, f.pool, "SELECT count(*) FROM memory_tags WHERE memory_id = $1", mems[0].ID) == 3
	})

	msgs, err := m.Context(ctx, key, "", "続き")
	if err != nil {
		t.Fatal(err)
	}
	got := render(msgs)
	if !strings.Contains(got, "## 長期記憶") || strings.Contains(got, "u|たろう: u4 ") || !strings.Contains(got, "u|はなこ: u5 a|a5") {
		t.Errorf("context after the summary:\n%s", got)
	}
}

func TestSummariesFoldWhenOverTheirShare(t *testing.T) {
	f := newFixture(t)
	// A budget of 600 gives summaries 120 tokens: about four of the fake's.
	m := f.memory(t, func(o *memory.Options) { o.TokenBudget = 600; o.SummarizeAt = 4 })
	key := memory.DiscordChannel("c1")
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	for i := range 30 {
		seed(t, m, key, 1, t0.Add(time.Duration(i)*time.Minute))
	}
	// A run writes at most a few summaries, so on a slow machine a backlog
	// may wait for the next turn; the fold and its invariants do not.
	eventually(t, "a folded summary", func() bool {
		return count(t, f.pool, "SELECT count(*) FROM memories WHERE folded_into IS NOT NULL") > 0
	})
	m.Close() // stop background work before reading
	ctx := context.Background()
	s, err := db.SessionByKey(ctx, f.pool, string(key))
	if err != nil {
		t.Fatal(err)
	}
	live, err := db.LiveMemories(ctx, f.pool, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if live[0].Content[:len("まとめ")] != "まとめ" {
		t.Errorf("oldest live summary %q is not a fold", live[0].Content)
	}
	// Every summarised message is covered by exactly one live summary.
	covered := 0
	for _, l := range live {
		covered += l.MessageCount
	}
	if archived := count(t, f.pool, "SELECT count(*) FROM messages WHERE archived_at IS NOT NULL"); covered != archived {
		t.Errorf("live summaries cover %d messages; %d are archived", covered, archived)
	}
	// Folded summaries are kept, pointing at the fold.
	if n := count(t, f.pool, "SELECT count(*) FROM memories WHERE folded_into IS NOT NULL AND folded_into NOT IN (SELECT id FROM memories)"); n != 0 {
		t.Errorf("%d summaries folded into nothing", n)
	}
}

func TestTagsFromNounsWhenTheModelIsDown(t *testing.T) {
	f := newFixture(t)
	f.ollama.Down()
	m := f.memory(t, nil)
	err := m.Record(context.Background(), memory.DiscordChannel("c1"), memory.Turn{
		User:  memory.MessageRecord{AuthorName: "たろう", Content: "東京の天気と東京の桜について教えて。東京タワーも。"},
		Reply: memory.MessageRecord{Content: "桜は四月に咲きます。"},
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "noun tags", func() bool { return count(t, f.pool, "SELECT count(*) FROM message_tags") >= 4 })
	tags, err := db.MessageTags(context.Background(), f.pool, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 3 || !contains(tags, "東京") {
		t.Errorf("tags of the user message = %q; want 3 nouns, 東京 among them", tags)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
