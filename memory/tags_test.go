package memory_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/memory/wordpool"
)

func TestTagsOfATurnWithoutTheModel(t *testing.T) {
	for _, tc := range []struct {
		name        string
		known       []string // what the word pool knew before the turn
		user, reply string
		wantUser    []string
		wantReply   []string
	}{
		{
			name: "own nouns, the most frequent first",
			user: "東京の天気と東京の桜について教えて。京都と奈良も。", reply: "桜は公園で見られます。",
			wantUser: []string{"東京", "天気", "桜"}, wantReply: []string{"桜", "公園", "東京"},
		},
		{
			name: "a noun people use lately beats a frequent one", known: []string{"奈良"},
			user: "東京の天気と東京の桜について教えて。京都と奈良も。", reply: "桜は公園で見られます。",
			wantUser: []string{"奈良", "東京", "天気"}, wantReply: []string{"桜", "公園", "奈良"},
		},
		{
			name: "a message without nouns takes the turn's",
			user: "ありがとう！", reply: "どういたしまして。ラーメン、楽しんでね。",
			wantUser: []string{"ラーメン"}, wantReply: []string{"ラーメン"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.ollama.Down() // tags never need the model
			pool := wordpool.New(0)
			pool.AddNouns(tc.known)
			m := f.memory(t, func(o *memory.Options) {
				o.Words = func(context.Context, memory.Space) memory.WordPool { return pool }
			})
			err := m.Record(context.Background(), memory.DiscordChannel("c1"), memory.Turn{
				User:  memory.MessageRecord{AuthorName: "たろう", Content: tc.user},
				Reply: memory.MessageRecord{Content: tc.reply},
			})
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, "tags of both messages", func() bool {
				return count(t, f.pool, "SELECT count(DISTINCT message_id) FROM message_tags") == 2
			})
			m.Close()
			slices.Sort(tc.wantUser)
			slices.Sort(tc.wantReply)
			if got := messageTags(t, f, tc.user); !slices.Equal(got, tc.wantUser) {
				t.Errorf("tags of the user message = %q, want %q", got, tc.wantUser)
			}
			if got := messageTags(t, f, tc.reply); !slices.Equal(got, tc.wantReply) {
				t.Errorf("tags of the reply = %q, want %q", got, tc.wantReply)
			}
			if n := f.ollama.ChatCalls(); n != 0 {
				t.Errorf("%d model calls to tag a turn, want 0", n)
			}
			// The user's nouns, not the reply's, joined the word pool.
			for _, w := range wordpool.Nouns(tc.user) {
				if !pool.Knows(w) {
					t.Errorf("word pool does not know %q of the user's message", w)
				}
			}
			if pool.Knows("公園") {
				t.Error("the reply's nouns joined the word pool")
			}
		})
	}
}

// messageTags returns the stored tags of the message with content, sorted.
func messageTags(t *testing.T, f *fixture, content string) []string {
	t.Helper()
	rows, _ := f.pool.Query(context.Background(),
		`SELECT t.tag FROM message_tags t JOIN messages m ON m.id = t.message_id WHERE m.content = $1`, content)
	tags, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(tags)
	return tags
}

// panickyPool is a word pool whose update panics on one word.
type panickyPool struct {
	*wordpool.Pool
	bad string
}

func (p panickyPool) AddNouns(nouns []string) {
	if slices.Contains(nouns, p.bad) {
		panic("word pool update failed on " + p.bad)
	}
	p.Pool.AddNouns(nouns)
}

// A background job that panics (here a word-pool update) is logged and
// skipped; the process lives on and later turns are still tagged.
func TestBackgroundPanicIsRecovered(t *testing.T) {
	f := newFixture(t)
	f.ollama.Down()
	pool := panickyPool{Pool: wordpool.New(0), bad: "爆弾"}
	var logs logtest.Buffer
	m := f.memory(t, func(o *memory.Options) {
		o.Words = func(context.Context, memory.Space) memory.WordPool { return pool }
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	record := func(text string) {
		t.Helper()
		err := m.Record(context.Background(), memory.DiscordChannel("c1"), memory.Turn{
			User:  memory.MessageRecord{AuthorName: "たろう", Content: text},
			Reply: memory.MessageRecord{Content: "はい。"},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	record("爆弾の話")
	// Both workers survive: more turns than workers are still tagged.
	for _, text := range []string{"東京の天気", "京都の桜", "奈良の鹿"} {
		record(text)
	}
	eventually(t, "the later turns tagged, with their nouns in the word pool", func() bool {
		return pool.Knows("東京") && pool.Knows("桜") && pool.Knows("鹿")
	})
	// Another worker may tag the later turns before the panicking one has
	// written its log line.
	eventually(t, "the panic logged", func() bool {
		return strings.Contains(logs.String(), "memory background job panicked")
	})
}

// Backfilling the tags of messages stored without them feeds each
// message's own space's word pool.
func TestBackfillTagsFeedsTheMessagesSpace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var mu sync.Mutex
	pools := map[memory.Space]*wordpool.Pool{}
	m := f.memory(t, func(o *memory.Options) {
		o.Words = func(_ context.Context, s memory.Space) memory.WordPool {
			mu.Lock()
			defer mu.Unlock()
			if pools[s] == nil {
				pools[s] = wordpool.New(0)
			}
			return pools[s]
		}
	})
	s, err := db.UpsertSession(ctx, f.pool, db.SessionParams{Key: "discord:channel:c1", Source: "discord", Space: "guild:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.InsertMessage(ctx, f.pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: "富士山に登りたい"}); err != nil {
		t.Fatal(err)
	}
	if n, err := m.BackfillTags(ctx, 100); err != nil || n != 1 {
		t.Fatalf("BackfillTags = %d, %v; want the one message", n, err)
	}
	eventually(t, "the message tagged", func() bool { return count(t, f.pool, "SELECT count(*) FROM message_tags") > 0 })
	m.Close()
	mu.Lock()
	defer mu.Unlock()
	if p := pools[memory.GuildSpace("1")]; p == nil || !p.Knows("富士山") {
		t.Errorf("guild:1's word pool lacks the backfilled message's 富士山; pools: %v", pools)
	}
}
