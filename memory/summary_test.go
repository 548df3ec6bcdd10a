package memory_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestSummariesArchiveTheOldestTwenty(t *testing.T) {
	f := newFixture(t)
	m := f.memory(t, nil)
	key := memory.DiscordChannel("c1")
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

	seed(t, m, key, 14, t0) // 28 messages: not yet
	m.Close()               // let the background work of every turn finish
	if n := count(t, f.pool, "SELECT count(*) FROM memories"); n != 0 {
		t.Fatalf("%d summaries before 30 messages", n)
	}
	if n := f.ollama.ChatCalls(); n != 0 {
		t.Fatalf("%d model calls for 14 stored turns before a summary is due, want 0", n)
	}

	m = f.memory(t, nil)
	seed(t, m, key, 1, t0.Add(14*time.Minute)) // the 30th message
	eventually(t, "a summary", func() bool { return count(t, f.pool, "SELECT count(*) FROM memories") == 1 })
	eventually(t, "archived messages", func() bool {
		return count(t, f.pool, "SELECT count(*) FROM messages WHERE archived_at IS NOT NULL") == 20
	})
	// The oldest twenty (u0…a9) were summarised and point at the summary;
	// all thirty are still stored.
	if n := count(t, f.pool, `SELECT count(*) FROM messages m JOIN memories s ON s.id = m.memory_id
WHERE m.archived_at IS NOT NULL AND m.content ~ '^[ua][0-9]$'`); n != 20 {
		t.Errorf("%d of the oldest twenty archived with the summary", n)
	}
	if n := count(t, f.pool, "SELECT count(*) FROM messages"); n != 30 {
		t.Errorf("%d messages stored; archived ones must stay", n)
	}
	mems, err := m.Summaries(ctx, key)
	if err != nil || len(mems) != 1 {
		t.Fatalf("summaries = %v, %v", mems, err)
	}
	if !strings.Contains(mems[0].Content, "先頭=たろう: u0") || mems[0].MessageCount != 20 ||
		!mems[0].PeriodStart.Equal(t0) || !mems[0].PeriodEnd.Equal(t0.Add(9*time.Minute+time.Second)) {
		t.Errorf("summary = %+v", mems[0])
	}
	// The summary's tags came with it: one model call in all.
	if tags := summaryTags(t, f.pool, mems[0]); !slices.Equal(tags, []string{"テスト", "会話", "猫"}) {
		t.Errorf("summary tags = %q; want the ones of the summary's answer", tags)
	}
	m.Close()
	if n := f.ollama.ChatCalls(); n != 1 {
		t.Errorf("%d model calls for a summary, want 1", n)
	}

	msgs, err := f.memory(t, nil).Context(ctx, key, "", "続き")
	if err != nil {
		t.Fatal(err)
	}
	got := render(msgs)
	if !strings.Contains(got, "## 長期記憶") || strings.Contains(got, "u|たろう: u9 ") || !strings.Contains(got, "u|たろう: u10 a|a10") {
		t.Errorf("context after the summary:\n%s", got)
	}
}

func TestSummaryAnswers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   string
		want     string // the stored summary; "" when none may be stored
		wantTags []string
	}{
		{"summary and tags", `{"summary":"- 猫の話をした。","tags":["猫"," #ペット ","猫"]}`, "- 猫の話をした。", []string{"ペット", "猫"}},
		{"no tags: the summary's nouns", `{"summary":"- ラーメンと餃子の話をした。","tags":[]}`, "- ラーメンと餃子の話をした。", []string{"ラーメン", "餃子", "話"}},
		{"plain text: kept, tagged with its nouns", "- 将棋の話をした。", "- 将棋の話をした。", []string{"将棋", "話"}},
		{"broken JSON", `{"summary":"- 猫`, "", nil},
		{"empty summary", `{"summary":" ","tags":["猫"]}`, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			var answered atomic.Int32
			f.ollama.Handle(func(req api.ChatRequest) ollamatest.Reply {
				answered.Add(1)
				return ollamatest.Text(tc.answer)
			})
			m := f.memory(t, func(o *memory.Options) { o.SummarizeAt = 2 })
			key := memory.DiscordChannel("c1")
			seed(t, m, key, 2, time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))
			eventually(t, "the summary call", func() bool { return answered.Load() > 0 })
			if tc.want != "" {
				eventually(t, "the summary's tags", func() bool { return count(t, f.pool, "SELECT count(*) FROM memory_tags") > 0 })
			}
			m.Close() // a bad answer stores nothing, whether or not its run has ended
			mems, err := m.Summaries(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(mems) != 0 {
					t.Fatalf("stored %+v from a bad answer", mems)
				}
				if n := count(t, f.pool, "SELECT count(*) FROM messages WHERE archived_at IS NULL"); n != 4 {
					t.Errorf("%d messages left unsummarised, want all 4 (the next turn retries)", n)
				}
				return
			}
			if len(mems) != 1 || mems[0].Content != tc.want {
				t.Fatalf("summaries = %+v, want %q", mems, tc.want)
			}
			tags := summaryTags(t, f.pool, mems[0])
			slices.Sort(tc.wantTags)
			if !slices.Equal(tags, tc.wantTags) {
				t.Errorf("tags = %q, want %q", tags, tc.wantTags)
			}
		})
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
	// One snapshot for every read: a summary whose commit Close cut short
	// on the client may still land on the server between two reads.
	tx, err := f.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	live, err := db.LiveMemories(ctx, tx, s.ID)
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
	var archived, orphans int
	if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM messages WHERE archived_at IS NOT NULL),
       (SELECT count(*) FROM memories WHERE folded_into IS NOT NULL AND folded_into NOT IN (SELECT id FROM memories))`).
		Scan(&archived, &orphans); err != nil {
		t.Fatal(err)
	}
	if covered != archived {
		t.Errorf("live summaries cover %d messages; %d are archived", covered, archived)
	}
	// Folded summaries are kept, pointing at the fold.
	if orphans != 0 {
		t.Errorf("%d summaries folded into nothing", orphans)
	}
}

// summaryTags returns the tags of summary mem, sorted, as the admin page
// lists them.
func summaryTags(t *testing.T, pool *pgxpool.Pool, mem db.Memory) []string {
	t.Helper()
	items, err := db.ListMemories(context.Background(), pool, mem.SessionID, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ID == mem.ID {
			return it.Tags
		}
	}
	t.Fatalf("summary %d is not listed", mem.ID)
	return nil
}
